"""The Decode panel: open a folder or video of captured frames, decode its counter, see what
reached the screen.

The widget shows and collects; ``core.decode.job.DecodeJob`` does the work.  A decode
runs on a worker thread from an immutable ``DecodeRequest``: the worker iterates
the job's generator, posts batches of per-frame results back through queued
signals (a few times a second) and stops at the next frame when cancelled; a
cancelled decode still reports the frames it read.  Export writes the report
(JSON, CSV or a PNG plot, by the file's extension) on a worker thread too.

For the main window (``app/panels/__init__.py``): ``PANEL_TITLE``, ``PANEL_AREA`` and
``create_panel(main_window)``; ``shutdown()`` stops the workers.  ``DecodePanel()``
needs no arguments.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDoubleSpinBox,
    QFileDialog,
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

from core.decode import DecodeRequest, FrameReading

PANEL_TITLE = "Decode"
PANEL_AREA = "bottom"
EVENT_COLUMNS = ["position", "time s", "event", "detail"]
MAX_TABLE_ROWS = 5000
COLOURS = {"ok": (80, 160, 230), "torn": (214, 39, 160), "drop": (214, 39, 40), "repeat": (255, 127, 14),
           "undecodable": (127, 127, 127), "unreadable": (0, 0, 0)}
VIDEO_FILTER = "Video (*.mp4 *.mov *.mkv *.avi *.webm *.m4v *.ts *.mxf);;All files (*)"


class DecodeWorker(QObject):
    """Decodes one capture on its own thread; signals arrive queued on the GUI thread."""

    progressed = Signal(int, object, object)   # frames done, total (or None), new FrameResults
    finished = Signal(object)                  # report document
    cancelled = Signal(object)                 # report of the frames read before stopping
    failed = Signal(str)

    def __init__(self, request: DecodeRequest, frames=None, clock=time.monotonic,
                 min_interval_s: float = 0.1):
        super().__init__()
        self.request = request
        self.frames = frames
        self.clock = clock
        self.min_interval_s = min_interval_s
        self.cancel = threading.Event()
        self.thread = threading.Thread(target=self._run, name="testcard-decode", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        from core.decode import DecodeJob

        try:
            job = DecodeJob(self.request, self.frames)
        except ValueError as exc:   # bad input: one clear sentence
            self.failed.emit(str(exc))
            return
        except Exception as exc:  # shown in the panel; the app keeps running
            self.failed.emit(f"{type(exc).__name__}: {exc}")
            return
        batch: list[FrameReading] = []
        last = -1e9
        done = 0
        try:
            for r in job:
                batch.append(r)
                done = r.position + 1
                now = self.clock()
                if now - last >= self.min_interval_s:
                    last = now
                    self.progressed.emit(done, job.total, batch)
                    batch = []
                if self.cancel.is_set():
                    break
            if batch:
                self.progressed.emit(done, job.total, batch)
            report = job.report(cancelled=self.cancel.is_set())
        except Exception as exc:  # a reader failing mid-way: report it, keep the app
            self.failed.emit(f"{type(exc).__name__}: {exc}")
            return
        finally:
            job.close()
        (self.cancelled if self.cancel.is_set() else self.finished).emit(report)


class _Export(QObject):
    """Writes a report to a file on a thread; the outcome comes back on the GUI thread."""

    done = Signal(str, object)   # path, exception or None

    def __init__(self):
        super().__init__()
        self.threads: list[threading.Thread] = []

    def submit(self, path: str, report: dict) -> None:
        def run():
            try:
                write_report(path, report)
            except Exception as exc:  # delivered to the panel
                self.done.emit(path, exc)
            else:
                self.done.emit(path, None)

        t = threading.Thread(target=run, name="testcard-decode-export", daemon=True)
        self.threads = [x for x in self.threads if x.is_alive()] + [t]
        t.start()

    def wait(self) -> None:
        for t in self.threads:
            t.join()
        self.threads = []


def write_report(path, report: dict) -> Path:
    """JSON (whole document), CSV (one row per frame) or PNG (the plot), by extension."""
    from core.decode import write_csv, write_plot

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".csv":
        return write_csv(p, report["frames"])
    if suffix == ".png":
        return write_plot(p, report)
    if suffix != ".json":
        raise ValueError(f"{p.name}: export as .json, .csv or .png")
    if not p.parent.exists():
        raise ValueError(f"cannot write {p}: folder {p.parent} does not exist")
    tmp = p.with_name(f".{p.name}.tmp")
    tmp.write_text(json.dumps(report, indent=2) + "\n")
    tmp.replace(p)
    return p


class DecodePanel(QWidget):
    """Source picker, decode/cancel, progress, summary, index plot, event table, export."""

    decode_started = Signal(str)
    decode_progressed = Signal(int, object)    # frames done, total (None when unknown)
    decode_finished = Signal(object)           # report document
    decode_cancelled = Signal(object)          # partial report document
    decode_failed = Signal(str)
    report_exported = Signal(str)
    export_failed = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle(PANEL_TITLE)
        self.worker: DecodeWorker | None = None
        self.report: dict | None = None
        self.exporter = _Export()
        self.exporter.done.connect(self._exported)
        self._positions: list[float] = []
        self._indices: list[float] = []
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
        self.bits_spin.setToolTip("compat panel bits (auto: 16; the robust panel says its own)")
        self.fps_spin = QDoubleSpinBox()
        self.fps_spin.setRange(0, 10000)
        self.fps_spin.setDecimals(3)
        self.fps_spin.setSpecialValueText("from video")
        self.fps_spin.setToolTip("capture rate, frames per second")
        self.decode_button = QPushButton("Decode")
        self.cancel_button = QPushButton("Cancel")
        self.export_button = QPushButton("Export report...")
        self.progress = QProgressBar()
        self.status_label = QLabel("Open a folder of captured frames or a video.")
        self.status_label.setWordWrap(True)
        self.summary_view = QPlainTextEdit()
        self.summary_view.setReadOnly(True)
        self.summary_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.summary_view.setFont(mono)
        self.summary_view.setMaximumHeight(self.summary_view.fontMetrics().lineSpacing() * 10)

        self.plot = pg.PlotWidget()
        self.plot.setLabel("bottom", "capture position")
        self.plot.setLabel("left", "decoded index")
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.plot.addLegend(offset=(10, 10))
        # one persistent item per kind; data replaced with setData
        self.ok_item = self._scatter("decoded", "o", "ok", 6)
        self.torn_item = self._scatter("torn", "d", "torn", 9)
        self.drop_item = self._scatter("drop", "t1", "drop", 11)
        self.repeat_item = self._scatter("repeat", "s", "repeat", 8)
        self.bad_item = self._scatter("undecodable / unreadable", "x", "undecodable", 7)

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
        layout.addWidget(split, 1)

        self.open_folder_button.clicked.connect(self._open_folder_dialog)
        self.open_video_button.clicked.connect(self._open_video_dialog)
        self.manifest_button.clicked.connect(self._manifest_dialog)
        self.decode_button.clicked.connect(self._decode_clicked)
        self.cancel_button.clicked.connect(self.cancel)
        self.export_button.clicked.connect(self._export_dialog)

    def _scatter(self, name: str, symbol: str, colour: str, size: int) -> pg.ScatterPlotItem:
        item = pg.ScatterPlotItem(name=name, symbol=symbol, size=size, pen=pg.mkPen(None),
                                  brush=pg.mkBrush(QColor(*COLOURS[colour])))
        self.plot.addItem(item)
        return item

    def _set_running(self, running: bool) -> None:
        for w in (self.decode_button, self.open_folder_button, self.open_video_button, self.path_edit,
                  self.manifest_edit, self.manifest_button, self.bits_spin, self.fps_spin):
            w.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.export_button.setEnabled(not running and self.report is not None)

    # ------------------------------------------------------------ starting and stopping
    def request(self) -> DecodeRequest:
        """The decode the controls describe (built on the GUI thread, immutable)."""
        bits = self.bits_spin.value() or None
        fps = self.fps_spin.value() or None
        manifest = self.manifest_edit.text().strip() or None
        return DecodeRequest(self.path_edit.text().strip(), manifest, bits, fps)

    def start(self, request: DecodeRequest | str | None = None, frames=None) -> None:
        """Decode ``request`` (or a path, or what the controls say).  ``frames``: an iterable of
        captured frames to decode instead of opening the path (tests, live sources)."""
        if self.worker is not None:
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
        worker = DecodeWorker(request, frames)
        worker.progressed.connect(self._progressed)
        worker.finished.connect(self._finished)
        worker.cancelled.connect(self._cancelled)
        worker.failed.connect(self._failed)
        self.worker = worker
        self.progress.setRange(0, 0)
        self.status_label.setText(f"Decoding {request.path or 'frames'}...")
        self._set_running(True)
        self.decode_started.emit(request.path)
        worker.start()

    @Slot()
    def cancel(self) -> None:
        """Stop at the next frame; the frames read so far are still reported."""
        if self.worker is not None:
            self.worker.cancel.set()
            self.status_label.setText("Cancelling...")

    @property
    def running(self) -> bool:
        return self.worker is not None

    def _done(self) -> None:
        if self.worker is not None:
            self.worker.thread.join()
            self.worker = None
        self._set_running(False)

    # ------------------------------------------------------------ results arriving
    @Slot(int, object, object)
    def _progressed(self, done: int, total, batch) -> None:
        if total:
            self.progress.setRange(0, int(total))
            self.progress.setValue(min(done, int(total)))
        for r in batch:
            if r.index is not None:
                self._positions.append(float(r.position))
                self._indices.append(float(r.index))
        self.ok_item.setData(np.asarray(self._positions, np.float64), np.asarray(self._indices, np.float64))
        self.status_label.setText(f"Decoding... {done} frames" + (f" of {total}" if total else ""))
        self.decode_progressed.emit(done, total)

    @Slot(object)
    def _finished(self, report: dict) -> None:
        self._done()
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self._show(report)
        s = report["summary"]
        self.status_label.setText(f"Done: {s['frames']} frames, {s['dropped_count']} dropped, "
                                  f"{s['repeated']} repeated, {s['torn']} torn.")
        self.decode_finished.emit(report)

    @Slot(object)
    def _cancelled(self, report: dict) -> None:
        self._done()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self._show(report)
        self.status_label.setText(f"Cancelled after {report['summary']['frames']} frames; "
                                  "the report covers those.")
        self.decode_cancelled.emit(report)

    @Slot(str)
    def _failed(self, message: str) -> None:
        self._done()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status_label.setText(f"Cannot decode: {message}")
        self.decode_failed.emit(message)

    def _clear(self) -> None:
        self._positions, self._indices = [], []
        for item in (self.ok_item, self.torn_item, self.drop_item, self.repeat_item, self.bad_item):
            item.setData([], [])
        self.table.setRowCount(0)
        self.summary_view.setPlainText("")

    def _show(self, report: dict) -> None:
        """Summary, plot (index unwrapped across counter wraps) and event table."""
        from core.decode import format_event, summary_lines, unwrap

        self.report = report
        self.export_button.setEnabled(True)
        frames = report["frames"]
        lines = summary_lines(report, max_events=0)
        self.summary_view.setPlainText("\n".join(lines))
        modulus = int(report["summary"].get("modulus") or 2)
        ys = unwrap(frames, modulus)
        ok = [(f["position"], u) for f, u in zip(frames, ys, strict=True)
              if u is not None and f["status"] == "ok"]
        self._set(self.ok_item, ok)
        torn = []
        for f, u in zip(frames, ys, strict=True):
            if f["status"] == "torn" and u is not None:
                torn += [(f["position"], u + k) for k in range(len(f.get("indices", [])))]
        self._set(self.torn_item, torn)
        vals = [u for u in ys if u is not None]
        floor = min(vals) if vals else 0.0
        self._set(self.bad_item, [(f["position"], floor) for f in frames
                                  if f["status"] in ("undecodable", "unreadable")])
        # drops and repeats at the level of the nearest decoded index
        level = _levels(ys)
        self._set(self.drop_item, [(e["position"] - 0.5, level(e["position"])) for e in report["events"]
                                   if e["kind"] == "drop"])
        self._set(self.repeat_item, [(e["position"], level(e["position"])) for e in report["events"]
                                     if e["kind"] == "repeat"])
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

    @staticmethod
    def _set(item: pg.ScatterPlotItem, points) -> None:
        if not points:
            item.setData([], [])
            return
        xy = np.asarray(points, np.float64)
        item.setData(xy[:, 0], xy[:, 1])

    # ------------------------------------------------------------ files
    def export_to(self, path: str) -> None:
        """Write the report (.json, .csv or .png) off the GUI thread."""
        if self.report is None:
            self.export_failed.emit("nothing to export yet: decode a capture first")
            return
        self.exporter.submit(str(path), self.report)

    @Slot(str, object)
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
        path = QFileDialog.getExistingDirectory(self, "Folder of captured frames")
        if path:
            self.path_edit.setText(path)
            self.start()

    @Slot()
    def _open_video_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Captured video", "", VIDEO_FILTER)
        if path:
            self.path_edit.setText(path)
            self.start()

    @Slot()
    def _manifest_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Manifest", "", "Manifests (*.json)")
        if path:
            self.manifest_edit.setText(path)

    @Slot()
    def _decode_clicked(self) -> None:
        self.start()

    @Slot()
    def _export_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export decode report", "decode-report.json",
                                              "Report (*.json);;Frames (*.csv);;Plot (*.png)")
        if path:
            self.export_to(path)

    # ------------------------------------------------------------ lifetime
    def shutdown(self) -> None:
        """Cancel a running decode and wait for every worker thread (the main window calls this)."""
        if self.worker is not None:
            self.worker.cancel.set()
            self.worker.thread.join()
            self.worker = None
        self.exporter.wait()

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.shutdown()
        super().closeEvent(event)


def _levels(ys):
    """Position -> the nearest decoded (unwrapped) index at or before it (else after it)."""
    known = [(i, u) for i, u in enumerate(ys) if u is not None]
    pos = np.array([i for i, _ in known], np.int64)
    val = np.array([u for _, u in known], np.float64)

    def level(p) -> float:
        if pos.size == 0:
            return 0.0
        k = int(np.searchsorted(pos, p, side="right")) - 1
        return float(val[max(k, 0)])

    return level


def create_panel(main_window=None) -> DecodePanel:
    """The panel for the main window's dock (see ``app/panels/__init__.py``)."""
    return DecodePanel()
