"""What a capture could not have seen is never a display drop: the rate ratio's unobservable
indices and the present log's capture misses (core.decode.unseen), and what analyse and the drop
check make of them."""

import numpy as np

from core.decode import FrameReading, PresentLog, analyse, verdict
from core.decode.unseen import PresentDurations, apply_present_log, presentations_between


def seq(indices, fps, times=None):
    return [FrameReading(pos, (times[pos] if times else pos / fps), i, "ok", 1.0, (i,))
            for pos, i in enumerate(indices)]


def test_presentations_between_two_captures():
    assert presentations_between(60, 30, 1, None) == 2
    assert presentations_between(60, 30, 1, 1 / 30) == 2        # exactly two periods: not three
    assert presentations_between(60, 24, 1, None) == 3          # 2.5 rounds up
    assert presentations_between(60, 30, 2, None) == 4
    assert presentations_between(60, 30, 1, 0.1) == 6           # a late capture widens it
    assert presentations_between(60, 30, 1, 0.001) == 2         # an early one never narrows it


def test_a_perfect_half_rate_capture_lists_what_it_could_not_see():
    s = analyse(seq(range(0, 80, 2), 30), 65536, 30, 60).summary
    assert (s["dropped_count"], s["dropped"]) == (0, [])
    assert s["unobservable"] == 39 and s["unobservable_indices"] == list(range(1, 79, 2))
    v = verdict({"summary": s}, ("drop",))
    assert v.exit_status == 3 and "39 indices unobservable" in v.why_unverified()


def test_capture_timestamps_that_stall_widen_the_allowance():
    idx = [0, 2, 4, 10, 12]
    # steady 30 fps: 4 -> 10 is 6 steps in a period where at most 2 show: 4 proven drops
    assert analyse(seq(idx, 30), 65536, 30, 60).summary["dropped_count"] == 4
    # the capture stalled 0.1 s before the frame showing 10: up to 6 steps, nothing proven
    t = [0, 1 / 30, 2 / 30, 2 / 30 + 0.1, 3 / 30 + 0.1]
    s = analyse(seq(idx, 30, t), 65536, 30, 60).summary
    assert s["dropped_count"] == 0 and s["unobservable"] == 1 + 1 + 5 + 1


def test_a_capture_as_fast_as_the_display_keeps_the_old_rule():
    s = analyse(seq([0, 1, 2, 4, 5], 60), 65536, 60, 60).summary
    assert s["dropped"] == [3] and s["unobservable"] == 0
    s = analyse(seq([0, 1, 2, 4, 5], 60), 65536, None, None).summary
    assert s["dropped"] == [3] and s["unobservable"] == 0


def test_present_durations_match_the_counter_across_its_wrap():
    # presents 65530..65545 at 60 Hz, 65534 on screen 2 ms; a 16-bit counter shows 65534 and 4 as
    # 65534 and 4 (65540 mod 65536)
    t = np.cumsum([0] + [1 / 60] * 4 + [0.002, 2 / 60 - 0.002] + [1 / 60] * 9)
    log = PresentLog(np.arange(65530, 65546), t)
    d = PresentDurations.of(log, 65536)
    assert d.usable
    assert d.status(65534, 1 / 60) == "short" and d.status(4, 1 / 60) == "long"
    assert d.status(100, 1 / 60) == "unknown"         # outside the log
    assert d.status(65545 % 65536, 1 / 60) == "unknown"  # the last present: its time on screen unknown
    holes = PresentLog(np.array([0, 1, 3, 4]), np.arange(4) / 60)
    assert PresentDurations.of(holes, 256).status(2, 1 / 60) == "absent"
    wide = PresentDurations.of(PresentLog(np.array([0, 300]), np.array([0.0, 1.0])), 256)
    assert not wide.usable and "whole counter modulus" in wide.why


def test_the_log_decides_only_the_jumps_it_covers():
    seqr = analyse(seq([0, 1, 3, 4, 6, 7], 60), 256, 60, 60)
    # 2 was on screen 3 ms; 5 falls after the log's last present: left as the capture said
    log = PresentLog(np.array([0, 1, 2, 3, 4]), np.array([0, 1 / 60, 2 / 60, 2 / 60 + 0.003, 4 / 60]))
    s, ev, info = apply_present_log(seqr.summary, seqr.events, PresentDurations.of(log, 256), 60)
    assert info["applied"] and info["jumps_judged"] == 1
    assert s["dropped"] == [5] and s["dropped_count"] == 1
    assert s["capture_missed"] == [2] and s["capture_misses"] == 1
    assert [e["kind"] for e in ev if e["kind"] in ("drop", "capture_miss")] == ["capture_miss", "drop"]
    # no capture rate: a present cannot be held against a capture period
    s2, _, info = apply_present_log(seqr.summary, seqr.events, PresentDurations.of(log, 256), None)
    assert not info["applied"] and s2["dropped"] == [2, 5]
