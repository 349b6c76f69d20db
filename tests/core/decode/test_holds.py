"""The hold rules on their own: which runs of whole frames are holds, and which are repeats."""

import pytest

from core.decode.holds import (
    Hold,
    captures_per_presentation,
    extra_presentations,
    find_holds,
    holds_unknown,
    repeat_threshold,
    typical_hold,
)
from core.decode.job import FrameReading


def ok(pos, index):
    return FrameReading(pos, None, index, "ok", 1.0, (index,))


def test_a_gap_inside_a_hold_counts_and_a_torn_frame_ends_it():
    results = [ok(0, 5), FrameReading(1, None, None, "undecodable", 0.0), ok(2, 5),
               FrameReading(3, None, 5, "torn", 0.9, (5, 6)), ok(4, 6), ok(5, 6)]
    holds = find_holds(results, [5, None, 5, 5, 6, 6])
    # 5 held over the undecodable frame (3 captures); the torn frame is in neither hold
    assert [(h.shown, h.captures, h.first.position) for h in holds] == [(5, 3, 0), (6, 2, 4)]


def test_one_counter_value_either_side_of_the_wrap_is_two_holds():
    # modulus 4: the value 0 is shown, the counter goes round, 0 again: unwrapped 0 and 4 differ
    results = [ok(i, v) for i, v in enumerate([0, 1, 2, 3, 0])]
    assert [h.shown for h in find_holds(results, [0, 1, 2, 3, 4])] == [0, 1, 2, 3, 4]


def test_a_hold_is_a_repeat_past_half_a_presentation_more():
    assert repeat_threshold(1.0) == 1.5
    assert repeat_threshold(2.0) == 3.0
    assert repeat_threshold(2.5) == 3.75          # 1.5k, past the longer normal hold of 3
    assert repeat_threshold(1.2) == 2.5           # ceil(k) + 0.5: a normal hold of 2 is no repeat
    assert [extra_presentations(n, 1.0) for n in (1, 2, 3, 4)] == [0, 1, 2, 3]
    # 5 captures at k = 2 is 2.5 presentations, rounded half to even: one extra
    assert [extra_presentations(n, 2.0) for n in (2, 3, 4, 5, 6)] == [0, 0, 1, 1, 2]
    assert extra_presentations(4, 2.5) == 1       # round(1.6) - 1


def test_captures_per_presentation_from_rates_else_from_holds():
    holds = [Hold(i, n, None) for i, n in enumerate([2, 2, 2, 2, 6])]
    assert captures_per_presentation(holds, 120, 60) == (2.0, "rates")
    assert captures_per_presentation(holds, 120, None) == (2.0, "holds")
    assert captures_per_presentation([], None, None) == (1.0, "holds")


def test_typical_hold_locked_or_alternating():
    assert typical_hold([3, 3, 3, 3, 6]) == 3.0                    # locked: the lower quartile
    assert typical_hold([2, 3, 2, 3, 2, 3, 9]) == pytest.approx(2.5)  # 2.5x: mean of the normal holds
    assert typical_hold([0]) == 1.0


def test_why_the_holds_cannot_tell():
    assert holds_unknown(0, 0, False) == "no frame decoded"
    assert holds_unknown(1, 1, True) == "only one frame decoded"
    assert holds_unknown(3, 2, False) == "no whole frame decoded"
    assert "whole capture" in holds_unknown(3, 1, True)
    assert holds_unknown(3, 2, True) is None
