"""Which indices a jump of the counter skipped were dropped (:mod:`core.decode.sequence`).

The sequence's walk (:func:`core.decode.sequence.follow_counter`) records each :class:`Jump`
past the counter's high-water mark.  The indices in between that the jump's run never showed
(:func:`missing_indices`, seen later included) are judged here: up to one per frame of unknown
content in between is hidden in that gap (``gap_indices``); at a capture slower than the
display, up to what the rate ratio allows is unobservable (:mod:`core.decode.unseen`); only
the rest are display drops (:func:`judge_jumps`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from core.decode.unseen import EVENT_LISTED, presentations_between

MAX_LISTED_DROPS = 100_000   # longer gaps are counted, not listed


class Jump(NamedTuple):
    """The counter jumped from its high-water mark ``high`` to ``u`` at reading ``result``.
    ``run_seen`` is the run's set of indices seen, still filled as the walk goes on (an index
    seen later fills the jump); ``gap_frames`` the frames of unknown content between, and
    ``captures`` / ``seconds`` how far the reading is from the last to show the mark."""

    result: Any
    high: int
    u: int
    run_seen: set[int]
    gap_frames: int
    captures: int
    seconds: float | None


@dataclass
class Drops:
    """What the jumps add up to (:func:`judge_jumps`)."""

    dropped: list[int] = field(default_factory=list)        # listed, up to MAX_LISTED_DROPS
    count: int = 0
    gap_indices: int = 0
    unobservable: list[int] = field(default_factory=list)   # listed, up to MAX_LISTED_DROPS
    unobservable_count: int = 0
    events: list[dict] = field(default_factory=list)


def missing_indices(jump: Jump) -> tuple[int, list[int]]:
    """How many indices between the jump's ends its run never showed, and which (not listed, an
    empty list, past MAX_LISTED_DROPS)."""
    span = jump.u - jump.high - 1
    if span > MAX_LISTED_DROPS:
        return span, []
    missing = [v for v in range(jump.high + 1, jump.u) if v not in jump.run_seen]
    return len(missing), missing


def hidden_count(jump: Jump, missing: int, capture_fps: float | None, display_fps: float | None) -> int:
    """How many of ``missing`` indices may have been shown unseen: one per frame of unknown
    content in between, or, a capture slower than the display, what the rate ratio allows."""
    if capture_fps and display_fps and display_fps > capture_fps:
        # at most one presentation per capture seen: the rest may have been shown unseen
        return min(missing, presentations_between(display_fps, capture_fps, jump.captures, jump.seconds) - 1)
    return min(missing, jump.gap_frames)


def judge_jumps(jumps: list[Jump], modulus: int, capture_fps: float | None,
                display_fps: float | None) -> Drops:
    """Each jump's missing indices as hidden in a gap, unobservable, or dropped (counted, and
    listed where it is known which were dropped)."""
    d = Drops()
    for jump in jumps:
        r = jump.result
        missing_n, missing = missing_indices(jump)
        if missing_n == 0:
            continue
        where = {"after": jump.high % modulus, "before": jump.u % modulus}
        hidden = hidden_count(jump, missing_n, capture_fps, display_fps)
        gap = jump.gap_frames
        lost = missing_n - hidden
        listed = [v % modulus for v in missing] if 0 < len(missing) <= EVENT_LISTED else None
        if hidden and gap:
            d.gap_indices += hidden
            d.events.append(reading_event("gap", r, frames=gap, indices_unknown=hidden, **where))
        elif hidden:
            d.unobservable_count += hidden
            if not lost:
                if len(d.unobservable) < MAX_LISTED_DROPS:
                    d.unobservable.extend(v % modulus for v in missing)
                d.events.append(reading_event("unobservable", r, count=hidden, indices=listed or [], **where))
        if not lost:
            continue
        d.count += lost
        if hidden or not missing:   # which of them were shown unseen is not known: counted, not listed
            unseen = {"unobservable": hidden, "missing": listed} if hidden and not gap and listed else {}
            d.events.append(reading_event("drop", r, count=lost, **unseen, **where))
            continue
        if len(d.dropped) < MAX_LISTED_DROPS:
            d.dropped.extend(v % modulus for v in missing)
        d.events.append(reading_event("drop", r, indices=[v % modulus for v in missing[:64]], count=lost,
                                      **where))
    return d


def reading_event(kind: str, r, **extra) -> dict:
    """An event of ``kind`` at reading ``r`` (its position and timestamp), with ``extra``."""
    d = {"kind": kind, "position": r.position,
         "timestamp": None if r.timestamp is None else round(float(r.timestamp), 6)}
    d.update(extra)
    return d
