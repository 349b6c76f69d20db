"""The Measure panel's band picker: pattern family, resolution, display format -- and the band
the live output renders, which it shows and follows.

The picker starts on the live output's band (the main window passes it in: the pattern on
screen, its frame size, the surface's display format) and follows it while the operator has not
picked another by hand; "Live band" goes back to it.  It validates through
``core.decisions.make_band`` and shows the refusal in one sentence.
"""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPushButton

from core.decisions import BAND_FORMATS, RESOLUTIONS, Band, families, make_band, parse_band

CUSTOM = "custom WxH"
FALLBACK_BAND = "animated@1080p/rgb8"   # without a live output (a panel on its own)


class BandPicker(QGroupBox):
    """Family, resolution (a class or a custom ``WxH``) and format; ``band_changed`` on every edit."""

    band_changed = Signal()

    def __init__(self, live_band: Band | str | None = None, parent=None):
        super().__init__("Band", parent)
        self.live_band: Band | None = parse_band(live_band) if live_band is not None else None
        self.live_path: str | None = None
        self.following = True          # False once the operator picks a band by hand
        self._programmatic = False
        self.error = ""
        form = QFormLayout(self)
        self.family_combo = QComboBox()
        self.family_combo.addItems(families())
        self.resolution_combo = QComboBox()
        self.resolution_combo.addItems([*RESOLUTIONS, CUSTOM])
        self.custom_size = QLineEdit()
        self.custom_size.setPlaceholderText("e.g. 1920x1200")
        self.custom_size.setEnabled(False)
        self.format_combo = QComboBox()
        self.format_combo.addItems(list(BAND_FORMATS))
        self.band_label = QLabel()
        self.band_label.setWordWrap(True)
        self.live_label = QLabel()
        self.live_label.setWordWrap(True)
        self.live_button = QPushButton("Live band")
        self.live_button.setToolTip("Race the band the live output renders now (and follow it)")
        live_row = QHBoxLayout()
        live_row.addWidget(self.live_label, 1)
        live_row.addWidget(self.live_button)
        form.addRow("Pattern", self.family_combo)
        form.addRow("Resolution", self.resolution_combo)
        form.addRow("Custom size", self.custom_size)
        form.addRow("Format", self.format_combo)
        form.addRow("Band", self.band_label)
        form.addRow("Live", live_row)
        for combo in (self.family_combo, self.resolution_combo, self.format_combo):
            combo.currentTextChanged.connect(self._edited)
        self.custom_size.textChanged.connect(self._edited)
        self.live_button.clicked.connect(self.use_live_band)
        self._programmatic = True
        self.set_band(self.live_band or FALLBACK_BAND)
        self._programmatic = False
        self._show_live()

    def band(self) -> Band | None:
        """The band the picker names, or None (``error`` says why) when it names none."""
        res = self.resolution_combo.currentText()
        if res == CUSTOM:
            res = self.custom_size.text().strip() or "?"
        try:
            return make_band(self.family_combo.currentText(), res, self.format_combo.currentText())
        except ValueError as exc:
            self.error = str(exc)
            return None

    def set_band(self, name: Band | str) -> None:
        """Point the picker at a band (e.g. ``animated@64x36/rgb10``); by hand unless the picker
        is following the live band."""
        b = parse_band(name)
        was, self._programmatic = self._programmatic, True
        try:
            self.family_combo.setCurrentText(b.family)
            if b.resolution in RESOLUTIONS:
                self.resolution_combo.setCurrentText(b.resolution)
            else:
                self.resolution_combo.setCurrentText(CUSTOM)
                self.custom_size.setText(b.resolution)
            self.format_combo.setCurrentText(b.fmt)
        finally:
            self._programmatic = was
        if not was:
            self.following = self.live_band is not None and b == self.live_band
        self._refresh()

    def set_live(self, band: Band | str | None, path: str | None = None) -> None:
        """The live output now renders ``band`` with ``path``; the picker follows unless the
        operator has picked another band."""
        self.live_band = parse_band(band) if band is not None else None
        self.live_path = path
        if self.following and self.live_band is not None and self.band() != self.live_band:
            self._programmatic = True
            try:
                self.set_band(self.live_band)
            finally:
                self._programmatic = False
        self._show_live()
        self._refresh()

    @Slot()
    def use_live_band(self) -> None:
        if self.live_band is not None:
            self.set_band(self.live_band)
            self.following = True
            self._refresh()

    @Slot()
    def _edited(self, *_):
        if not self._programmatic:
            self.following = self.live_band is not None and self.band() == self.live_band
        self._refresh()

    def _refresh(self) -> None:
        self.custom_size.setEnabled(self.resolution_combo.currentText() == CUSTOM)
        b = self.band()
        if b is None:
            self.band_label.setText(f"<span style='color:#c33'>{self.error}</span>")
        else:
            live = " (the live output's)" if b == self.live_band else ""
            self.band_label.setText(f"<b>{b.name}</b>{live}")
        self.live_button.setEnabled(self.live_band is not None and b != self.live_band)
        self.band_changed.emit()

    def _show_live(self) -> None:
        if self.live_band is None:
            self.live_label.setText("no live output")
        else:
            path = f" on {self.live_path}" if self.live_path else ""
            self.live_label.setText(f"{self.live_band.name}{path}")
