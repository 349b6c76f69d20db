"""Help > Doctor: the doctor's checks in a table, run without blocking the GUI thread.

The display checks come first, on the GUI thread (reading the screens and the HDR answer takes
no time; the presents run is :class:`~app.doctor.probe.PresentProbe`'s signals), then the
headless checks run on the project's one worker (:class:`app.workers.GeneratorWorker`, one
check per yield) for the output's size, granted format and refresh.  Cancel stops after the
check in progress (the rest say ``not run (cancelled)``); closing the dialog cancels, and the
worker's thread is joined once it has ended, never waited on from the GUI thread.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from app.doctor.display import Target, check_hdr, output_target, screen_checks
from app.doctor.probe import PresentProbe
from app.settings import Settings
from app.workers import GeneratorWorker
from core.doctor import (
    FAIL,
    NOT_RUN,
    OK,
    PRESENTS_WHY,
    WARNING,
    Check,
    Running,
    counts,
    headless_steps,
    run_steps,
)

COLUMNS = ("check", "verdict", "figure", "why it matters")
COLOURS = {OK: "#2a7", WARNING: "#c80", FAIL: "#d33", NOT_RUN: "#888"}


class DoctorDialog(QDialog):
    """Every check's row as it comes; ``done`` once the last one is in (or the run was cancelled)."""

    check_added = Signal(object)      # each Check as its row is filled in
    done = Signal()

    def __init__(self, settings: Settings | None = None, quick: bool = False, frames: int = 120,
                 parent=None):
        super().__init__(parent)
        self.setWindowTitle("testcard doctor")
        self.settings = settings if settings is not None else Settings()
        self.quick = quick
        self.frames = frames
        self.checks: list[Check] = []
        self.worker: GeneratorWorker | None = None
        self.probe: PresentProbe | None = None
        self.target: Target | None = None
        self.finished_run = False
        self._cancelled = False
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        head = self.table.horizontalHeader()
        for i in range(3):
            head.setSectionResizeMode(i, QHeaderView.ResizeMode.ResizeToContents)
        head.setStretchLastSection(True)
        self.status = QLabel("starting\u2026")
        self.buttons = QDialogButtonBox()
        self.cancel_button = self.buttons.addButton("Cancel", QDialogButtonBox.ButtonRole.RejectRole)
        self.close_button = self.buttons.addButton("Close", QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button.clicked.connect(self.close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.table)
        lay.addWidget(self.status)
        lay.addWidget(self.buttons)
        self.resize(1100, 640)
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)

    # -- the run
    def start(self) -> None:
        """Display checks now, then the presents run, then the headless checks on the worker."""
        try:
            self.target = output_target(None, self.settings)
        except ValueError as exc:          # no screens at all
            self.status.setText(str(exc))
            self._start_worker()
            return
        for check in screen_checks(self.target) + [check_hdr(self.target)]:
            self._add(check)
        self.status.setText("surface: presenting\u2026")
        self.probe = PresentProbe(self.target, self.frames, self)
        self.probe.surface_known.connect(self._surface_known)
        self.probe.finished.connect(self._presents_done)
        self.probe.start()

    def _surface_known(self, check: Check) -> None:
        self._add(check)
        if self._cancelled:
            return
        self.probe.run_presents()

    def _presents_done(self, check: Check) -> None:
        self._add(check)
        self._start_worker()

    def _start_worker(self) -> None:
        target = self.target
        size = target.screen.native_size if target is not None else (3840, 2160)
        period = target.period_ms if target is not None else 1000.0 / 60.0
        fmt = "rgb10" if self.probe is not None and self.probe.format is not None and \
            self.probe.format.data.get("ten_bit") else "rgb8"
        steps = headless_steps(quick=self.quick, size=size, fmt=fmt, period_ms=period,
                               device=self.settings.device)
        worker = GeneratorWorker(lambda cancel: run_steps(steps, cancel), name="testcard-doctor",
                                 min_interval_s=0.0)
        worker.yielded.connect(self._yielded)
        worker.returned.connect(self._returned)
        worker.errored.connect(self._errored)
        worker.finished.connect(self._worker_finished)
        self.worker = worker
        if self._cancelled:
            worker.quit()                  # every step then says it was not run
        worker.start()

    def _yielded(self, items: list) -> None:
        for item in items:
            if isinstance(item, Running):
                self.status.setText(f"[{item.index}/{item.total}] {item.label}\u2026")
            else:
                self._add(item)

    def _returned(self, _checks) -> None:
        n = counts(self.checks)
        self.status.setText(("cancelled: " if self._cancelled else "done: ") + ", ".join(
            f"{v} {k}" for k, v in n.items() if v))

    def _errored(self, exc) -> None:
        self.status.setText(f"the doctor stopped: {type(exc).__name__}: {exc}")

    def _worker_finished(self) -> None:
        worker = self.worker
        if worker is not None:
            worker.wait()                  # it has ended: joining is immediate
        self.finished_run = True
        self.cancel_button.setEnabled(False)
        self.done.emit()

    def _add(self, check: Check) -> None:
        self.checks.append(check)
        row = self.table.rowCount()
        self.table.insertRow(row)
        for col, text in enumerate((check.label, check.verdict, check.figure, check.why)):
            item = QTableWidgetItem(text)
            tip = check.detail or check.figure
            item.setToolTip(tip)
            if col == 1 and check.verdict in COLOURS:
                item.setForeground(QColor(COLOURS[check.verdict]))
            item.setTextAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(row, col, item)
        self.table.scrollToBottom()
        self.check_added.emit(check)

    # -- stopping
    def cancel(self) -> None:
        """Stop after the check in progress; the rest are listed as not run."""
        if self.finished_run or self._cancelled:
            return
        self._cancelled = True
        self.status.setText("cancelling after the check in progress\u2026")
        if self.worker is not None:
            self.worker.quit()
        elif self.probe is not None and self.probe.presents is None:
            self.probe.cancel()
            self._add(Check("surface", "presents", NOT_RUN, "not run (cancelled)", PRESENTS_WHY))
            self._start_worker()

    def shutdown(self) -> None:
        """Cancel and wait for the worker (the application is quitting)."""
        self.cancel()
        if self.worker is not None:
            self.worker.wait()

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        if not self.finished_run:
            self.cancel()                  # the worker ends after its check; nothing waits here
        super().closeEvent(event)
