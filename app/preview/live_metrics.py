"""The live output's metrics: fed after each present, served off the GUI thread.

:class:`LiveMetrics` joins a :class:`~app.preview.FrameLoop` to :mod:`core.metrics`: after
each present it hands the loop's running totals to a :class:`~core.metrics.TotalsFeed` (a few
counter increments and two histogram observations, about 10 µs, after the frame is on its way,
never before); when the loop's path, format or refresh changes it relabels the info metric.
The endpoint (:class:`~core.metrics.MetricsServer`) answers scrapers on threads of its own and
reads only the metric objects, so a scraper never reaches the frame loop.

``/healthz`` is healthy only while frames are being presented: the latest present less than
:data:`STALE_S` seconds (or ten frame periods, whichever is longer) ago.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject

from core.metrics import CollectorRegistry, MetricsServer, OutputMetrics, TotalsFeed

STALE_S = 2.0


class LiveMetrics(QObject):
    """Metrics of ``loop`` on ``registry`` (a new one unless given); ``describe()`` returns the
    info labels' ``pattern``, ``transfer`` and ``presenter`` for the spec on screen."""

    def __init__(self, loop, *, registry: CollectorRegistry | None = None, presenter: str = "",
                 parent=None):
        super().__init__(parent)
        self.loop = loop
        self.registry = registry if registry is not None else CollectorRegistry()
        self.presenter = presenter
        self.output = OutputMetrics(self.registry, period_s=loop.period_ms / 1e3)
        self.feed = TotalsFeed(self.output)
        self._period_s = loop.period_ms / 1e3
        self._tl = loop.timeline
        loop.frame_presented.connect(self._presented)
        loop.engine_changed.connect(self.describe)
        loop.pacing_changed.connect(lambda *_: self._follow_period())
        self.describe()

    def _presented(self, _index: int) -> None:
        tl = self._tl = self.loop.timeline
        work = 0.0
        for name in ("render_ms", "transfer_ms", "upload_ms"):
            last = tl.column(name, last=1)
            if len(last):
                work += float(last[0])
        self.feed.update(tl.totals, work)

    def _follow_period(self) -> None:
        period = self.loop.period_ms / 1e3
        if period != self._period_s:
            self._period_s = period
            self.output.set_period(period)

    def describe(self) -> None:
        """Relabel the info metric from the loop as it is now."""
        spec, loop = self.loop.spec, self.loop
        self._follow_period()
        self.output.set_output(pattern=spec.pattern, width=spec.width, height=spec.height,
                               bit_depth=spec.bit_depth, transfer=spec.transfer,
                               render_path=loop.path, path_source=loop.path_source,
                               presenter=self.presenter or getattr(loop.presenter, "kind", "") or "none")

    def health(self) -> tuple[bool, str]:
        """(presenting, one line): read from the scraper's thread (two floats, no locking needed)."""
        last = self.feed.last_wall_s
        if last is None:
            return False, "not presenting: no frame presented yet"
        age = time.time() - last
        stale = max(STALE_S, 10 * self._period_s)
        if age > stale:
            return False, f"not presenting: the last frame was presented {age:.1f} s ago"
        return True, f"presenting: the last frame {age * 1e3:.0f} ms ago"


def start_metrics(address: tuple[str, int], loop, *, presenter: str = "", extra=None,
                  parent=None) -> tuple[LiveMetrics, MetricsServer]:
    """Serve ``loop``'s metrics (and ``extra(registry)``'s families, e.g. serve's) on
    ``address``; ``OSError`` when the port cannot be bound."""
    live = LiveMetrics(loop, presenter=presenter, parent=parent)
    if extra is not None:
        extra(live.registry)
    server = MetricsServer(live.registry, *address, health=live.health).start()
    return live, server
