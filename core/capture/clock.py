"""Putting a wall-clock (CLOCK_REALTIME) timestamp on the monotonic clock (CLOCK_MONOTONIC).

testcard times its presents with ``time.perf_counter()`` / ``time.monotonic()`` (CLOCK_MONOTONIC
on Linux).  A source that stamps frames with the wall clock (PyAV's ``x11grab``) is mapped onto
it by bracketed readings: read the monotonic clock, the wall clock, the monotonic clock again,
and take the midpoint of the two monotonic readings as the moment of the wall-clock reading.
The tightest of a few tries is kept (its half-width is the reading's uncertainty).

The offset (wall minus monotonic) is read again during a run (:meth:`ClockMapping.refresh`), and
every reading is kept, so a wall clock that drifts (NTP slewing it) is followed: a timestamp
between two readings gets the offset interpolated between them, one after the last reading the
last offset.  A jump of the offset by more than :data:`STEP_S` (the wall clock was set) starts
afresh: readings before it no longer apply, and the step is counted.
"""

from __future__ import annotations

import bisect
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

STEP_S = 0.1            # an offset change larger than this between readings is a clock step
TRIES = 3               # bracketed readings per refresh; the tightest is kept
MAX_READINGS = 4096     # readings kept (the oldest go first: a day at one a minute, an hour at 1 Hz)


@dataclass(frozen=True)
class ClockReading:
    """One bracketed reading: ``monotonic`` (the midpoint), ``realtime``, ``half_width`` (s)."""

    monotonic: float
    realtime: float
    half_width: float

    @property
    def offset(self) -> float:
        return self.realtime - self.monotonic


def bracketed_reading(monotonic: Callable[[], float] = time.monotonic,
                      realtime: Callable[[], float] = time.time, tries: int = TRIES) -> ClockReading:
    """The tightest of ``tries`` readings monotonic / realtime / monotonic."""
    best: ClockReading | None = None
    for _ in range(max(1, tries)):
        a = monotonic()
        r = realtime()
        b = monotonic()
        reading = ClockReading((a + b) / 2.0, r, abs(b - a) / 2.0)
        if best is None or reading.half_width < best.half_width:
            best = reading
    assert best is not None
    return best


class ClockMapping:
    """Wall-clock seconds to monotonic seconds, from bracketed readings taken during the run.

    ``monotonic`` and ``realtime`` are the clocks (injectable: tests drive them).  The first
    reading is taken at construction.  Not thread-safe: one thread (a source's reader) refreshes
    and maps.
    """

    def __init__(self, monotonic: Callable[[], float] = time.monotonic,
                 realtime: Callable[[], float] = time.time, *, refresh_s: float = 1.0):
        if not (isinstance(refresh_s, int | float) and math.isfinite(refresh_s) and refresh_s > 0):
            raise ValueError(f"refresh_s must be a number of seconds above 0, got {refresh_s!r}")
        self._monotonic, self._realtime = monotonic, realtime
        self.refresh_s = float(refresh_s)
        self.readings: list[ClockReading] = []
        self.steps = 0
        self.total_readings = 0
        self.refresh(force=True)

    def refresh(self, force: bool = False) -> bool:
        """Take a new reading if ``refresh_s`` has passed since the last (or ``force``); True
        when one was taken."""
        if not force and self.readings and \
                self._monotonic() - self.readings[-1].monotonic < self.refresh_s:
            return False
        reading = bracketed_reading(self._monotonic, self._realtime)
        if self.readings and (abs(reading.offset - self.readings[-1].offset) > STEP_S
                              or reading.realtime < self.readings[-1].realtime):
            self.steps += 1
            self.readings = []
        self.readings.append(reading)
        if len(self.readings) > MAX_READINGS:
            del self.readings[: len(self.readings) - MAX_READINGS]
        self.total_readings += 1
        return True

    def offset_at(self, realtime_s: float) -> float:
        """Wall minus monotonic at wall-clock time ``realtime_s`` (interpolated between readings)."""
        rs = self.readings
        if len(rs) == 1:
            return rs[0].offset
        keys = [r.realtime for r in rs]
        i = bisect.bisect_right(keys, realtime_s)
        if i <= 0:
            return rs[0].offset
        if i >= len(rs):
            return rs[-1].offset
        a, b = rs[i - 1], rs[i]
        span = b.realtime - a.realtime
        w = 0.0 if span <= 0 else (realtime_s - a.realtime) / span
        return a.offset + w * (b.offset - a.offset)

    def to_monotonic(self, realtime_s: float) -> float:
        return float(realtime_s) - self.offset_at(float(realtime_s))

    @property
    def uncertainty_s(self) -> float:
        """The widest half-bracket among the readings in use."""
        return max(r.half_width for r in self.readings)

    @property
    def drift_ppm(self) -> float | None:
        """How fast the offset moved over the readings in use (parts per million), when known."""
        rs = self.readings
        if len(rs) < 2 or rs[-1].monotonic <= rs[0].monotonic:
            return None
        return (rs[-1].offset - rs[0].offset) / (rs[-1].monotonic - rs[0].monotonic) * 1e6

    def describe(self) -> dict:
        """The mapping used: latest offset, how many readings, uncertainty, drift, steps."""
        rs = self.readings
        drift = self.drift_ppm
        return {
            "method": "bracketed readings: monotonic, wall clock, monotonic; midpoint",
            "offset_s": round(rs[-1].offset, 6),
            "first_offset_s": round(rs[0].offset, 6),
            "readings": self.total_readings,
            "readings_in_use": len(rs),
            "refresh_s": self.refresh_s,
            "uncertainty_ms": round(self.uncertainty_s * 1e3, 4),
            "drift_ppm": None if drift is None else round(drift, 3),
            "steps": self.steps,
        }
