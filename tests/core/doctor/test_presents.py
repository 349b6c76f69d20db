"""The presents verdict, from present timestamps alone: the frame loop's own pacing rule tells a
vsync-locked surface from one whose swaps do not wait (Xvfb) or land off the vblank grid."""

import numpy as np

from core.doctor import FAIL, OK, TIMER_PACED, VSYNC_LOCKED, WARNING, judge_presents, no_vsync_surface

PERIOD = 1000.0 / 60.0


def times(intervals_ms, start=10.0):
    return start + np.concatenate([[0.0], np.cumsum(intervals_ms)]) / 1e3


def test_presents_on_the_vblank_grid_are_vsync_locked():
    rng = np.random.default_rng(3)
    c = judge_presents(times(PERIOD + rng.normal(0, 0.1, 119)), PERIOD)
    assert c.verdict == OK and c.figure.startswith(VSYNC_LOCKED)
    assert c.data["within_tolerance"] == 1.0 and c.data["late"] == 0
    assert abs(c.data["median_ms"] - PERIOD) < 0.1


def test_swaps_that_return_at_once_are_timer_paced_no_vsync():
    c = judge_presents(times(np.full(119, 0.5)), PERIOD)
    assert c.verdict == WARNING and c.figure.startswith(TIMER_PACED)
    assert c.data["pacing"] == TIMER_PACED and c.data["within_tolerance"] == 0.0
    assert "vsync is not honoured" in c.detail


def test_presents_paced_off_the_grid_are_not_vsync():
    # a compositor's own 21 ms timer: slower than the period, never on its multiples
    c = judge_presents(times(np.full(119, 21.0)), PERIOD)
    assert c.verdict == WARNING and c.data["pacing"] == TIMER_PACED
    assert "off the" in c.detail


def test_missed_vblanks_on_a_locked_surface_are_late_frames():
    iv = np.full(119, PERIOD)
    iv[[40, 80]] = 2 * PERIOD
    c = judge_presents(times(iv), PERIOD)
    assert c.data["pacing"] == VSYNC_LOCKED
    assert c.verdict == WARNING and c.data["late"] == 2 and c.data["missed_vsyncs"] == 2


def test_too_few_presents_fail():
    c = judge_presents(times(np.full(10, PERIOD)), PERIOD)
    assert c.verdict == FAIL and "only 11 presents" in c.figure


def test_a_surface_with_no_swap_is_timer_paced():
    c = no_vsync_surface("the offscreen platform has no OpenGL")
    assert c.verdict == WARNING and c.figure == f"{TIMER_PACED}: the offscreen platform has no OpenGL"
