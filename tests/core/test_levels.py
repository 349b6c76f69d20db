"""Code-value rescaling between bit depths and the swatch colour, headless."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.levels import Levels, TypedCode, rescale_code, swatch_rgb

DEPTHS = range(8, 17)
PAIRS = [(m, n) for m in DEPTHS for n in DEPTHS if m < n]


def test_rescale_by_shift_in_limited_range_and_by_proportion_in_full_range():
    assert rescale_code(64, Levels(10, True), Levels(8, True)) == 16
    assert rescale_code(940, Levels(10, True), Levels(8, True)) == 235
    assert rescale_code(1023, Levels(10, False), Levels(8, False)) == 255
    assert rescale_code(255, Levels(8, False), Levels(16, False)) == 65535
    assert rescale_code(300, Levels(8, False), Levels(8, False)) == 255   # clamped to the depth


def test_the_documented_figures():
    assert rescale_code(200, Levels(8), Levels(10)) == 802               # round(200 * 1023 / 255)
    assert rescale_code(802, Levels(10), Levels(8)) == 200
    assert rescale_code(16, Levels(8, True), Levels(16, True)) == 4096
    assert rescale_code(235, Levels(8, True), Levels(16, True)) == 60160
    assert rescale_code(942, Levels(10, True), Levels(8, True)) == 236   # down by shift, rounded
    assert rescale_code(1023, Levels(10, True), Levels(8, True)) == 255  # clamped to the depth


def test_limited_black_and_white_land_exactly_at_every_depth():
    for m in DEPTHS:
        for n in DEPTHS:
            a, b = Levels(m, True), Levels(n, True)
            assert rescale_code(a.black, a, b) == b.black
            assert rescale_code(a.white, a, b) == b.white


def test_full_range_agrees_with_the_standard_rounding_everywhere_for_8_bits():
    for n in DEPTHS:
        top = (1 << n) - 1
        assert [rescale_code(v, Levels(8), Levels(n)) for v in range(256)] == \
               [round(v * top / 255) for v in range(256)]


def test_8_to_10_to_8_is_the_identity_for_every_8_bit_value():
    up = [rescale_code(v, Levels(8), Levels(10)) for v in range(256)]
    assert [rescale_code(u, Levels(10), Levels(8)) for u in up] == list(range(256))
    assert len(set(up)) == 256


@pytest.mark.parametrize("limited", [False, True], ids=["full", "limited"])
def test_up_then_down_is_the_identity_for_every_value_of_every_depth_pair(limited):
    for m, n in PAIRS:
        lo, hi = Levels(m, limited), Levels(n, limited)
        back = [rescale_code(rescale_code(v, lo, hi), hi, lo) for v in range(lo.top + 1)]
        assert back == list(range(lo.top + 1)), (m, n)


@st.composite
def depth_pair_and_value(draw):
    m, n = draw(st.sampled_from(PAIRS))
    limited = draw(st.booleans())
    lo, hi = Levels(m, limited), Levels(n, limited)
    return lo, hi, draw(st.integers(0, lo.top))


@given(depth_pair_and_value())
def test_up_then_down_is_the_identity_for_every_depth_pair(case):
    lo, hi, v = case
    up = rescale_code(v, lo, hi)
    assert 0 <= up <= hi.top
    assert rescale_code(up, hi, lo) == v


@given(st.sampled_from(PAIRS), st.booleans())
def test_the_rule_is_monotonic_and_keeps_black_and_white(pair, limited):
    m, n = pair
    lo, hi = Levels(m, limited), Levels(n, limited)
    assert rescale_code(0, lo, hi) == 0 and rescale_code(lo.white, lo, hi) == hi.white
    assert rescale_code(0, hi, lo) == 0 and rescale_code(hi.white, hi, lo) == lo.white
    step = max(1, lo.top // 97)
    ups = [rescale_code(v, lo, hi) for v in range(0, lo.top + 1, step)]
    assert ups == sorted(ups)


@given(st.integers(1, 16), st.lists(st.integers(1, 16), max_size=8), st.data())
def test_a_typed_value_comes_back_exactly_after_any_walk_of_depths(start, walk, data):
    typed_at = Levels(start)
    code = tuple(data.draw(st.integers(0, typed_at.top)) for _ in range(3))
    typed = TypedCode(code, typed_at)
    for depth in walk:
        shown = typed.at(Levels(depth))
        assert all(0 <= v <= Levels(depth).top for v in shown)
    assert typed.at(Levels(start)) == code


def test_converting_converted_values_is_what_loses_codes():
    # 200 at 8 bits stepped to 7 and back: 100 at 7 is 201 at 8 ...
    seven = rescale_code(200, Levels(8), Levels(7))
    assert rescale_code(seven, Levels(7), Levels(8)) == 201
    # ... which is why the editor converts from what was typed
    assert TypedCode((200, 200, 200), Levels(8)).at(Levels(7)) == (100, 100, 100)
    assert TypedCode((200, 200, 200), Levels(8)).at(Levels(8)) == (200, 200, 200)


def test_swatch_maps_black_to_white_onto_0_to_255():
    lv = Levels(10, True)
    assert swatch_rgb((64, 940, 0), lv) == (0, 255, 0)
