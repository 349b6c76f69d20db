"""The drop rules on their own: a jump's missing indices, hidden, unobservable or dropped."""

from core.decode.drops import MAX_LISTED_DROPS, Jump, hidden_count, judge_jumps, missing_indices
from core.decode.job import FrameReading

AT = FrameReading(7, 0.5, 9, "ok", 1.0, (9,))


def jump(high, u, seen=(), gap=0, captures=1, seconds=None):
    return Jump(AT, high, u, set(seen), gap, captures, seconds)


def test_an_index_the_run_shows_later_is_not_missing():
    assert missing_indices(jump(3, 8, seen={5})) == (3, [4, 6, 7])


def test_a_jump_too_long_to_list_is_counted():
    assert missing_indices(jump(0, MAX_LISTED_DROPS + 2)) == (MAX_LISTED_DROPS + 1, [])


def test_a_gap_hides_one_index_per_frame_of_unknown_content():
    assert hidden_count(jump(3, 8, gap=2), 4, None, None) == 2
    assert hidden_count(jump(3, 5, gap=5), 1, None, None) == 1
    assert hidden_count(jump(3, 5, gap=5), 1, 120, 60) == 1     # faster capture: the gap decides


def test_a_slower_capture_hides_what_the_rate_ratio_allows():
    # 30 Hz capture of a 60 Hz display: one capture apart, the display moved on by up to 2
    assert hidden_count(jump(3, 6), 2, 30, 60) == 1
    assert hidden_count(jump(3, 6, seconds=0.1), 2, 30, 60) == 2   # a stalled capture: 6 presentations


def test_judge_jumps_hidden_in_a_gap_are_not_listed_as_dropped():
    d = judge_jumps([jump(10, 14, gap=1)], 256, None, None)
    assert (d.count, d.gap_indices, d.dropped) == (2, 1, [])
    assert [(e["kind"], e["position"]) for e in d.events] == [("gap", 7), ("drop", 7)]
    assert d.events[1] == {"kind": "drop", "position": 7, "timestamp": 0.5, "count": 2, "after": 10,
                           "before": 14}


def test_judge_jumps_lists_a_drop_across_the_wrap_modulo():
    d = judge_jumps([jump(6, 10)], 8, None, None)   # 7, 0, 1 (unwrapped 7, 8, 9) never shown
    assert (d.count, d.dropped) == (3, [7, 0, 1])
    assert d.events[0]["indices"] == [7, 0, 1] and (d.events[0]["after"], d.events[0]["before"]) == (6, 2)


def test_judge_jumps_all_unobservable_is_no_drop():
    d = judge_jumps([jump(3, 5)], 256, 30, 60)
    assert (d.count, d.unobservable_count, d.unobservable) == (0, 1, [4])
    assert [e["kind"] for e in d.events] == ["unobservable"]
