"""The Measure panel's table: one row per candidate, redrawn from each progress step and from
the result, the winner's row in green.

In a render race a candidate's time is its median render time; in a live race it is the median
of its per-round p99 frame cost (render + transfer + upload), and the row also shows what
decides there first: its late frames, and its p99 present interval."""

from __future__ import annotations

from PySide6.QtGui import QBrush
from PySide6.QtWidgets import QAbstractItemView, QTableWidget, QTableWidgetItem

from app.panels.race_chart import WINNER_COLOUR
from core.decisions import RaceResult

COLUMNS = ["path", "status", "median ms", "spread ms", "late", "p99 interval ms", "compile s",
           "vs default", "note"]
LIVE_TIME = "p99 cost ms"      # the time column's header in a live race


class RaceTable(QTableWidget):
    def __init__(self, parent=None):
        super().__init__(0, len(COLUMNS), parent)
        self.setHorizontalHeaderLabels(COLUMNS)
        self.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.verticalHeader().setVisible(False)
        self.horizontalHeader().setStretchLastSection(True)
        self.set_form("render")

    def set_form(self, form: str) -> None:
        """Say what the time column holds, and show the live columns only in a live race."""
        self.horizontalHeaderItem(2).setText(LIVE_TIME if form == "live" else COLUMNS[2])
        for j in (COLUMNS.index("late"), COLUMNS.index("p99 interval ms")):
            self.setColumnHidden(j, form != "live")

    def show_rows(self, rows: dict, order, result: RaceResult | None) -> list[str]:
        """``rows``: ``{name: (median_ms, CandidateResult or None)}`` so far; the names in the
        order shown (timed first) are returned."""
        names = [n for n in order if n in rows] + [n for n in order if n not in rows]
        default_ms = result.default_ms if result is not None else None
        winner = result.winner if result is not None else None
        self.setRowCount(len(names))
        for i, name in enumerate(names):
            median, c = rows.get(name, (None, None))
            status = c.status if c is not None else ("running" if median is not None else "waiting")
            late = "" if c is None or c.late is None else f"{c.late}/{c.timed_frames}"
            cells = [name + (" (winner)" if name == winner else ""),
                     status, _num(median), _num(c.spread_ms if c else None), late,
                     _num(c.interval_p99_ms if c else None, 2), _num(c.compile_s if c else None, 2),
                     f"{median / default_ms:.2f}x" if median and default_ms else "",
                     c.reason if c else ""]
            for j, text in enumerate(cells):
                item = self.item(i, j)
                if item is None:
                    item = QTableWidgetItem()
                    self.setItem(i, j, item)
                item.setText(text)
                item.setToolTip(text if j == len(cells) - 1 else "")
                item.setForeground(QBrush(WINNER_COLOUR if name == winner
                                          else self.palette().text().color()))
        return names


def _num(v, nd: int = 3) -> str:
    return "" if v is None else f"{v:.{nd}f}"
