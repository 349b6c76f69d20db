"""Frame statistics on synthetic timelines with known late frames and missed vsyncs."""

import numpy as np
import pytest

from core.timing import frame_stats, late_mask, measured_period, missed_vsyncs, summary

P = 1000.0 / 60.0


def timeline(intervals_in_periods, period=P, start=10.0):
    steps = np.concatenate([[0.0], np.cumsum(np.asarray(intervals_in_periods) * period)])
    return start + steps / 1e3


def test_clean_run_has_no_late_frames_and_settles():
    t = timeline([1.0] * 100)
    s = frame_stats(t, P)
    assert s["frames"] == 101 and s["late"] == 0 and s["missed_vsyncs"] == 0
    assert s["interval_ms"]["p50"] == pytest.approx(P)
    assert s["interval_ms"]["sd"] == pytest.approx(0.0, abs=1e-9)
    assert s["measured_period_ms"] == pytest.approx(P)


def test_known_late_frames_and_missed_vsyncs():
    # 1.4 periods is on time; 2 periods misses 1 vsync; 3 misses 2; 2.6 rounds to 3 -> 2
    t = timeline([1, 1, 1.4, 2, 1, 3, 1, 2.6, 1])
    s = frame_stats(t, P)
    assert s["late"] == 3
    assert s["missed_vsyncs"] == 1 + 2 + 2
    assert s["interval_ms"]["max"] == pytest.approx(3 * P)


def test_exactly_one_and_a_half_periods_is_not_late():
    assert missed_vsyncs([1.5 * P], P) == 0
    assert missed_vsyncs([2.5 * P], P) == 2  # halves round up
    assert frame_stats(timeline([1.45, 1.55]), P)["late"] == 1
    assert not late_mask([1.5 * P], P)[0]


def test_warmup_frames_are_excluded_and_counted():
    # a 500 ms compile stall in the first frames must not count as late
    t = timeline([30.0, 1, 1, 1, 1, 1])
    render = [480.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]
    s = frame_stats(t, P, render_ms=render, warmup=1)
    assert s["warmup"] == 1 and s["frames"] == 6
    assert s["late"] == 0 and s["missed_vsyncs"] == 0
    assert s["render_ms"]["max"] == 2.0
    assert s["headroom_ms"] == pytest.approx(P - 2.0)
    assert frame_stats(t, P, render_ms=render)["late"] == 1


def test_render_and_transfer_summaries():
    t = timeline([1] * 4)
    s = frame_stats(t, P, render_ms=[1, 2, 3, 4, 10], transfer_ms=[0.5] * 5)
    assert s["render_ms"]["p50"] == 3 and s["render_ms"]["max"] == 10
    assert s["render_ms"]["mean"] == pytest.approx(4.0)
    assert s["transfer_ms"]["p99"] == pytest.approx(0.5)
    assert s["headroom_ms"] == pytest.approx(P - s["render_ms"]["p99"])


def test_measured_period_waits_for_intervals_to_settle():
    rng = np.random.default_rng(1)
    noisy = rng.uniform(5, 40, 40)          # start-up: nothing settled
    assert measured_period(noisy, window=30) is None
    settled = np.full(30, 16.9) + rng.normal(0, 0.05, 30)
    got = measured_period(np.concatenate([noisy, settled]), window=30)
    assert got == pytest.approx(16.9, abs=0.05)
    # a late frame in the newest window: the newest settled window is used instead
    late = np.concatenate([noisy, settled, [16.9] * 5, [50.0]])
    assert measured_period(late, window=30) == pytest.approx(16.9, abs=0.05)
    assert measured_period([16.7] * 10, window=30) is None


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="period"):
        frame_stats([0, 1], 0)
    with pytest.raises(ValueError, match="backwards"):
        frame_stats([1.0, 0.5], P)
    assert summary([]) is None
    empty = frame_stats([], P)
    assert empty["frames"] == 0 and empty["interval_ms"] is None


def test_warmup_mask_excludes_frames_served_while_compiling_mid_run():
    import numpy as np

    from core.timing import frame_stats

    period = 1000 / 60
    iv = np.full(100, period)
    iv[40:45] = 5 * period            # a mid-run compile: five slow eager frames
    t = np.concatenate([[0.0], np.cumsum(iv)]) / 1e3
    render = np.full(101, 2.0)
    render[41:46] = 70.0
    mask = np.zeros(101, bool)
    mask[41:46] = True                 # the frames presented after those intervals
    counted = frame_stats(t, period, render_ms=render, warmup=mask)
    assert counted["warmup"] == 5 and counted["frames"] == 96
    assert counted["late"] == 0 and counted["missed_vsyncs"] == 0
    assert counted["render_ms"]["max"] == 2.0
    everything = frame_stats(t, period, render_ms=render, warmup=0)
    assert everything["late"] == 5 and everything["missed_vsyncs"] == 20
    leading = frame_stats(t, period, render_ms=render, warmup=np.arange(101) < 3)
    assert leading == frame_stats(t, period, render_ms=render, warmup=3)
