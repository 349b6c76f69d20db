"""The Decode panel's plot: decoded index against capture position, drops and repeats marked.

One persistent scatter item per kind of frame, fed with ``setData``: decoded frames grow live
while a decode runs; a finished (or cancelled) report replaces them with the whole picture, the
index unwrapped across counter wraps.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor

from core.decode import unwrap

COLOURS = {"ok": (80, 160, 230), "torn": (214, 39, 160), "drop": (214, 39, 40), "repeat": (255, 127, 14),
           "undecodable": (127, 127, 127), "unreadable": (0, 0, 0)}


class DecodePlot(pg.PlotWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setLabel("bottom", "capture position")
        self.setLabel("left", "decoded index")
        self.showGrid(x=True, y=True, alpha=0.2)
        self.addLegend(offset=(10, 10))
        # one persistent item per kind; data replaced with setData
        self.ok_item = self._scatter("decoded", "o", "ok", 6)
        self.torn_item = self._scatter("torn", "d", "torn", 9)
        self.drop_item = self._scatter("drop", "t1", "drop", 11)
        self.repeat_item = self._scatter("repeat", "s", "repeat", 8)
        self.bad_item = self._scatter("undecodable / unreadable", "x", "undecodable", 7)
        self._positions: list[float] = []
        self._indices: list[float] = []

    def _scatter(self, name: str, symbol: str, colour: str, size: int) -> pg.ScatterPlotItem:
        item = pg.ScatterPlotItem(name=name, symbol=symbol, size=size, pen=pg.mkPen(None),
                                  brush=pg.mkBrush(QColor(*COLOURS[colour])))
        self.addItem(item)
        return item

    def clear_points(self) -> None:
        self._positions, self._indices = [], []
        for item in (self.ok_item, self.torn_item, self.drop_item, self.repeat_item, self.bad_item):
            item.setData([], [])

    def add_readings(self, readings) -> None:
        """Add the decoded frames among ``readings`` (``FrameReading``) while a decode runs."""
        for r in readings:
            if r.index is not None:
                self._positions.append(float(r.position))
                self._indices.append(float(r.index))
        self.ok_item.setData(np.asarray(self._positions, np.float64), np.asarray(self._indices, np.float64))

    def show_report(self, report: dict) -> None:
        """The whole report: index unwrapped across counter wraps, drops and repeats marked."""
        frames = report["frames"]
        modulus = int(report["summary"].get("modulus") or 2)
        ys = unwrap(frames, modulus)
        ok = [(f["position"], u) for f, u in zip(frames, ys, strict=True)
              if u is not None and f["status"] == "ok"]
        self._set(self.ok_item, ok)
        torn = []
        for f, u in zip(frames, ys, strict=True):
            if f["status"] == "torn" and u is not None:
                torn += [(f["position"], u + k) for k in range(len(f.get("indices", [])))]
        self._set(self.torn_item, torn)
        vals = [u for u in ys if u is not None]
        floor = min(vals) if vals else 0.0
        self._set(self.bad_item, [(f["position"], floor) for f in frames
                                  if f["status"] in ("undecodable", "unreadable")])
        # drops and repeats at the level of the nearest decoded index
        level = _levels(ys)
        self._set(self.drop_item, [(e["position"] - 0.5, level(e["position"])) for e in report["events"]
                                   if e["kind"] == "drop"])
        self._set(self.repeat_item, [(e["position"], level(e["position"])) for e in report["events"]
                                     if e["kind"] == "repeat"])

    @staticmethod
    def _set(item: pg.ScatterPlotItem, points) -> None:
        if not points:
            item.setData([], [])
            return
        xy = np.asarray(points, np.float64)
        item.setData(xy[:, 0], xy[:, 1])


def _levels(ys):
    """Position -> the nearest decoded (unwrapped) index at or before it (else after it)."""
    known = [(i, u) for i, u in enumerate(ys) if u is not None]
    pos = np.array([i for i, _ in known], np.int64)
    val = np.array([u for _, u in known], np.float64)

    def level(p) -> float:
        if pos.size == 0:
            return 0.0
        k = int(np.searchsorted(pos, p, side="right")) - 1
        return float(val[max(k, 0)])

    return level
