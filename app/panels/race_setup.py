"""The Measure panel's race set-up: which candidates race (the render paths this device runs,
the others greyed with their reason), and how (form, rounds, frames, warm-up, margin).

It shows and collects only: :meth:`RaceSetup.settings` builds the race's
:class:`~core.decisions.RaceSettings`, :meth:`RaceSetup.checked_paths` the candidates ticked.
``form_changed`` follows the form picker.

Whether a torch path runs here is asked lazily (:meth:`RaceSetup.set_device`): the answer
imports torch and its compiler stack (about 3 s on two cores), which the app's start must not
wait for.  The list shows those paths as being checked until the set-up is first on screen,
when a worker asks, or until a caller needs the candidates, when they are asked at once.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.decisions import RaceSettings
from core.engine import PATHS, available_paths, path_problem

FORMS = {"live": "live (output window)", "render": "render (isolated)"}
HEADLESS_PLATFORMS = ("offscreen", "minimal", "vnc")
CHECKING = "checking..."
LIVE_NOTE = "A live race takes over the output screen, fullscreen, until it ends."
CANDIDATE_ROWS = 5.5   # the list's height in rows: four paths, one reason wrapped, no scrolling


class RaceSetup(QWidget):
    """Candidates and race settings, one above the other."""

    form_changed = Signal()

    def __init__(self, defaults: RaceSettings, live: bool, parent=None):
        """``defaults``: the settings the spins start at; ``live``: whether a live output is there
        to race on (without one, the live form is greyed out)."""
        super().__init__(parent)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        self.live_note = QLabel(LIVE_NOTE)   # said before Start (just above), not found out after it
        self.live_note.setWordWrap(True)
        box.addWidget(self.live_note)
        cand_box = QGroupBox("Candidates")
        cl = QVBoxLayout(cand_box)
        self.candidate_list = QListWidget()
        self.candidate_list.setSelectionMode(QAbstractItemView.NoSelection)
        self.candidate_list.setWordWrap(True)
        self.candidate_list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        # as tall as its rows, not a list's default 192 px: the panel fits a low bottom dock
        rows = self.candidate_list.fontMetrics().lineSpacing() * CANDIDATE_ROWS
        self.candidate_list.setMaximumHeight(int(rows) + 2 * self.candidate_list.frameWidth() + 4)
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
        self.form_changed.connect(lambda: self.live_note.setVisible(self.form() == "live"))
        self.live_note.setVisible(self.form() == "live")
        self._device, self._known, self._asking = "cpu", None, False
        self._runner = None

    def set_device(self, device: str, runner=None) -> None:
        """Offer the candidates for ``device``: numpy's verdict at once, the torch paths' when
        first needed (:meth:`paths_here`) or, with ``runner`` (a :class:`~app.workers.TaskRunner`),
        asked on it once the set-up is on screen."""
        self._device, self._known, self._asking, self._runner = device, None, False, runner
        self._fill({p: path_problem(p, device) if p == "numpy" else CHECKING for p in PATHS})
        self._ask()

    def paths_here(self) -> dict[str, str | None]:
        """Every path with None (runs on the device here) or why not; asked now if not yet known."""
        if self._known is None:
            self.show_paths(available_paths(self._device))
        return self._known

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().paintEvent(event)
        # painted: on screen, not in a dock tab behind another (those count as visible too)
        if self._runner is not None and self._known is None and not self._asking:
            QTimer.singleShot(0, self, self._ask)

    def _ask(self) -> None:
        if self._runner is None or self._known is not None or self._asking or not self.isVisible():
            return
        self._asking, device = True, self._device
        self._runner.submit(lambda: available_paths(device),
                            lambda paths, exc: self._answered(device, paths, exc))

    def _answered(self, device: str, paths, exc) -> None:
        if device != self._device or self._known is not None:
            return      # another device picked meanwhile, or already asked at once
        self._asking = False
        self.show_paths(paths if exc is None else {p: f"not checked: {exc}" for p in PATHS})

    def show_paths(self, paths_here: dict[str, str | None]) -> None:
        """One item per render path: ticked where it runs here, greyed with its reason elsewhere
        (a path the user unticked stays unticked)."""
        self._known = dict(paths_here)
        self._fill(self._known)

    def _fill(self, paths_here: dict[str, str | None]) -> None:
        unticked = {self.candidate_list.item(i).data(Qt.UserRole) for i in range(self.candidate_list.count())
                    if self.candidate_list.item(i).flags() & Qt.ItemIsEnabled
                    and self.candidate_list.item(i).checkState() != Qt.Checked}
        self.candidate_list.clear()
        for path in PATHS:
            why = paths_here.get(path, "not a path of this engine")
            item = QListWidgetItem(path if why is None else f"{path} - {why}")
            item.setData(Qt.UserRole, path)
            if why is None:
                item.setFlags(Qt.ItemIsEnabled | Qt.ItemIsUserCheckable)
                item.setCheckState(Qt.Unchecked if path in unticked else Qt.Checked)
            else:
                item.setFlags(Qt.ItemIsUserCheckable)  # not enabled: greyed, cannot be ticked
                item.setCheckState(Qt.Unchecked)
                item.setToolTip(why)
                item.setForeground(QBrush(QColor(140, 140, 140)))
            self.candidate_list.addItem(item)

    def candidate_items(self) -> dict[str, QListWidgetItem]:
        self.paths_here()
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


def refill(combo: QComboBox, names) -> bool:
    """Replace ``combo``'s items by ``names`` without a signal, keeping its choice where it is
    still there (else the first); True when the choice changed."""
    current = combo.currentText()
    combo.blockSignals(True)
    combo.clear()
    combo.addItems(list(names))
    combo.setCurrentText(current if current in names else combo.itemText(0))
    combo.blockSignals(False)
    return combo.currentText() != current
