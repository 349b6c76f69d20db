"""The Measure panel: race the render paths on a band, see the verdict, save and ship it.

The widget shows and collects; the race (``core.decisions.RaceRequest.steps``) and the cache
(``core.decisions.DecisionCache``) do the work.  A race is ``live`` (the candidates presented in
turn by the window's output session on the output screen, :class:`~app.panels.live_race.LiveOutput`:
the default where there is a display) or ``render`` (each render timed in isolation).  It runs
from an immutable ``RaceRequest`` as the panel's job (:class:`~app.workers.JobPanel`): progress
reaches the GUI thread a few times a second, Cancel stops it at the next step, and a cancelled
race records nothing.  Saving, export and import are
:class:`~app.panels.decision_files.DecisionFileActions`; the chart, table and band picker are
:class:`~app.panels.race_chart.RaceChart`, :class:`~app.panels.race_table.RaceTable` and
:class:`~app.panels.band_picker.BandPicker`, table and chart redrawn together from the same rows
(:func:`~core.decisions.race_rows`).  Every state change goes through ``_update_buttons``.

The panel receives what it offers: the devices, the live output's device and band (followed on
``loop.engine_changed``) and the race's default settings.  A saved or imported verdict emits
``decisions_changed``, and the window chooses the live output's path again at once.
``create_panel(main_window)`` and ``shutdown()`` as ``app/panels/__init__.py`` says.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
)

from app.dialogs import FileDialogs
from app.panels.band_picker import BandPicker
from app.panels.decision_files import DecisionFileActions
from app.panels.live_race import LiveOutput
from app.panels.race_chart import RaceChart
from app.panels.race_setup import RaceSetup, refill
from app.panels.race_table import RaceTable
from app.workers import JobPanel
from core.decisions import (
    Band,
    DecisionCache,
    LiveOutputLost,
    RaceProgress,
    RaceRequest,
    RaceResult,
    RaceRow,
    RaceSettings,
    fingerprint,
    progress_step,
    race_rows,
    running_rows,
    time_left,
)

PANEL_TITLE = "Measure"
PANEL_AREA = "bottom"


class MeasurePanel(DecisionFileActions, JobPanel):
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
    decisions_changed = Signal()   # after a save or an import: the live output's path may change

    def __init__(self, devices=("cpu",), device: str = "cpu", live_band: Band | str | None = None,
                 settings: RaceSettings | None = None, dialogs: FileDialogs | None = None,
                 live_output=None, decisions: DecisionCache | None = None, parent=None):
        """``devices``: what the device picker offers (the main window's list); ``device`` and
        ``live_band``: what the live output renders on and renders, the picker's defaults;
        ``settings``: the race's default rounds, frames, warm-up and margin; ``live_output``:
        ``() -> LiveOutput`` for live races (None: render races only); ``decisions``: the cache
        verdicts are saved to, exported from and imported into (the live output's; None: the
        default cache file)."""
        super().__init__("testcard-decisions-io", parent)
        self.setWindowTitle(PANEL_TITLE)
        self.dialogs = dialogs or FileDialogs()
        self._defaults = settings or RaceSettings()
        self.live_source = None
        self.race_request: RaceRequest | None = None   # the race the worker runs
        self.live_output = live_output
        self.decisions = decisions
        self.live: LiveOutput | None = None            # the output a live race presents on
        self._shown_phase: str | None = None
        self.result: RaceResult | None = None
        self.saved_key: str | None = None
        self._build(devices, device, live_band)
        self._device_changed()
        self._show_rows([], self.form())
        self._update_buttons()

    # ------------------------------------------------------------ layout
    def _build(self, devices, device: str, live_band) -> None:
        # three columns, so the panel fits a low bottom dock: band | candidates and race | results
        outer = QHBoxLayout(self)
        left = QVBoxLayout()
        middle = QVBoxLayout()
        outer.addLayout(left, 0)
        outer.addLayout(middle, 0)

        self.fingerprint_label = QLabel()
        self.fingerprint_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.fingerprint_label.setWordWrap(True)
        left.addWidget(self.fingerprint_label)

        self.picker = BandPicker(live_band)
        # the picker's widgets, by the names the panel's tests and callers use
        self.band_label, self.custom_size = self.picker.band_label, self.picker.custom_size
        self.device_combo = QComboBox()
        self.device_combo.addItems(list(devices))
        if device in devices:
            self.device_combo.setCurrentText(device)
        self.picker.layout().addRow("Device", self.device_combo)
        left.addWidget(self.picker)
        left.addStretch(1)

        self.setup = RaceSetup(self._defaults, live=self.live_output is not None)
        # the set-up's widgets and methods, by the names the panel's tests and callers use:
        # form() is the form the next race runs in, checked_paths() its candidates
        for name in ("candidate_list", "rounds_spin", "frames_spin", "warmup_spin", "margin_spin",
                     "form_combo", "candidate_items", "set_candidates", "checked_paths", "form",
                     "set_form"):
            setattr(self, name, getattr(self.setup, name))
        buttons = QHBoxLayout()   # above the set-up: in view in a low dock
        self.start_button = QPushButton("Start")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.cancel_button)
        middle.addLayout(buttons)
        middle.addWidget(self.setup)
        middle.addStretch(1)

        right = QVBoxLayout()
        outer.addLayout(right, 1)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(0)
        self.status_label = QLabel("Pick a band and start a race.")
        self.status_label.setWordWrap(True)
        right.addWidget(self.progress_bar)
        right.addWidget(self.status_label)

        self.table = RaceTable()
        self.plot = RaceChart()
        results = QHBoxLayout()
        results.addWidget(self.table, 2)
        results.addWidget(self.plot, 1)
        right.addLayout(results, 1)

        self.verdict_label = QLabel("")
        self.verdict_label.setWordWrap(True)
        right.addWidget(self.verdict_label)

        files = QHBoxLayout()
        self.save_button = QPushButton("Save")
        self.save_button.setToolTip("Record this verdict in the decision cache for this device")
        self.save_button.setEnabled(False)
        self.export_button = QPushButton("Export...")
        self.import_button = QPushButton("Import...")
        for button in (self.save_button, self.export_button, self.import_button):
            files.addWidget(button)
        files.addStretch(1)
        right.addLayout(files)
        self.receipt_view = QPlainTextEdit()
        self.receipt_view.setReadOnly(True)
        self.receipt_view.setMaximumHeight(90)
        self.receipt_view.setPlaceholderText("Import receipts and file messages appear here.")
        right.addWidget(self.receipt_view)

        self.picker.band_changed.connect(self._update_buttons)
        self.setup.form_changed.connect(self._form_changed)
        self.device_combo.currentTextChanged.connect(self._device_changed)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.save_button.clicked.connect(self.save)
        self.export_button.clicked.connect(self._export_dialog)
        self.import_button.clicked.connect(self._import_dialog)

    # ------------------------------------------------------------ band and candidates
    def band(self) -> Band | None:
        """The band the picker names, or None (the reason is shown) when it names none."""
        return self.picker.band()

    def set_band(self, name: str) -> None:
        """Point the picker at a band name (e.g. ``animated@64x36/rgb10``)."""
        self.picker.set_band(name)

    def set_live(self, band, path: str | None = None) -> None:
        """The live output's band (and the path rendering it) changed: the picker follows it
        unless another band was picked by hand."""
        self.picker.set_live(band, path)

    @Slot()
    def refresh_live(self) -> None:
        """Ask :attr:`live_source` (``() -> (band, path)``, set by ``create_panel``) again."""
        if self.live_source is not None:
            self.set_live(*self.live_source())

    def set_devices(self, devices) -> None:
        """The device picker's list, completed once the main window has listed them."""
        if refill(self.device_combo, devices):
            self._device_changed()

    @Slot()
    def _device_changed(self, *_):
        device = self.device_combo.currentText()
        try:
            fp = fingerprint(device)
        except ValueError as exc:
            fp = f"unknown ({exc})"
        self.fingerprint_label.setText(f"This box ({device}): <b>{fp}</b>")
        self.setup.set_device(device, self.tasks)   # the torch paths: asked off this thread once shown
        self._update_buttons()

    @Slot()
    def _form_changed(self, *_) -> None:
        # the table and chart name the figure of what they show: the form picked, until a race
        # of some form starts or its result is on them
        if not self.running and self.result is None:
            self._show_rows([], self.form())
        self._update_buttons()

    def _update_buttons(self) -> None:
        running = self.running
        self.form_combo.setEnabled(not running)
        self.start_button.setEnabled(not running and self.band() is not None)
        self.cancel_button.setEnabled(running)
        self.save_button.setEnabled(not running and self.result is not None
                                    and self.result.winner is not None and self.saved_key is None)

    # ------------------------------------------------------------ the race
    def request(self) -> RaceRequest:
        band = self.band()
        if band is None:
            raise ValueError(self.picker.error)
        paths = self.checked_paths()
        if not paths:
            raise ValueError("tick at least one candidate")
        return RaceRequest(band, self.device_combo.currentText(), paths, self.setup.settings())

    def _live_request(self, req: RaceRequest) -> RaceRequest:
        """``req`` in the live form: the output opened on its screen showing the band (the
        band in the output surface's format); ``ValueError`` when it cannot be shown."""
        if self.live_output is None:
            raise ValueError("live races need the main window's output; race in the render form")
        live = self.live = self.live_output()
        try:
            band = live.open(req.band, req.device)
        except Exception:
            self._close_live()
            raise
        return RaceRequest(band, req.device, req.paths, req.settings, form="live", present=live.present)

    def _close_live(self) -> None:
        live, self.live = self.live, None
        if live is not None:
            live.close()

    @Slot()
    def start(self) -> None:
        if self.running:
            return
        try:
            req = self.request()
        except ValueError as exc:
            self.status_label.setText(str(exc))
            return
        if self.form() == "live":
            self.status_label.setText(f"Opening the output for {req.band.name}...")
            try:
                req = self._live_request(req)
            except Exception as exc:  # noqa: BLE001 - whatever stops the output, said in one line
                self.status_label.setText(f"Cannot race live: {exc}")
                return
        self.result, self.saved_key = None, None
        self._show_rows(running_rows(req.paths, {}), req.form)
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
            if self.live is not None:
                self.live.abort()
            self.status_label.setText("Cancelling (a compile in progress finishes first)...")
            self.cancel_button.setEnabled(False)

    def shutdown(self) -> None:
        if self.live is not None:
            self.live.abort("the panel closed")   # a race waiting for frames returns at once
        super().shutdown()
        self._close_live()

    def _end_worker(self) -> None:
        self.end_job()
        self._close_live()
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
        self.status_label.setText(f"{req.band.name}: {progress_step(p, req.settings.rounds)}; "
                                  f"{time_left(p)}")
        self._show_rows(running_rows(req.paths, p.medians_ms), req.form)
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
        if isinstance(exc, LiveOutputLost):
            self._on_cancelled(f"live race for {self.race_request.band.name} stopped: {exc}; "
                               "nothing recorded")
            return
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
        self._show_rows(race_rows(result), result.form)
        self.verdict_label.setText(f"<b>Winner: {result.winner or 'none'}</b> - {result.reason}")

    def _show_rows(self, rows: list[RaceRow], form: str) -> None:
        """The same rows in the table and the chart, both naming ``form``'s ranked figure."""
        self.table.show_rows(rows, form)
        self.plot.show_rows(rows, form)


def create_panel(main_window=None) -> MeasurePanel:
    """The panel for the main window's dock (see ``app/panels/__init__.py``): its devices, the
    live output's device and band, and its file dialogs come from the window; a saved or
    imported verdict makes the window choose the live output's render path again at once."""
    if main_window is None:
        return MeasurePanel()
    # the live race gets the window's output session and its output screen, not the window
    session, screen = main_window.session, main_window.output_choice.identity
    panel = MeasurePanel(devices=main_window.devices, device=main_window.loop.device,
                         live_band=main_window.live_band(), dialogs=main_window.dialogs,
                         live_output=lambda: LiveOutput(session, screen=screen),
                         decisions=main_window.decisions)
    panel.live_source = lambda: (main_window.live_band(), main_window.loop.path)
    panel.refresh_live()
    main_window.loop.engine_changed.connect(panel.refresh_live)  # a bound slot: gone with the panel
    main_window.devices_listed.connect(panel.set_devices)
    panel.decisions_changed.connect(main_window.rechoose_render_path)
    return panel
