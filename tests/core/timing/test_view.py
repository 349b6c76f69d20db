"""The frame-timing dock's numbers (core.timing.view), headless: plot windows, the histogram,
the y range, what each figure covers, decimation, and the counters' strings."""

import math
import re

import numpy as np
import pytest

from core.timing import (
    Timeline,
    counter_texts,
    coverage_texts,
    frame_stats,
    span_text,
    timeline_columns,
    timing_view,
)
from core.timing.totals import HIST_BIN_MS
from core.timing.view import PLOT_COLUMNS, decimate, display_histogram

PERIOD = 1000.0 / 60.0
N = 120
STALL_AT = 60          # interval index: frame 61 is presented 50 ms after frame 60
MS_TEXT = re.compile(r"^\d+\.\d{2} ms$")
DASH = "\u2013"


def run(n=N, stall_at=STALL_AT, stall_ms=50.0, warm=2):
    """``n`` frames at 60 Hz with one ``stall_ms`` interval; the first ``warm`` are warm-up."""
    intervals = np.full(n - 1, PERIOD)
    if stall_at is not None:
        intervals[stall_at] = stall_ms
    present = 100.0 + np.concatenate([[0.0], np.cumsum(intervals) / 1e3])   # any origin
    render = 2.0 + (np.arange(n) % 5) * 0.5
    transfer = np.full(n, 0.25)
    warmup = np.arange(n) < warm
    return present, render, transfer, warmup


def test_stats_are_frame_stats_of_the_counted_frames():
    present, render, transfer, warmup = run()
    view = timing_view(present, render, transfer, warmup, None, PERIOD, 1.0)
    s = view["stats"]
    assert s == frame_stats(present, PERIOD, render_ms=render, transfer_ms=transfer, warmup=warmup)
    assert (s["frames"], s["warmup"], s["late"], s["missed_vsyncs"]) == (N - 2, 2, 1, 2)
    assert s["interval_ms"]["max"] == pytest.approx(50.0)
    assert view["period_ms"] == PERIOD


def test_plot_covers_only_the_last_window_and_ends_at_zero():
    present, render, transfer, warmup = run()
    view = timing_view(present, render, transfer, warmup, None, PERIOD, 1.0)
    x = view["x"]
    inside = present >= present[-1] - 1.0
    first = int(np.argmax(inside))
    assert 0 < first and len(x) == int(inside.sum()) < N
    assert x[-1] == 0.0 and -1.0 <= x[0] < x[1] and np.all(np.diff(x) > 0)
    assert present[first - 1] - present[-1] < -1.0       # the frame before the window is left out
    np.testing.assert_allclose(x, present[first:] - present[-1])
    # a window that starts after frame 0: every interval is known, the first from the frame before
    iv = view["intervals"]
    assert len(iv) == len(x) and np.isfinite(iv).all()
    assert iv[0] == pytest.approx((present[first] - present[first - 1]) * 1e3)
    np.testing.assert_array_equal(view["render"], render[first:])
    for k in ("x", "intervals", "render", "edges", "counts"):
        assert view[k].dtype == np.float64, k


def test_a_window_reaching_frame_zero_starts_with_nan():
    present, render, transfer, warmup = run()
    view = timing_view(present, render, transfer, warmup, None, PERIOD, 10.0)   # longer than the run
    assert len(view["x"]) == N and view["x"][0] == pytest.approx(present[0] - present[-1])
    iv = view["intervals"]
    assert len(iv) == N and math.isnan(iv[0]) and np.isfinite(iv[1:]).all()
    np.testing.assert_allclose(iv[1:], np.diff(present) * 1e3)
    assert np.nanmax(iv) == pytest.approx(50.0)


@pytest.mark.parametrize("window_s", [0.5, 1.0, 10.0])
def test_y_range_keeps_the_budget_band_and_a_stall_runs_off_the_top(window_s):
    present, render, transfer, warmup = run()
    view = timing_view(present, render, transfer, warmup, None, PERIOD, window_s)
    assert view["y_top"] >= 2 * PERIOD
    assert view["y_top"] < 50.0                         # one stall does not squash the plot
    # many slow frames do raise it: 1.25 x their p99
    slow = np.concatenate([[0.0], np.cumsum(np.full(N - 1, 40.0)) / 1e3])
    v2 = timing_view(slow, render, transfer, warmup, None, PERIOD, 10.0)
    assert v2["y_top"] == pytest.approx(1.25 * 40.0)


