"""Clock pairs: the wall clock read around the present clock, kept on the timeline's rows and
written to its CSV (no Qt)."""

import csv
import time

import numpy as np
import pytest

from core.timing import CSV_COLUMNS, Timeline
from core.timing.clocks import ClockPair, take_clock_pair
from core.timing.record import CLOCK_COLUMNS


def scripted(values):
    it = iter(values)
    return lambda: next(it)


def test_the_tightest_bracket_is_kept_and_its_midpoint_is_the_wall_clock_at_m():
    # three tries: widths 4, 1 and 2 (microseconds); the second is kept
    realtime = scripted([100.0, 100.000004, 200.0, 200.000001, 300.0, 300.000002])
    monotonic = scripted([5.0, 6.0, 7.0])
    pair = take_clock_pair(realtime, monotonic, tries=3)
    assert pair.monotonic_s == 6.0
    assert pair.realtime_s == pytest.approx(200.0000005, abs=1e-9)
    assert pair.uncertainty_s == pytest.approx(0.5e-6, abs=1e-12)
    assert pair.offset_s == pytest.approx(194.0000005, abs=1e-9)


def test_a_wall_clock_set_back_inside_a_bracket_is_never_the_best_try():
    realtime = scripted([10.0, 9.0, 20.0, 20.00001])   # the first try ran backwards
    pair = take_clock_pair(realtime, scripted([1.0, 2.0]), tries=2)
    assert pair.monotonic_s == 2.0 and pair.uncertainty_s == pytest.approx(5e-6)


def test_a_real_pair_brackets_the_present_clock():
    seen = {"r": [], "m": []}

    def realtime():
        seen["r"].append(time.time())
        return seen["r"][-1]

    def monotonic():
        seen["m"].append(time.perf_counter())
        return seen["m"][-1]

    pair = take_clock_pair(realtime, monotonic)
    assert len(seen["r"]) == 6 and len(seen["m"]) == 3
    assert pair.monotonic_s in seen["m"] and pair.uncertainty_s >= 0.0
    assert min(seen["r"]) <= pair.realtime_s <= max(seen["r"])


def counted():
    calls = []

    def pair():
        calls.append(len(calls))
        k = float(len(calls))
        return ClockPair(1.7e9 + k, k, 1e-6)

    return pair, calls


def test_pairs_go_on_the_first_row_and_every_refresh_worth_of_frames_only():
    pair, calls = counted()
    tl = Timeline(capacity=1000, period_ms=10.0, clock_pair=pair, clock_refresh_s=0.5)   # every 50
    for i in range(120):
        tl.append(i, 1.0 + i / 100, 1.0, 0.0, 0.0, 0.0, "numpy")
    assert len(calls) == 3                                   # rows 0, 50, 100: nothing in between
    snap = tl.snapshot()
    assert [row for row, _ in snap.clock_pairs] == [0, 50, 100]
    assert tl.clock_pairs == [p for _, p in snap.clock_pairs]
    assert [row for row, _ in tl.snapshot(last=30).clock_pairs] == [10]   # row 100 of 90..119
    tl.set_period(5.0)                      # a faster screen: every 100 frames after the next (150)
    tl.extend(np.arange(120, 400), 3.0 + np.arange(280) / 200, 1.0, 0.0, 0.0, 0.0, "numpy")
    assert [row for row, _ in tl.snapshot().clock_pairs] == [0, 50, 100, 150, 250, 350]
    tl.clear()
    tl.append(0, 9.0, 1.0, 0.0, 0.0, 0.0, "numpy")
    assert [row for row, _ in tl.snapshot().clock_pairs] == [0]


def test_pairs_of_rows_the_ring_forgot_go_with_them():
    pair, calls = counted()
    tl = Timeline(capacity=16, clock_pair=pair, clock_refresh_s=0.1)   # every 6 frames at 60 Hz
    for i in range(6000):
        tl.append(i, i / 60, 1.0, 0.0, 0.0, 0.0, "numpy")
    assert len(calls) == 1000
    # bounded by the ring: at most one pair older than the ring's store, kept until the next
    assert len(tl._pairs) <= 16 // 6 + 2 and all(r >= 6000 - 17 - 6 for r in tl._pair_rows)
    assert [row for row, _ in tl.snapshot().clock_pairs] == [4, 10]      # rows 5988, 5994 of 5984..


def test_a_recording_and_an_export_carry_the_pairs_in_their_own_columns(tmp_path):
    pair, calls = counted()
    tl = Timeline(capacity=64, clock_pair=pair, clock_refresh_s=1.0)    # every 60 frames
    for i in range(30):                                                   # before: not recorded
        tl.append(i, i / 60, 1.0, 0.0, 0.0, 0.0, "numpy")
    out = tmp_path / "rec.csv"
    tl.record_to(out)
    for i in range(30, 200):
        tl.append(i, i / 60, 1.0, 0.0, 0.0, 0.0, "numpy")
    assert tl.stop_recording().rows == 170
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert tuple(rows[0]) == CSV_COLUMNS and CSV_COLUMNS[-3:] == CLOCK_COLUMNS
    paired = [int(r["frame"]) for r in rows if r["clock_realtime_s"]]
    # the first row recorded, every 60 frames after it, and the last row
    assert paired == [30, 90, 150, 199]
    first = rows[0]
    assert float(first["clock_realtime_s"]) - float(first["clock_monotonic_s"]) == pytest.approx(1.7e9)
    assert float(first["clock_uncertainty_s"]) == pytest.approx(1e-6)
    assert all(r["clock_monotonic_s"] == r["clock_uncertainty_s"] == "" for r in rows
               if not r["clock_realtime_s"])
    export = tmp_path / "export.csv"
    tl.snapshot().write_csv(export)
    rows = list(csv.DictReader(export.open(encoding="utf-8")))
    assert [int(r["frame"]) for r in rows if r["clock_realtime_s"]] == [150, 199]   # rows 136..199 held
