"""core.levels' parsers, headless: numbers, colours and palettes from the CLI, presets and
settings are the value or one ValueError naming the parameter (kept apart from test_levels.py,
which covers code-value rescaling)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.levels import Levels, parse_colour, parse_number, parse_palette, shown


@pytest.mark.parametrize("value, integer, expected", [
    ("12", True, 12), (" -3 ", True, -3), ("2.0", True, 2), ("1e3", True, 1000), (7, True, 7),
    (7.0, True, 7), ("0.25", False, 0.25), (".5", False, 0.5), (3, False, 3), ("-1E-2", False, -0.01),
])
def test_parse_number_reads_numbers(value, integer, expected):
    out = parse_number(value, "n", integer=integer)
    assert out == expected and isinstance(out, int if integer else (int, float))


@pytest.mark.parametrize("value, message", [
    ("inf", "n: inf is not a finite number"), ("-Infinity", "n: -Infinity is not a finite number"),
    ("nan", "n: nan is not a finite number"), (float("nan"), "n: nan is not a finite number"),
    ("1e400", "n: 1e400 is not a finite number"), (1e300 * 1e10, "n: inf is not a finite number"),
    (True, "n: true is a true/false value, not a number"),
    (10**19, "n: 10000000000000000000 is out of range"),
    (10**400, "n: an integer of about 401 digits is out of range"), ("0x10", "n: cannot read '0x10'"),
    ("1" * 65, "n: '1111"), (None, "n: expected a number, got None"), ([1], "n: expected a number, got [1]"),
])
def test_parse_number_refuses_with_one_line_naming_the_value(value, message):
    with pytest.raises(ValueError) as info:
        parse_number(value, "n")
    assert str(info.value).startswith(message) and len(str(info.value)) < 120


def test_parse_number_integer_refuses_fractions():
    with pytest.raises(ValueError, match="n: expected an integer, got 2.5"):
        parse_number(2.5, "n", integer=True)
    with pytest.raises(ValueError, match="n: expected an integer, got 2.5"):
        parse_number("2.5", "n", integer=True)


def test_shown_keeps_messages_short():
    assert shown("x" * 100_000) == repr("x" * 40 + "...")
    assert shown(10**5000).startswith("an integer of about 5001 digits")
    assert shown([1] * 10_000).endswith("...") and len(shown([1] * 10_000)) == 40
    assert shown(12) == "12"


def test_colours_read_and_refuse():
    lv = Levels(8)
    assert parse_colour("50%", lv) == (128, 128, 128)
    assert parse_colour("1, 2 3", lv) == (1, 2, 3)
    assert parse_colour([4.0, 5, 6], lv) == (4, 5, 6)
    for bad, message in [("inf", "color: inf is not a finite number"),
                         ("nan%", "color: nan is not a finite number"),
                         ("101%", "color: percentage 101% is outside 0..100 %"),
                         ("256", "color: 256 is outside 0..255 at 8 bits"),
                         ((1, 2), "color: expected 1 or 3 components, got 2"),
                         (False, "color: false is a true/false value, not a colour"),
                         ({1, 2, 3}, "color: cannot read"),
                         ("1," * 101, "color: '1,1,")]:
        with pytest.raises(ValueError) as info:
            parse_colour(bad, lv, "color")
        assert str(info.value).startswith(message)
    assert parse_palette(7, lv) == ((7, 7, 7),)
    assert parse_palette([1, 2, 3], lv) == ((1, 2, 3),)
    assert parse_palette("0;50%", lv) == ((0, 0, 0), (128, 128, 128))
    for bad in (None, 3.5, {"a": 1}, [[1, 2, 3]] * 5, "1;" * 500):
        with pytest.raises(ValueError, match="^palette"):
            parse_palette(bad, lv)


_JUNK = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
                     lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=4), kids,
                                                                                max_size=2),
                     max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30) | st.text(alphabet="0123456789.eE+-infa ", max_size=20) | _JUNK,
       st.booleans())
def test_any_input_is_a_finite_number_or_one_error_naming_the_parameter(value, integer):
    try:
        out = parse_number(value, "level", integer=integer)
    except ValueError as exc:
        assert str(exc).startswith("level: ") and "\n" not in str(exc) and len(str(exc)) < 200
        return
    assert not isinstance(out, bool) and math.isfinite(out) and abs(out) < 2**63
    assert isinstance(out, int) or not integer


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30) | st.text(alphabet="0123456789%,; ", max_size=20) | _JUNK,
       st.sampled_from([Levels(8), Levels(10, True), Levels(16)]))
def test_any_input_is_a_colour_in_range_or_one_error_naming_it(value, lv):
    for parse, what in ((parse_colour, "color"), (parse_palette, "palette")):
        try:
            out = parse(value, lv, what)
        except ValueError as exc:
            assert str(exc).startswith(what) and "\n" not in str(exc) and len(str(exc)) < 200
            continue
        for c in [out] if parse is parse_colour else out:
            assert len(c) == 3 and all(isinstance(v, int) and 0 <= v <= lv.top for v in c)