def test_histogram_counts_every_interval_in_at_most_120_bins():
    present, render, transfer, warmup = run()
    view = timing_view(present, render, transfer, warmup, None, PERIOD, 0.5)
    counts, edges = view["counts"], view["edges"]
    assert len(counts) <= 120 and len(edges) == len(counts) + 1
    assert counts.sum() == N - 3                        # every counted interval, not just the window's
    assert edges[0] == 0.0 and edges[-1] >= 3 * PERIOD
    assert np.all(np.diff(edges) > 0) and edges.dtype == counts.dtype == np.float64
    stall = np.searchsorted(edges, np.diff(present)[STALL_AT] * 1e3, side="right") - 1
    assert counts[stall] == 1                           # the 50 ms stall, where it belongs
    near = (edges[:-1] >= PERIOD - 1.0) & (edges[1:] <= PERIOD + 1.0)   # the bins within 1 ms
    assert counts[near].sum() == N - 4                  # every other interval, one period long


def test_display_histogram_puts_long_intervals_in_the_last_bin():
    hist = np.zeros(2001, np.int64)
    hist[166] = 1000                                    # 16.6 ms
    hist[2000] = 3                                      # past 200 ms
    hist[900] = 2                                       # 90 ms: past 3 periods and p99.5
    edges, counts = display_histogram(hist, PERIOD)
    assert counts.sum() == 1005 and counts[-1] == 5
    assert edges[-1] == pytest.approx(math.ceil(50.0 / HIST_BIN_MS / 5) * 5 * HIST_BIN_MS)
    assert display_histogram(np.zeros(2001, np.int64), PERIOD) == (None, None)


def test_empty_and_single_frame_timelines():
    empty = timing_view(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, bool), None, PERIOD)
    assert empty["stats"] is None and empty["edges"] is None and empty["period_ms"] == PERIOD
    assert "x" not in empty
    one = timing_view(np.array([5.0]), np.array([2.0]), np.array([0.1]), np.zeros(1, bool), None, PERIOD)
    assert one["stats"]["frames"] == 1 and one["stats"]["interval_ms"] is None
    assert list(one["x"]) == [0.0] and math.isnan(one["intervals"][0])
    assert one["edges"] is None and one["y_top"] == 2 * PERIOD


def test_timing_view_of_a_timeline_uses_its_columns():
    tl = Timeline()
    present, render, transfer, warmup = run()
    for i in range(N):
        tl.append(i, present[i], render[i], transfer[i], 0.4, 1.0, "numpy", warmup=bool(warmup[i]))
    view = timing_view(*timeline_columns(tl), PERIOD, 1.0)
    want = timing_view(present, render, transfer, warmup, None, PERIOD, 1.0)
    assert view["stats"] == want["stats"]
    np.testing.assert_allclose(view["x"], want["x"])
    np.testing.assert_array_equal(view["counts"], want["counts"])


# ---------------------------------------------------------------- the counters' strings
def test_counter_texts_two_decimals():
    present, render, transfer, warmup = run()
    texts = counter_texts(timing_view(present, render, transfer, warmup, None, PERIOD, 1.0)["stats"])
    assert set(texts) == {"frames", "late", "missed_vsyncs", "interval_p50", "interval_p95",
                          "interval_p99", "interval_max", "render_p50", "render_p99", "headroom",
                          "period", "measured", "warmup"}
    assert (texts["frames"], texts["late"], texts["missed_vsyncs"], texts["warmup"]) == ("118", "1", "2", "2")
    assert texts["interval_p50"] == texts["period"] == texts["measured"] == "16.67 ms"
    assert texts["interval_max"] == "50.00 ms"
    assert texts["render_p50"] == "3.00 ms" and texts["render_p99"] == "4.00 ms"
    assert texts["headroom"] == f"{PERIOD - 4.0:.2f} ms" == "12.67 ms"
    for k, v in texts.items():
        if k not in ("frames", "late", "missed_vsyncs", "warmup"):
            assert MS_TEXT.match(v), (k, v)


def test_counter_texts_dash_for_a_missing_value():
    present, _, _, _ = run(n=20, stall_at=None, warm=0)
    stats = frame_stats(present, PERIOD)                # no render times, too short to settle
    texts = counter_texts(stats)
    assert stats["render_ms"] is None and stats["measured_period_ms"] is None
    assert texts["render_p50"] == texts["render_p99"] == texts["headroom"] == texts["measured"] == DASH
    assert texts["interval_p50"] == "16.67 ms" and texts["frames"] == "20"
    one = counter_texts(frame_stats([1.0], PERIOD))     # one frame: no interval at all
    assert [one[k] for k in ("interval_p50", "interval_p95", "interval_p99", "interval_max")] == [DASH] * 4
    stats["headroom_ms"] = float("nan")
    assert counter_texts(stats)["headroom"] == DASH
    bare = {k: v for k, v in stats.items() if k not in ("measured_period_ms", "warmup")}
    assert counter_texts(bare)["measured"] == DASH and counter_texts(bare)["warmup"] == "0"
    assert DASH == "–" and len(DASH) == 1


