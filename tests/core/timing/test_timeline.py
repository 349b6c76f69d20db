"""The per-frame timeline and its CSV export (no Qt)."""

import csv

import numpy as np
import pytest

from core.timing import CSV_COLUMNS, Timeline


def filled(n=3000):
    tl = Timeline(capacity=16)
    for i in range(n):
        tl.append(i, i / 60.0, 1.0 + i % 3, 0.25, 0.5, 2.0, "numpy" if i % 2 else "torch-eager",
                  warmup=i < 4, paused=i == 10, error="boom" if i == 7 else None)
    return tl


def test_appends_grow_and_keep_every_row():
    tl = filled()
    assert len(tl) == 3000
    snap = tl.snapshot()
    assert np.array_equal(snap.index, np.arange(3000))
    assert np.allclose(snap.present_s, np.arange(3000) / 60.0)
    assert snap.path[:2] == ["torch-eager", "numpy"]
    assert snap.errors == {7: "boom"}
    assert snap.leading_warmup == 4 == tl.leading_warmup()
    assert np.isnan(snap.interval_ms[0])
    assert np.allclose(snap.interval_ms[1:], 1000.0 / 60.0)


def test_snapshot_is_a_copy():
    tl = filled(20)
    snap = tl.snapshot()
    tl.append(99, 100.0, 0, 0, 0, 0, "numpy")
    tl.clear()
    assert len(snap) == 20 and snap.index[-1] == 19


def test_column_tail():
    tl = filled(100)
    assert np.array_equal(tl.column("index", last=5), np.arange(95, 100))
    assert len(tl.column("present_s")) == 100


def test_csv_has_every_frame(tmp_path):
    tl = filled(50)
    out = tmp_path / "timeline.csv"
    assert tl.snapshot().write_csv(out) == 50
    rows = list(csv.DictReader(out.open()))
    assert tuple(rows[0].keys()) == CSV_COLUMNS
    assert [int(r["index"]) for r in rows] == list(range(50))
    assert rows[0]["interval_ms"] == ""
    assert float(rows[1]["interval_ms"]) == pytest.approx(1000 / 60, abs=1e-4)
    assert rows[7]["error"] == "boom" and rows[10]["paused"] == "1" and rows[3]["warmup"] == "1"
    assert float(rows[2]["render_ms"]) == 3.0 and rows[2]["path"] == "torch-eager"
