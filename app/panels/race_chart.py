"""The Measure panel's chart: each candidate's median frame time as a bar, its spread as an
error bar, the winner's bar in green and labelled.

The axis is in milliseconds and says so once: pyqtgraph's SI prefixing is off (it would turn
"ms" into "mms" or "kms").  Before a race the axes hold a fixed range with no candidate ticks,
not the autoscaled range of no data."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor

WINNER_COLOUR = QColor(46, 160, 67)
BAR_COLOUR = QColor(90, 130, 200)


class RaceChart(pg.PlotWidget):
    EMPTY_MS = 20.0   # the frame-time range shown before any candidate has a time

    def __init__(self, parent=None):
        super().__init__(parent)
        self.getAxis("left").enableAutoSIPrefix(False)
        self.setLabel("left", "median frame time (ms)")
        self.setMouseEnabled(x=False, y=False)
        self.hideButtons()
        self.setMinimumHeight(160)
        self.bars = pg.BarGraphItem(x=np.zeros(0, dtype=np.float64), height=np.zeros(0), width=0.6)
        self.error_bars = pg.ErrorBarItem(x=np.zeros(0, dtype=np.float64), y=np.zeros(0),
                                          height=np.zeros(0), beam=0.2)
        self.winner_text = pg.TextItem("", color=WINNER_COLOUR, anchor=(0.5, 1.0))
        self.addItem(self.bars)
        self.addItem(self.error_bars)
        self.addItem(self.winner_text)
        self.show_timed([], None)

    def show_timed(self, timed, winner: str | None) -> None:
        """``timed``: ``(name, median_ms, CandidateResult or None)`` per candidate with a time so far."""
        x = np.arange(len(timed), dtype=np.float64)
        heights = np.array([t[1] for t in timed], dtype=np.float64)
        spreads = np.array([(t[2].spread_ms or 0.0) if t[2] is not None else 0.0 for t in timed],
                           dtype=np.float64)
        brushes = [pg.mkBrush(WINNER_COLOUR if t[0] == winner else BAR_COLOUR) for t in timed]
        self.bars.setOpts(x=x, height=heights, width=0.6, brushes=brushes)
        self.error_bars.setData(x=x, y=heights, height=2 * spreads, beam=0.2)
        self.getAxis("bottom").setTicks([[(float(i), t[0]) for i, t in enumerate(timed)]])
        if winner is not None and any(t[0] == winner for t in timed):
            i = [t[0] for t in timed].index(winner)
            self.winner_text.setText("winner")
            self.winner_text.setPos(float(i), float(heights[i] + spreads[i]))
        else:
            self.winner_text.setText("")
        self.setXRange(-0.6, max(len(timed), 1) - 0.4, padding=0)
        top = float((heights + spreads).max()) * 1.15 if len(timed) else self.EMPTY_MS
        self.setYRange(0, top if top > 0 else 1.0, padding=0)

    def bar_data(self) -> dict:
        """What the chart shows (for tests): x, heights, spreads and the winner's label."""
        opts = self.bars.opts
        return {"x": np.asarray(opts.get("x")), "height": np.asarray(opts.get("height")),
                "spread": np.asarray(self.error_bars.opts.get("height")) / 2,
                "brushes": opts.get("brushes"), "winner_label": self.winner_text.toPlainText()}
