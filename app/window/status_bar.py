"""The main window's status bar: render path, device, frame size and format, the frame's APL,
what signal reaches the screen (SDR, or PQ/HLG and whether the surface is tagged HDR), fps,
pacing and, when the frame's depth is not the surface's, the rule its codes are scaled by
(``10-bit frame on an 8-bit surface: codes scaled by round(v*255/1023)``), as permanent
labels; transient notices use ``showMessage``."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QStatusBar

from app.qapp import surface_signal
from core.engine import FORMAT_BITS
from core.levels import depth_note
from core.timing import TIMER

if TYPE_CHECKING:
    from app.preview import FrameLoop
    from core.patterns import Spec


class ElidedLabel(QLabel):
    """A label that shrinks with the window, eliding its text, so a long notice can never widen
    the window past the screen; the whole text is its tooltip and what :meth:`text` returns.
    Where there is room it asks for the whole text's width (an ``Ignored`` width was given none
    beside the other permanent labels, and the notice never showed)."""

    MIN_WIDTH = 60      # what it may shrink to: a few characters and the ellipsis

    def __init__(self, parent=None):
        super().__init__(parent)
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt override
        self._full = text
        self.setToolTip(text)
        self._elide()
        self.updateGeometry()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        hint = super().sizeHint()
        m = self.contentsMargins()
        width = self.fontMetrics().horizontalAdvance(self._full) + m.left() + m.right() + 2
        return QSize(width if self._full else 0, hint.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(min(self.MIN_WIDTH, self.sizeHint().width()), super().minimumSizeHint().height())

    def text(self) -> str:
        return self._full

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, max(0, self.width()))
        super().setText(shown)


class StatusBar(QStatusBar):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.st_path = QLabel()
        self.st_device = QLabel()
        self.st_size = QLabel()
        self.st_fps = QLabel()
        self.st_pacing = QLabel()
        self.st_notice = ElidedLabel()   # the rounding note can be long: it elides, never widens
        self.st_apl = QLabel()
        self.st_signal = QLabel()   # SDR, or PQ/HLG code values and whether the surface is tagged HDR
        self.st_play = QLabel()   # preset playback, leftmost: what the meter is reading now
        self.st_play.setStyleSheet("font-weight: bold")
        self.st_play.hide()
        self.addPermanentWidget(self.st_play)
        for w in (self.st_path, self.st_device, self.st_size, self.st_signal, self.st_apl, self.st_fps,
                  self.st_pacing, self.st_notice):
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
        # the frame's codes at the surface's depth, by the one rule: named whenever they change
        self.st_notice.setText(depth_note(s.bit_depth, FORMAT_BITS.get(lp.fmt, s.bit_depth), s.limited))
        self.show_signal(s.transfer, lp.presenter)   # the spec's: gui --transfer is in its format

    def show_signal(self, transfer: str, window) -> None:
        """Say plainly whether the output signal is tagged HDR (:func:`app.qapp.surface_signal`):
        short in the bar, the whole sentence in its tooltip; never HDR unless granted."""
        tagged, sentence = surface_signal(transfer, window)
        plain = not tagged and transfer == "sdr"
        good = tagged and sentence.startswith(f"{transfer.upper()} signal")
        if plain:
            short = "SDR signal"
        elif good:
            short = f"{transfer.upper()} signal, tagged HDR"
        elif tagged:
            short = f"{transfer.upper()} code values on a wrongly tagged surface"
        else:
            short = f"{transfer.upper()} code values on an SDR signal"
        self.st_signal.setText(short)
        self.st_signal.setToolTip(sentence)
        self.st_signal.setStyleSheet("" if plain or good else "color: #d33;")

    def show_apl(self, apl) -> None:
        """The frame's APL, short (``APL 18.1 % (46.2/255)``), in red with the target when the
        pattern cannot reach it; ``apl`` is a :class:`core.patterns.FrameApl` or None."""
        if apl is None:
            self.st_apl.setText("")
            self.st_apl.setToolTip("")
            return
        text = f"APL {apl.percent:.1f} % ({apl.mean_code:.1f}/{apl.top})"
        if apl.problem:
            text += f" \u26a0 target {apl.target:g} % out of reach"
        self.st_apl.setText(text)
        self.st_apl.setStyleSheet("color: #d33;" if apl.problem else "")
        self.st_apl.setToolTip(apl.problem or apl.text())

    def show_playback(self, text: str) -> None:
        """The preset being played ("Playing preset X: entry 3/12, 1.2 s left"); "" hides it."""
        self.st_play.setText(text)
        self.st_play.setVisible(bool(text))

    def show_fps(self, recent) -> None:
        """Frames per second from the median of the ``recent`` present times' intervals."""
        if len(recent) > 1:
            iv = [b - a for a, b in zip(recent[:-1], recent[1:], strict=True)]
            self.st_fps.setText(f"{1.0 / statistics.median(iv):.1f} fps")
        else:
            self.st_fps.setText("\u2013 fps")

    def texts(self) -> dict[str, str]:
        return {"path": self.st_path.text(), "device": self.st_device.text(), "size": self.st_size.text(),
                "fps": self.st_fps.text(), "pacing": self.st_pacing.text(), "notice": self.st_notice.text(),
                "playback": self.st_play.text(), "apl": self.st_apl.text(),
                "signal": self.st_signal.toolTip()}
