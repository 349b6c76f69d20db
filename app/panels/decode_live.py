"""The Decode panel's Live section: decode a capture source as its frames arrive.

A source field (editable, filled off the GUI thread with the V4L2 capture devices and a screen
grab of the current X display), how long to run (0: until Stop), and Start/Stop.  The decode
runs as the panel's job (:meth:`~app.workers.JobPanel.start_job`: a
:class:`~app.workers.GeneratorWorker` over :meth:`core.decode.LiveDecode.steps`, the source
opened on the worker thread), so a live decode, a file decode and a scale measurement never run
at once and the panel's shutdown stops any of them.  The batches (about four a second) feed the
index plot and the running summary; the report at the end is the panel's like a file decode's
(shown, exportable).  The panel's manifest, bits and rate fields apply (the capture rate is
asked of the source).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget

from app.panels.latency_run import screen_grab_rate
from app.workers import JobPanel, either
from core.capture import capture_devices, list_devices, open_source
from core.decode import LiveDecode, LiveRequest, unseen_text

IDLE_TEXT = "Live: choose a capture source (a device, or the screen grab), then Start."


class _Refused(Exception):
    """The source cannot be decoded as asked (bad input); the message is one sentence."""


def default_sources(environ=None) -> list[tuple[str, str]]:
    """(label, spec) for every V4L2 node that captures (or may), then the X11 screen grab of
    the current display when there is one.  Reads devices: call it off the GUI thread."""
    out = [(f"{d.spec}  {d.name or ''}".strip(), d.spec) for d in capture_devices(list_devices())]
    display = (os.environ if environ is None else environ).get("DISPLAY", "").strip()
    if display:
        out.append((f"x11grab:{display}  (this X screen)", f"x11grab:{display}"))
    return out


def _live_job(opener: Callable[[], object], request: LiveRequest, cancel):
    """The live decode as the worker runs it: opens the source there, yields
    :class:`core.decode.LiveBatch` objects and returns the report; bad input raises
    :class:`_Refused`."""
    try:
        source = opener()
    except ValueError as exc:
        raise _Refused(str(exc)) from None
    try:
        live = LiveDecode(source, request)
    except ValueError as exc:
        source.close()
        raise _Refused(str(exc)) from None
    return (yield from live.steps(cancel))


def summary_text(s: dict) -> str:
    """The running summary of a live decode, on one line."""
    rate = s.get("capture_fps_measured") or s.get("capture_fps")
    unknown = s.get("unknown") or {}
    dropped, repeated = ("unknown" if k in unknown else s[k] for k in ("dropped_count", "repeated"))
    return (f"Live: {s['frames']} frames" + (f" (~{rate:.1f} fps)" if rate else "")
            + f", ok {s['ok']}, torn {s['torn']}, undecodable {s['undecodable']}; "
              f"dropped {dropped}, repeated {repeated}; "
              + "".join(f"{p}; " for p in [unseen_text(s)] if p)
            + f"capture drops {s['capture_drops']} (the capture's, not the display's)")


class SourceBox(QWidget):
    """An editable source field with its list of known sources and a Refresh button; the list
    is read by ``list_sources`` on ``tasks`` (off the GUI thread)."""

    def __init__(self, tasks, list_sources: Callable[[], list[tuple[str, str]]] = default_sources,
                 parent=None):
        super().__init__(parent)
        self.tasks, self.list_sources = tasks, list_sources
        self.combo = QComboBox()
        self.combo.setEditable(True)
        self.combo.setMinimumContentsLength(18)
        self.combo.setToolTip("v4l2:/dev/videoN, x11grab:DISPLAY[+X,Y], or a video file/FIFO played live")
        self.combo.lineEdit().setPlaceholderText("source: v4l2:/dev/video0, x11grab::0, file ...")
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setToolTip("list the capture devices again")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.combo, 1)
        row.addWidget(self.refresh_button)
        self.refresh_button.clicked.connect(self.refresh)

    def spec(self) -> str:
        """The source as typed or chosen (a listed entry's spec, not its label)."""
        text = self.combo.currentText().strip()
        i = self.combo.findText(text)
        return self.combo.itemData(i) if i >= 0 and self.combo.itemData(i) else text

    def set_spec(self, spec: str) -> None:
        self.combo.setEditText(spec)

    @Slot()
    def refresh(self) -> None:
        self.refresh_button.setEnabled(False)
        self.tasks.submit(self.list_sources, either(self._listed, lambda _exc: self._listed([])))

    def _listed(self, sources) -> None:
        self.refresh_button.setEnabled(True)
        typed = self.combo.currentText()
        self.combo.clear()
        for label, spec in sources:
            self.combo.addItem(label, spec)
        if typed:
            self.combo.setEditText(typed)
        elif not sources:
            self.combo.setEditText("")


class LiveSection(QWidget):
    """Live source, seconds, Start/Stop and the running summary; ``panel`` (a DecodePanel)
    runs the job, draws the plot and shows the final report."""

    live_started = Signal(str)
    live_progressed = Signal(object)     # the running summary
    live_failed = Signal(str)
    running_changed = Signal(bool)

    def __init__(self, panel: JobPanel, list_sources=default_sources, parent=None):
        super().__init__(parent)
        self.panel = panel
        self.active = False
        self.source = SourceBox(panel.tasks, list_sources)
        self.seconds_spin = QSpinBox()
        self.seconds_spin.setRange(0, 24 * 3600)
        self.seconds_spin.setSuffix(" s")
        self.seconds_spin.setSpecialValueText("until Stop")
        self.seconds_spin.setToolTip("stop after this long (until Stop: run until stopped)")
        self.start_button = QPushButton("Start live")
        self.summary_label = QLabel(IDLE_TEXT)
        self.summary_label.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(QLabel("Live"))
        row.addWidget(self.source, 1)
        row.addWidget(self.seconds_spin)
        row.addWidget(self.start_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.summary_label)
        self.start_button.clicked.connect(self._clicked)
        self.source.refresh()

    def request(self) -> LiveRequest:
        """The live decode the panel's fields describe (built on the GUI thread)."""
        p = self.panel
        return LiveRequest(p.manifest_edit.text().strip() or None, p.bits_spin.value() or None,
                           p.display_fps_spin.value() or None, self.seconds_spin.value() or None)

    def start(self, spec: str | None = None, opener: Callable[[], object] | None = None) -> None:
        """Decode ``spec`` (or the source field) live; ``opener()`` opens another source
        instead (tests).  Nothing runs when the panel is busy or the request is refused."""
        if self.panel.running:
            self.summary_label.setText("Live: wait for the running job to finish (or cancel it) first.")
            return
        spec = (spec if spec is not None else self.source.spec()).strip()
        if not spec and opener is None:
            self.summary_label.setText("Live: choose a capture source first.")
            return
        request = self.request()
        try:
            request.check()
        except ValueError as exc:
            self._fail(str(exc))
            return
        fps = self.panel.fps_spin.value() or None
        if opener is None and fps is None and spec.startswith("x11grab:"):
            fps = screen_grab_rate(self.panel.display_fps_spin.value() or 60.0)   # FFmpeg's own: 29.97
        if opener is None:
            def opener():
                return open_source(spec, fps=fps)
        self.panel.report = None
        self.panel.plot.clear_points()
        worker = self.panel.start_job(lambda cancel: _live_job(opener, request, cancel), name="testcard-live",
                                      yielded=self._progressed, returned=self._returned,
                                      errored=self._errored, aborted=self._aborted)
        self._set_active(True)
        self.summary_label.setText(f"Live: opening {spec or 'the source'}...")
        self.panel.status_label.setText(f"Decoding {spec or 'a live source'} live (Stop or Cancel ends it; "
                                        "the report covers what was decoded).")
        self.live_started.emit(spec)
        worker.start()

    def stop(self) -> None:
        """Stop the live decode; the report covers the frames decoded so far."""
        if self.active and self.panel.cancel_job():
            self.summary_label.setText("Live: stopping...")

    def _set_active(self, active: bool) -> None:
        self.active = active
        self.start_button.setText("Stop" if active else "Start live")
        self.running_changed.emit(active)

    def set_busy(self, busy: bool) -> None:
        """The panel runs a job: only a running live decode keeps its Stop button."""
        for w in (self.source, self.seconds_spin):
            w.setEnabled(not busy)
        self.start_button.setEnabled(self.active or not busy)

    @Slot()
    def _clicked(self) -> None:
        self.stop() if self.active else self.start()

    @Slot(object)
    def _progressed(self, batches: list) -> None:
        self.panel.plot.add_readings(r for b in batches for r in b.readings)
        summary = batches[-1].summary
        self.summary_label.setText(summary_text(summary))
        self.live_progressed.emit(summary)

    @Slot(object)
    def _returned(self, report: dict) -> None:
        self.active = False
        self.start_button.setText("Start live")
        self.summary_label.setText(summary_text(report["summary"])
                                   + (" (stopped)" if report["cancelled"] else ""))
        self.panel.show_live_report(report)     # ends the job; the panel is idle again

    @Slot(object)
    def _errored(self, exc: Exception) -> None:
        self._end()
        self._fail(str(exc) if isinstance(exc, _Refused) else f"{type(exc).__name__}: {exc}")

    @Slot()
    def _aborted(self) -> None:
        self._end()
        self._fail("stopped before a report")

    def _end(self) -> None:
        self.panel.end_job()
        self._set_active(False)

    def _fail(self, message: str) -> None:
        self.summary_label.setText(f"Live: cannot decode: {message}")
        self.live_failed.emit(message)
