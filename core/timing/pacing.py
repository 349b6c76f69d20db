"""Deciding how the frame loop is paced (pure logic, injected clock; no Qt).

A swap with interval 1 should block until vblank, so presents arrive once per
screen period.  Where the platform ignores the request (Xvfb, X11 without a
compositor's vsync, some drivers) swaps return at once: presents arrive far
faster than the screen refreshes.  :class:`PacingMonitor` watches the first
intervals and says when the loop must pace itself with a timer instead.
:class:`DeadlineSchedule` gives the timer absolute deadlines, so rounding each
wait to whole milliseconds never drifts the average rate.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

VSYNC = "vsync-locked"
TIMER = "timer-paced"


@dataclass
class PacingMonitor:
    """Judges from present timestamps whether swaps wait for vsync.

    Intervals are judged in consecutive windows of ``probe``.  A loop locked to
    vsync presents every period or every whole number of periods (a slow
    frame waits for the next vblank), within a fraction of a millisecond.  So
    a window whose median interval is below ``fast_fraction`` of the period
    (swaps that do not block), or whose intervals lie a median of more than
    ``max(tolerance_ms, tolerance * period)`` off the nearest whole number of
    periods in two windows running (slow swaps that do not wait for a vblank
    either), turns the verdict to ``TIMER`` for good.  Intervals of one, two,
    three periods, in any mixture, stay ``VSYNC``.
    The first ``skip`` intervals (window mapping, first uploads) are ignored.
    """

    period_ms: float
    probe: int = 20
    fast_fraction: float = 0.75
    tolerance_ms: float = 1.0
    tolerance: float = 0.06
    skip: int = 5
    mode: str = VSYNC
    reason: str = ""

    def __post_init__(self):
        self._last: float | None = None
        self._window: list[float] = []
        self._seen = 0
        self._off_grid = 0

    def reset(self, period_ms: float | None = None, mode: str = VSYNC) -> None:
        if period_ms is not None:
            self.period_ms = period_ms
        self.mode = mode
        self.reason = ""
        self._last = None
        self._window = []
        self._seen = 0
        self._off_grid = 0

    def observe(self, t_s: float) -> bool:
        """Record one present at ``t_s`` seconds; True when this call changed the verdict."""
        last, self._last = self._last, t_s
        if last is None or self.mode != VSYNC:
            return False
        self._seen += 1
        if self._seen <= self.skip:
            return False
        self._window.append((t_s - last) * 1e3)
        if len(self._window) < self.probe:
            return False
        med = statistics.median(self._window)
        # distance of each interval from the nearest whole number of periods (at least one)
        p = self.period_ms
        off = statistics.median(abs(iv - max(1, round(iv / p)) * p) for iv in self._window)
        self._window = []
        if med < self.fast_fraction * self.period_ms:
            self.reason = (f"swaps return after {med:.1f} ms, not the {self.period_ms:.2f} ms "
                           "screen period: vsync is not honoured here")
        elif off > max(self.tolerance_ms, self.tolerance * self.period_ms):
            # one busy stretch can look like this; two windows in a row cannot
            self._off_grid += 1
            if self._off_grid < 2:
                return False
            self.reason = (f"presents land {off:.1f} ms off the {self.period_ms:.2f} ms vblank grid "
                           f"(median interval {med:.1f} ms): swaps are not paced by vsync")
        else:
            self._off_grid = 0
            return False
        self.mode = TIMER
        return True


@dataclass
class DeadlineSchedule:
    """Absolute deadlines one period apart; re-anchors when a tick comes half a period late."""

    period_s: float
    next_s: float | None = None

    def next_wait_ms(self, now_s: float) -> int:
        """Advance to the next deadline; whole milliseconds to wait for it from ``now_s``.

        The first call anchors the schedule at ``now_s`` (wait 0).  A tick more than half a
        period late (the GUI thread was busy) re-anchors: the next deadline is a whole period
        from ``now_s``.  Keeping the old grid would replace the late frame a few milliseconds
        after it was shown, too briefly for a capture to see it; a timer-paced loop has no
        vblank grid to keep.
        """
        if self.next_s is None:
            self.next_s = now_s
        else:
            late = now_s - self.next_s            # this tick against its own deadline
            self.next_s += self.period_s
            if late > self.period_s / 2:
                self.next_s = now_s + self.period_s
        return max(0, int((self.next_s - now_s) * 1e3))
