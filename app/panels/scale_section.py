"""The Decode panel's scale section: "Measure scale" and the chain's horizontal and vertical scale,
measured from a captured zone plate (``core.decode.scale``).

The section measures what the panel's source and manifest fields name (one captured image, a
folder or glob of them, or a video: the median over its frames).  It runs as the panel's job
(:meth:`~app.workers.JobPanel.start_job`, a :class:`~app.workers.GeneratorWorker` over
``core.decode.scale.scale_steps``), so a measurement and a decode never run at once and the
panel's shutdown stops either; the button stops a measurement that is running.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from app.workers import JobPanel
from core.decode import open_scale, scale_steps

IDLE_TEXT = "Scale: open a captured zone plate (and its manifest), then Measure scale."


class _Refused(Exception):
    """The capture cannot be measured as asked (bad input); the message is one sentence."""


def _scale_job(path: str, manifest: str | None, cancel):
    """The measurement as the worker runs it: opens the capture there (a video takes time),
    yields per-frame readings and returns the report; bad input raises :class:`_Refused`."""
    try:
        capture, geometry = open_scale(path, manifest)
    except ValueError as exc:
        raise _Refused(str(exc)) from None
    return (yield from scale_steps(capture, geometry, cancel))


class ScaleSection(QWidget):
    """A "Measure scale" button and the result: h and v scale (captured / rendered size).

    ``panel`` runs the job; ``source()`` returns the capture path and the manifest path (or
    None) to measure."""

    scale_measured = Signal(object)    # the report, at least one frame measured
    scale_failed = Signal(str)
    running_changed = Signal(bool)

    def __init__(self, panel: JobPanel, source: Callable[[], tuple[str, str | None]], parent=None):
        super().__init__(parent)
        self.panel = panel
        self.source = source
        self.report: dict | None = None
        self.measuring = False
        self.button = QPushButton("Measure scale")
        self.button.setToolTip("measure how the capture chain scaled a zone plate frame, across "
                               "and down, from the capture (and manifest) named above")
        self.result_label = QLabel(IDLE_TEXT)
        self.result_label.setWordWrap(True)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.button)
        row.addWidget(self.result_label, 1)
        self.button.clicked.connect(self._clicked)

    def start(self, path: str | None = None, manifest: str | None = None) -> None:
        """Measure ``path`` (or what the panel's fields name) off the GUI thread."""
        if self.measuring:
            return
        if self.panel.running:
            self.result_label.setText("Scale: wait for the decode to finish (or cancel it) first.")
            return
        if path is None:
            path, manifest = self.source()
        if not path:
            self.result_label.setText("Scale: choose a captured image, folder or video first.")
            return
        self.report = None
        worker = self.panel.start_job(lambda cancel: _scale_job(path, manifest, cancel),
                                      name="testcard-scale", yielded=self._progressed,
                                      returned=self._returned, errored=self._errored,
                                      aborted=self._aborted)
        self._set_measuring(True)
        self.result_label.setText(f"Scale: measuring {path}...")
        worker.start()

    def _set_measuring(self, measuring: bool) -> None:
        self.measuring = measuring
        self.button.setText("Stop" if measuring else "Measure scale")
        self.running_changed.emit(measuring)

    def _done(self) -> None:
        self.panel.end_job()
        self._set_measuring(False)

    @Slot()
    def _clicked(self) -> None:
        if self.measuring:
            self.panel.cancel_job()
            self.result_label.setText("Scale: stopping...")
        else:
            self.start()

    @Slot(object)
    def _progressed(self, batch: list) -> None:
        done = batch[-1]["position"] + 1
        self.result_label.setText(f"Scale: measuring... {done} frame{'s' if done != 1 else ''}")

    @Slot(object)
    def _returned(self, report: dict) -> None:
        self._done()
        med, frames = report["median"], report["frames"]
        if med is None:
            reason = frames[0]["error"] if frames else "the capture holds no frames"
            self._failed(reason + (" (cancelled)" if report["cancelled"] else ""))
            return
        self.report = report
        over = f", median of {report['measured']} of {len(frames)} frames" if len(frames) > 1 else ""
        match = f", match {frames[0]['match']:.2f}" if len(frames) == 1 else ""
        stopped = " (stopped early)" if report["cancelled"] else ""
        self.result_label.setText(f"Scale: h {med['scale_x']:.4f}  v {med['scale_y']:.4f} "
                                  f"(captured / rendered{over}{match}){stopped}")
        self.scale_measured.emit(report)

    @Slot(object)
    def _errored(self, exc: Exception) -> None:
        self._done()
        self._failed(str(exc) if isinstance(exc, _Refused) else f"{type(exc).__name__}: {exc}")

    @Slot()
    def _aborted(self) -> None:
        self._done()
        self._failed("stopped")

    def _failed(self, message: str) -> None:
        self.result_label.setText(f"Scale: cannot measure: {message}")
        self.scale_failed.emit(message)
