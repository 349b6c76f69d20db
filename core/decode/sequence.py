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

``analyse`` reads as its steps, in this order: count the statuses, list the observations (each
index seen, unwrapped), follow the counter (wraps, stale frames, jumps back, and each jump past
the high-water mark), judge the jumps (drops, gap indices, unobservable ones:
:mod:`core.decode.drops`), find the holds and judge them (repeats, freeze: the hold rules are
:mod:`core.decode.holds`), list the torn frames and gaps, sort the events, build the summary.
Each step takes what the steps before it found as values (:class:`Walk`,
:class:`core.decode.drops.Drops`, :class:`Repeats`) and returns its own, with its events.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.decode.drops import Drops, Jump, judge_jumps, reading_event
from core.decode.holds import Hold, captures_per_presentation, extra_presentations, find_holds, holds_unknown

GAP_STATUSES = ("undecodable", "unreadable")


@dataclass
class SequenceReport:
    summary: dict
    events: list[dict]

    def to_dict(self) -> dict:
        return {"summary": self.summary, "events": self.events}


def analyse(results: Sequence, modulus: int, capture_fps: float | None = None,
            display_fps: float | None = None) -> SequenceReport:
    """Drops, repeats, order and gaps in ``results`` (see the module's text), as a summary and
    its events in capture order.  ``ValueError`` for a modulus below 2."""
    if modulus < 2:
        raise ValueError(f"counter modulus must be at least 2, got {modulus}")
    results = list(results)
    counts, gaps_before = count_statuses(results)
    walk = follow_counter(results, observations(results, modulus), modulus, gaps_before)
    drops = judge_jumps(walk.jumps, modulus, capture_fps, display_fps)
    holds = find_holds(results, walk.unwrapped)
    k, k_source = captures_per_presentation(holds, capture_fps, display_fps)
    repeats = judge_holds(holds, k, modulus, decoded=counts["ok"] + counts["torn"], distinct=len(walk.seen),
                          rates_known=k_source == "rates")
    events = sort_events(walk.events + drops.events + repeats.events + torn_events(results)
                         + gap_events(results))
    return SequenceReport(build_summary(results, modulus, counts, walk, drops, repeats, holds, k, k_source,
                                        capture_fps, display_fps), events)


# -- classify the frames


def count_statuses(results: Sequence) -> tuple[dict[str, int], list[int]]:
    """How many readings have each status, and the gap frames (undecodable, unreadable) among
    ``results[:i]`` for every ``i`` (prefix sums, one longer than ``results``)."""
    counts = {s: 0 for s in ("ok", "torn", "undecodable", "unreadable")}
    gaps_before = [0]
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
        gaps_before.append(gaps_before[-1] + (r.status in GAP_STATUSES))
    return counts, gaps_before


def observations(results: Sequence, modulus: int) -> list[tuple[int, Any, int, int]]:
    """(result number, result, unwrapped index, index) for every index seen, in order (a torn
    frame observes each of its indices, top first); each step is unwrapped the shortest way
    round the modulus."""
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


# -- follow the counter: wraps, order, jumps back, and every jump past the high-water mark


@dataclass
class Walk:
    """What one pass over the observations found (:func:`follow_counter`)."""

    unwrapped: list[int | None]          # per reading: its unwrapped top index
    high: int | None = None              # the high-water mark at the end
    last: int | None = None              # the last unwrapped index seen
    seen: set[int] = field(default_factory=set)
    jumps: list[Jump] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
    wraps: int = 0
    out_of_order: int = 0
    jumps_back: int = 0


def follow_counter(results: Sequence, obs: list[tuple[int, Any, int, int]], modulus: int,
                   gaps_before: list[int]) -> Walk:
    """Walk the observations in order: each wrap, each stale frame (out of order: the counter
    returns to where it was), each jump back (the counter carries on from there: a new run) and
    each jump past the high-water mark (judged later, by :func:`judge_jumps`)."""
    w = Walk([None] * len(results))
    hi: int | None = None
    run_seen: set[int] = set()  # indices seen since the last jump back
    hi_at = 0                   # the last result that showed the high-water mark
    prev_i = -1
    for j, (i, r, u, idx) in enumerate(obs):
        if hi is not None and w.last is not None:   # (set together, from the first observation)
            if u // modulus > w.last // modulus and u > hi:
                w.wraps += 1
                w.events.append(reading_event("wrap", r, index=idx))
            if u < hi and u != w.last:
                after = _next_other(obs, j)
                if after is None or after >= hi:
                    w.out_of_order += 1
                    w.events.append(reading_event("out_of_order", r, index=idx, expected_after=hi % modulus))
                else:   # the counter carries on from here: a new run
                    w.jumps_back += 1
                    w.events.append(reading_event("jump_back", r, index=idx, after=hi % modulus, back=hi - u))
                    hi, run_seen = u, set()
            elif u > hi + 1:
                gap = gaps_before[i] - gaps_before[prev_i + 1] if i > prev_i else 0
                t0 = results[hi_at].timestamp
                dt = None if r.timestamp is None or t0 is None else float(r.timestamp) - float(t0)
                w.jumps.append(Jump(r, hi, u, run_seen, gap, i - hi_at, dt))
        hi = u if hi is None else max(hi, u)
        if u == hi:
            hi_at = i
        w.seen.add(u)
        run_seen.add(u)
        w.last = u
        if w.unwrapped[i] is None:
            w.unwrapped[i] = u
        prev_i = i
    w.high = hi
    return w


def _next_other(obs, j: int) -> int | None:
    """The next observed index after ``obs[j]`` that differs from it (None at the end)."""
    u = obs[j][2]
    for k in range(j + 1, len(obs)):
        if obs[k][2] != u:
            return obs[k][2]
    return None


