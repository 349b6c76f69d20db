"""The colour editors and the APL readout of the parameter editor.

Colours keep what was typed and the bit depth it was typed at (:class:`core.levels.TypedCode`):
a change of depth shows the typed value converted (:func:`core.levels.rescale_code`), always
from that original, so 200 typed at 8 bits is 200 again when the depth comes back to 8.  A
colour the pattern computes (the window's background in constant-APL mode) is shown, read-only,
in place of the typed one, which comes back when the pattern uses it again.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSpinBox, QStyle, QVBoxLayout, QWidget

from core.levels import Levels, TypedCode, swatch_rgb


class Spin(QSpinBox):
    """A spin box that commits on Enter or focus out (not on every keystroke)."""

    def __init__(self, lo, hi, parent=None):
        super().__init__(parent)
        self.setRange(lo, hi)
        self.setKeyboardTracking(False)
        self.setAccelerated(True)


class ColourEdit(QWidget):
    """R, G, B code values at the current bit depth and a swatch.

    Each channel keeps what was typed and the levels it was typed at; ``value()`` is that
    original at the current levels.  ``show_computed`` puts a colour the pattern computes in
    the boxes instead (read-only) without touching what was typed.
    """

    changed = Signal()

    def __init__(self, levels: Levels, value=(0, 0, 0), parent=None):
        super().__init__(parent)
        self.levels = levels
        self.computed: tuple[int, int, int] | None = None
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        self.spins = []
        for i in range(3):
            s = Spin(0, levels.top)
            s.valueChanged.connect(lambda v, i=i: self._on_change(i, v))
            lay.addWidget(s)
            self.spins.append(s)
        self.swatch = QFrame()
        self.swatch.setFixedSize(22, 18)
        self.swatch.setFrameShape(QFrame.Shape.Box)
        lay.addWidget(self.swatch)
        self.typed = [TypedCode((0,), levels)] * 3
        self.set_value(value)

    def value(self) -> tuple[int, int, int]:
        """What was typed, at the current levels (a computed colour on show does not count)."""
        return tuple(t.at(self.levels)[0] for t in self.typed)  # type: ignore[return-value]

    def shown(self) -> tuple[int, int, int]:
        """What the boxes show: the computed colour when there is one, else :meth:`value`."""
        return tuple(s.value() for s in self.spins)  # type: ignore[return-value]

    def set_value(self, value) -> None:
        """Take ``value`` as typed at the current levels."""
        self.typed = [TypedCode((int(v),), self.levels) for v in value]
        self._show()

    def set_levels(self, levels: Levels) -> None:
        """Show what was typed at ``levels``, converted from the original (never from what is shown)."""
        self.levels = levels
        self._show()

    def show_computed(self, value) -> None:
        """Show ``value`` (code values the pattern computes) read-only; None: the typed colour again."""
        self.computed = None if value is None else tuple(int(v) for v in value)
        self._show()

    def swatch_colour(self) -> QColor:
        return QColor(*swatch_rgb(self.shown(), self.levels))

    def _show(self) -> None:
        values = self.computed if self.computed is not None else self.value()
        top = self.levels.top
        for ch, s, v in zip("RGB", self.spins, values, strict=True):
            s.blockSignals(True)
            s.setMaximum(top)
            s.setValue(min(int(v), top))
            s.setReadOnly(self.computed is not None)
            s.setButtonSymbols(QSpinBox.ButtonSymbols.UpDownArrows if self.computed is None
                               else QSpinBox.ButtonSymbols.NoButtons)
            s.setToolTip(f"{ch} code value, 0..{top}" if self.computed is None else
                         f"{ch}: computed by the pattern ({v}); what you typed is kept for when it is used")
            s.blockSignals(False)
        self._paint()

    def _paint(self) -> None:
        self.swatch.setStyleSheet(f"background-color: {self.swatch_colour().name()};")

    def _on_change(self, i: int, v: int) -> None:
        if self.computed is not None:
            return
        self.typed[i] = TypedCode((int(v),), self.levels)
        self._paint()
        self.changed.emit()


class PaletteEdit(QWidget):
    """1 to 4 colours (the checkerboard palette)."""

    changed = Signal()

    def __init__(self, levels: Levels, value, parent=None):
        super().__init__(parent)
        self.levels = levels
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        self.count = Spin(1, 4)
        self.count.setPrefix("colours: ")
        lay.addWidget(self.count)
        self.rows = [ColourEdit(levels, (0, 0, 0)) for _ in range(4)]
        for r in self.rows:
            r.changed.connect(self.changed)
            lay.addWidget(r)
        self.set_value(value)
        self.count.valueChanged.connect(self._on_count)

    def value(self):
        return tuple(r.value() for r in self.rows[:self.count.value()])

    def set_value(self, value) -> None:
        value = list(value)
        self.count.blockSignals(True)
        self.count.setValue(len(value))
        self.count.blockSignals(False)
        for i, r in enumerate(self.rows):
            if i < len(value):
                r.set_value(value[i])
            r.setVisible(i < len(value))

    def set_levels(self, levels: Levels) -> None:
        self.levels = levels
        for r in self.rows:
            r.set_levels(levels)

    def _on_count(self, n: int) -> None:
        for i, r in enumerate(self.rows):
            r.setVisible(i < n)
        self.changed.emit()


class AplReadout(QWidget):
    """The frame's APL (mean code value, percent of white) and, when the pattern's APL target
    cannot be reached, a warning icon and the reason in red."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.icon = QLabel()
        warning = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        self.icon.setPixmap(warning.pixmap(16, 16))
        self.icon.hide()
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)
        lay.addWidget(self.icon)
        lay.addWidget(self.label, 1)
        self.problem: str | None = None
        self.show_apl(None)

    def show_apl(self, apl) -> None:
        """``apl``: a :class:`core.patterns.FrameApl`, or None when there is nothing to show."""
        self.problem = apl.problem if apl is not None else None
        text = apl.text() if apl is not None else "APL \u2013"
        if self.problem:
            text += f"\n{self.problem}"
        self.label.setText(text)
        self.label.setStyleSheet("color: #d33;" if self.problem else "")
        self.icon.setVisible(bool(self.problem))
        self.setToolTip(self.problem or "average picture level of the frame: mean code value over every "
                        "pixel and channel, and that mean as a percentage of black..white")

    def text(self) -> str:
        return self.label.text()
