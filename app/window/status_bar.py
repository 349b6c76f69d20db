"""The main window's status bar: render path, device, frame size and format, fps, pacing and
the rounding notice, as permanent labels; transient notices use ``showMessage``."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QLabel, QStatusBar

from core.timing import TIMER

if TYPE_CHECKING:
    from app.preview import FrameLoop
    from core.patterns import Spec


class StatusBar(QStatusBar):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.st_path = QLabel()
        self.st_device = QLabel()
        self.st_size = QLabel()
        self.st_fps = QLabel()
        self.st_pacing = QLabel()
        self.st_notice = QLabel()
        for w in (self.st_path, self.st_device, self.st_size, self.st_fps, self.st_pacing, self.st_notice):
            self.addPermanentWidget(w)

    def show_loop(self, lp: FrameLoop, s: Spec) -> None:
        """What the frame loop ``lp`` renders and how it is paced, for the spec ``s``."""
        active = lp.active_path
        path = f"path {lp.path} ({lp.path_source})"
        if active != lp.path:
            path += f", serving {active} while it compiles"
        self.st_path.setText(path)
        self.st_path.setToolTip(lp.path_reason or "")
        self.st_device.setText(lp.device)
        self.st_size.setText(f"{s.width}x{s.height} {s.bit_depth}-bit {'limited' if s.limited else 'full'}"
                             f" \u2192 {lp.fmt}")
        if lp.mode == TIMER:
            self.st_pacing.setText(f"timer-paced {1000.0 / lp.period_ms:.2f} Hz")
        else:
            self.st_pacing.setText("vsync-locked")
        self.st_pacing.setToolTip(lp.monitor.reason)
        self.st_notice.setText(lp.rounding_note)

    def show_fps(self, recent) -> None:
        """Frames per second from the median of the ``recent`` present times' intervals."""
        if len(recent) > 1:
            iv = [b - a for a, b in zip(recent[:-1], recent[1:], strict=True)]
            self.st_fps.setText(f"{1.0 / statistics.median(iv):.1f} fps")
        else:
            self.st_fps.setText("\u2013 fps")

    def texts(self) -> dict[str, str]:
        return {"path": self.st_path.text(), "device": self.st_device.text(), "size": self.st_size.text(),
                "fps": self.st_fps.text(), "pacing": self.st_pacing.text(), "notice": self.st_notice.text()}
