"""The Measure panel's table: one row per candidate, redrawn from each progress step and from
the result, the winner's row in green.

The rows are core's (:func:`core.decisions.race_rows`, :func:`~core.decisions.running_rows`),
the very rows ``testcard measure`` prints, under the same headers (:func:`core.decisions.columns`):
the ranked figure named for the race's form -- median render time in a render race, p99 frame
cost in a live one, which also shows its late frames and p99 present interval first -- and
"vs default", candidate/default round by round, below 1 faster, as the verdict prints it."""

from __future__ import annotations

import textwrap

from PySide6.QtGui import QBrush
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from app.panels.race_chart import WINNER_COLOUR
from core.decisions import VS_DEFAULT, RaceRow, columns, ranked

HEADER_LINE = 10     # characters per header line


class RaceTable(QTableWidget):
    def __init__(self, parent=None):
        super().__init__(0, 0, parent)
        self.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)   # every figure in view
        header.setStretchLastSection(True)
        self.form = ""
        self._heads: list[str] = []
        self.set_form("render")

    def set_form(self, form: str) -> None:
        """The columns of a ``form`` race, each header saying what it holds."""
        if form == self.form:
            return
        self.form = form
        heads = self._heads = columns(form)
        self.setColumnCount(len(heads))
        # headers on short lines, so a column is about as wide as its figures
        self.setHorizontalHeaderLabels([textwrap.fill(h, HEADER_LINE) for h in heads])
        fig = ranked(form)
        tips = {fig.label: f"{fig.name}: {fig.means}", VS_DEFAULT.label: VS_DEFAULT.means}
        for j, head in enumerate(heads):
            self.horizontalHeaderItem(j).setToolTip(tips.get(head, ""))

    def headers(self) -> list[str]:
        """The columns' headers, each ``name (unit)`` on one line."""
        return list(self._heads)

    def show_rows(self, rows: list[RaceRow], form: str) -> None:
        """``rows`` under the columns of ``form``, in their order."""
        self.set_form(form)
        heads = self.headers()
        self.setRowCount(len(rows))
        for i, row in enumerate(rows):
            cells = row.cells(form, winner_mark=" (winner)")
            for j, head in enumerate(heads):
                item = self.item(i, j)
                if item is None:
                    item = QTableWidgetItem()
                    self.setItem(i, j, item)
                text = cells[head]
                item.setText(text)
                item.setToolTip(text if j == len(heads) - 1 else "")
                item.setForeground(QBrush(WINNER_COLOUR if row.winner else self.palette().text().color()))

    def cell(self, row: int, header: str) -> str:
        """The text in ``row`` under ``header`` (for tests and callers)."""
        return self.item(row, self.headers().index(header)).text()
