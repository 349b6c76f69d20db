"""The Measure panel's race set-up: which candidates race (the render paths this device runs,
the others greyed with their reason), and how (form, rounds, frames, warm-up, margin).

It shows and collects only: :meth:`RaceSetup.settings` builds the race's
:class:`~core.decisions.RaceSettings`, :meth:`RaceSetup.checked_paths` the candidates ticked.
``form_changed`` follows the form picker.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QListWidget,
    QListWidgetItem,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.decisions import RaceSettings
from core.engine import PATHS

FORMS = {"live": "live (output window)", "render": "render (isolated)"}
HEADLESS_PLATFORMS = ("offscreen", "minimal", "vnc")


class RaceSetup(QWidget):
    """Candidates and race settings, one above the other."""

    form_changed = Signal()

    def __init__(self, defaults: RaceSettings, live: bool, parent=None):
        """``defaults``: the settings the spins start at; ``live``: whether a live output is there
        to race on (without one, the live form is greyed out)."""
        super().__init__(parent)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        cand_box = QGroupBox("Candidates")
        cl = QVBoxLayout(cand_box)
        self.candidate_list = QListWidget()
        self.candidate_list.setSelectionMode(QAbstractItemView.NoSelection)
        self.candidate_list.setWordWrap(True)
        self.candidate_list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        cl.addWidget(self.candidate_list)
        box.addWidget(cand_box)

        race_box = QGroupBox("Race")
        rf = QFormLayout(race_box)
        self.rounds_spin = QSpinBox(minimum=1, maximum=1000, value=defaults.rounds)
        self.frames_spin = QSpinBox(minimum=1, maximum=10000, value=defaults.frames)
        self.warmup_spin = QSpinBox(minimum=0, maximum=10000, value=defaults.warmup)
        self.margin_spin = QDoubleSpinBox(minimum=0.0, maximum=50.0, value=defaults.margin * 100,
                                          suffix=" %", decimals=1, singleStep=0.5)
        self.form_combo = QComboBox()
        for form, label in FORMS.items():
            self.form_combo.addItem(label, form)
        self.form_combo.setToolTip("live: each candidate presented on the output screen at its "
                                   "cadence; fewer late frames win, then the lower p99 frame cost.\n"
                                   "render: each render timed in isolation; the lower median render "
                                   "time wins (headless boxes).")
        if not live:
            self.form_combo.model().item(0).setEnabled(False)
        live_default = live and QGuiApplication.platformName() not in HEADLESS_PLATFORMS
        self.form_combo.setCurrentIndex(0 if live_default else 1)
        rf.addRow("Form", self.form_combo)
        rf.addRow("Rounds", self.rounds_spin)
        rf.addRow("Timed frames / round", self.frames_spin)
        rf.addRow("Warm-up frames / round", self.warmup_spin)
        rf.addRow("Margin", self.margin_spin)
        box.addWidget(race_box)
        self.form_combo.currentIndexChanged.connect(self.form_changed)

    def show_paths(self, paths_here: dict[str, str | None]) -> None:
        """One item per render path: ticked where it runs here, greyed with its reason elsewhere."""
        self.candidate_list.clear()
        for path in PATHS:
            why = paths_here.get(path, "not a path of this engine")
            item = QListWidgetItem(path if why is None else f"{path} - {why}")
            item.setData(Qt.UserRole, path)
            if why is None:
                item.setFlags(Qt.ItemIsEnabled | Qt.ItemIsUserCheckable)
                item.setCheckState(Qt.Checked)
            else:
                item.setFlags(Qt.ItemIsUserCheckable)  # not enabled: greyed, cannot be ticked
                item.setCheckState(Qt.Unchecked)
                item.setToolTip(why)
                item.setForeground(QBrush(QColor(140, 140, 140)))
            self.candidate_list.addItem(item)

    def candidate_items(self) -> dict[str, QListWidgetItem]:
        return {self.candidate_list.item(i).data(Qt.UserRole): self.candidate_list.item(i)
                for i in range(self.candidate_list.count())}

    def set_candidates(self, paths) -> None:
        for name, item in self.candidate_items().items():
            if item.flags() & Qt.ItemIsEnabled:
                item.setCheckState(Qt.Checked if name in paths else Qt.Unchecked)

    def checked_paths(self) -> tuple[str, ...]:
        return tuple(n for n, it in self.candidate_items().items()
                     if it.flags() & Qt.ItemIsEnabled and it.checkState() == Qt.Checked)

    def form(self) -> str:
        """The form the next race runs in: ``live`` or ``render``."""
        return self.form_combo.currentData()

    def set_form(self, form: str) -> None:
        self.form_combo.setCurrentIndex(self.form_combo.findData(form))

    def settings(self) -> RaceSettings:
        """The race's settings as the spins hold them (``ValueError`` for what the race refuses)."""
        return RaceSettings(rounds=self.rounds_spin.value(), frames=self.frames_spin.value(),
                            warmup=self.warmup_spin.value(), margin=self.margin_spin.value() / 100)
