"""Editors generated from the pattern registry, and the frame settings beside them.

The parameter editor builds one row per :class:`core.patterns.registry.Param`: a spin
box bounded by the registry's range for int and float, a combo for choices, a
check box for bools, and code values at the current bit depth (with a swatch)
for colours and palettes (``colour_edit``, with the APL readout).  It computes nothing: it
reports the values, and the main window validates them through ``make_spec``.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QToolButton,
    QWidget,
)

from app.window.colour_edit import AplReadout, ColourEdit, PaletteEdit, Spin
from core.levels import Levels

INT_LIMIT = 2**31 - 1


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
        self.apl = AplReadout()
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
        self.apl = AplReadout()
        self.form.addRow(self.apl)
        self.form.addRow(self.error)

    def _make(self, p, value, levels: Levels) -> QWidget:
        if p.kind == "int":
            w = Spin(int(p.min) if p.min is not None else -INT_LIMIT,
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
        """Show colours at a new bit depth or range, each converted from what was typed
        (:func:`core.levels.rescale_code`)."""
        self.levels = levels
        for w in self.editors.values():
            if isinstance(w, (ColourEdit, PaletteEdit)):
                w.set_levels(levels)

    def show_error(self, message: str | None) -> None:
        self.error.setText(message or "")

    def show_apl(self, apl) -> None:
        """The frame's APL (a :class:`core.patterns.FrameApl`, or None), and the colours the
        pattern computes in place of typed ones (the window's background in APL mode)."""
        computed = dict(apl.computed) if apl is not None else {}
        for name, w in self.editors.items():
            if isinstance(w, ColourEdit):
                w.show_computed(computed.get(name))
        self.apl.show_apl(apl)

    def _emit(self, *_):
        self.params_edited.emit(self.values())


class FrameSettings(QWidget):
    """Bit depth, range, size (the output screen's native size or custom) and the counter overlay.

    The bit depth follows the output surface (:meth:`follow_surface`: 8 on an 8-bit surface,
    10 where 10 bits were granted) until the user picks one (``bit_depth_chosen``, persisted);
    the "auto" button goes back to following the surface.  ``transfer`` is no widget: it is
    the session's (``testcard gui --transfer``; None: each pattern's own), kept so that
    :meth:`frame_format` says everything a frame here shares.
    """

    changed = Signal()
    SIZES = [(3840, 2160), (2560, 1440), (1920, 1080), (1280, 720)]

    def __init__(self, parent=None):
        super().__init__(parent)
        self.transfer: str | None = None
        form = QFormLayout(self)
        self.bit_depth = Spin(1, 16)
        self.bit_depth.setValue(10)
        self.bit_depth.setSuffix(" bit")
        self.bit_depth_chosen = True     # until set_values says the stored depth was a default
        self.surface_bits: int | None = None
        self._following = False
        self.auto_depth = QToolButton()
        self.auto_depth.setText("auto")
        self.auto_depth.setCheckable(True)
        self.auto_depth.toggled.connect(self._on_auto_depth)
        depth_box = QWidget()
        lay0 = QHBoxLayout(depth_box)
        lay0.setContentsMargins(0, 0, 0, 0)
        lay0.addWidget(self.bit_depth, 1)
        lay0.addWidget(self.auto_depth)
        self.range = QComboBox()
        self.range.addItems(["full", "limited"])
        self.size = QComboBox()
        self.native = (1920, 1080)
        self.size.addItem("output screen", None)
        for w, h in self.SIZES:
            self.size.addItem(f"{w}x{h}", (w, h))
        self.size.addItem("custom", "custom")
        self.custom_w = Spin(1, 16384)
        self.custom_h = Spin(1, 16384)
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
        self.counter_bits = Spin(1, 31)
        self.counter_bits.setValue(16)
        self.counter_bits.setSuffix(" bits")
        cw = QWidget()
        lay2 = QHBoxLayout(cw)
        lay2.setContentsMargins(0, 0, 0, 0)
        lay2.addWidget(self.counter)
        lay2.addWidget(self.counter_bits)
        form.addRow("bit depth", depth_box)
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
        self.bit_depth.valueChanged.connect(self._on_bit_depth)
        self.size.currentIndexChanged.connect(self._on_size)
        self._on_size(0, emit=False)
        self._show_depth_source()

    # -- the bit depth: the surface's unless chosen
    def follow_surface(self, bits: int) -> None:
        """The output surface has ``bits`` per channel: the depth unless the user chose one
        (a change emits ``changed``, so the frame is rebuilt at the new depth)."""
        self.surface_bits = int(bits)
        if not self.bit_depth_chosen and self.bit_depth.value() != self.surface_bits:
            self._set_depth(self.surface_bits)
        self._show_depth_source()

    def _set_depth(self, bits: int) -> None:
        self._following = True
        try:
            self.bit_depth.setValue(bits)
        finally:
            self._following = False

    def _on_bit_depth(self, _v) -> None:
        if not self._following:
            self.bit_depth_chosen = True
            self._show_depth_source()

    def _on_auto_depth(self, on: bool) -> None:
        if self._following:
            return
        self.bit_depth_chosen = not on
        if on and self.surface_bits is not None:
            self.follow_surface(self.surface_bits)
        self._show_depth_source()

    def _show_depth_source(self) -> None:
        surface = f"{self.surface_bits}-bit" if self.surface_bits is not None else "not yet known"
        self._following = True
        try:
            self.auto_depth.setChecked(not self.bit_depth_chosen)
        finally:
            self._following = False
        self.auto_depth.setToolTip(f"auto: the depth follows the output surface ({surface}); "
                                   "choosing a depth keeps yours")
        self.bit_depth.setToolTip(f"code-value bit depth; the output surface is {surface}"
                                  + ("" if self.bit_depth_chosen else " (following it)"))

    def set_native(self, size: tuple[int, int]) -> None:
        self.native = tuple(size)
        self.size.setItemText(0, f"output screen ({size[0]}x{size[1]})")
        self._on_size(self.size.currentIndex(), emit=False)

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
            i = self.size.findText(f"{int(size[0])}x{int(size[1])}")   # listed (its data reads back a list)
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

    def frame_format(self):
        """What these settings say every frame shares (:class:`core.patterns.FrameFormat`), the
        one reading of the widgets a spec is built from; ``ValueError`` for a depth and range
        that cannot go together."""
        from core.patterns import FrameFormat

        lv = self.levels()
        w, h = self.frame_size()
        return FrameFormat(w, h, lv.bit_depth, lv.limited, self.counter_setting(), self.transfer)

    def set_counter_allowed(self, allowed: bool) -> None:
        """The counter pattern is a counter already: no overlay on it."""
        self.counter.setEnabled(allowed)
        self.counter_bits.setEnabled(allowed)

    def _on_size(self, _i, emit=True) -> None:
        custom = self.size.currentData() == "custom"
        self.custom_box.setEnabled(custom)
        if not custom:   # greyed, they show the size in force; "custom" starts from it
            for spin, v in zip((self.custom_w, self.custom_h), self.frame_size(), strict=True):
                spin.blockSignals(True)
                spin.setValue(int(v))
                spin.blockSignals(False)
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

    def set_values(self, bit_depth: int, limited: bool, size, counter: bool, counter_bits: int,
                   chosen: bool = True) -> None:
        """Show stored frame settings; ``chosen=False``: ``bit_depth`` is a default that the
        output surface's depth replaces (:meth:`follow_surface`)."""
        self.blockSignals(True)
        self._set_depth(bit_depth)
        self.bit_depth_chosen = bool(chosen)
        self.range.setCurrentIndex(1 if limited else 0)
        self.counter.setChecked(counter)
        self.counter_bits.setValue(counter_bits)
        self.blockSignals(False)
        self.set_size_setting(size)
        self._show_depth_source()


