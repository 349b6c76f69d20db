"""The Measure panel: race the render paths on a band, see the verdict, save and ship it.

The widget shows and collects; the race (``core.decisions.RaceRequest.steps``) and the cache
(``core.decisions.DecisionCache``) do the work.  A race runs from an immutable ``RaceRequest`` as the
panel's job (:class:`~app.workers.JobPanel`, a :class:`~app.workers.GeneratorWorker`):
progress arrives on the GUI thread a few times a second (and at every change of phase),
Cancel stops it at the next step, and a cancelled race records nothing.  Saving, export and
import run on the panel's :class:`~app.workers.TaskRunner` (the cache lock may wait on another
process).  The chart is :class:`~app.panels.race_chart.RaceChart`.

For the main window (``app/panels/__init__.py``): ``PANEL_TITLE``, ``PANEL_AREA`` and
``create_panel(main_window)``; ``shutdown()`` stops the workers.

One piece (about 500 lines): band picker, candidates, race controls, the live table and the
decision files are one form -- every state change goes through ``_update_buttons``, and the
table and chart are redrawn together from each progress and result -- so what stands alone
(the worker, the chart) has moved out and the rest is its layout and its slots.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from app.panels.race_chart import WINNER_COLOUR, RaceChart
from app.workers import JobPanel
from core.decisions import (
    BAND_FORMATS,
    RESOLUTIONS,
    Band,
    RaceProgress,
    RaceRequest,
    RaceResult,
    RaceSettings,
    export_decisions,
    families,
    fingerprint,
    import_decisions,
    make_band,
    parse_band,
    record_result,
)
from core.engine import PATHS, available_devices, available_paths

PANEL_TITLE = "Measure"
PANEL_AREA = "bottom"
CUSTOM = "custom WxH"
COLUMNS = ["path", "status", "median ms", "spread ms", "compile s", "vs default", "note"]


class MeasurePanel(JobPanel):
    """Band picker, candidates, start/cancel, progress, live results, chart, save/export/import."""

    race_started = Signal(str)
    race_progressed = Signal(object)
    race_finished = Signal(object)
    race_cancelled = Signal(str)
    race_failed = Signal(str)
    decision_saved = Signal(str)
    decisions_exported = Signal(str, int)
    decisions_imported = Signal(object)
    file_failed = Signal(str)

    def __init__(self, parent=None):
        super().__init__("testcard-decisions-io", parent)
        self.setWindowTitle(PANEL_TITLE)
        self.race_request: RaceRequest | None = None   # the race the worker runs
        self._shown_phase: str | None = None
        self.result: RaceResult | None = None
        self.saved_key: str | None = None
        self._paths_here: dict[str, str | None] = {}
        self._build()
        self._device_changed()
        self._band_changed()

    # ------------------------------------------------------------ layout
    def _build(self) -> None:
        outer = QHBoxLayout(self)
        left = QVBoxLayout()
        outer.addLayout(left, 0)

        self.fingerprint_label = QLabel()
        self.fingerprint_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.fingerprint_label.setWordWrap(True)
        left.addWidget(self.fingerprint_label)

        band_box = QGroupBox("Band")
        form = QFormLayout(band_box)
        self.family_combo = QComboBox()
        self.family_combo.addItems(families())
        self.resolution_combo = QComboBox()
        self.resolution_combo.addItems([*RESOLUTIONS, CUSTOM])
        self.custom_size = QLineEdit()
        self.custom_size.setPlaceholderText("e.g. 1920x1200")
        self.custom_size.setEnabled(False)
        self.format_combo = QComboBox()
        self.format_combo.addItems(list(BAND_FORMATS))
        self.format_combo.setCurrentText("rgb10")
        self.device_combo = QComboBox()
        self.device_combo.addItems(available_devices())
        self.band_label = QLabel()
        self.band_label.setWordWrap(True)
        form.addRow("Pattern", self.family_combo)
        form.addRow("Resolution", self.resolution_combo)
        form.addRow("Custom size", self.custom_size)
        form.addRow("Format", self.format_combo)
        form.addRow("Device", self.device_combo)
        form.addRow("Band", self.band_label)
        left.addWidget(band_box)

        cand_box = QGroupBox("Candidates")
        cl = QVBoxLayout(cand_box)
        self.candidate_list = QListWidget()
        self.candidate_list.setSelectionMode(QAbstractItemView.NoSelection)
        self.candidate_list.setWordWrap(True)
        self.candidate_list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        cl.addWidget(self.candidate_list)
        left.addWidget(cand_box)

        race_box = QGroupBox("Race")
        rf = QFormLayout(race_box)
        defaults = RaceSettings()
        self.rounds_spin = QSpinBox(minimum=1, maximum=1000, value=defaults.rounds)
        self.frames_spin = QSpinBox(minimum=1, maximum=10000, value=defaults.frames)
        self.warmup_spin = QSpinBox(minimum=0, maximum=10000, value=defaults.warmup)
        self.margin_spin = QDoubleSpinBox(minimum=0.0, maximum=50.0, value=defaults.margin * 100,
                                          suffix=" %", decimals=1, singleStep=0.5)
        rf.addRow("Rounds", self.rounds_spin)
        rf.addRow("Timed frames / round", self.frames_spin)
        rf.addRow("Warm-up frames / round", self.warmup_spin)
        rf.addRow("Margin", self.margin_spin)
        left.addWidget(race_box)

        buttons = QHBoxLayout()
        self.start_button = QPushButton("Start")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.cancel_button)
        left.addLayout(buttons)
        left.addStretch(1)

        right = QVBoxLayout()
        outer.addLayout(right, 1)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(0)
        self.status_label = QLabel("Pick a band and start a race.")
        self.status_label.setWordWrap(True)
        right.addWidget(self.progress_bar)
        right.addWidget(self.status_label)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        right.addWidget(self.table, 1)

        self.plot = RaceChart()
        right.addWidget(self.plot, 1)

        self.verdict_label = QLabel("")
        self.verdict_label.setWordWrap(True)
        right.addWidget(self.verdict_label)

        files = QHBoxLayout()
        self.save_button = QPushButton("Save")
        self.save_button.setToolTip("Record this verdict in the decision cache for this device")
        self.save_button.setEnabled(False)
        self.export_button = QPushButton("Export...")
        self.import_button = QPushButton("Import...")
        files.addWidget(self.save_button)
        files.addWidget(self.export_button)
        files.addWidget(self.import_button)
        files.addStretch(1)
        right.addLayout(files)
        self.receipt_view = QPlainTextEdit()
        self.receipt_view.setReadOnly(True)
        self.receipt_view.setMaximumHeight(120)
        self.receipt_view.setPlaceholderText("Import receipts and file messages appear here.")
        right.addWidget(self.receipt_view)

        self.family_combo.currentTextChanged.connect(self._band_changed)
        self.resolution_combo.currentTextChanged.connect(self._band_changed)
        self.custom_size.textChanged.connect(self._band_changed)
        self.format_combo.currentTextChanged.connect(self._band_changed)
        self.device_combo.currentTextChanged.connect(self._device_changed)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.save_button.clicked.connect(self.save)
        self.export_button.clicked.connect(self._export_dialog)
        self.import_button.clicked.connect(self._import_dialog)

    # ------------------------------------------------------------ band and candidates
    def band(self) -> Band | None:
        """The band the picker names, or None (the reason is shown) when it names none."""
        res = self.resolution_combo.currentText()
        if res == CUSTOM:
            res = self.custom_size.text().strip() or "?"
        try:
            return make_band(self.family_combo.currentText(), res, self.format_combo.currentText())
        except ValueError as exc:
            self._band_error = str(exc)
            return None

    def set_band(self, name: str) -> None:
        """Point the picker at a band name (e.g. ``animated@64x36/rgb10``)."""
        b = parse_band(name)
        self.family_combo.setCurrentText(b.family)
        if b.resolution in RESOLUTIONS:
            self.resolution_combo.setCurrentText(b.resolution)
        else:
            self.resolution_combo.setCurrentText(CUSTOM)
            self.custom_size.setText(b.resolution)
        self.format_combo.setCurrentText(b.fmt)

    @Slot()
    def _band_changed(self, *_):
        self.custom_size.setEnabled(self.resolution_combo.currentText() == CUSTOM)
        b = self.band()
        if b is None:
            self.band_label.setText(f"<span style='color:#c33'>{self._band_error}</span>")
        else:
            self.band_label.setText(f"<b>{b.name}</b>")
        self._update_buttons()

    @Slot()
    def _device_changed(self, *_):
        device = self.device_combo.currentText()
        try:
            fp = fingerprint(device)
        except ValueError as exc:
            fp = f"unknown ({exc})"
        self.fingerprint_label.setText(f"This box ({device}): <b>{fp}</b>")
        self._paths_here = available_paths(device)
        self.candidate_list.clear()
        for path in PATHS:
            why = self._paths_here.get(path, "not a path of this engine")
            item = QListWidgetItem(path if why is None else f"{path} - {why}")
            item.setData(Qt.UserRole, path)
            if why is None:
                item.setFlags(Qt.ItemIsEnabled | Qt.ItemIsUserCheckable)
                item.setCheckState(Qt.Checked)
            else:
                item.setFlags(Qt.ItemIsUserCheckable)  # not enabled: greyed, cannot be ticked
                item.setCheckState(Qt.Unchecked)
                item.setToolTip(why)
                item.setForeground(QBrush(QColor(140, 140, 140)))
            self.candidate_list.addItem(item)
        self._update_buttons()

    def candidate_items(self) -> dict[str, QListWidgetItem]:
        return {self.candidate_list.item(i).data(Qt.UserRole): self.candidate_list.item(i)
                for i in range(self.candidate_list.count())}

    def set_candidates(self, paths) -> None:
        for name, item in self.candidate_items().items():
            if item.flags() & Qt.ItemIsEnabled:
                item.setCheckState(Qt.Checked if name in paths else Qt.Unchecked)

    def checked_paths(self) -> tuple[str, ...]:
        return tuple(n for n, it in self.candidate_items().items()
                     if it.flags() & Qt.ItemIsEnabled and it.checkState() == Qt.Checked)

    def _update_buttons(self) -> None:
        running = self.running
        self.start_button.setEnabled(not running and self.band() is not None)
        self.cancel_button.setEnabled(running)
        self.save_button.setEnabled(not running and self.result is not None
                                    and self.result.winner is not None and self.saved_key is None)

    # ------------------------------------------------------------ the race
    def request(self) -> RaceRequest:
        band = self.band()
        if band is None:
            raise ValueError(self._band_error)
        paths = self.checked_paths()
        if not paths:
            raise ValueError("tick at least one candidate")
        settings = RaceSettings(rounds=self.rounds_spin.value(), frames=self.frames_spin.value(),
                                warmup=self.warmup_spin.value(), margin=self.margin_spin.value() / 100)
        return RaceRequest(band, self.device_combo.currentText(), paths, settings)

    @Slot()
    def start(self) -> None:
        if self.running:
            return
        try:
            req = self.request()
        except ValueError as exc:
            self.status_label.setText(str(exc))
            return
        self.result, self.saved_key = None, None
        self._show_rows({}, req.paths, None)
        self.verdict_label.setText("")
        self.progress_bar.setValue(0)
        self.status_label.setText(f"Starting {req.band.name} on {req.device}...")
        self.race_request, self._shown_phase = req, None
        worker = self.start_job(req.steps, name="testcard-race", yielded=self._on_progress,
                                returned=self._on_finished, errored=self._on_errored,
                                aborted=self._on_aborted)
        self._update_buttons()
        worker.start()
        self.race_started.emit(req.band.name)

    @Slot()
    def cancel(self) -> None:
        if self.cancel_job():
            self.status_label.setText("Cancelling (a compile in progress finishes first)...")
            self.cancel_button.setEnabled(False)

    def _end_worker(self) -> None:
        self.end_job()
        self._update_buttons()

    @Slot(object)
    def _on_progress(self, batch: list[RaceProgress]) -> None:
        """Show the newest progress, and every change of phase on the way to it."""
        for i, p in enumerate(batch):
            if self.worker is None:
                return
            if p.phase != self._shown_phase or i == len(batch) - 1:
                self._shown_phase = p.phase
                self._show_progress(p)

    def _show_progress(self, p: RaceProgress) -> None:
        req = self.race_request
        self.progress_bar.setValue(int(p.fraction * 1000))
        what = {"open": f"starting {p.candidate} (compiling where it compiles)",
                "parity": "checking parity with numpy",
                "round": f"round {p.round + 1}/{req.settings.rounds}: {p.candidate}",
                "done": "deciding"}[p.phase]
        left = "time left unknown" if p.remaining_s is None else f"about {_duration(p.remaining_s)} left"
        self.status_label.setText(f"{req.band.name}: {what}; {left}")
        self._show_rows({n: (m, None) for n, m in p.medians_ms.items()}, req.paths, None)
        self.race_progressed.emit(p)

    @Slot(object)
    def _on_finished(self, result: RaceResult) -> None:
        self._end_worker()
        self.result = result
        self.progress_bar.setValue(1000)
        self.show_result(result)
        self.status_label.setText(f"{result.band}: finished. Save to record the verdict here.")
        self._update_buttons()
        self.race_finished.emit(result)

    @Slot()
    def _on_aborted(self) -> None:
        # the race raised after Cancel: RaceCancelled, or whatever stopped it on the way out
        self._on_cancelled(f"race for {self.race_request.band.name} cancelled; nothing recorded")

    @Slot(object)
    def _on_errored(self, exc: Exception) -> None:
        self._on_failed(f"{type(exc).__name__}: {exc}")

    def _on_cancelled(self, message: str) -> None:
        self._end_worker()
        self.status_label.setText(message)
        self.progress_bar.setValue(0)
        self.race_cancelled.emit(message)

    def _on_failed(self, message: str) -> None:
        self._end_worker()
        self.status_label.setText(f"Race failed: {message}")
        self.race_failed.emit(message)

    # ------------------------------------------------------------ results
    def show_result(self, result: RaceResult) -> None:
        rows = {n: (c.median_ms, c) for n, c in result.candidates.items()}
        self._show_rows(rows, tuple(result.candidates), result)
        self.verdict_label.setText(f"<b>Winner: {result.winner or 'none'}</b> - {result.reason}")

    def _show_rows(self, rows: dict, order, result: RaceResult | None) -> None:
        names = [n for n in order if n in rows] + [n for n in order if n not in rows]
        default_ms = result.default_ms if result is not None else None
        self.table.setRowCount(len(names))
        for i, name in enumerate(names):
            median, c = rows.get(name, (None, None))
            status = c.status if c is not None else ("running" if median is not None else "waiting")
            cells = [name + (" (winner)" if result is not None and name == result.winner else ""),
                     status, _num(median), _num(c.spread_ms if c else None),
                     _num(c.compile_s if c else None, 2),
                     f"{median / default_ms:.2f}x" if median and default_ms else "",
                     c.reason if c else ""]
            for j, text in enumerate(cells):
                item = self.table.item(i, j)
                if item is None:
                    item = QTableWidgetItem()
                    self.table.setItem(i, j, item)
                item.setText(text)
                item.setToolTip(text if j == len(cells) - 1 else "")
                item.setForeground(QBrush(WINNER_COLOUR if result is not None and name == result.winner
                                          else self.palette().text().color()))
        timed = [(n, rows[n][0], rows[n][1]) for n in names if n in rows and rows[n][0] is not None]
        self.plot.show_timed(timed, result.winner if result is not None else None)

    # ------------------------------------------------------------ save, export, import
    @Slot()
    def save(self) -> None:
        if self.result is None or self.result.winner is None:
            return

        result = self.result
        self.save_button.setEnabled(False)
        self.tasks.submit(lambda: record_result(result), self._saved)

    def _saved(self, key, exc) -> None:
        if exc is not None:
            self._file_message(f"Save failed: {exc}", error=True)
            self._update_buttons()
            return
        self.saved_key = key
        self._file_message(f"Saved: {key}")
        self._update_buttons()
        self.decision_saved.emit(key)

    def export_to(self, path: str, bands=None) -> None:
        """Write this box's verdicts (all bands, or ``bands``) to ``path`` off the GUI thread."""
        self.tasks.submit(lambda: export_decisions(path, bands=bands),
                       lambda n, exc: self._exported(path, n, exc))

    def _exported(self, path, n, exc) -> None:
        if exc is not None:
            self._file_message(f"Export failed: {exc}", error=True)
            return
        self._file_message(f"Exported {n} decision(s) to {path}")
        self.decisions_exported.emit(path, n)

    def import_from(self, path: str) -> None:
        """Merge a decision file off the GUI thread; the receipt is shown when it is done."""
        self.tasks.submit(lambda: import_decisions(path), self._imported)

    def _imported(self, receipt, exc) -> None:
        if exc is not None:
            self._file_message(f"Import refused: {exc}", error=True)
            return
        lines = [receipt.summary()]
        for e in receipt.entries:
            lines.append(f"  {e['action']:<10} {e['band']:<28} {e['winner']:<16} {e['device']}")
        lines += [f"warning: {w}" for w in receipt.warnings]
        self.receipt_view.setPlainText("\n".join(lines))
        self.decisions_imported.emit(receipt)

    def _file_message(self, text: str, error: bool = False) -> None:
        self.receipt_view.setPlainText(text)
        if error:
            self.file_failed.emit(text)

    @Slot()
    def _export_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export decisions", "decisions.json",
                                              "Decision files (*.json)")
        if path:
            self.export_to(path)

    @Slot()
    def _import_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import decisions", "", "Decision files (*.json)")
        if path:
            self.import_from(path)

def _num(v, nd: int = 3) -> str:
    return "" if v is None else f"{v:.{nd}f}"


def _duration(s: float) -> str:
    s = max(0.0, s)
    if s < 60:
        return f"{s:.0f} s"
    return f"{int(s // 60)} min {int(s % 60):02d} s"


def create_panel(main_window=None) -> MeasurePanel:
    """The panel for the main window's dock (see ``app/panels/__init__.py``)."""
    return MeasurePanel()
