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
    QComboBox,
    QDockWidget,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from core.timing import (
    HISTORY_S,
    WINDOWS_S,
    counter_texts,
    coverage_texts,
    span_text,
    timeline_columns,
    timing_view,
)

# What each figure covers (core.timing.view): running totals since the run started, and
# statistics over the recent rows the bounded timeline holds (ten minutes at the screen's rate).
SINCE_START = (
    ("frames", "frames"),
    ("late", "late (> 1.5 period)"),
    ("missed_vsyncs", "missed vsyncs"),
    ("interval_max", "interval max"),
    ("warmup", "warm-up frames"),
)
RECENT = (
    ("interval_p50", "interval p50"),
    ("interval_p95", "interval p95"),
    ("interval_p99", "interval p99"),
    ("render_p50", "render p50"),
    ("render_p99", "render p99"),
    ("headroom", "headroom"),
    ("measured", "measured period"),
)
SCREEN = (("period", "screen period"),)
COUNTERS = SINCE_START + RECENT + SCREEN


class TimingDock(QDockWidget):
    reset_requested = Signal()
    export_requested = Signal()
    record_requested = Signal(bool)        # start (True) or stop streaming every frame to a CSV
    window_changed = Signal(float)         # the plot's window, in seconds, was chosen
    DEFAULT_WINDOW_S = 5.0

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
        self.plot.addLegend(offset=(5, 2), colCount=2, brush=(0, 0, 0, 160))
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.disableAutoRange()      # the view sets both ranges: no bounds scan per refresh
        self.plot.setMinimumHeight(100)
        self.interval_item = self.plot.plot(pen=pg.mkPen("#4aa3ff", width=1), name="present interval")
        self.render_item = self.plot.plot(pen=pg.mkPen("#ffb347", width=1), name="render")
        for item in (self.interval_item, self.render_item):
            # core.timing.view already sends a min/max pair per pixel column at most; these keep
            # the drawing cost flat should a wider plot get more points than it has pixels
            item.setDownsampling(auto=True, method="peak")
            item.setClipToView(True)
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
        self.hist.setLabel("bottom", "present interval since start", units="ms")
        self.hist.setLabel("left", "frames")
        self.hist.setMouseEnabled(x=False, y=False)
        self.hist.disableAutoRange()      # ranges set from the bins, and only when they change
        self.hist.setMinimumHeight(100)
        self.hist_item = self.hist.plot(stepMode="center", fillLevel=0, brush=(74, 163, 255, 120),
                                        pen=pg.mkPen("#4aa3ff"))
        self.hist_budget = pg.InfiniteLine(angle=90, pen=pg.mkPen("#5c5", style=Qt.PenStyle.DashLine))
        self.hist_late = pg.InfiniteLine(angle=90, pen=pg.mkPen("#e55", style=Qt.PenStyle.DotLine))
        self.hist.addItem(self.hist_budget)
        self.hist.addItem(self.hist_late)
        plots.addWidget(self.hist, 2)

        # the buttons on top, the counters below them scroll: a low dock cuts nothing off
        side = QVBoxLayout()
        buttons = QHBoxLayout()
        self.reset_button = QPushButton("Reset")
        self.export_button = QPushButton("Export CSV\u2026")
        self.reset_button.clicked.connect(self.reset_requested)
        self.export_button.clicked.connect(self.export_requested)
        buttons.addWidget(self.reset_button)
        buttons.addWidget(self.export_button)
        side.addLayout(buttons)
        shown = QHBoxLayout()
        self.window_box = QComboBox()
        for seconds in WINDOWS_S:
            self.window_box.addItem(span_text(seconds), seconds)
        self.window_box.setCurrentIndex(WINDOWS_S.index(self.DEFAULT_WINDOW_S))
        self.window_box.setToolTip("How much of the recent history the plot shows")
        self.window_box.currentIndexChanged.connect(lambda _i: self.window_changed.emit(self.window_s))
        self.record_button = QPushButton("Record\u2026")
        self.record_button.setToolTip("Stream every frame from now on to a CSV file (kept in full "
                                      "however long the run); click again to stop")
        self.record_button.clicked.connect(lambda: self.record_requested.emit(self._recording is None))
        self.export_button.setToolTip(f"Export the rows held (the last {span_text(HISTORY_S)}) as CSV")
        shown.addWidget(QLabel("plot"))
        shown.addWidget(self.window_box, 1)
        shown.addWidget(self.record_button)
        side.addLayout(shown)
        self._recording: str | None = None
        counters = QWidget()
        figures = QVBoxLayout(counters)
        figures.setContentsMargins(0, 0, 0, 0)
        grid = QGridLayout()
        grid.setVerticalSpacing(1)
        self.labels: dict[str, QLabel] = {}
        self.headings: dict[str, QLabel] = {}
        row = 0
        for group, counters_in in (("since_start", SINCE_START), ("recent", RECENT), (None, SCREEN)):
            if group is not None:
                head = QLabel()
                head.setStyleSheet("font-weight: bold")
                grid.addWidget(head, row, 0, 1, 2)
                self.headings[group] = head
                row += 1
            for key, title in counters_in:
                grid.addWidget(QLabel(title), row, 0)
                lab = QLabel("\u2013")
                lab.setAlignment(Qt.AlignmentFlag.AlignRight)
                # room for the widest figure, so the counters' column never cuts a value off
                lab.setMinimumWidth(lab.fontMetrics().horizontalAdvance("99999.99 ms"))
                lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                grid.addWidget(lab, row, 1)
                self.labels[key] = lab
                row += 1
        self._show_headings(coverage_texts({}))
        self.headings["since_start"].setToolTip("Running totals over every frame since the run "
                                                "started (or the last Reset)")
        self.headings["recent"].setToolTip("Statistics over the rows the timeline holds: the last "
                                           f"{span_text(HISTORY_S)} at the screen's rate")
        figures.addLayout(grid)
        self.pacing = QLabel()
        self.pacing.setWordWrap(True)
        figures.addWidget(self.pacing)
        figures.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(counters)
        scroll.setMinimumWidth(counters.sizeHint().width() + 18)
        side.addWidget(scroll, 1)
        plots.addLayout(side, 1)
        self.setWidget(body)
        self.last_stats: dict | None = None
        self._queued: list = []
        self._plot_ranges = self._hist_ranges = None

    def texts(self) -> dict[str, str]:
        return {k: lab.text() for k, lab in self.labels.items()}

    @property
    def window_s(self) -> float:
        """The plot's window in seconds (5 s, 1 min or 10 min of the recent history)."""
        return float(self.window_box.currentData())

    # the name the main window's live refresh reads
    WINDOW_S = window_s

    def set_window(self, seconds: float) -> None:
        """Show the last ``seconds`` in the plot (one of ``core.timing.WINDOWS_S``)."""
        if seconds not in WINDOWS_S:
            raise ValueError(f"plot window must be one of {', '.join(span_text(w) for w in WINDOWS_S)}, "
                             f"got {seconds!r} s")
        self.window_box.setCurrentIndex(WINDOWS_S.index(seconds))

    def show_recording(self, path: str | None) -> None:
        """Say whether every frame is being streamed to ``path`` (None: not recording)."""
        self._recording = path
        self.record_button.setText("Stop recording" if path else "Record\u2026")
        self.record_button.setToolTip(f"Recording every frame to {path}; click to stop" if path else
                                      "Stream every frame from now on to a CSV file (kept in full "
                                      "however long the run); click again to stop")

    def _show_headings(self, texts: dict[str, str]) -> None:
        for key, head in self.headings.items():
            head.setText(texts[key])

    def update_from(self, timeline, period_ms: float, pacing: str = "") -> dict | None:
        """Recompute and show the counters and plots now; returns the statistics shown."""
        view = timing_view(*timeline_columns(timeline), period_ms, self.window_s)
        self.show_view(view, pacing)
        return view["stats"]

    def show_view(self, view: dict, pacing: str = "") -> None:
        """Show what :func:`timing_view` computed, all of it now (labels and ``setData``)."""
        self.queue_view(view, pacing)
        self.flush()

    def queue_view(self, view: dict, pacing: str = "") -> None:
        """Show ``view`` a piece per :meth:`apply_next`: the counters, then the plot, then the
        histogram.  The live window applies one piece after each present, so each piece's
        repaint fits between two presents instead of all of them landing in one frame's time."""
        pieces = [lambda: self._show_counters(view, pacing), lambda: self._show_plot(view),
                  lambda: self._show_histogram(view)]
        for piece in pieces:
            piece.of_view = True
        # a newer view replaces the pieces of one still waiting; other work keeps its place
        self._queued = [p for p in self._queued if not getattr(p, "of_view", False)] + pieces

    def queue_pieces(self, pieces) -> None:
        """Queue other work of the live refresh (callables) after what is already queued, to run
        a piece per :meth:`apply_next` like the dock's own."""
        self._queued.extend(pieces)

    def apply_next(self) -> bool:
        """Apply the next queued piece; False when none was waiting."""
        if not self._queued:
            return False
        self._queued.pop(0)()
        return True

    def flush(self) -> None:
        """Apply every queued piece now."""
        while self.apply_next():
            pass

    def _show_counters(self, view: dict, pacing: str) -> None:
        self.pacing.setText(pacing)
        stats = view["stats"]
        self.last_stats = stats
        texts = counter_texts(stats, view.get("since_start")) if stats is not None else {}
        for key, lab in self.labels.items():
            lab.setText(texts.get(key, "\u2013"))
        self._show_headings(coverage_texts(view))

    def _show_plot(self, view: dict) -> None:
        period_ms = view["period_ms"]
        self.budget_line.setValue(period_ms)
        self.late_line.setValue(1.5 * period_ms)
        if view["stats"] is None:
            self.interval_item.setData(np.zeros(0), np.zeros(0))
            self.render_item.setData(np.zeros(0), np.zeros(0))
            return
        self.interval_item.setData(view["x"], view["intervals"], connect="finite")
        self.render_item.setData(view["x"], view["render"])
        window = view.get("window_s", self.window_s)
        ranges = (-window - 0.01 * window, 0.01 * window), (-0.02 * view["y_top"], 1.02 * view["y_top"])
        if ranges != self._plot_ranges:
            # only when they change: a new range redraws the axes' ticks and labels, the costly
            # part of a repaint, and schedules a second repaint for the lines' labels
            self._plot_ranges = ranges
            self.plot.setRange(xRange=ranges[0], yRange=ranges[1], padding=0.0)

    def _show_histogram(self, view: dict) -> None:
        period_ms = view["period_ms"]
        self.hist_budget.setValue(period_ms)
        self.hist_late.setValue(1.5 * period_ms)
        if view["stats"] is None:
            self.hist_item.setData(np.zeros(2), np.zeros(1))
        elif view["edges"] is not None:
            edges, counts = view["edges"], view["counts"]
            self.hist_item.setData(edges, counts)
            top = nice_ceiling(float(np.max(counts, initial=0)))
            ranges = (float(edges[0]), float(edges[-1])), (0.0, top)
            if ranges != self._hist_ranges:    # as for the plot: the axes redrawn only on a change
                self._hist_ranges = ranges
                self.hist.setRange(xRange=ranges[0], yRange=ranges[1], padding=0.02)


def nice_ceiling(value: float) -> float:
    """The least of 1, 2, 5 times a power of ten that is >= ``value`` (1 for nothing): a
    histogram's top that moves only now and then as counts grow."""
    if value <= 1:
        return 1.0
    power = 10.0 ** np.floor(np.log10(value))
    for step in (1.0, 2.0, 5.0, 10.0):
        if step * power >= value:
            return step * power
    return 10.0 * power
