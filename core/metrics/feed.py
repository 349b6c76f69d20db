"""The live output's running totals turned into its metrics, one present at a time.

:class:`TotalsFeed` reads :class:`~core.timing.RunningTotals` after each present (the frame
loop's own verdicts: late above 1.5 periods, missed vblanks by its rounding) and passes on what
changed, so a metric never judges a frame differently from the timing dock.  Clearing the
totals (the operator's "reset timing") never makes a Prometheus counter go down: the feed takes
the cleared totals as a new baseline.
"""

from __future__ import annotations

import time

from core.metrics.families import OutputMetrics


class TotalsFeed:
    def __init__(self, metrics: OutputMetrics, wall=time.time):
        self.metrics = metrics
        self.wall = wall
        self._frames = self._late = self._missed = self._intervals = 0
        self._last_s: float | None = None
        self.last_wall_s: float | None = None      # when the latest present was fed (health)

    def update(self, totals, work_ms: float) -> None:
        """After a present: ``totals`` as the frame loop left it, ``work_ms`` that frame's
        render + transfer + upload time."""
        frames = totals.frames + totals.warmup
        if frames < self._frames or totals.late < self._late or totals.intervals < self._intervals:
            self._frames = self._late = self._missed = self._intervals = 0   # cleared: a new baseline
        new = frames - self._frames
        if new <= 0:
            return
        interval = None
        if totals.intervals > self._intervals and self._last_s is not None and totals.last_s is not None:
            interval = totals.last_s - self._last_s
        m = self.metrics
        for _ in range(new - 1):        # a batch (a discarded frame's row): counted, not timed
            m.presented.inc()
        wall = self.wall()
        m.frame_presented(interval, work_ms / 1e3, totals.late > self._late,
                          totals.missed_vsyncs - self._missed, wall)
        if totals.late - self._late > 1:
            m.late.inc(totals.late - self._late - 1)
        self._frames, self._late = frames, totals.late
        self._missed, self._intervals = totals.missed_vsyncs, totals.intervals
        self._last_s = totals.last_s
        self.last_wall_s = wall