# ---------------------------------------------------------------- what each figure covers
def test_the_old_call_without_totals_is_refused_clearly():
    present, render, transfer, warmup = run()
    with pytest.raises(TypeError, match="totals must be RunningTotals or None"):
        timing_view(present, render, transfer, warmup, PERIOD, 1.0)


def test_since_start_figures_outlive_the_rows_the_timeline_holds():
    present, render, transfer, warmup = run(n=400, stall_at=20, stall_ms=80.0, warm=2)
    tl = Timeline(capacity=100)
    tl.extend(np.arange(400), present, render, transfer, 0.4, 1.0, "numpy", warmup=warmup)
    view = timing_view(*timeline_columns(tl), PERIOD, 10.0)
    since, recent = view["since_start"], view["stats"]
    assert view["samples"] == 100 and recent["frames"] == 100 and recent["late"] == 0
    assert (since["frames"], since["warmup"], since["late"], since["missed_vsyncs"]) == (398, 2, 1, 4)
    assert since["interval_max_ms"] == pytest.approx(80.0) and recent["interval_ms"]["max"] < 20.0
    texts = counter_texts(recent, since)
    assert (texts["frames"], texts["late"], texts["missed_vsyncs"], texts["warmup"]) == ("398", "1", "4", "2")
    assert texts["interval_max"] == "80.00 ms" and texts["interval_p99"] == "16.67 ms"
    assert view["counts"].sum() == since["intervals"] == 397
    cover = coverage_texts(view)
    assert cover["since_start"] == f"since start ({span_text(present[-1] - present[0])})"
    assert cover["recent"] == f"last {span_text(present[-1] - present[300])}"


def test_without_totals_the_rows_given_are_the_whole_run():
    present, render, transfer, warmup = run()
    view = timing_view(present, render, transfer, warmup, None, PERIOD, 1.0)
    s, since = view["stats"], view["since_start"]
    assert (since["frames"], since["warmup"], since["late"], since["missed_vsyncs"]) == \
        (s["frames"], s["warmup"], s["late"], s["missed_vsyncs"])
    assert counter_texts(s, since) == counter_texts(s)


def test_span_text():
    assert [span_text(v) for v in (0.4, 42, 60, 99.4, 600, 90 * 60, 3600 * 24, 5400 * 2)] == \
        ["0 s", "42 s", "1 min", "1.7 min", "10 min", "1.5 h", "24 h", "3 h"]
    assert span_text(150) == "2.5 min" and span_text(None) == DASH
    assert coverage_texts({}) == {"since_start": "since start", "recent": "recent"}


# ---------------------------------------------------------------- decimation
def test_a_long_window_is_drawn_as_min_max_per_column():
    rng = np.random.default_rng(3)
    n = 36_000                                            # 10 min at 60 Hz
    intervals = PERIOD + rng.normal(0, 0.3, n - 1)
    intervals[[1000, 20_000, 35_990]] = [55.0, 90.0, 40.0]
    intervals[5000] = 2.0                                 # a runt
    present = np.concatenate([[0.0], np.cumsum(intervals) / 1e3])
    render = 2.0 + rng.random(n)
    view = timing_view(present, render, np.zeros(n), np.zeros(n, bool), None, PERIOD, 600.0)
    x, iv, rd = view["x"], view["intervals"], view["render"]
    assert view["points"] == len(x) <= 2 * PLOT_COLUMNS and view["samples"] == n
    assert x.dtype == iv.dtype == rd.dtype == np.float64 and len(iv) == len(rd) == len(x)
    assert x[-1] == 0.0 and np.all(np.diff(x) >= 0)
    # every extreme survives: the stalls, the runt, the render peaks
    assert np.nanmax(iv) == pytest.approx(90.0) and np.nanmin(iv) == pytest.approx(2.0)
    for stall in (55.0, 40.0):
        assert np.any(np.isclose(iv, stall))
    assert np.nanmax(rd) == render.max() and np.nanmin(rd) == render.min()


def test_decimate_leaves_short_series_alone_and_bounds_long_ones():
    x = np.linspace(-1.0, 0.0, 50)
    xo, (yo,) = decimate(x, (x * 2,), -1.0, 0.0, 100)
    np.testing.assert_array_equal(xo, x) and np.testing.assert_array_equal(yo, x * 2)
    x = np.linspace(-5.0, 0.0, 10_001)
    y = np.sin(x * 40)
    y[1234] = np.nan
    xo, (yo,) = decimate(x, (y,), -5.0, 0.0, 10)
    assert len(xo) == 20 and np.isfinite(yo).all()
    assert yo.max() == np.nanmax(y) and yo.min() == np.nanmin(y)
    assert xo[0] == x[0] and xo[-1] == x[-1]
