"""The Measure panel's chart: each candidate's ranked figure as a bar -- median render time in a
render race, p99 frame cost in a live one (:func:`core.decisions.ranked`), named so on the axis
-- its spread as an error bar, the winner's bar in green and labelled.

The bars are the rows the table shows (:class:`core.decisions.RaceRow`), so chart and table
always hold the same numbers.  The axis is in milliseconds and says so once: pyqtgraph's SI
prefixing is off (it would turn "ms" into "mms" or "kms").  Before a race the axes hold a fixed
range with no candidate ticks, not the autoscaled range of no data."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize
from PySide6.QtGui import QColor

from core.decisions import RaceRow, ranked

WINNER_COLOUR = QColor(46, 160, 67)
BAR_COLOUR = QColor(90, 130, 200)


class RaceChart(pg.PlotWidget):
    EMPTY_MS = 20.0   # the range shown before any candidate has a figure

    def __init__(self, parent=None):
        super().__init__(parent)
        self.getAxis("left").enableAutoSIPrefix(False)
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
        self.show_rows([], "render")

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        # a plot's own hint is 600x480, which the dock's scroll area sizes the panel by (its
        # wrapped labels give it a height for its width): the panel scrolled in a low dock
        return QSize(240, 160)

    def axis_label(self) -> str:
        return self.getAxis("left").labelText

    def show_rows(self, rows: list[RaceRow], form: str) -> None:
        """A bar for each row with a figure so far; the axis names ``form``'s ranked figure."""
        self.setLabel("left", ranked(form).label)
        timed = [r for r in rows if r.figure_ms is not None]
        x = np.arange(len(timed), dtype=np.float64)
        heights = np.array([r.figure_ms for r in timed], dtype=np.float64)
        spreads = np.array([r.spread_ms or 0.0 for r in timed], dtype=np.float64)
        brushes = [pg.mkBrush(WINNER_COLOUR if r.winner else BAR_COLOUR) for r in timed]
        self.bars.setOpts(x=x, height=heights, width=0.6, brushes=brushes)
        self.error_bars.setData(x=x, y=heights, height=2 * spreads, beam=0.2)
        self.getAxis("bottom").setTicks([[(float(i), r.path) for i, r in enumerate(timed)]])
        won = [i for i, r in enumerate(timed) if r.winner]
        if won:
            self.winner_text.setText("winner")
            self.winner_text.setPos(float(won[0]), float(heights[won[0]] + spreads[won[0]]))
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
