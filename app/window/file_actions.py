"""The main window's file slots: saving the current frame, exporting and recording the timeline.

A mixin of :class:`~app.window.main_window.MainWindow`; every write runs off the GUI thread on
the window's worker and reports in one notice.
"""

from __future__ import annotations

from app.workers import either
from core.manifest import save_frame
from core.patterns import render


class FileActions:
    """File slots of the main window."""

    def save_frame_dialog(self) -> None:
        index = self.loop.index
        path = self.dialogs.save_file(self, "frame", "Save current frame",
                                      f"{self.spec.pattern}-{index:06d}.png",
                                      "Images (*.png *.tif *.tiff);;NumPy (*.npy)")
        if path:
            self.save_frame_to(path, index)

    def save_frame_to(self, path: str, index: int | None = None) -> None:
        """Render frame ``index`` natively and write it with its sidecar, off the GUI thread."""
        spec = self.spec
        index = self.loop.index if index is None else index

        def work():
            return save_frame(path, spec, render(spec, index), index, backend="numpy", device=None)

        self.worker.submit(work, either(
            lambda p: self._notice(f"saved frame {index} to {p} (+ .json sidecar)"),
            lambda exc: self._notice(f"could not save {path}: {exc}")))

    def export_timeline_dialog(self) -> None:
        path = self.dialogs.save_file(self, "timeline", "Export frame timeline", "timeline.csv",
                                      "CSV (*.csv)")
        if path:
            self.export_timeline_to(path)

    def export_timeline_to(self, path: str) -> None:
        snap = self.loop.timeline.snapshot()
        self.worker.submit(lambda: snap.write_csv(path),
                           either(lambda n: self._notice(f"wrote {n} frames to {path}"),
                                   lambda exc: self._notice(f"could not write {path}: {exc}")))


    def set_timeline_recording(self, on: bool) -> None:
        """Start streaming every presented frame to a CSV the user picks, or stop and report.

        The file is put in place whole when the record stops (or the window closes)."""
        tl = self.loop.timeline
        if not on:
            rec = tl.detach_recording()
            self.timing.show_recording(None)
            if rec is not None:
                self.worker.submit(rec.close, either(
                    lambda r: self._notice(r.error or f"recorded {r.rows} frames to {r.path}"),
                    lambda exc: self._notice(str(exc))))
            return
        path = self.dialogs.save_file(self, "timeline", "Record every frame to",
                                      "timeline-record.csv", "CSV (*.csv)")
        if not path:
            self.timing.show_recording(None)
            return
        try:
            self.timing.show_recording(tl.record_to(path))
        except ValueError as exc:
            self.timing.show_recording(None)
            self._notice(str(exc))
