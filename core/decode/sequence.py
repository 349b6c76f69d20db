"""What a run of decoded frame indices says about presentation: drops, repeats, order, gaps.

Input is the per-frame results in capture order (``core.decode.job.FrameReading``
or anything with ``position``, ``timestamp``, ``index``, ``status`` and
``indices``), captured at the display's rate or faster, or slower with both rates
given (then only what the rate ratio proves is a drop).  Indices wrap modulo
``2**bits``; they are unwrapped by taking each step as the shortest way round,
so a counter may wrap any number of times (a gap of half the modulus or more
cannot be told from going backwards).

* dropped: display drops only -- indices between two decoded frames that no frame showed
  (a torn frame shows both of its indices);
* gaps: undecodable and unreadable captures are frames of unknown content, never drops.
  Each may have shown one index nobody saw (captures come at least as often as
  presentations), so indices missing across a gap are counted as ``gap_indices`` up to the
  number of gap frames, and only the rest as dropped;
* unobservable: with both rates known and the capture slower than the display, indices
  missing between two captures that the display may have shown between them (up to what
  the rate ratio allows: :mod:`core.decode.unseen`), listed as ``unobservable_indices``,
  never as drops; only a jump beyond what the ratio allows is a drop, counted;
* repeated: an index held for longer than one presentation.  The captures per
  presentation ``k`` is ``capture_fps / display_fps`` when both are known,
  else estimated from how long indices are held; a hold longer than both
  1.5k and ceil(k) captures counts round(hold / k) - 1 (at least 1) extra
  presentations;
* frozen: every decoded frame shows one index.  With both rates known and the hold longer
  than a presentation, the display froze for the whole capture (``frozen: true``, one
  ``freeze`` event); without them a freeze cannot be told from a capture of one
  presentation (``frozen: null``);
* out of order: one stale frame, an index older than one already seen, after which the
  counter returns to where it was;
* jump back: the counter goes back and carries on from there (a restart): one event, and
  the frames after it are a new run (its drops are judged against what it showed);
* torn, undecodable and unreadable frames, and each wrap of the counter.

A derived figure no decoded frame supports is not made up: ``captures_per_frame`` and an
estimated ``display_fps`` are None then, and the summary's ``unknown`` names each such figure
(counts included: nothing decoded counts no drop) with why (:func:`unknown_figures`).

One module, just over 400 lines, because it is one pass over the readings in capture order:
each event above is judged from the state the events before it left, so splitting the rules
apart would pass that state between modules.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.decode.unseen import EVENT_LISTED, presentations_between

MAX_LISTED_DROPS = 100_000   # longer gaps are counted, not listed
GAP_STATUSES = ("undecodable", "unreadable")


@dataclass
class SequenceReport:
    summary: dict
    events: list[dict]

    def to_dict(self) -> dict:
        return {"summary": self.summary, "events": self.events}


def _observations(results: Sequence, modulus: int) -> list[tuple[int, Any, int, int]]:
    """(result number, result, unwrapped index, index) for every index seen, in order (a torn
    frame observes each of its indices, top first)."""
    out: list[tuple[int, Any, int, int]] = []   # Any: the result, as the caller's Sequence holds it
    last: int | None = None
    for i, r in enumerate(results):
        if r.status == "ok":
            shown = [r.index]
        elif r.status == "torn":
            shown = list(r.indices) or [r.index]
        else:
            continue
        for idx in shown:
            idx = int(idx) % modulus
            if last is None:
                u = idx
            else:
                step = (idx - last) % modulus
                if step > modulus // 2:
                    step -= modulus
                u = last + step
            out.append((i, r, u, idx))
            last = u
    return out


def _next_other(obs, j: int) -> int | None:
    """The next observed index after ``obs[j]`` that differs from it (None at the end)."""
    u = obs[j][2]
    for k in range(j + 1, len(obs)):
        if obs[k][2] != u:
            return obs[k][2]
    return None


def analyse(results: Sequence, modulus: int, capture_fps: float | None = None,
            display_fps: float | None = None) -> SequenceReport:
    if modulus < 2:
        raise ValueError(f"counter modulus must be at least 2, got {modulus}")
    results = list(results)
    events: list[dict] = []
    counts = {s: 0 for s in ("ok", "torn", "undecodable", "unreadable")}
    gaps_before = [0]          # gap frames among results[:i]
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
        gaps_before.append(gaps_before[-1] + (r.status in GAP_STATUSES))

    obs = _observations(results, modulus)
    hi: int | None = None
    last_u: int | None = None
    prev_i = -1
    seen: set[int] = set()      # every index seen
    run_seen: set[int] = set()  # indices seen since the last jump back
    # (result, high-water, u, run, gap frames, captures and seconds since the high-water was seen)
    jumps: list[tuple[Any, int, int, set, int, int, float | None]] = []
    hi_at = 0                   # the last result that showed the high-water mark
    out_of_order = jumps_back = wraps = 0
    unwrapped: list[int | None] = [None] * len(results)   # per result: the unwrapped top index
    for j, (i, r, u, idx) in enumerate(obs):
        if hi is not None and last_u is not None:   # (set together, from the first observation)
            if u // modulus > last_u // modulus and u > hi:
                wraps += 1
                events.append(_event("wrap", r, index=idx))
            if u < hi and u != last_u:
                after = _next_other(obs, j)
                if after is None or after >= hi:
                    out_of_order += 1
                    events.append(_event("out_of_order", r, index=idx, expected_after=hi % modulus))
                else:   # the counter carries on from here: a new run
                    jumps_back += 1
                    events.append(_event("jump_back", r, index=idx, after=hi % modulus, back=hi - u))
                    hi, run_seen = u, set()
            elif u > hi + 1:
                gap = gaps_before[i] - gaps_before[prev_i + 1] if i > prev_i else 0
                t0 = results[hi_at].timestamp
                dt = None if r.timestamp is None or t0 is None else float(r.timestamp) - float(t0)
                jumps.append((r, hi, u, run_seen, gap, i - hi_at, dt))
        hi = u if hi is None else max(hi, u)
        if u == hi:
            hi_at = i
        seen.add(u)
        run_seen.add(u)
        last_u = u
        if unwrapped[i] is None:
            unwrapped[i] = u
        prev_i = i

    # -- drops: gaps in the high-water mark never filled later; a gap of unknown frames may hide
    # one index per frame; a capture slower than the display, what the rate ratio allows
    slower = bool(capture_fps and display_fps and display_fps > capture_fps)
    dropped: list[int] = []
    unobservable: list[int] = []
    dropped_count = gap_indices = unobservable_n = 0
    for r, h0, u, run_indices, gap, periods, dt in jumps:
        span = u - h0 - 1
        if span > MAX_LISTED_DROPS:
            missing_n, missing = span, []
        else:
            missing = [v for v in range(h0 + 1, u) if v not in run_indices]
            missing_n = len(missing)
        if missing_n == 0:
            continue
        where = {"after": h0 % modulus, "before": u % modulus}
        if slower:   # at most one presentation per capture seen: the rest may have been shown unseen
            assert display_fps is not None and capture_fps is not None   # slower: both are known
            hidden = min(missing_n, presentations_between(display_fps, capture_fps, periods, dt) - 1)
        else:
            hidden = min(missing_n, gap)
        lost = missing_n - hidden
        listed = [v % modulus for v in missing] if 0 < len(missing) <= EVENT_LISTED else None
        if hidden and gap:
            gap_indices += hidden
            events.append(_event("gap", r, frames=gap, indices_unknown=hidden, **where))
        elif hidden:
            unobservable_n += hidden
            if not lost:
                if len(unobservable) < MAX_LISTED_DROPS:
                    unobservable.extend(v % modulus for v in missing)
                events.append(_event("unobservable", r, count=hidden, indices=listed or [], **where))
        if not lost:
            continue
        dropped_count += lost
        if hidden or not missing:   # which of them were shown unseen is not known: counted, not listed
            unseen = {"unobservable": hidden, "missing": listed} if hidden and not gap and listed else {}
            events.append(_event("drop", r, count=lost, **unseen, **where))
            continue
        if len(dropped) < MAX_LISTED_DROPS:
            dropped.extend(v % modulus for v in missing)
        events.append(_event("drop", r, indices=[v % modulus for v in missing[:64]], count=lost, **where))

    # -- holds: runs of whole (ok) frames showing one index
    runs = _runs(results, unwrapped)
    rates_known = bool(capture_fps and display_fps)
    if rates_known:
        assert capture_fps is not None and display_fps is not None   # rates_known: both are
        k = capture_fps / display_fps
        k_source = "rates"
    else:
        k = _captures_per_presentation([n for _, n, _ in runs])
        k_source = "holds"
    decoded = counts["ok"] + counts["torn"]
    single = len(seen) == 1 and decoded >= 2
    # None: cannot tell (fewer than two frames read, or one index at unknown rates)
    frozen: bool | None = None if decoded < 2 or (single and not rates_known) else False
    repeated = 0
    for u, n, first in runs:
        if n > repeat_threshold(k):
            extra = max(1, round(n / k) - 1)
            repeated += extra
            if single:   # one index for the whole capture, at known rates: the display froze
                frozen = True
                events.append(_event("freeze", first, index=u % modulus, captures=n, extra=extra))
            else:
                events.append(_event("repeat", first, index=u % modulus, captures=n, extra=extra))

    # -- torn, undecodable and unreadable frames (runs of the latter two folded into one event)
    for r in results:
        if r.status == "torn":
            events.append(_event("torn", r, indices=[int(i) for i in r.indices]))
    gap_runs = 0
    prev_gap = False
    for r in results:
        is_gap = r.status in GAP_STATUSES
        gap_runs += is_gap and not prev_gap
        prev_gap = is_gap
    for status in GAP_STATUSES:
        run: list = []
        for r in results + [None]:
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
    k_why = None if rates_known else holds_unknown(decoded, len(seen), bool(runs))
    unknown = unknown_figures(decoded, len(seen), rates_known, capture_fps, display_fps, k_why)
    display_est: float | None
    if display_fps is None and capture_fps and k_why is None:
        display_est = capture_fps / k
    else:
        display_est = display_fps
    summary = {
        "frames": len(results),
        "read": len(results) - counts["unreadable"],
        "decoded": decoded,
        "ok": counts["ok"],
        "undecodable": counts["undecodable"],
        "torn": counts["torn"],
        "unreadable": counts["unreadable"],
        "dropped": dropped,
        "dropped_count": dropped_count,
        "unobservable": unobservable_n,
        "unobservable_indices": unobservable,
        "capture_misses": 0,
        "capture_missed": [],
        "gap_frames": counts["undecodable"] + counts["unreadable"],
        "gap_runs": gap_runs,
        "gap_indices": gap_indices,
        "repeated": repeated,
        "frozen": frozen,
        "out_of_order": out_of_order,
        "jumps_back": jumps_back,
        "wraps": wraps,
        "first_index": None if hi is None else _first_index(results, modulus),
        "last_index": None if last_u is None else last_u % modulus,
        "distinct_indices": len(seen),
        "captures_per_frame": None if k_why else round(k, 3),
        "captures_per_frame_from": k_source,
        "capture_fps": capture_fps,
        "display_fps": None if display_est is None else round(display_est, 3),
        "duration_s": None if duration is None else round(duration, 6),
        "modulus": modulus,
        "unknown": unknown,
    }
    return SequenceReport(summary, events)


# the summary's figures that only decoded frames can support (the counts stay numbers: what was
# seen; ``unknown`` names those no decoded frame supports, and why)
SEQUENCE_COUNTS = ("dropped_count", "repeated", "out_of_order", "jumps_back", "wraps")


def holds_unknown(decoded: int, distinct: int, holds: bool) -> str | None:
    """Why the captures per presentation cannot be read from the holds (None: they can)."""
    if decoded < 2:
        return "no frame decoded" if decoded == 0 else "only one frame decoded"
    if not holds:
        return "no whole frame decoded"
    if distinct <= 1:
        return "one index held for the whole capture: no presentation is seen to end"
    return None


def unknown_figures(decoded: int, distinct: int, rates_known: bool, capture_fps: float | None,
                    display_fps: float | None, k_why: str | None) -> dict[str, str]:
    """The derived figures of a summary that no decoded frame supports, each with why.

    Fewer than two decoded frames support no count of drops, repeats, order or wraps; one index
    throughout at unknown rates supports no freeze and no repeat count; captures per
    presentation unknown (``k_why``) leaves the display rate unknown unless it was given."""
    why: dict[str, str] = {}
    if decoded < 2:
        base = "no frame decoded" if decoded == 0 else "only one frame decoded"
        for key in (*SEQUENCE_COUNTS, "frozen"):
            why[key] = base
    elif distinct == 1 and not rates_known:
        still = ("every decoded frame shows one index: a display frozen on it cannot be told from a "
                 "capture of one presentation without --capture-fps and --display-fps")
        why["frozen"] = why["repeated"] = still
    if k_why is not None:
        why["captures_per_frame"] = k_why
    if display_fps is None:
        if k_why is not None:
            why["display_fps"] = f"captures per displayed frame unknown ({k_why})"
        elif not capture_fps:
            why["display_fps"] = "no capture rate (--capture-fps) and no --display-fps"
    return why


_ORDER = {"unreadable": 0, "undecodable": 1, "torn": 2, "wrap": 3, "jump_back": 4, "gap": 5, "drop": 6,
          "unobservable": 6, "capture_miss": 6, "out_of_order": 7, "repeat": 8, "freeze": 9}


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
