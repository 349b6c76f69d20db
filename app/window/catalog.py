"""The searchable, grouped pattern catalog (from ``core.patterns.registry.catalog()``)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLineEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from core.patterns import catalog

NAME_ROLE = Qt.ItemDataRole.UserRole


class CatalogPanel(QWidget):
    """Groups as top-level items, patterns under them; typing filters by name,
    title, group or description."""

    pattern_chosen = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.search = QLineEdit(placeholderText="Search patterns")
        self.search.setClearButtonEnabled(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(True)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.search)
        lay.addWidget(self.tree)
        self._items: dict[str, QTreeWidgetItem] = {}
        groups: dict[str, QTreeWidgetItem] = {}
        for pat in catalog():
            g = groups.get(pat.group)
            if g is None:
                g = QTreeWidgetItem(self.tree, [pat.group])
                g.setFlags(Qt.ItemFlag.ItemIsEnabled)
                groups[pat.group] = g
            it = QTreeWidgetItem(g, [pat.title])
            it.setData(0, NAME_ROLE, pat.name)
            it.setToolTip(0, f"{pat.name}: {pat.description}")
            self._items[pat.name] = it
            it.setData(0, Qt.ItemDataRole.UserRole + 1,
                       " ".join((pat.name, pat.title, pat.group, pat.description)).lower())
        self.tree.expandAll()
        self.search.textChanged.connect(self.filter)
        self.tree.currentItemChanged.connect(self._on_current)

    def filter(self, text: str) -> None:
        words = text.lower().split()
        for i in range(self.tree.topLevelItemCount()):
            g = self.tree.topLevelItem(i)
            shown = 0
            for j in range(g.childCount()):
                it = g.child(j)
                hay = it.data(0, Qt.ItemDataRole.UserRole + 1)
                hide = not all(w in hay for w in words)
                it.setHidden(hide)
                shown += not hide
            g.setHidden(shown == 0)

    def visible_patterns(self) -> list[str]:
        return [n for n, it in self._items.items() if not it.isHidden() and not it.parent().isHidden()]

    def select(self, name: str) -> None:
        it = self._items.get(name)
        if it is not None and self.tree.currentItem() is not it:
            self.tree.setCurrentItem(it)

    def _on_current(self, current, _previous) -> None:
        if current is None:
            return
        name = current.data(0, NAME_ROLE)
        if name:
            self.pattern_chosen.emit(name)
