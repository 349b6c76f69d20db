"""The Latency panel's plots: the histogram of latencies and the latency over present time.

pyqtgraph, one persistent item each, fed with ``setData``.  Before any frame both plots show
fixed axes over a plausible span (0..50 ms), not the range pyqtgraph autoranges an empty plot
to (-0.5..0.5, labelled "x0.001").
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QSplitter

PLOT_HEIGHT = 180         # the plots' preferred height: the panel fits a 1280x720 window's bottom dock
MAX_POINTS = 200_000       # settled frames kept for the live view (the report has them all)
EMPTY_MS = (0.0, 50.0)     # the latency axes before any frame
EMPTY_FRAMES = (0.0, 10.0)
EMPTY_S = (0.0, 10.0)


class LatencyView(QSplitter):
    """The histogram and the latency over present time, one persistent item each."""

    def __init__(self, parent=None):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.hist_plot = pg.PlotWidget()
        self.hist_plot.setLabel("bottom", "latency (ms)")
        self.hist_plot.setLabel("left", "frames")
        self.hist_item = pg.PlotDataItem(stepMode="center", fillLevel=0, pen=pg.mkPen(80, 160, 230),
                                         brush=pg.mkBrush(80, 160, 230, 150))
        self.hist_plot.addItem(self.hist_item)
        self.time_plot = pg.PlotWidget()
        self.time_plot.setLabel("bottom", "present time (s)")
        self.time_plot.setLabel("left", "latency (ms)")
        self.time_plot.showGrid(x=True, y=True, alpha=0.2)
        self.time_item = pg.PlotDataItem(pen=None, symbol="o", symbolSize=4, symbolPen=None,
                                         symbolBrush=pg.mkBrush(QColor(80, 160, 230)))
        self.drop_item = pg.ScatterPlotItem(symbol="t1", size=10, pen=None, brush=pg.mkBrush(214, 39, 40))
        self.time_plot.addItem(self.time_item)
        self.time_plot.addItem(self.drop_item)
        self.addWidget(self.hist_plot)
        self.addWidget(self.time_plot)
        self.setSizes([400, 600])
        self.clear()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        # a plot's own hint is 600x480: in the dock's scroll area (which sizes a panel with a
        # wrapped label by its preferred height) the panel would then scroll instead of fitting
        return QSize(900, PLOT_HEIGHT)

    def clear(self) -> None:
        self.t0: float | None = None
        self.t = np.zeros(0)
        self.ms = np.zeros(0)
        self.drops = np.zeros(0)
        self._draw()

    def add(self, present_s: np.ndarray, latency_ms: np.ndarray, status) -> None:
        """Settled frames: their present times, latencies (NaN: not matched) and statuses."""
        if not len(present_s):
            return
        if self.t0 is None:
            self.t0 = float(present_s[0])
        ok = np.isfinite(latency_ms)
        self.t = np.concatenate([self.t, present_s[ok] - self.t0])[-MAX_POINTS:]
        self.ms = np.concatenate([self.ms, latency_ms[ok]])[-MAX_POINTS:]
        dropped = np.array([s == "dropped" for s in status], bool)
        self.drops = np.concatenate([self.drops, present_s[dropped] - self.t0])[-MAX_POINTS:]
        self._draw()

    def show_report(self, report: dict) -> None:
        frames = report["frames"]
        self.clear()
        if frames:
            t = np.array([f["present_s"] for f in frames], np.float64)
            ms = np.array([np.nan if f["latency_ms"] is None else f["latency_ms"] for f in frames])
            self.add(t, ms, [f["status"] for f in frames])

    def _draw(self) -> None:
        if self.ms.size:
            lo, hi = np.floor(self.ms.min()), np.ceil(self.ms.max())
            edges = np.arange(lo, max(hi, lo + 1) + 1.0, 1.0, dtype=np.float64)
            counts, edges = np.histogram(self.ms, bins=edges)
            self.hist_item.setData(edges, counts.astype(np.float64))
        else:
            self.hist_item.setData(np.array([0.0, 1.0]), np.array([0.0]))
        self.time_item.setData(self.t, self.ms)
        self.drop_item.setData(self.drops, np.zeros(self.drops.size))
        if self.ms.size or self.drops.size:
            self.hist_plot.enableAutoRange()
            self.time_plot.enableAutoRange()
        else:   # fixed empty axes: autoranging nothing gives -0.5..0.5 scaled "x0.001"
            for plot, x, y in ((self.hist_plot, EMPTY_MS, EMPTY_FRAMES), (self.time_plot, EMPTY_S, EMPTY_MS)):
                plot.disableAutoRange()
                plot.setRange(xRange=x, yRange=y, padding=0)
