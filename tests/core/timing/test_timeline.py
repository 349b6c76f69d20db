"""The bounded per-frame timeline, its CSV export, and append/extend equivalence (no Qt)."""

import csv
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.timing import CSV_COLUMNS, HISTORY_S, Timeline, history_rows
from core.timing.clocks import ClockPair
from core.timing.timeline import MAX_ROWS, MIN_ROWS


def filled(n=3000, tl=None):
    tl = tl if tl is not None else Timeline()
    for i in range(n):
        tl.append(i, i / 60.0, 1.0 + i % 3, 0.25, 0.5, 2.0, "numpy" if i % 2 else "torch-eager",
                  warmup=i < 4, paused=i == 10, error="boom" if i == 7 else None)
    return tl


def test_a_run_shorter_than_the_history_keeps_every_row():
    tl = filled()
    assert len(tl) == tl.total == 3000
    snap = tl.snapshot()
    assert np.array_equal(snap.index, np.arange(3000)) and snap.first_frame == 0
    assert np.allclose(snap.present_s, np.arange(3000) / 60.0)
    assert snap.path[:2] == ["torch-eager", "numpy"]
    assert snap.errors == {7: "boom"}
    assert snap.leading_warmup == 4 == tl.leading_warmup()
    assert np.isnan(snap.interval_ms[0])
    assert np.allclose(snap.interval_ms[1:], 1000.0 / 60.0)


def test_the_ring_holds_the_last_rows_and_drops_what_it_overwrote():
    tl = filled(100, Timeline(capacity=16))
    assert (len(tl), tl.total, tl.capacity) == (16, 100, 16)
    snap = tl.snapshot()
    assert np.array_equal(snap.index, np.arange(84, 100)) and snap.first_frame == 84
    assert snap.errors == {} and not snap.warmup.any()          # frame 7's error went with it
    # the frame before the window is still known: the oldest row has its interval
    np.testing.assert_allclose(snap.interval_ms, 1000.0 / 60.0)
    assert snap.leading_warmup == 0 == tl.leading_warmup()
    tl.append(100, 100 / 60.0, 1.0, 0.2, 0.3, 0.4, "numpy", error="late one")
    assert tl.snapshot().errors == {15: "late one"}
    assert tl.snapshot(last=3).errors == {2: "late one"} and tl.snapshot(last=3).first_frame == 98


def test_memory_is_fixed_once_the_ring_is_full():
    tl = Timeline(capacity=64)
    filled(64, tl)
    before = tl.nbytes
    filled(20_000, tl)
    assert tl.nbytes == before and len(tl) == 64 and tl.total == 20_064
    assert len(tl._errors) <= 64 and len(tl._path_names) == 2


def test_column_tail_across_the_ring_boundary():
    tl = filled(100, Timeline(capacity=16))
    np.testing.assert_array_equal(tl.column("index", last=5), np.arange(95, 100))
    np.testing.assert_array_equal(tl.column("index"), np.arange(84, 100))   # wraps: a copy
    np.testing.assert_allclose(tl.column("present_s", last=40), np.arange(84, 100) / 60.0)
    assert len(tl.column("present_s", last=0)) == 0
    assert len(tl.warmup_mask()) == 16


def test_snapshot_is_a_copy():
    tl = filled(20)
    snap = tl.snapshot()
    tl.append(99, 100.0, 0, 0, 0, 0, "numpy")
    tl.clear()
    assert len(snap) == 20 and snap.index[-1] == 19
    assert len(tl) == tl.total == 0 and tl.totals.frames == 0


def test_history_follows_the_screen_rate_within_caps():
    assert history_rows(60.0) == math.ceil(HISTORY_S * 60 * 1.25) == 45_000
    assert history_rows(0.01) == MIN_ROWS and history_rows(10_000.0) == MAX_ROWS
    tl = Timeline()
    assert tl.capacity == 45_000
    tl.extend(np.arange(50_000), np.arange(50_000) / 60.0, 2.0, 0.1, 0.2, 0.3, "numpy")
    tl.set_period(1000.0 / 240.0)                        # a faster screen: more rows, newest kept
    assert tl.capacity == history_rows(240.0) and tl.period_ms == pytest.approx(1000.0 / 240.0)
    np.testing.assert_array_equal(tl.column("index"), np.arange(4999, 50_000))   # all it had
    tl.set_period(1000.0 / 4.0)                          # a slow one: fewer rows, newest kept
    assert tl.capacity == MIN_ROWS
    np.testing.assert_array_equal(tl.column("index"), np.arange(50_000 - MIN_ROWS, 50_000))
    assert math.isfinite(tl.snapshot().interval_ms[0])
    fixed = Timeline(capacity=100)
    fixed.set_period(1000.0 / 240.0)
    assert fixed.capacity == 100


