"""Pacing decisions from synthetic present timestamps (injected times, no Qt)."""

import pytest

from core.timing import TIMER, VSYNC, DeadlineSchedule, PacingMonitor

PERIOD = 1000.0 / 60.0


def feed(monitor, interval_ms, n, t0=0.0):
    changed_at = None
    t = t0
    for i in range(n):
        if monitor.observe(t) and changed_at is None:
            changed_at = i
        t += interval_ms / 1e3
    return changed_at


def test_swaps_that_return_at_once_switch_to_the_timer():
    m = PacingMonitor(PERIOD, probe=20, skip=5)
    at = feed(m, 6.0, 100)     # Xvfb: frameSwapped every ~6 ms
    assert m.mode == TIMER
    assert at == 1 + 5 + 20 - 1  # first present, skipped intervals, one full window
    assert "6.0 ms" in m.reason and "16.67 ms" in m.reason


def test_vsync_paced_intervals_stay_locked():
    m = PacingMonitor(PERIOD)
    assert feed(m, PERIOD, 300) is None
    assert m.mode == VSYNC


def test_slow_frames_are_not_mistaken_for_missing_vsync():
    m = PacingMonitor(PERIOD)
    feed(m, 2 * PERIOD, 200)
    assert m.mode == VSYNC


def test_slow_swaps_off_the_vblank_grid_are_not_vsync():
    # Xvfb fullscreen: an unpaced swap that takes ~12 ms gives ~18 ms presents
    m = PacingMonitor(PERIOD, probe=20, skip=5)
    assert feed(m, 18.4, 100) == 1 + 5 + 40 - 1        # two windows running
    assert m.mode == TIMER and "off the 16.67 ms vblank grid" in m.reason


def test_a_mixture_of_one_and_two_periods_is_vsync():
    m = PacingMonitor(PERIOD)
    t = 0.0
    for i in range(300):
        m.observe(t)
        t += (PERIOD if i % 3 else 2 * PERIOD) / 1e3 + (0.0003 if i % 2 else -0.0003)
    assert m.mode == VSYNC


def test_unpaced_presents_with_busy_jitter_are_caught():
    import random

    rnd = random.Random(4)
    m = PacingMonitor(PERIOD)
    t = 0.0
    for _ in range(200):
        m.observe(t)
        t += rnd.uniform(17.0, 36.0) / 1e3       # Xvfb fullscreen on a loaded machine
    assert m.mode == TIMER


def test_one_busy_window_between_locked_ones_is_forgiven():
    m = PacingMonitor(PERIOD, probe=20, skip=5)
    feed(m, PERIOD, 26)
    feed(m, 24.0, 20, t0=1.0)
    feed(m, PERIOD, 20, t0=2.0)
    feed(m, 24.0, 20, t0=3.0)
    assert m.mode == VSYNC


def test_every_other_vblank_is_still_vsync():
    m = PacingMonitor(PERIOD)
    feed(m, 2 * PERIOD + 0.4, 200)
    assert m.mode == VSYNC


def test_a_slow_start_does_not_hide_fast_swaps_later():
    m = PacingMonitor(PERIOD, probe=20, skip=5)
    feed(m, 2 * PERIOD, 30)      # window mapping, first uploads
    assert m.mode == VSYNC
    feed(m, 6.0, 60, t0=10.0)
    assert m.mode == TIMER


def test_reset_starts_over():
    m = PacingMonitor(PERIOD)
    feed(m, 6.0, 100)
    m.reset(1000.0 / 120.0)
    assert m.mode == VSYNC and m.period_ms == 1000.0 / 120.0 and m.reason == ""


def test_deadlines_are_absolute_so_rounding_never_drifts():
    s = DeadlineSchedule(PERIOD / 1e3)
    assert s.next_wait_ms(10.0) == 0          # anchors now
    now = 10.0
    waits = []
    for _ in range(600):
        now += 0.004                          # work took 4 ms
        w = s.next_wait_ms(now)
        waits.append(w)
        now += w / 1e3                        # the timer fires after whole ms
    # deadline 600 periods after the anchor, whatever the per-tick rounding
    assert abs(s.next_s - (10.0 + 600 * PERIOD / 1e3)) < 1e-9
    assert set(waits) <= {11, 12, 13}


def test_a_tick_half_a_period_late_reanchors_a_whole_period_on_instead_of_bursting():
    p = PERIOD / 1e3
    s = DeadlineSchedule(p)
    s.next_wait_ms(0.0)
    assert s.next_wait_ms(0.5) == 16          # half a second late: a whole period from now
    assert s.next_s == pytest.approx(0.5 + p)
    # a tick late by less than half a period keeps the grid: the next deadline is the grid's
    t = s.next_s + 0.4 * p
    assert s.next_wait_ms(t) in (9, 10) and s.next_s == pytest.approx(0.5 + 2 * p)
    # one late by more than half: the late frame is shown a whole period, not a few ms
    t = s.next_s + 0.6 * p
    assert s.next_wait_ms(t) in (16, 17) and s.next_s == pytest.approx(t + p)
