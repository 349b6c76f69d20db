"""Indices a capture could not have seen: never display drops.

Two kinds, each kept apart from the display's drops:

* **unobservable** (the rate ratio): a capture slower than the display (both rates known,
  ``display_fps > capture_fps``) sees at most one presentation per capture, so between two
  captures ``T`` seconds apart a display presenting at its rate moves on by at most
  ``ceil(T * display_fps)`` indices.  Of the indices missing between them, up to that many
  less one may have been shown between the captures (unobservable: neither shown nor dropped
  can be told); only the rest are drops, proven.  ``T`` is the longer of the capture periods
  between the two (counted in captures) and their timestamps' difference, so a capture's own
  stall widens what it could have missed, never what it blames on the display.
* **capture misses** (the present log): an index the present log (``testcard show
  --timeline``) shows on screen for less than a capture period, and missing from the
  capture, may have been shown between two captures: a capture miss.  An index missing from
  the capture that the log shows never presented, or presented for a capture period or
  longer, stays a display drop.  The log decides only for indices it covers; the others keep
  what the rate ratio says.

Neither is ever a verified pass: the drop check reads them as "could not verify"
(:mod:`core.decode.verdict`).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from core.decode.latency_files import read_present_log

UNKNOWN, SHORT, LONG, ABSENT = "unknown", "short", "long", "absent"
MAX_LISTED = 100_000   # indices listed in a summary; more are counted
EVENT_LISTED = 64      # indices listed in one event


def presentations_between(display_fps: float, capture_fps: float, periods: int,
                          seconds: float | None) -> int:
    """The most indices a display presenting at ``display_fps`` moves on by between two
    captures ``periods`` capture periods (and, if known, ``seconds``) apart."""
    span = max(periods / capture_fps, seconds if seconds is not None and math.isfinite(seconds) else 0.0)
    return max(1, math.ceil(span * display_fps - 1e-6))


@dataclass(frozen=True)
class PresentDurations:
    """How long the present log kept each index on screen: the time to the next present.

    Indices are matched to the counter's by their residue modulo the counter's ``modulus``; a
    log spanning a whole modulus or more cannot be matched so (``usable`` False, ``why``)."""

    lo: int
    hi: int
    modulus: int
    shown_s: dict[int, float]
    why: str | None = None

    @classmethod
    def of(cls, log, modulus: int) -> PresentDurations:
        idx = np.asarray(log.index, dtype=np.int64)
        t = np.asarray(log.t_s, dtype=np.float64)
        if idx.size < 2:
            return cls(0, -1, modulus, {}, "the present log has fewer than two presents")
        lo, hi = int(idx.min()), int(idx.max())
        if hi - lo >= modulus:
            why = (f"the present log spans {hi - lo + 1:,} indices, a whole counter modulus "
                   f"({modulus:,}) or more: indices cannot be matched")
            return cls(lo, hi, modulus, {}, why)
        shown: dict[int, float] = {}
        for i, dt in zip(idx[:-1].tolist(), np.diff(t).tolist(), strict=True):
            shown[i] = shown.get(i, 0.0) + max(0.0, dt)
        last = int(idx[-1])
        if last not in shown:        # the last present's time on screen is not in the log
            shown[last] = math.nan
        return cls(lo, hi, modulus, shown)

    @property
    def usable(self) -> bool:
        return self.why is None

    def status(self, counter_index: int, capture_period_s: float) -> str:
        """``short`` (on screen less than a capture period), ``long``, ``absent`` (inside the
        log's span, never presented) or ``unknown`` (outside it, or its time on screen unknown)."""
        a = self.lo + (int(counter_index) - self.lo) % self.modulus
        if not self.usable or a > self.hi:
            return UNKNOWN
        s = self.shown_s.get(a)
        if s is None:
            return ABSENT
        if math.isnan(s):
            return UNKNOWN
        return SHORT if s < capture_period_s - 1e-6 else LONG   # a whole period (rounding aside) is long


def apply_present_log(summary: dict, events: list[dict], durations: PresentDurations,
                      capture_fps: float | None) -> tuple[dict, list[dict], dict]:
    """``summary`` and ``events`` with the drops and unobservable indices the present log tells
    apart (see the module's text), and what was done (``present_log`` for the summary).

    A jump is judged again only when every index missing across it is listed and covered by
    the log, and no gap frame lies in it (its indices stay unseen across the gap)."""
    info = {"indices_logged": len(durations.shown_s), "applied": False}
    if not durations.usable:
        return summary, events, dict(info, why=durations.why)
    if not capture_fps:
        return summary, events, dict(info, why="no capture rate (--capture-fps): a capture period "
                                               "is what a present is held against")
    period = 1.0 / capture_fps
    gapped = {e["position"] for e in events if e["kind"] == "gap"}
    s = dict(summary)
    dropped: Counter[int]
    unobs: Counter[int]
    dropped, unobs = Counter(s.get("dropped", [])), Counter(s.get("unobservable_indices", []))
    missed: list[int] = list(s.get("capture_missed", []))
    out: list[dict] = []
    judged = added = 0
    for e in events:
        cands = _candidates(e)
        if cands is None or e["position"] in gapped:
            out.append(e)
            continue
        status = {v: durations.status(v, period) for v in cands}
        if UNKNOWN in status.values():
            out.append(e)
            continue
        judged += 1
        if e["kind"] == "drop":
            s["dropped_count"] -= e["count"]
            s["unobservable"] = s.get("unobservable", 0) - e.get("unobservable", 0)
            dropped.subtract(e.get("indices") or [])
        else:
            s["unobservable"] = s.get("unobservable", 0) - e["count"]
            unobs.subtract(e.get("indices") or [])
        short = [v for v in cands if status[v] == SHORT]
        gone = [v for v in cands if status[v] != SHORT]
        where = {k: e[k] for k in ("position", "timestamp", "after", "before") if k in e}
        if gone:
            s["dropped_count"] += len(gone)
            dropped.update(gone)
            out.append({"kind": "drop", **where, "indices": gone, "count": len(gone), "by": "present log",
                        "never_presented": sum(1 for v in gone if status[v] == ABSENT)})
        if short:
            missed.extend(short)
            added += len(short)
            out.append({"kind": "capture_miss", **where, "indices": short, "count": len(short)})
    s["dropped"] = list(dropped.elements())[:MAX_LISTED]
    s["unobservable_indices"] = list(unobs.elements())[:MAX_LISTED]
    s["capture_missed"] = missed[:MAX_LISTED]
    s["capture_misses"] = summary.get("capture_misses", 0) + added
    return s, out, dict(info, applied=True, jumps_judged=judged, capture_period_s=round(period, 6))


def _candidates(e: dict) -> list[int] | None:
    """Every index missing across the jump an event reports, or None (not a jump's event, or
    not all of them listed)."""
    if e["kind"] not in ("drop", "unobservable"):
        return None
    if "missing" in e:
        return list(e["missing"])
    idx = e.get("indices")
    if e["kind"] == "drop" and e.get("unobservable"):
        return None
    return list(idx) if idx and len(idx) == e["count"] else None


def read_present(path):
    """The present log in the timeline CSV at ``path`` (``ValueError`` naming the file): the
    latency join's own reader."""
    return read_present_log(path)


def with_present_log(summary: dict, events: list[dict], log, modulus: int, capture_fps: float | None,
                     name: str | None = None) -> tuple[dict, list[dict]]:
    """:func:`apply_present_log` for a decode report's summary and events; the summary's
    ``present_log`` says whether the log was used (and why not)."""
    s, ev, info = apply_present_log(summary, events, PresentDurations.of(log, modulus), capture_fps)
    s["present_log"] = dict(info, name=name)
    return s, ev