def test_bad_input_is_refused_naming_the_parameter():
    tl = Timeline(capacity=16)
    with pytest.raises(ValueError, match="present_s"):
        tl.append(0, float("nan"), 0, 0, 0, 0, "numpy")
    with pytest.raises(ValueError, match="present_s"):
        tl.extend([0, 1], [0.0, float("inf")], 0, 0, 0, 0, "numpy")
    with pytest.raises(ValueError, match="render_ms has 3 values for 2 frames"):
        tl.extend([0, 1], [0.0, 0.1], [1, 2, 3], 0, 0, 0, "numpy")
    with pytest.raises(ValueError, match="error has 1 values for 2 frames"):
        tl.extend([0, 1], [0.0, 0.1], 0, 0, 0, 0, "numpy", error=["x"])
    with pytest.raises(ValueError, match="period_ms"):
        tl.set_period(0.0)
    assert tl.total == 0                                  # nothing half-added


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


def test_csv_of_the_window_numbers_frames_from_the_start(tmp_path):
    tl = filled(100, Timeline(capacity=16))
    out = tmp_path / "window.csv"
    assert tl.snapshot().write_csv(out) == 16
    rows = list(csv.DictReader(out.open()))
    assert [int(r["frame"]) for r in rows] == list(range(84, 100))
    assert float(rows[0]["interval_ms"]) == pytest.approx(1000 / 60, abs=1e-4)


# ---------------------------------------------------------------- append == extend
FRAME = st.tuples(
    st.floats(0.0, 80.0),                                   # interval to the previous frame, ms
    st.floats(0.0, 30.0, allow_nan=False),                  # render ms
    st.booleans(), st.booleans(),                           # warm-up, paused
    st.sampled_from(["numpy", "torch-eager", "torch-compiled"]),
    st.one_of(st.none(), st.sampled_from(["frame: boom", "bad"])),
)


def counting_pairs():
    """Made-up clock pairs, the n-th (n, n, 0): the same rows get the same pairs."""
    n = iter(range(1 << 30))

    def pair():
        k = float(next(n))
        return ClockPair(1e9 + k, k, 0.0)

    return pair


def _columns(frames):
    t = 10.0 + np.cumsum([f[0] for f in frames]) / 1e3
    return {"index": np.arange(len(frames)), "present_s": t,
            "render_ms": np.array([f[1] for f in frames]), "transfer_ms": 0.25,
            "upload_ms": np.linspace(0, 1, len(frames)), "present_ms": 1.5,
            "warmup": np.array([f[2] for f in frames], bool),
            "paused": np.array([f[3] for f in frames], bool),
            "path": [f[4] for f in frames], "error": [f[5] for f in frames]}


def _by_append(cols, tl):
    n = len(cols["index"])
    for i in range(n):
        tl.append(int(cols["index"][i]), float(cols["present_s"][i]), float(cols["render_ms"][i]),
                  0.25, float(cols["upload_ms"][i]), 1.5, cols["path"][i], bool(cols["warmup"][i]),
                  bool(cols["paused"][i]), cols["error"][i])


def _by_extend(cols, tl, cuts):
    n = len(cols["index"])
    bounds = [0, *sorted({c % (n + 1) for c in cuts}), n]
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        part = {k: (v[a:b] if not np.isscalar(v) else v) for k, v in cols.items()}
        tl.extend(**part)


def _same(a: Timeline, b: Timeline):
    sa, sb = a.snapshot(), b.snapshot()
    assert (len(a), a.total) == (len(b), b.total)
    for name in ("index", "present_s", "render_ms", "transfer_ms", "upload_ms", "present_ms",
                 "warmup", "paused"):
        np.testing.assert_array_equal(getattr(sa, name), getattr(sb, name), err_msg=name)
    assert sa.path == sb.path and sa.errors == sb.errors and sa.first_frame == sb.first_frame
    assert sa.clock_pairs == sb.clock_pairs
    assert (math.isnan(sa.before_s) and math.isnan(sb.before_s)) or sa.before_s == sb.before_s
    assert a.totals == b.totals


@settings(max_examples=60, deadline=None)
@given(st.lists(FRAME, min_size=0, max_size=90), st.lists(st.integers(0, 200), max_size=6),
       st.sampled_from([16, 23, 4096]))
def test_extend_leaves_exactly_what_appends_leave(frames, cuts, capacity):
    cols = _columns(frames)
    one, many = (Timeline(capacity=capacity, clock_pair=counting_pairs(), clock_refresh_s=0.25)
                 for _ in range(2))
    _by_append(cols, one)
    _by_extend(cols, many, cuts)
    _same(one, many)


@settings(max_examples=25, deadline=None)
@given(st.lists(FRAME, min_size=1, max_size=120), st.lists(st.integers(0, 200), max_size=4))
def test_a_recording_by_extend_equals_one_by_append(tmp_path_factory, frames, cuts):
    folder = tmp_path_factory.mktemp("rec")
    cols = _columns(frames)
    # the clock pairs are real clock readings: the same made-up ones on both sides
    one, many = (Timeline(capacity=16, clock_pair=counting_pairs(), clock_refresh_s=0.5)
                 for _ in range(2))
    one.record_to(folder / "one.csv")
    many.record_to(folder / "many.csv")
    _by_append(cols, one)
    _by_extend(cols, many, cuts)
    r1, r2 = one.stop_recording(), many.stop_recording()
    assert r1.error is None and r2.error is None and r1.rows == r2.rows == len(frames)
    assert (folder / "one.csv").read_bytes() == (folder / "many.csv").read_bytes()
