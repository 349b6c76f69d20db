"""The frame-timing dock: live plots and counters against the screen's budget.

Updated a few times a second from the loop's timeline (never per frame).  The
plot items are created once and fed with ``setData`` on float64 arrays; the
numbers come from ``core.timing.view``, not from this widget.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDockWidget,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.timing import counter_texts, timeline_columns, timing_view

COUNTERS = (
    ("frames", "frames"),
    ("late", "late (> 1.5 period)"),
    ("missed_vsyncs", "missed vsyncs"),
    ("interval_p50", "interval p50"),
    ("interval_p95", "interval p95"),
    ("interval_p99", "interval p99"),
    ("interval_max", "interval max"),
    ("render_p50", "render p50"),
    ("render_p99", "render p99"),
    ("headroom", "headroom"),
    ("period", "screen period"),
    ("measured", "measured period"),
    ("warmup", "warm-up frames"),
)


class TimingDock(QDockWidget):
    reset_requested = Signal()
    export_requested = Signal()
    WINDOW_S = 5.0

    def __init__(self, parent=None):
        super().__init__("Frame timing", parent)
        self.setObjectName("TimingDock")
        body = QWidget()
        outer = QVBoxLayout(body)
        plots = QHBoxLayout()
        outer.addLayout(plots, 1)

        self.plot = pg.PlotWidget()
        self.plot.setLabel("left", "ms")
        self.plot.setLabel("bottom", "seconds before now")
        self.plot.addLegend(offset=(5, 5))
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.setMinimumHeight(140)
        self.interval_item = self.plot.plot(pen=pg.mkPen("#4aa3ff", width=1), name="present interval")
        self.render_item = self.plot.plot(pen=pg.mkPen("#ffb347", width=1), name="render")
        self.budget_line = pg.InfiniteLine(angle=0, pen=pg.mkPen("#5c5", style=Qt.PenStyle.DashLine),
                                           label="budget {value:.2f} ms",
                                           labelOpts={"position": 0.97, "color": "#5c5",
                                                      "anchors": [(1, 1), (1, 1)]})
        self.late_line = pg.InfiniteLine(angle=0, pen=pg.mkPen("#e55", style=Qt.PenStyle.DotLine),
                                         label="late {value:.2f} ms",
                                         labelOpts={"position": 0.97, "color": "#e55",
                                                    "anchors": [(1, 1), (1, 1)]})
        self.plot.addItem(self.budget_line)
        self.plot.addItem(self.late_line)
        plots.addWidget(self.plot, 3)

        self.hist = pg.PlotWidget()
        self.hist.setLabel("bottom", "present interval", units="ms")
        self.hist.setLabel("left", "frames")
        self.hist.setMouseEnabled(x=False, y=False)
        self.hist_item = self.hist.plot(stepMode="center", fillLevel=0, brush=(74, 163, 255, 120),
                                        pen=pg.mkPen("#4aa3ff"))
        self.hist_budget = pg.InfiniteLine(angle=90, pen=pg.mkPen("#5c5", style=Qt.PenStyle.DashLine))
        self.hist_late = pg.InfiniteLine(angle=90, pen=pg.mkPen("#e55", style=Qt.PenStyle.DotLine))
        self.hist.addItem(self.hist_budget)
        self.hist.addItem(self.hist_late)
        plots.addWidget(self.hist, 2)

        side = QVBoxLayout()
        grid = QGridLayout()
        self.labels: dict[str, QLabel] = {}
        for row, (key, title) in enumerate(COUNTERS):
            grid.addWidget(QLabel(title), row, 0)
            lab = QLabel("\u2013")
            lab.setAlignment(Qt.AlignmentFlag.AlignRight)
            lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            grid.addWidget(lab, row, 1)
            self.labels[key] = lab
        side.addLayout(grid)
        self.pacing = QLabel()
        self.pacing.setWordWrap(True)
        side.addWidget(self.pacing)
        side.addStretch(1)
        buttons = QHBoxLayout()
        self.reset_button = QPushButton("Reset")
        self.export_button = QPushButton("Export CSV\u2026")
        self.reset_button.clicked.connect(self.reset_requested)
        self.export_button.clicked.connect(self.export_requested)
        buttons.addWidget(self.reset_button)
        buttons.addWidget(self.export_button)
        side.addLayout(buttons)
        plots.addLayout(side, 1)
        self.setWidget(body)
        self.last_stats: dict | None = None

    def texts(self) -> dict[str, str]:
        return {k: lab.text() for k, lab in self.labels.items()}

    def update_from(self, timeline, period_ms: float, pacing: str = "") -> dict | None:
        """Recompute and show the counters and plots now; returns the statistics shown."""
        view = timing_view(*timeline_columns(timeline), period_ms, self.WINDOW_S)
        self.show_view(view, pacing)
        return view["stats"]

    def show_view(self, view: dict, pacing: str = "") -> None:
        """Show what :func:`timing_view` computed (cheap: labels and ``setData``)."""
        period_ms = view["period_ms"]
        self.budget_line.setValue(period_ms)
        self.late_line.setValue(1.5 * period_ms)
        self.hist_budget.setValue(period_ms)
        self.hist_late.setValue(1.5 * period_ms)
        self.pacing.setText(pacing)
        stats = view["stats"]
        self.last_stats = stats
        if stats is None:
            self.interval_item.setData(np.zeros(0), np.zeros(0))
            self.render_item.setData(np.zeros(0), np.zeros(0))
            self.hist_item.setData(np.zeros(2), np.zeros(1))
            for lab in self.labels.values():
                lab.setText("\u2013")
            return
        for key, text in counter_texts(stats).items():
            self.labels[key].setText(text)
        self.interval_item.setData(view["x"], view["intervals"], connect="finite")
        self.render_item.setData(view["x"], view["render"])
        self.plot.setYRange(0.0, view["y_top"], padding=0.02)
        self.plot.setXRange(-self.WINDOW_S, 0.0, padding=0.01)
        if view["edges"] is not None:
            self.hist_item.setData(view["edges"], view["counts"])


