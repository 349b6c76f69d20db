"""What a run of decoded frame indices says about presentation: drops, repeats, order.

Input is the per-frame results in capture order (``core.decode.job.FrameReading``
or anything with ``position``, ``timestamp``, ``index``, ``status`` and
``indices``), captured at the display's rate or faster.  Indices wrap modulo
``2**bits``; they are unwrapped by taking each step as the shortest way round,
so a counter may wrap any number of times (a gap of half the modulus or more
cannot be told from going backwards).

* dropped: indices between the first and last seen that no frame showed
  (a torn frame shows both of its indices);
* repeated: an index held for longer than one presentation.  The captures per
  presentation ``k`` is ``capture_fps / display_fps`` when both are known,
  else estimated from how long indices are held; a hold longer than both
  1.5k and ceil(k) captures counts round(hold / k) - 1 (at least 1) extra
  presentations;
* out of order: an index older than one already seen (not its own repeat);
* torn, undecodable and unreadable frames, and each wrap of the counter.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

MAX_LISTED_DROPS = 100_000   # longer gaps are counted, not listed


@dataclass
class SequenceReport:
    summary: dict
    events: list[dict]

    def to_dict(self) -> dict:
        return {"summary": self.summary, "events": self.events}


def analyse(results: Sequence, modulus: int, capture_fps: float | None = None,
            display_fps: float | None = None) -> SequenceReport:
    if modulus < 2:
        raise ValueError(f"counter modulus must be at least 2, got {modulus}")
    events: list[dict] = []
    counts = {s: 0 for s in ("ok", "torn", "undecodable", "unreadable")}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1

    # -- unwrap every observed index (a torn frame observes each of its indices, top first)
    last_u: int | None = None
    hi: int | None = None
    lo: int | None = None
    seen: set[int] = set()
    jumps: list[tuple[object, int, int]] = []   # (result, high-water before, u)
    out_of_order = 0
    wraps = 0
    unwrapped: list[int | None] = []            # per result: the unwrapped top index
    for r in results:
        if r.status == "ok":
            obs = [r.index]
        elif r.status == "torn":
            obs = list(r.indices) or [r.index]
        else:
            unwrapped.append(None)
            continue
        first_u = None
        for idx in obs:
            idx = int(idx) % modulus
            if last_u is None:
                u = idx
            else:
                step = (idx - last_u) % modulus
                if step > modulus // 2:
                    step -= modulus
                u = last_u + step
                if u // modulus > last_u // modulus and u > (hi if hi is not None else u):
                    wraps += 1
                    events.append(_event("wrap", r, index=idx))
            if hi is not None and u < hi and u != last_u:
                out_of_order += 1
                events.append(_event("out_of_order", r, index=idx, expected_after=hi % modulus))
            if hi is not None and u > hi + 1:
                jumps.append((r, hi, u))
            hi = u if hi is None else max(hi, u)
            lo = u if lo is None else min(lo, u)
            seen.add(u)
            last_u = u
            if first_u is None:
                first_u = u
        unwrapped.append(first_u)

    # -- drops: gaps in the high-water mark never filled later
    dropped: list[int] = []
    dropped_count = 0
    for r, h0, u in jumps:
        gap = u - h0 - 1
        if gap > MAX_LISTED_DROPS:
            dropped_count += gap
            events.append(_event("drop", r, count=gap, after=h0 % modulus, before=u % modulus))
            continue
        missing = [v for v in range(h0 + 1, u) if v not in seen]
        if missing:
            dropped_count += len(missing)
            if len(dropped) < MAX_LISTED_DROPS:
                dropped.extend(v % modulus for v in missing)
            events.append(_event("drop", r, indices=[v % modulus for v in missing[:64]],
                                 count=len(missing), after=h0 % modulus, before=u % modulus))

    # -- holds: runs of whole (ok) frames showing one index
    runs = _runs(results, unwrapped)
    if capture_fps and display_fps:
        k = capture_fps / display_fps
        k_source = "rates"
    else:
        k = _captures_per_presentation([n for _, n, _ in runs])
        k_source = "holds"
    repeated = 0
    for u, n, first in runs:
        if n > repeat_threshold(k):
            extra = max(1, round(n / k) - 1)
            repeated += extra
            events.append(_event("repeat", first, index=u % modulus, captures=n, extra=extra))

    # -- torn, undecodable and unreadable frames (runs of the latter two folded into one event)
    for r in results:
        if r.status == "torn":
            events.append(_event("torn", r, indices=[int(i) for i in r.indices]))
    for status in ("undecodable", "unreadable"):
        run: list = []
        for r in list(results) + [None]:
            if r is not None and r.status == status:
                run.append(r)
                continue
            if run:
                ev = _event(status, run[0], count=len(run))
                if len(run) > 1:
                    ev["last_position"] = run[-1].position
                note = run[0].note
                if note:
                    ev["note"] = note
                events.append(ev)
                run = []
    events.sort(key=lambda e: (e["position"], _ORDER.get(e["kind"], 9)))

    times = [r.timestamp for r in results if r.timestamp is not None]
    duration = (max(times) - min(times)) if len(times) > 1 else None
    if display_fps is None and capture_fps and k > 0:
        display_est = capture_fps / k
    else:
        display_est = display_fps
    summary = {
        "frames": len(results),
        "read": len(results) - counts["unreadable"],
        "decoded": counts["ok"] + counts["torn"],
        "ok": counts["ok"],
        "undecodable": counts["undecodable"],
        "torn": counts["torn"],
        "unreadable": counts["unreadable"],
        "dropped": dropped,
        "dropped_count": dropped_count,
        "repeated": repeated,
        "out_of_order": out_of_order,
        "wraps": wraps,
        "first_index": None if lo is None else _first_index(results, modulus),
        "last_index": None if last_u is None else last_u % modulus,
        "distinct_indices": len(seen),
        "captures_per_frame": round(k, 3),
        "captures_per_frame_from": k_source,
        "capture_fps": capture_fps,
        "display_fps": None if display_est is None else round(display_est, 3),
        "duration_s": None if duration is None else round(duration, 6),
        "modulus": modulus,
    }
    return SequenceReport(summary, events)


_ORDER = {"unreadable": 0, "undecodable": 1, "torn": 2, "wrap": 3, "drop": 4, "out_of_order": 5,
          "repeat": 6}


def _first_index(results, modulus):
    for r in results:
        if r.status in ("ok", "torn"):
            return int(r.index) % modulus
    return None


def _event(kind: str, r, **extra) -> dict:
    d = {"kind": kind, "position": r.position,
         "timestamp": None if r.timestamp is None else round(float(r.timestamp), 6)}
    d.update(extra)
    return d


def _runs(results, unwrapped) -> list[tuple[int, int, object]]:
    """(unwrapped index, captures, first result) for every hold of whole frames.

    Undecodable or unreadable frames between two frames of the same index are
    counted in its hold; a torn frame ends a hold and starts none.
    """
    runs: list[tuple[int, int, object]] = []
    cur_u, cur_n, cur_first, gap = None, 0, None, 0
    for r, u in zip(results, unwrapped, strict=True):
        if r.status == "ok":
            if u == cur_u:
                cur_n += gap + 1
            else:
                if cur_u is not None:
                    runs.append((cur_u, cur_n, cur_first))
                cur_u, cur_n, cur_first = u, 1, r
            gap = 0
        elif r.status == "torn":
            if cur_u is not None:
                runs.append((cur_u, cur_n, cur_first))
            cur_u, cur_n, cur_first, gap = None, 0, None, 0
        else:
            gap += 1
    if cur_u is not None:
        runs.append((cur_u, cur_n, cur_first))
    return runs


def _captures_per_presentation(lengths: list[int]) -> float:
    """Typical hold in captures, from the holds themselves (repeats are what is looked for).

    Normal holds are floor(k) or ceil(k) captures.  When one length, the lower
    quartile, makes up 60 % or more of the holds, the capture is taken as locked
    to a whole multiple of the display rate and k is that length; otherwise
    (holds of 2 and 3 alternating at 2.5x) k is the mean of the holds no more
    than one capture longer.  A ratio between 1 and 1.5 cannot be told from
    repeats this way: give both rates.
    """
    if not lengths:
        return 1.0
    ordered = sorted(lengths)
    q = ordered[(len(ordered) - 1) // 4]
    if sum(1 for n in lengths if n == q) >= 0.6 * len(lengths):
        return float(max(1, q))
    kept = [n for n in lengths if n <= q + 1]
    return max(1.0, statistics.fmean(kept))


def repeat_threshold(k: float) -> float:
    """Captures above which a hold is a repeat: 1.5k, and past the longer normal hold ceil(k)."""
    return max(1.5 * k, math.ceil(k - 1e-9) + 0.5)
