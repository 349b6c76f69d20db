"""Clock pairs: the wall clock (CLOCK_REALTIME) read beside the present clock, so a log on one
can be joined to a recording on the other.

testcard times its presents with ``time.perf_counter()`` (CLOCK_MONOTONIC on Linux); screen
grabbers stamp the wall clock (FFmpeg's and PyAV's ``x11grab``).  A pair is taken as
``t1 = realtime(); m = monotonic(); t2 = realtime()``: the monotonic reading fell between the
two wall-clock ones, so the wall clock at ``m`` was ``(t1 + t2) / 2`` within ``(t2 - t1) / 2``
(plus the float's resolution).
The tightest of a few tries is kept (a try the scheduler interrupted is wide).  A pair costs
a few clock reads and one small tuple: cheap enough to refresh every few seconds from the frame
loop itself.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import NamedTuple

TRIES = 3                 # bracketed reads per pair; the tightest is kept
REFRESH_S = 2.0           # how often the timeline takes a pair while frames arrive


class ClockPair(NamedTuple):
    """The wall clock at ``monotonic_s`` was ``realtime_s`` within ``uncertainty_s`` (seconds)."""

    realtime_s: float
    monotonic_s: float
    uncertainty_s: float

    @property
    def offset_s(self) -> float:
        """Wall clock minus monotonic clock."""
        return self.realtime_s - self.monotonic_s


def take_clock_pair(realtime: Callable[[], float] = time.time,
                    monotonic: Callable[[], float] = time.perf_counter,
                    tries: int = TRIES) -> ClockPair:
    """The tightest of ``tries`` bracketed readings realtime / monotonic / realtime."""
    best_w = best_t1 = best_t2 = best_m = None
    for _ in range(max(1, int(tries))):
        t1 = realtime()
        m = monotonic()
        t2 = realtime()
        w = t2 - t1
        # a wall clock set backwards between t1 and t2 gives a negative width: never the best
        if best_w is None or (w >= 0.0 and (best_w < 0.0 or w < best_w)):
            best_w, best_t1, best_t2, best_m = w, t1, t2, m
    # the loop ran at least once, so every best_* holds a reading
    assert best_w is not None and best_t1 is not None and best_t2 is not None and best_m is not None
    mid = (best_t1 + best_t2) / 2.0
    # a float of today's wall clock resolves about 0.24 us: two reads that close can be equal
    # floats, so the bound adds the float's own step (each read and the midpoint round by half)
    return ClockPair(mid, best_m, abs(best_w) / 2.0 + math.ulp(mid))
