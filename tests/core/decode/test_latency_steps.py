"""latency_report's steps on their own: the join, capture gaps, frame status, drops, repeats."""

import numpy as np

from core.decode.latency import (
    CaptureGaps,
    CaptureLog,
    CaptureSample,
    PresentLog,
    frame_status,
    in_time_order,
    join,
    joinable,
    judge_steps,
    repeat_margin_s,
    torn_captures,
)

P = 1 / 60   # the display period


def present(n, t0=10.0, period=P):
    return PresentLog(np.arange(n), t0 + np.arange(n) * period)


def ok(t, v, lost=0):
    return CaptureSample(t, "ok", (v,), (), lost)


def steps_of(pres, samples, modulus=256, rate=240.0):
    jn = join(pres, CaptureLog(samples, modulus, rate_hz=rate))
    return jn, judge_steps(jn, CaptureGaps.of(jn.samples, jn.unmatched), jn.present.period_s(), rate)


def test_a_torn_capture_is_the_first_capture_of_both_its_indices():
    jn = join(present(3), CaptureLog([ok(10.03, 0), CaptureSample(10.05, "torn", (1, 2)), ok(10.07, 2)], 256))
    assert jn.first_k.tolist() == [0, 1, 1] and jn.last_k.tolist() == [0, 1, 2]


def test_a_capture_across_the_wrap_matches_the_index_on_screen():
    # modulus 8: index 8 shows counter 0; at the capture's time index 8 is on screen, not 0
    jn = join(present(10), CaptureLog([ok(10.0 + 8 * P + 0.001, 0)], 8))
    assert jn.first_k.tolist() == [-1] * 8 + [0, -1] and not jn.unmatched.any()


def burst():
    """Indices 0-13 a period apart, then 14, 15 and 16 presented late, within 3 ms (a loaded
    box), a capture stamped 5.7 ms before 16's present showing 16, and one much earlier."""
    t = list(10.0 + np.arange(14) * P)
    t += [t[-1] + 0.050, t[-1] + 0.051, t[-1] + 0.053]
    pres = PresentLog(np.arange(17), np.array(t))
    return pres, ok(t[16] - 0.0057, 16)


def test_a_capture_may_show_what_was_presented_within_two_periods_after_it():
    pres, early = burst()
    jn = join(pres, CaptureLog([ok(10.001, 0), early], 1 << 16))
    # three indices above the one on screen at its time (13), but presented 5.7 ms after it
    assert jn.present.on_screen(early.t_s) == 13 and jn.present.lead(early.t_s, 2, P) == (13, 3)
    assert not jn.unmatched.any() and jn.first_k[16] == 1
    # further ahead than two periods and two indices is a capture of unknown content
    far = ok(pres.t_s[13] - 3 * P, 16)
    assert join(pres, CaptureLog([ok(10.001, 0), far], 1 << 16)).unmatched.tolist() == [False, True]
    # two indices ahead, however early in time (the rule before the display period's)
    assert jn.present.lead(10.001, 2, P) == (0, 2) and jn.present.lead(10.001, 2, None) == (0, 2)


def test_a_log_cut_at_its_last_capture_keeps_the_presents_that_capture_may_show():
    pres, early = burst()
    kept = joinable(pres, early.t_s)
    assert kept.index.tolist() == list(range(17))        # 14-16 came within two periods
    # evenly spaced: two indices after the last one presented by the cut, no more
    assert joinable(present(30), 10.0 + 9.5 * P).index.tolist() == list(range(12))
    assert joinable(present(30), 9.0).index.size == 0     # nothing presented by then


def test_capture_gaps_count_unknown_content_and_lost_frames_between_two_captures():
    samples = [ok(0.0, 0), CaptureSample(0.1, "undecodable"), ok(0.2, 5, lost=3), ok(0.3, 6)]
    gaps = CaptureGaps.of(samples, np.array([False, False, False, True]))   # the last is unmatched
    assert gaps.undecoded.tolist() == [False, True, False, False]
    assert gaps.between(0, 2) == 1 + 3        # the undecodable capture and the frames lost before 2
    assert gaps.between(0, 3) == 1 + 3        # the unmatched capture is not between 0 and 3
    assert gaps.between(2, 2) == gaps.between(3, 1) == 0


def test_frame_status_before_between_and_after_the_matched_ones():
    assert frame_status(np.array([False, True, False, True, False])).tolist() == [
        "before_capture", "matched", "", "matched", "after_capture"]
    assert frame_status(np.array([False, False])).tolist() == ["unmatched", "unmatched"]


def test_the_repeat_margin_is_half_a_period_and_at_least_a_capture_period():
    assert repeat_margin_s(0.02, 240.0) == 0.01
    assert repeat_margin_s(0.02, 50.0) == 0.02
    assert repeat_margin_s(0.02, None) == 0.01
    assert repeat_margin_s(None, 240.0) is None


def test_a_missing_index_is_a_drop_unless_a_capture_gap_may_have_shown_it():
    t = [10.03 + k * P for k in range(5)]
    _, s = steps_of(present(5), [ok(t[0], 0), ok(t[1], 1), ok(t[3], 3), ok(t[4], 4)])
    assert (s.drops, s.hidden, s.dropped, s.status[2]) == (1, 0, [2], "dropped")
    # the same with one capture frame lost before the capture of 3: it may have shown 2
    _, s = steps_of(present(5), [ok(t[0], 0), ok(t[1], 1), ok(t[3], 3, lost=1), ok(t[4], 4)])
    assert (s.drops, s.hidden, s.dropped, s.status[2]) == (0, 1, [], "unseen")
    assert [e["kind"] for e in s.events] == ["gap"] and s.events[0]["capture_frames"] == 1


def test_a_frame_held_a_period_too_long_is_one_repeat_but_a_late_present_is_not():
    t = [10.03 + k * P for k in range(4)]
    held = [ok(t[0], 0), ok(t[1], 1), ok(t[2] + P, 2), ok(t[3] + P, 3)]   # 1 stayed up two periods
    _, s = steps_of(present(4), held)
    assert s.repeats == 1 and [(e["kind"], e["index"], e["extra"]) for e in s.events] == [("repeat", 1, 1)]
    # testcard presented 2 a period late itself: the screen held 1 as long as it was told to
    late = PresentLog(np.arange(4), 10.0 + np.array([0, 1, 3, 4]) * P)
    _, s = steps_of(late, held)
    assert s.repeats == 0 and s.events == []


def test_torn_captures_all_counted_events_listed_while_there_is_room():
    samples = [CaptureSample(0.1 * k, "torn", (k, k + 1)) for k in range(4)] + [ok(1.0, 9)]
    n, events = torn_captures(samples, room=2)
    assert n == 4 and [e["indices"] for e in events] == [[0, 1], [1, 2]]
    assert torn_captures(samples, room=-3) == (4, [])


def test_events_in_time_order_keep_their_order_at_one_time():
    events = [{"kind": "repeat", "t_s": 2.0}, {"kind": "drop", "t_s": 1.0}, {"kind": "gap", "t_s": 1.0}]
    assert [e["kind"] for e in in_time_order(events)] == ["drop", "gap", "repeat"]
