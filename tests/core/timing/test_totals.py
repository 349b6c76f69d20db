"""The running "since start" totals: O(1) per frame, equal to frame_stats over the same frames."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.timing import RunningTotals, frame_stats
from core.timing.totals import HIST_BIN_MS, HIST_BINS, hist_bins

PERIOD = 1000.0 / 60.0

RUN = st.lists(st.tuples(st.floats(0.0, 300.0), st.floats(0.0, 40.0), st.booleans()),
               min_size=0, max_size=80)


def _arrays(run):
    t = 3.0 + np.cumsum([r[0] for r in run]) / 1e3
    return t, np.array([r[1] for r in run]), np.array([r[2] for r in run], bool)


@settings(max_examples=80, deadline=None)
@given(RUN, st.lists(st.integers(0, 100), max_size=5))
def test_add_and_extend_agree_however_the_frames_are_split(run, cuts):
    t, render, warm = _arrays(run)
    one, many = RunningTotals(PERIOD), RunningTotals(PERIOD)
    for i in range(len(t)):
        one.add(float(t[i]), float(render[i]), bool(warm[i]))
    bounds = [0, *sorted({c % (len(t) + 1) for c in cuts}), len(t)]
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        many.extend(t[a:b], render[a:b], warm[a:b])
    assert one == many


@settings(max_examples=80, deadline=None)
@given(RUN)
def test_totals_are_frame_stats_with_a_warmup_mask(run):
    t, render, warm = _arrays(run)
    totals = RunningTotals(PERIOD)
    totals.extend(t, render, warm)
    fig = totals.figures()
    if len(t) == 0:
        assert fig["frames"] == fig["warmup"] == 0 and fig["span_s"] is None
        return
    s = frame_stats(t, PERIOD, render_ms=render, warmup=warm)
    assert (fig["frames"], fig["warmup"], fig["late"], fig["missed_vsyncs"]) == \
        (s["frames"], s["warmup"], s["late"], s["missed_vsyncs"])
    if s["interval_ms"] is None:
        assert fig["interval_max_ms"] is None and fig["intervals"] == 0
    else:
        assert fig["interval_max_ms"] == s["interval_ms"]["max"]
    assert fig["render_max_ms"] == (s["render_ms"]["max"] if s["render_ms"] else None)
    assert int(totals.hist.sum()) == fig["intervals"]


def test_known_run_with_stalls_and_a_warmup_stretch():
    intervals = [PERIOD] * 10 + [40.0] + [PERIOD] * 5 + [70.0, 250.0]
    t = np.concatenate([[0.0], np.cumsum(intervals) / 1e3])
    warm = np.zeros(len(t), bool)
    warm[:2] = True
    totals = RunningTotals(PERIOD)
    totals.extend(t, np.full(len(t), 2.0), warm)
    fig = totals.figures()
    assert (fig["frames"], fig["warmup"], fig["intervals"]) == (len(t) - 2, 2, len(intervals) - 2)
    # 40 ms misses one vsync, 70 ms three, 250 ms fourteen
    assert (fig["late"], fig["missed_vsyncs"]) == (3, 1 + 3 + 14)
    assert fig["interval_max_ms"] == pytest.approx(250.0)
    assert fig["span_s"] == pytest.approx(sum(intervals) / 1e3)
    assert totals.hist[HIST_BINS] == 1                       # 250 ms is past the last fine bin
    assert totals.hist[int(40.0 / HIST_BIN_MS)] == 1


def test_the_period_in_force_judges_each_frame():
    totals = RunningTotals(PERIOD)
    totals.extend([0.0, 0.030], [1.0, 1.0], [False, False])    # 30 ms: late at 60 Hz
    totals.set_period(40.0)
    totals.add(0.060, 1.0, False)                               # 30 ms: on time at 25 Hz
    assert totals.late == 1 and totals.period_ms == 40.0
    with pytest.raises(ValueError, match="period_ms"):
        totals.set_period(float("nan"))


def test_histogram_bins_clip_both_ends():
    np.testing.assert_array_equal(hist_bins([-5.0, 0.0, 0.05, 0.1, 16.67, 199.99, 1e9, math.inf]),
                                  [0, 0, 0, 1, 166, 1999, HIST_BINS, HIST_BINS])


def test_memory_does_not_grow():
    totals = RunningTotals(PERIOD)
    size = totals.nbytes
    t = np.arange(100_000) / 60.0
    totals.extend(t, np.ones_like(t), np.zeros(len(t), bool))
    assert totals.nbytes == size and totals.frames == 100_000