# -- count the repeats: holds longer than a presentation (:mod:`core.decode.holds`)


@dataclass
class Repeats:
    """What the holds add up to (:func:`judge_holds`); ``frozen`` None: cannot tell."""

    repeated: int
    frozen: bool | None
    events: list[dict]


def judge_holds(holds: list[Hold], k: float, modulus: int, *, decoded: int, distinct: int,
                rates_known: bool) -> Repeats:
    """Each hold longer than a presentation (``k`` captures) as a repeat, or, when every decoded
    frame shows one index, as a freeze.  ``frozen``: None when fewer than two frames were decoded
    or one index was seen at unknown rates (until a hold is a repeat), True when a freeze was
    found, else False."""
    single = distinct == 1 and decoded >= 2
    # None: cannot tell (fewer than two frames read, or one index at unknown rates)
    frozen: bool | None = None if decoded < 2 or (single and not rates_known) else False
    out = Repeats(0, frozen, [])
    for h in holds:
        extra = extra_presentations(h.captures, k)
        if not extra:
            continue
        out.repeated += extra
        if single:   # one index for the whole capture, at known rates: the display froze
            out.frozen = True
        out.events.append(reading_event("freeze" if single else "repeat", h.first, index=h.shown % modulus,
                                        captures=h.captures, extra=extra))
    return out


# -- torn frames and gaps of unknown content


def torn_events(results: Sequence) -> list[dict]:
    """One event per torn frame, with the indices it shows (top first)."""
    return [reading_event("torn", r, indices=[int(i) for i in r.indices])
            for r in results if r.status == "torn"]


def gap_events(results: Sequence) -> list[dict]:
    """One event per run of undecodable frames, then one per run of unreadable ones: its first
    frame's position, ``count``, ``last_position`` (runs of two or more) and the first's note."""
    events: list[dict] = []
    for status in GAP_STATUSES:
        run: list = []
        for r in [*results, None]:
            if r is not None and r.status == status:
                run.append(r)
                continue
            if run:
                ev = reading_event(status, run[0], count=len(run))
                if len(run) > 1:
                    ev["last_position"] = run[-1].position
                note = run[0].note
                if note:
                    ev["note"] = note
                events.append(ev)
                run = []
    return events


def count_gap_runs(results: Sequence) -> int:
    """Runs of consecutive frames of unknown content (undecodable and unreadable together)."""
    runs = 0
    prev_gap = False
    for r in results:
        is_gap = r.status in GAP_STATUSES
        runs += is_gap and not prev_gap
        prev_gap = is_gap
    return runs


_ORDER = {"unreadable": 0, "undecodable": 1, "torn": 2, "wrap": 3, "jump_back": 4, "gap": 5, "drop": 6,
          "unobservable": 6, "capture_miss": 6, "out_of_order": 7, "repeat": 8, "freeze": 9}


def sort_events(events: list[dict]) -> list[dict]:
    """Events in capture order; at one position, in the order of :data:`_ORDER` (a stable sort:
    events of one kind and position keep the order they were found in)."""
    events.sort(key=lambda e: (e["position"], _ORDER.get(e["kind"], 9)))
    return events


# -- build the report


def build_summary(results: list, modulus: int, counts: dict[str, int], walk: Walk, drops: Drops,
                  repeats: Repeats, holds: list[Hold], k: float, k_source: str, capture_fps: float | None,
                  display_fps: float | None) -> dict:
    """The summary of a sequence: counts, what each step found, the rates and what is unknown."""
    decoded = counts["ok"] + counts["torn"]
    rates_known = k_source == "rates"
    times = [r.timestamp for r in results if r.timestamp is not None]
    duration = (max(times) - min(times)) if len(times) > 1 else None
    k_why = None if rates_known else holds_unknown(decoded, len(walk.seen), bool(holds))
    unknown = unknown_figures(decoded, len(walk.seen), rates_known, capture_fps, display_fps, k_why)
    display_est: float | None
    if display_fps is None and capture_fps and k_why is None:
        display_est = capture_fps / k
    else:
        display_est = display_fps
    return {
        "frames": len(results),
        "read": len(results) - counts["unreadable"],
        "decoded": decoded,
        "ok": counts["ok"],
        "undecodable": counts["undecodable"],
        "torn": counts["torn"],
        "unreadable": counts["unreadable"],
        "dropped": drops.dropped,
        "dropped_count": drops.count,
        "unobservable": drops.unobservable_count,
        "unobservable_indices": drops.unobservable,
        "capture_misses": 0,
        "capture_missed": [],
        "gap_frames": counts["undecodable"] + counts["unreadable"],
        "gap_runs": count_gap_runs(results),
        "gap_indices": drops.gap_indices,
        "repeated": repeats.repeated,
        "frozen": repeats.frozen,
        "out_of_order": walk.out_of_order,
        "jumps_back": walk.jumps_back,
        "wraps": walk.wraps,
        "first_index": None if walk.high is None else _first_index(results, modulus),
        "last_index": None if walk.last is None else walk.last % modulus,
        "distinct_indices": len(walk.seen),
        "captures_per_frame": None if k_why else round(k, 3),
        "captures_per_frame_from": k_source,
        "capture_fps": capture_fps,
        "display_fps": None if display_est is None else round(display_est, 3),
        "duration_s": None if duration is None else round(duration, 6),
        "modulus": modulus,
        "unknown": unknown,
    }


def _first_index(results, modulus):
    for r in results:
        if r.status in ("ok", "torn"):
            return int(r.index) % modulus
    return None


# the summary's figures that only decoded frames can support (the counts stay numbers: what was
# seen; ``unknown`` names those no decoded frame supports, and why)
SEQUENCE_COUNTS = ("dropped_count", "repeated", "out_of_order", "jumps_back", "wraps")


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
