"""The Decode panel: open a folder or video of captured frames, decode its counter, see what
reached the screen.

The widget shows and collects; ``core.decode.DecodeJob`` does the work.  A decode
runs from an immutable ``DecodeRequest`` as the panel's job (:class:`~app.workers.JobPanel`, a
:class:`~app.workers.GeneratorWorker`) over the job's ``steps``: batches arrive a few times a second,
Cancel stops it at the next frame, and a cancelled decode still reports the frames it read.
A verdict line says whether the report shows that no frame was dropped, that some were, or
that it cannot tell (:func:`core.decode.headline`: "Could not verify: ..." is never a pass).
Export writes the report (JSON, CSV or a PNG plot, by the file's extension) on a
:class:`~app.workers.TaskRunner`.  The plot is :class:`~app.panels.decode_plot.DecodePlot`.
A live source (a capture device, a screen grab) is decoded as it arrives by the Live section
(:mod:`app.panels.decode_live`), as the panel's job too.

For the main window (``app/panels/__init__.py``): ``PANEL_TITLE``, ``PANEL_AREA`` and
``create_panel(main_window)``; ``shutdown()`` stops the workers.  ``DecodePanel()`` takes none.
One module, a little over 400 lines, because every slot here moves the one decode job's state
(its request, progress, verdict line and export); the plot and the live section stand apart.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.dialogs import FileDialogs
from app.panels.decode_live import LiveSection, default_sources
from app.panels.decode_plot import COLOURS, DecodePlot
from app.panels.scale_section import ScaleSection
from app.workers import JobPanel
from core.decode import (
    DecodeJob,
    DecodeRequest,
    format_event,
    headline,
    summary_lines,
    unseen_text,
    write_report,
)

PANEL_TITLE = "Decode"
PANEL_AREA = "bottom"
EVENT_COLUMNS = ["position", "time s", "event", "detail"]
MAX_TABLE_ROWS = 5000
VERDICT_COLOURS = {"passed": "#2a7d2a", "failed": "#c62828", "unverified": "#b26a00"}
VIDEO_FILTER = "Video (*.mp4 *.mov *.mkv *.avi *.webm *.m4v *.ts *.mxf *.y4m);;All files (*)"


class _Refused(Exception):
    """The capture cannot be decoded as asked (bad input); the message is one sentence."""


def _decode_steps(request: DecodeRequest, frames, cancel):
    """The decode as its worker runs it: opens the capture (on the worker thread: opening a
    video takes time), yields ``(total, reading)`` pairs -- ``total`` is the capture's frame
    count, or None -- and returns the report (partial, ``"cancelled": true``, once ``cancel``
    is set).  Bad input raises :class:`_Refused`."""
    try:
        job = DecodeJob(request, frames)
    except ValueError as exc:
        raise _Refused(str(exc)) from None
    steps = job.steps(cancel)
    while True:
        try:
            reading = next(steps)
        except StopIteration as stop:
            return stop.value
        yield job.total, reading


class DecodePanel(JobPanel):
    """Source picker, decode/cancel, progress, summary, index plot, event table, export."""

    decode_started = Signal(str)
    decode_progressed = Signal(int, object)    # frames done, total (None when unknown)
    decode_finished = Signal(object)           # report document
    decode_cancelled = Signal(object)          # partial report document
    decode_failed = Signal(str)
    report_exported = Signal(str)
    export_failed = Signal(str)

    def __init__(self, dialogs: FileDialogs | None = None, parent=None, *, list_sources=default_sources):
        super().__init__("testcard-decode-export", parent)
        self._list_sources = list_sources          # the Live section's source list (off the GUI thread)
        self.setWindowTitle(PANEL_TITLE)
        self.dialogs = dialogs or FileDialogs()   # start folders: last used, else documents
        self.report: dict | None = None
        self._build()
        self._set_running(False)

    # ------------------------------------------------------------ layout
    def _build(self) -> None:
        self.path_edit = QLineEdit()
        self.path_edit.setPlaceholderText("folder, glob (frames/*.png) or video file")
        self.open_folder_button = QPushButton("Open folder...")
        self.open_video_button = QPushButton("Open video...")
        self.manifest_edit = QLineEdit()
        self.manifest_edit.setPlaceholderText("manifest (optional: FRAME.png.json)")
        self.manifest_button = QPushButton("Manifest...")
        self.bits_spin = QSpinBox()
        self.bits_spin.setRange(0, 31)
        self.bits_spin.setSpecialValueText("auto")
        self.bits_spin.setToolTip("compat panel bits (auto: the manifest's, else read from the picture; "
                                  "the robust panel says its own)")
        self.fps_spin = QDoubleSpinBox()
        self.fps_spin.setRange(0, 10000)
        self.fps_spin.setDecimals(3)
        self.fps_spin.setSpecialValueText("from video")
        self.fps_spin.setToolTip("capture rate, frames per second")
        self.display_fps_spin = QDoubleSpinBox()
        self.display_fps_spin.setRange(0, 10000)
        self.display_fps_spin.setDecimals(3)
        self.display_fps_spin.setSpecialValueText("unknown")
        self.display_fps_spin.setToolTip("display refresh rate: with the capture rate, repeats are "
                                         "counted exactly and a display frozen for the whole "
                                         "capture is told from a still capture")
        self.decode_button = QPushButton("Decode")
        self.cancel_button = QPushButton("Cancel")
        self.export_button = QPushButton("Export report...")
        self.progress = QProgressBar()
        self.status_label = QLabel("Open a folder of captured frames or a video.")
        self.status_label.setWordWrap(True)
        self.verdict_label = QLabel("")   # did every frame show: verified, failed, or cannot tell
        self.verdict_label.setWordWrap(True)
        self.verdict_label.setVisible(False)
        self.summary_view = QPlainTextEdit()
        self.summary_view.setReadOnly(True)
        self.summary_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.summary_view.setFont(mono)
        self.summary_view.setMaximumHeight(self.summary_view.fontMetrics().lineSpacing() * 10)

        self.plot = DecodePlot()

        self.table = QTableWidget(0, len(EVENT_COLUMNS))
        self.table.setHorizontalHeaderLabels(EVENT_COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setVisible(False)

        src = QHBoxLayout()
        src.addWidget(self.path_edit, 1)
        src.addWidget(self.open_folder_button)
        src.addWidget(self.open_video_button)
        opts = QHBoxLayout()
        opts.addWidget(self.manifest_edit, 1)
        opts.addWidget(self.manifest_button)
        opts.addWidget(QLabel("bits"))
        opts.addWidget(self.bits_spin)
        opts.addWidget(QLabel("capture fps"))
        opts.addWidget(self.fps_spin)
        opts.addWidget(QLabel("display fps"))
        opts.addWidget(self.display_fps_spin)
        run = QHBoxLayout()
        run.addWidget(self.decode_button)
        run.addWidget(self.cancel_button)
        run.addWidget(self.progress, 1)
        run.addWidget(self.export_button)

        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        lv.addWidget(self.summary_view)
        lv.addWidget(self.table, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(self.plot)
        split.setStretchFactor(1, 2)
        split.setSizes([460, 740])

        layout = QVBoxLayout(self)
        layout.addLayout(src)
        layout.addLayout(opts)
        layout.addLayout(run)
        layout.addWidget(self.status_label)
        layout.addWidget(self.verdict_label)
        # scale from a captured zone plate: the same source fields, the panel's one job at a time
        self.scale = ScaleSection(self, lambda: (self.path_edit.text().strip(),
                                                 self.manifest_edit.text().strip() or None))
        self.scale.running_changed.connect(lambda busy: self.decode_button.setEnabled(not busy))
        layout.addWidget(self.scale)
        # a live source decoded as it arrives (app/panels/decode_live.py): the panel's one job
        self.live = LiveSection(self, self._list_sources)
        self.live.running_changed.connect(self._set_running)
        layout.addWidget(self.live)
        layout.addWidget(split, 1)

        self.open_folder_button.clicked.connect(self._open_folder_dialog)
        self.open_video_button.clicked.connect(self._open_video_dialog)
        self.manifest_button.clicked.connect(self._manifest_dialog)
        self.decode_button.clicked.connect(self._decode_clicked)
        self.cancel_button.clicked.connect(self.cancel)
        self.export_button.clicked.connect(self._export_dialog)

    def _set_running(self, running: bool) -> None:
        self.scale.setEnabled(not running)
        self.live.set_busy(running)
        for w in (self.decode_button, self.open_folder_button, self.open_video_button, self.path_edit,
                  self.manifest_edit, self.manifest_button, self.bits_spin, self.fps_spin,
                  self.display_fps_spin):
            w.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.export_button.setEnabled(not running and self.report is not None)

    # ------------------------------------------------------------ starting and stopping
    def request(self) -> DecodeRequest:
        """The decode the controls describe (built on the GUI thread, immutable)."""
        bits = self.bits_spin.value() or None
        fps = self.fps_spin.value() or None
        display = self.display_fps_spin.value() or None
        manifest = self.manifest_edit.text().strip() or None
        return DecodeRequest(self.path_edit.text().strip(), manifest, bits, fps, display)

    def start(self, request: DecodeRequest | str | None = None, frames=None) -> None:
        """Decode ``request`` (or a path, or what the controls say).  ``frames``: an iterable of
        captured frames to decode instead of opening the path (tests, live sources)."""
        if self.running:
            return
        if request is None:
            request = self.request()
        elif isinstance(request, str):
            request = DecodeRequest(request)
        if not request.path and frames is None:
            self.status_label.setText("Choose a folder or a video first.")
            return
        self.path_edit.setText(request.path)
        self.report = None
        self._clear()
        worker = self.start_job(lambda cancel: _decode_steps(request, frames, cancel),
                                name="testcard-decode", yielded=self._progressed,
                                returned=self._returned, errored=self._errored, aborted=self._aborted)
        self.progress.setRange(0, 0)
        self.status_label.setText(f"Decoding {request.path or 'frames'}...")
        self._set_running(True)
        self.decode_started.emit(request.path)
        worker.start()

    @Slot()
    def cancel(self) -> None:
        """Stop at the next frame; the frames read so far are still reported."""
        if self.cancel_job():
            self.status_label.setText("Cancelling...")

    def _done(self) -> None:
        self.end_job()
        self._set_running(False)

    # ------------------------------------------------------------ results arriving
    @Slot(object)
    def _progressed(self, batch: list) -> None:
        total, last = batch[-1]
        done = last.position + 1
        if total:
            self.progress.setRange(0, int(total))
            self.progress.setValue(min(done, int(total)))
        self.plot.add_readings(r for _, r in batch)
        self.status_label.setText(f"Decoding... {done} frames" + (f" of {total}" if total else ""))
        self.decode_progressed.emit(done, total)

    def show_live_report(self, report: dict) -> None:
        """A live decode's report (the Live section's): shown and exported as a file decode's."""
        self._returned(report)

    @Slot(object)
    def _returned(self, report: dict) -> None:
        (self._cancelled if report["cancelled"] else self._finished)(report)

    @Slot(object)
    def _errored(self, exc: Exception) -> None:
        self._failed(str(exc) if isinstance(exc, _Refused) else f"{type(exc).__name__}: {exc}")

    @Slot()
    def _aborted(self) -> None:
        # the job raised after Cancel (a decode that stops returns its report instead)
        self._failed("cancelled, and the decode stopped with an error before its report")

    def _finished(self, report: dict) -> None:
        self._done()
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self._show(report)
        s = report["summary"]
        unknown = s.get("unknown") or {}
        frozen = " The display froze for the whole capture." if s.get("frozen") else ""
        frozen = "".join(f" {u[0].upper()}{u[1:]}, not drops." for u in [unseen_text(s)] if u) + frozen
        dropped, repeated = (f"{what} unknown" if k in unknown else f"{s[k]} {done}" for k, what, done in
                             (("dropped_count", "drops", "dropped"), ("repeated", "repeats", "repeated")))
        self.status_label.setText(f"Done: {s['frames']} frames, {dropped}, {repeated}, {s['torn']} torn, "
                                  f"{s['gap_frames']} gap frames (unknown content, not drops).{frozen}")
        self.decode_finished.emit(report)

    def _cancelled(self, report: dict) -> None:
        self._done()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self._show(report)
        self.status_label.setText(f"Cancelled after {report['summary']['frames']} frames; "
                                  "the report covers those.")
        self.decode_cancelled.emit(report)

    def _failed(self, message: str) -> None:
        self._done()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status_label.setText(f"Cannot decode: {message}")
        self.decode_failed.emit(message)

    def _clear(self) -> None:
        self.plot.clear_points()
        self.table.setRowCount(0)
        self.summary_view.setPlainText("")
        self.verdict_label.setVisible(False)

    def _show(self, report: dict) -> None:
        """Summary, plot (index unwrapped across counter wraps) and event table."""
        self.report = report
        self.export_button.setEnabled(True)
        lines = summary_lines(report, max_events=0)
        self.summary_view.setPlainText("\n".join(lines))
        result, text = headline(report)
        self.verdict_label.setText(text[0].upper() + text[1:])
        self.verdict_label.setStyleSheet(f"font-weight: bold; color: {VERDICT_COLOURS[result]}")
        self.verdict_label.setVisible(True)
        self.plot.show_report(report)
        events = report["events"]
        shown = events[:MAX_TABLE_ROWS]
        self.table.setRowCount(len(shown))
        for row, e in enumerate(shown):
            ts = "" if e.get("timestamp") is None else f"{e['timestamp']:.3f}"
            detail = format_event(e).split(": ", 1)[-1]
            for col, text in enumerate((str(e["position"]), ts, e["kind"], detail)):
                item = QTableWidgetItem(text)
                if e["kind"] in COLOURS:
                    item.setForeground(QColor(*COLOURS[e["kind"]]))
                self.table.setItem(row, col, item)
        if len(events) > MAX_TABLE_ROWS:
            self.status_label.setText(f"{len(events)} events; the table shows the first {MAX_TABLE_ROWS} "
                                      "(export for all)")

    # ------------------------------------------------------------ files
    def export_to(self, path: str) -> None:
        """Write the report (.json, .csv or .png) off the GUI thread."""
        if self.report is None:
            self.export_failed.emit("nothing to export yet: decode a capture first")
            return
        path, report = str(path), self.report
        self.tasks.submit(lambda: write_report(path, report), lambda _p, exc: self._exported(path, exc))

    def _exported(self, path: str, exc) -> None:
        if exc is not None:
            msg = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
            self.status_label.setText(f"Export failed: {msg}")
            self.export_failed.emit(msg)
            return
        self.status_label.setText(f"Report written to {path}")
        self.report_exported.emit(path)

    @Slot()
    def _open_folder_dialog(self) -> None:
        path = self.dialogs.folder(self, "capture", "Folder of captured frames")
        if path:
            self.path_edit.setText(path)
            self.start()

    @Slot()
    def _open_video_dialog(self) -> None:
        path = self.dialogs.open_file(self, "capture", "Captured video", VIDEO_FILTER)
        if path:
            self.path_edit.setText(path)
            self.start()

    @Slot()
    def _manifest_dialog(self) -> None:
        path = self.dialogs.open_file(self, "manifest", "Manifest", "Manifests (*.json)")
        if path:
            self.manifest_edit.setText(path)

    @Slot()
    def _decode_clicked(self) -> None:
        self.start()

    @Slot()
    def _export_dialog(self) -> None:
        path = self.dialogs.save_file(self, "report", "Export decode report", "decode-report.json",
                                      "Report (*.json);;Frames (*.csv);;Plot (*.png)")
        if path:
            self.export_to(path)

def create_panel(main_window=None) -> DecodePanel:
    """The panel for the main window's dock (see ``app/panels/__init__.py``)."""
    return DecodePanel(dialogs=main_window.dialogs if main_window is not None else None)
