"""The Latency panel: measure glass-to-glass latency against the live output.

Start shows the robust counter (switching the pattern when another is on), records the frame
loop's presents (:class:`~app.panels.latency_run.PresentRecorder`) and runs the measurement as
the panel's job (:func:`~app.panels.latency_run.latency_steps` on a
:class:`~app.workers.GeneratorWorker`: the capture reads on its own thread, the decode and the
join on the worker's, nothing on the GUI thread).  Its updates, about four a second, add the
frames whose matching has settled to a histogram and a latency-over-time plot
(:class:`~app.panels.latency_view.LatencyView`); the report at the end replaces them with the
whole run.  Export writes the report as JSON, the per-frame CSV or the latency plot (PNG), by the
file's extension, off the GUI thread.

For the main window (``app/panels/__init__.py``): ``PANEL_TITLE``, ``PANEL_AREA``,
``create_panel(main_window)``; ``shutdown()`` stops the measurement.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from app.dialogs import FileDialogs
from app.panels.decode_live import SourceBox, default_sources
from app.panels.latency_run import (
    SWITCH_INTERVAL_S,
    LatencyRequest,
    PresentRecorder,
    Refused,
    latency_steps,
    screen_grab_rate,
)
from app.panels.latency_view import LatencyView
from app.workers import JobPanel, either
from core.atomic import atomic_text
from core.capture import open_source, parse_spec
from core.decode import LiveRequest, offset_correction, write_latency_csv, write_latency_plot
from core.jsonfile import dump_json
from core.patterns import get_pattern

PANEL_TITLE = "Latency"
PANEL_AREA = "bottom"
WARMUP_MS = 500            # the counter presents this long before the capture starts
IDLE_TEXT = ("Latency: choose the capture source that sees the output, then Start (the output "
             "shows the robust counter while it runs).")


def counter_on(spec) -> bool:
    return spec is not None and spec.pattern == "counter" and spec.param_dict.get("layout") == "robust"


def show_robust_counter(window) -> bool:
    """Switch ``window`` (the main window) to the robust counter, through its own pattern and
    editor slots; True when it is on."""
    if counter_on(window.current_spec()):
        return True
    window.choose_pattern("counter")
    spec = window.current_spec()
    if spec.pattern != "counter":
        return False
    window.editor.set_pattern(get_pattern("counter"), {**spec.param_dict, "layout": "robust"}, spec.levels)
    return window.apply_edits() and counter_on(window.current_spec())


def running_text(p) -> str:
    """A :class:`~app.panels.latency_run.LatencyProgress` as one line."""
    return (f"Measuring: {p.matched} of {p.presented} presented frames matched, "
            f"{p.display_drops} display drops, {p.capture_drops} capture drops "
            f"(the capture's); {p.batch.summary['frames']} captures")


def report_text(r: dict) -> str:
    s = r["latency_ms"]
    if not s["n"]:
        return (f"No presented frame was seen in the capture ({r['presented']} presented, "
                f"{r['captures']} captures, {r['captures_unknown']} of unknown content): does the "
                "source see the output?")
    corr = f"; corrected by {r['corrections_total_ms']:+.2f} ms" if r["corrections"] else ""
    stopped = " (stopped early)" if r.get("cancelled") else ""
    return (f"Latency {s['median']:.2f} ms median (p5 {s['p5']:.2f}, p95 {s['p95']:.2f}, p99 {s['p99']:.2f}, "
            f"n={s['n']} of {r['presented']} presented){corr}{stopped}; display drops "
            f"{r['display_drops']}, repeats {r['repeats']}, torn {r['torn']}; capture drops "
            f"{r['capture_drops']} (the capture's). Present time is the swap returning, not light; "
            f"{r['precision'].split(':')[0]}.")


class LatencyPanel(JobPanel):
    """Source, run length, corrections, Start/Stop, the running figures and the two plots.

    ``loop`` is the frame loop presenting the output (``frame_presented``, ``timeline``,
    ``last_error``, ``period_ms``); ``counter()`` shows the robust counter on it and says whether
    it is on (None: the caller keeps it on).  ``list_sources`` lists the capture sources (off the
    GUI thread)."""

    latency_started = Signal(str)
    latency_progressed = Signal(object)     # the latest LatencyProgress
    latency_finished = Signal(object)       # the report
    latency_failed = Signal(str)
    report_exported = Signal(str)
    export_failed = Signal(str)

    def __init__(self, loop, counter: Callable[[], bool] | None = None, *, list_sources=default_sources,
                 dialogs: FileDialogs | None = None, parent=None):
        super().__init__("testcard-latency-export", parent)
        self.setWindowTitle(PANEL_TITLE)
        self.loop, self.counter = loop, counter
        self.dialogs = dialogs or FileDialogs()
        self.report: dict | None = None
        self.recorder: PresentRecorder | None = None
        self._switch: float | None = None
        self._start_timer = QTimer(self)        # the capture starts once the counter is on screen
        self._start_timer.setSingleShot(True)
        self._start_timer.timeout.connect(self._launch)
        self.source = SourceBox(self.tasks, list_sources)
        self.seconds_spin = QSpinBox()
        self.seconds_spin.setRange(1, 24 * 3600)
        self.seconds_spin.setValue(10)
        self.seconds_spin.setSuffix(" s")
        self.seconds_spin.setToolTip("how long to capture")
        self.offset_spin = QDoubleSpinBox()
        self.offset_spin.setRange(-1000.0, 1000.0)
        self.offset_spin.setDecimals(2)
        self.offset_spin.setSuffix(" ms")
        self.offset_spin.setToolTip("the capture chain's own latency (loop the output straight into the "
                                    "capture once to measure it): subtracted, and listed as a correction")
        self.end_of_frame = QCheckBox("end-of-frame stamps")
        self.end_of_frame.setToolTip("the capture stamps a frame when complete: subtract one capture period")
        self.start_button = QPushButton("Start")
        self.export_button = QPushButton("Export...")
        self.status_label = QLabel(IDLE_TEXT)
        self.status_label.setWordWrap(True)
        self.view = LatencyView()
        row = QHBoxLayout()
        row.addWidget(QLabel("Source"))
        row.addWidget(self.source, 1)
        row.addWidget(self.seconds_spin)
        row.addWidget(QLabel("offset"))
        row.addWidget(self.offset_spin)
        row.addWidget(self.end_of_frame)
        row.addWidget(self.start_button)
        row.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.status_label)
        layout.addWidget(self.view, 1)
        self.start_button.clicked.connect(self._clicked)
        self.export_button.clicked.connect(self._export_dialog)
        self.export_button.setEnabled(False)
        self.source.refresh()

    # ------------------------------------------------------------ starting and stopping
    @property
    def display_hz(self) -> float:
        return 1000.0 / self.loop.period_ms

    def request(self, spec: str, opener=None) -> LatencyRequest:
        """The measurement the controls describe (``opener``: another source, for tests)."""
        offset = self.offset_spin.value()
        corrections = (offset_correction(offset),) if offset else ()
        if opener is None:
            fps = screen_grab_rate(self.display_hz) if parse_spec(spec)[0] == "x11grab" else None

            def opener():
                return open_source(spec, fps=fps)
        live = LiveRequest(display_fps=self.display_hz, seconds=float(self.seconds_spin.value()))
        return LatencyRequest(opener, live, corrections, self.end_of_frame.isChecked())

    def start(self, spec: str | None = None, opener=None) -> None:
        """Measure against the output with ``spec`` (or the source field)."""
        if self.running:
            return
        spec = (spec if spec is not None else self.source.spec()).strip()
        try:
            if not spec and opener is None:
                raise ValueError("choose the capture source that sees the output first")
            request = self.request(spec, opener)
        except ValueError as exc:
            self._fail(str(exc))
            return
        switched = self.counter is not None and not counter_on(self.loop.spec)
        if self.counter is not None and not self.counter():
            self._fail("the output cannot show the robust counter (see the log)")
            return
        self.report = None
        self.view.clear()
        self.recorder = PresentRecorder(self.loop, self)
        self.recorder.start()
        recorder = self.recorder
        # PyAV imported here, not first on the capture's thread: a first import there was seen
        # to hang with no CPU while another thread was in FFmpeg
        import av  # noqa: F401

        self.start_job(lambda cancel: latency_steps(request, recorder, cancel),
                                name="testcard-latency", yielded=self._progressed,
                                returned=self._returned, errored=self._errored, aborted=self._aborted)
        self._switch = sys.getswitchinterval()   # the present time is read in a Python slot
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        self._set_running(True)
        self.status_label.setText(f"Starting: the counter presents, then {spec or 'the source'} captures...")
        self.latency_started.emit(spec)
        self._start_timer.start(WARMUP_MS if switched else 0)

    @Slot()
    def _launch(self) -> None:
        if self.worker is not None and self.worker.thread.ident is None:
            self.worker.start()

    @Slot()
    def stop(self) -> None:
        """Stop the capture; the report covers what was captured."""
        if not self.running:
            return
        if self._start_timer.isActive():          # not started yet: nothing to report
            self._start_timer.stop()
            self._end()
            self.status_label.setText("Stopped before the capture started.")
            return
        self.cancel_job()
        self.status_label.setText("Stopping...")

    def _set_running(self, running: bool) -> None:
        for w in (self.source, self.seconds_spin, self.offset_spin, self.end_of_frame):
            w.setEnabled(not running)
        self.start_button.setText("Stop" if running else "Start")
        self.export_button.setEnabled(not running and self.report is not None)

    def _end(self) -> None:
        self.end_job()
        if self.recorder is not None:
            self.recorder.stop()
        if self._switch is not None:
            sys.setswitchinterval(self._switch)
            self._switch = None
        self._set_running(False)

    def shutdown(self) -> None:
        self._start_timer.stop()
        super().shutdown()
        self._end()

    @Slot()
    def _clicked(self) -> None:
        self.stop() if self.running else self.start()

    # ------------------------------------------------------------ results arriving
    @Slot(object)
    def _progressed(self, updates: list) -> None:
        for p in updates:
            self.view.add(p.present_s, p.latency_ms, p.status)
        self.status_label.setText(running_text(updates[-1]))
        self.latency_progressed.emit(updates[-1])

    @Slot(object)
    def _returned(self, report: dict) -> None:
        self.report = report
        self._end()
        self.view.show_report(report)
        self.status_label.setText(report_text(report))
        self.latency_finished.emit(report)

    @Slot(object)
    def _errored(self, exc: Exception) -> None:
        self._end()
        self._fail(str(exc) if isinstance(exc, Refused) else f"{type(exc).__name__}: {exc}")

    @Slot()
    def _aborted(self) -> None:
        self._end()
        self._fail("stopped before a report")

    def _fail(self, message: str) -> None:
        self.status_label.setText(f"Cannot measure: {message}")
        self.latency_failed.emit(message)

    # ------------------------------------------------------------ files
    def export_to(self, path: str) -> None:
        """Write the report (.json, .csv or the latency plot .png) off the GUI thread."""
        if self.report is None:
            self.export_failed.emit("nothing to export yet: measure first")
            return
        path, report = str(path), self.report
        self.tasks.submit(lambda: write_latency_report(path, report), either(
            lambda _p: self._exported(path, None), lambda exc: self._exported(path, exc)))

    def _exported(self, path: str, exc) -> None:
        if exc is not None:
            msg = str(exc) if isinstance(exc, ValueError | OSError) else f"{type(exc).__name__}: {exc}"
            self.status_label.setText(f"Export failed: {msg}")
            self.export_failed.emit(msg)
            return
        self.status_label.setText(f"Report written to {path}")
        self.report_exported.emit(path)

    @Slot()
    def _export_dialog(self) -> None:
        path = self.dialogs.save_file(self, "report", "Export latency report", "latency-report.json",
                                      "Report (*.json);;Frames (*.csv);;Plot (*.png)")
        if path:
            self.export_to(path)


def write_latency_report(path, report: dict) -> Path:
    """JSON (the whole report), CSV (one row per presented frame) or PNG (latency over time)."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".csv":
        return write_latency_csv(p, report)
    if suffix == ".png":
        return write_latency_plot(p, report, "export")
    if suffix != ".json":
        raise ValueError(f"{p.name}: export as .json, .csv or .png")
    return atomic_text(p, dump_json(report, indent=2) + "\n")


def create_panel(main_window=None) -> LatencyPanel:
    """The panel for the main window's dock: it measures against the frame loop of the window's
    output session."""
    return LatencyPanel(main_window.session.loop, lambda: show_robust_counter(main_window),
                        dialogs=main_window.dialogs)
