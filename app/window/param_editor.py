"""Editors generated from the pattern registry, and the frame settings beside them.

The parameter editor builds one row per :class:`core.patterns.registry.Param`: a spin
box bounded by the registry's range for int and float, a combo for choices, a
check box for bools, and code values at the current bit depth (with a swatch)
for colours and palettes.  It computes nothing: it reports the values, and
the main window validates them through ``make_spec``.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.levels import Levels, rescale_code, swatch_rgb

INT_LIMIT = 2**31 - 1


class _Spin(QSpinBox):
    def __init__(self, lo, hi, parent=None):
        super().__init__(parent)
        self.setRange(lo, hi)
        self.setKeyboardTracking(False)
        self.setAccelerated(True)


class ColourEdit(QWidget):
    """R, G, B code values at the current bit depth and a swatch."""

    changed = Signal()

    def __init__(self, levels: Levels, value=(0, 0, 0), parent=None):
        super().__init__(parent)
        self.levels = levels
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        self.spins = []
        for ch in "RGB":
            s = _Spin(0, levels.top)
            s.setToolTip(f"{ch} code value, 0..{levels.top}")
            s.valueChanged.connect(self._on_change)
            lay.addWidget(s)
            self.spins.append(s)
        self.swatch = QFrame()
        self.swatch.setFixedSize(22, 18)
        self.swatch.setFrameShape(QFrame.Shape.Box)
        lay.addWidget(self.swatch)
        self.set_value(value)

    def value(self) -> tuple[int, int, int]:
        return tuple(s.value() for s in self.spins)  # type: ignore[return-value]

    def set_value(self, value) -> None:
        for s, v in zip(self.spins, value, strict=True):
            s.blockSignals(True)
            s.setValue(int(v))
            s.blockSignals(False)
        self._paint()

    def set_levels(self, levels: Levels) -> None:
        old, self.levels = self.levels, levels
        values = [rescale_code(v, old, levels) for v in self.value()]
        for s, v in zip(self.spins, values, strict=True):
            s.blockSignals(True)
            s.setMaximum(levels.top)
            s.setValue(v)
            s.setToolTip(f"code value, 0..{levels.top}")
            s.blockSignals(False)
        self._paint()

    def swatch_colour(self) -> QColor:
        return QColor(*swatch_rgb(self.value(), self.levels))

    def _paint(self) -> None:
        self.swatch.setStyleSheet(f"background-color: {self.swatch_colour().name()};")

    def _on_change(self, _v) -> None:
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
        self.count = _Spin(1, 4)
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


class ParamEditor(QWidget):
    """One row per registry parameter; ``params_edited`` carries every value after an edit."""

    params_edited = Signal(dict)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.form = QFormLayout(self)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #d33;")
        self.pattern = None
        self.editors: dict[str, QWidget] = {}
        self.levels = Levels(10)

    def set_pattern(self, pattern, values: dict, levels: Levels) -> None:
        """Rebuild the rows for ``pattern`` showing ``values`` (resolved, as in a Spec)."""
        while self.form.rowCount():
            self.form.removeRow(0)
        self.title = QLabel(f"<b>{pattern.title}</b><br>{pattern.description}")
        self.title.setWordWrap(True)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #d33;")
        self.form.addRow(self.title)
        self.pattern = pattern
        self.levels = levels
        self.editors = {}
        for p in pattern.params:
            w = self._make(p, values.get(p.name, p.default), levels)
            w.setToolTip(p.description)
            label = QLabel(p.name.replace("_", " "))
            label.setToolTip(p.description)
            self.form.addRow(label, w)
            self.editors[p.name] = w
        self.form.addRow(self.error)

    def _make(self, p, value, levels: Levels) -> QWidget:
        if p.kind == "int":
            w = _Spin(int(p.min) if p.min is not None else -INT_LIMIT,
                      int(p.max) if p.max is not None else INT_LIMIT)
            w.setValue(int(value))
            w.valueChanged.connect(self._emit)
        elif p.kind == "float":
            w = QDoubleSpinBox()
            w.setDecimals(3)
            w.setKeyboardTracking(False)
            w.setRange(p.min if p.min is not None else -1e9, p.max if p.max is not None else 1e9)
            span = (w.maximum() - w.minimum())
            w.setSingleStep(0.01 if span <= 1 else (0.5 if span <= 100 else 1.0))
            w.setValue(float(value))
            w.valueChanged.connect(self._emit)
        elif p.kind == "choice":
            w = QComboBox()
            w.addItems([str(c) for c in p.choices])
            w.setCurrentText(str(value))
            w.currentTextChanged.connect(self._emit)
        elif p.kind == "bool":
            w = QCheckBox()
            w.setChecked(bool(value))
            w.toggled.connect(self._emit)
        elif p.kind == "colour":
            w = ColourEdit(levels, value)
            w.changed.connect(self._emit)
        elif p.kind == "palette":
            w = PaletteEdit(levels, value)
            w.changed.connect(self._emit)
        else:  # pragma: no cover - the registry only has the kinds above
            raise ValueError(f"no editor for parameter kind {p.kind!r}")
        return w

    def values(self) -> dict:
        out = {}
        for name, w in self.editors.items():
            if isinstance(w, (QSpinBox, QDoubleSpinBox)):
                out[name] = w.value()
            elif isinstance(w, QComboBox):
                out[name] = w.currentText()
            elif isinstance(w, QCheckBox):
                out[name] = w.isChecked()
            else:
                out[name] = w.value()
        return out

    def set_levels(self, levels: Levels) -> None:
        """Carry colour code values to a new bit depth or range (see :func:`rescale_code`)."""
        self.levels = levels
        for w in self.editors.values():
            if isinstance(w, (ColourEdit, PaletteEdit)):
                w.set_levels(levels)

    def show_error(self, message: str | None) -> None:
        self.error.setText(message or "")

    def _emit(self, *_):
        self.params_edited.emit(self.values())


class FrameSettings(QWidget):
    """Bit depth, range, size (the output screen's native size or custom) and the counter overlay."""

    changed = Signal()
    SIZES = [(3840, 2160), (2560, 1440), (1920, 1080), (1280, 720)]

    def __init__(self, parent=None):
        super().__init__(parent)
        form = QFormLayout(self)
        self.bit_depth = _Spin(1, 16)
        self.bit_depth.setValue(10)
        self.bit_depth.setSuffix(" bit")
        self.range = QComboBox()
        self.range.addItems(["full", "limited"])
        self.size = QComboBox()
        self.native = (1920, 1080)
        self.size.addItem("output screen", None)
        for w, h in self.SIZES:
            self.size.addItem(f"{w}x{h}", (w, h))
        self.size.addItem("custom", "custom")
        self.custom_w = _Spin(1, 16384)
        self.custom_h = _Spin(1, 16384)
        self.custom_w.setValue(1920)
        self.custom_h.setValue(1080)
        wh = QWidget()
        lay = QHBoxLayout(wh)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.custom_w)
        lay.addWidget(QLabel("x"))
        lay.addWidget(self.custom_h)
        self.device = QComboBox()
        self.device.setToolTip("where frames are rendered (the render path is chosen per device)")
        self.counter = QCheckBox("overlay")
        self.counter_bits = _Spin(1, 31)
        self.counter_bits.setValue(16)
        self.counter_bits.setSuffix(" bits")
        cw = QWidget()
        lay2 = QHBoxLayout(cw)
        lay2.setContentsMargins(0, 0, 0, 0)
        lay2.addWidget(self.counter)
        lay2.addWidget(self.counter_bits)
        form.addRow("bit depth", self.bit_depth)
        form.addRow("range", self.range)
        form.addRow("size", self.size)
        form.addRow("", wh)
        form.addRow("counter", cw)
        form.addRow("device", self.device)
        self.custom_box = wh
        for sig in (self.bit_depth.valueChanged, self.range.currentIndexChanged,
                    self.custom_w.valueChanged, self.custom_h.valueChanged, self.counter.toggled,
                    self.counter_bits.valueChanged, self.device.currentIndexChanged):
            sig.connect(self._emit)
        self.size.currentIndexChanged.connect(self._on_size)
        self._on_size(0, emit=False)

    def set_native(self, size: tuple[int, int]) -> None:
        self.native = tuple(size)
        self.size.setItemText(0, f"output screen ({size[0]}x{size[1]})")

    def frame_size(self) -> tuple[int, int]:
        data = self.size.currentData()
        if data is None:
            return self.native
        if data == "custom":
            return self.custom_w.value(), self.custom_h.value()
        return tuple(data)

    def size_setting(self) -> list[int] | None:
        """None for the output screen's size, else [w, h]."""
        return None if self.size.currentData() is None else list(self.frame_size())

    def set_size_setting(self, size) -> None:
        self.blockSignals(True)
        if size is None:
            self.size.setCurrentIndex(0)
        else:
            i = self.size.findData(tuple(size))
            if i < 0:
                self.custom_w.setValue(int(size[0]))
                self.custom_h.setValue(int(size[1]))
                i = self.size.findData("custom")
            self.size.setCurrentIndex(i)
        self.blockSignals(False)
        self._on_size(self.size.currentIndex(), emit=False)

    def levels(self) -> Levels:
        return Levels(self.bit_depth.value(), self.range.currentText() == "limited")

    def counter_setting(self) -> int | None:
        return self.counter_bits.value() if self.counter.isChecked() else None

    def set_counter_allowed(self, allowed: bool) -> None:
        """The counter pattern is a counter already: no overlay on it."""
        self.counter.setEnabled(allowed)
        self.counter_bits.setEnabled(allowed)

    def _on_size(self, _i, emit=True) -> None:
        self.custom_box.setEnabled(self.size.currentData() == "custom")
        if emit:
            self._emit()

    def _emit(self, *_):
        self.changed.emit()

    def set_devices(self, names: list[str], current: str) -> None:
        self.blockSignals(True)
        self.device.clear()
        self.device.addItems(names)
        self.device.setCurrentText(current if current in names else names[0])
        self.blockSignals(False)

    def device_setting(self) -> str:
        return self.device.currentText() or "cpu"

    def set_values(self, bit_depth: int, limited: bool, size, counter: bool, counter_bits: int) -> None:
        self.blockSignals(True)
        self.bit_depth.setValue(bit_depth)
        self.range.setCurrentIndex(1 if limited else 0)
        self.counter.setChecked(counter)
        self.counter_bits.setValue(counter_bits)
        self.blockSignals(False)
        self.set_size_setting(size)


