"""Pattern parameters and the spec are validated at the edge: one validator per parameter kind,
one ValueError naming the parameter for anything else, and what validates renders."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.levels import Levels
from core.patterns import catalog, get_pattern, make_spec, parse_size, render
from core.patterns.registry import VALIDATORS
from core.patterns.spec import MAX_SIDE

PARAMS = [(pat.name, p) for pat in catalog() for p in pat.params]
LEVELS = Levels(10)

# JSON-ish junk: what a preset, a settings file or a hand-edited sidecar can hold
JUNK = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=3),
    max_leaves=10)


def test_every_parameter_kind_has_one_validator():
    kinds = {p.kind for _, p in PARAMS}
    assert kinds <= set(VALIDATORS)
    assert kinds == set(VALIDATORS)  # no validator without a parameter that uses it


def test_an_unknown_kind_is_refused_when_the_parameter_is_declared():
    from core.patterns.registry import Param

    with pytest.raises(ValueError, match="unknown kind 'complex'"):
        Param("z", "complex", 0, "a kind no validator reads")


@pytest.mark.parametrize("pattern, key, value, message", [
    ("solid", "color", "inf", "color: inf is not a finite number"),
    ("solid", "color", "nan", "color: nan is not a finite number"),
    ("solid", "color", "1e400", "color: 1e400 is not a finite number"),
    ("solid", "color", float("inf"), "color: inf is not a finite number"),
    ("solid", "color", True, "color: true is a true/false value, not a colour"),
    ("solid", "color", [True, 0, 0], "color: true is a true/false value, not a number"),
    ("solid", "color", "x" * 100_000, "color: 'xxxx"),
    ("solid", "color", 10**400, "color: an integer of about 401 digits is out of range"),
    ("solid", "color", {"r": 1}, "color: cannot read {'r': 1} as a colour"),
    ("checkerboard", "palette", 5.5, "palette colour 0: expected an integer, got 5.5"),
    ("checkerboard", "palette", None, "palette: cannot read None as a palette"),
    ("checkerboard", "tile", True, "tile: true is a true/false value, not a number"),
    ("checkerboard", "tile", "inf", "tile: inf is not a finite number"),
    ("checkerboard", "tile", 10**30, "tile: 1000000000000000000000000000000 is out of range"),
    ("checkerboard", "tile", -3, "tile: -3 is below the minimum 1"),
    ("checkerboard", "tile", 2.5, "tile: expected an integer, got 2.5"),
    ("checkerboard", "tile", "9" * 100_000, "tile: '9999"),
    ("window", "area", "nan", "area: nan is not a finite number"),
    ("window", "area", False, "area: false is a true/false value, not a number"),
    ("window", "area", [10], "area: expected a number, got [10]"),
    ("window", "cx", "1e400", "cx: 1e400 is not a finite number"),
    ("window", "background_mode", 1, "background_mode: 1 is not one of fixed, apl"),
    ("window", "background_mode", "a" * 100_000, "background_mode: 'aaaa"),
    ("pluge", "white_patch", 2, "white_patch: expected true/false, got 2"),
    ("pluge", "white_patch", "maybe", "white_patch: expected true/false, got 'maybe'"),
])
def test_bad_values_are_one_error_naming_the_parameter(pattern, key, value, message):
    bits = 8 if pattern == "pluge" else 10
    with pytest.raises(ValueError) as info:
        make_spec(pattern, {key: value}, width=64, height=36, bit_depth=bits)
    text = str(info.value)
    assert text.startswith(message)
    assert "\n" not in text and len(text) < 200


@pytest.mark.parametrize("pattern, params, w, h, message", [
    ("steps", {"count": 65}, 64, 36, "count: 65 does not fit the 64-pixel width"),
    ("steps", {"count": 37, "direction": "vertical"}, 64, 36, "count: 37 does not fit the 36-pixel height"),
    ("checkerboard", {"columns": 65}, 64, 36, "columns: 65 does not fit the 64-pixel width"),
    ("checkerboard", {"rows": 37}, 64, 36, "rows: 37 does not fit the 36-pixel height"),
])
def test_more_steps_or_tiles_than_pixels_are_refused(pattern, params, w, h, message):
    with pytest.raises(ValueError, match=message):
        make_spec(pattern, params, width=w, height=h)
    key, n = next(iter(params.items()))
    fits = dict(params, **{key: n - 1})
    assert render(make_spec(pattern, fits, width=w, height=h)).shape == (h, w, 3)


@pytest.mark.parametrize("roi, message", [
    ((0, 0, 0, 5), "roi: width and height must be at least 1 pixel, got 0x5"),
    ((0, 0, 5, -1), "roi: width and height must be at least 1 pixel"),
    ((64, 0, 5, 5), "roi: 64,0,5,5 lies wholly outside the 64x36 frame"),
    ((0, 36, 5, 5), "lies wholly outside"),
    ((-5, 0, 5, 5), "lies wholly outside"),
    ((0, -9, 5, 9), "lies wholly outside"),
    ((0, 0, 5), "roi: expected four integers x,y,w,h"),
    ((0, 0, 5, float("inf")), "roi: inf is not a finite number"),
    ((0, 0, 5, True), "roi: true is a true/false value"),
    ("1,2,3", "roi: expected four integers"),
    (7, "roi: expected four integers"),
])
def test_empty_or_off_frame_regions_are_refused(roi, message):
    with pytest.raises(ValueError, match=message):
        make_spec("solid", {}, width=64, height=36, roi=roi)


def test_a_region_partly_off_the_frame_clips_and_text_regions_read():
    spec = make_spec("solid", {"color": 100}, width=64, height=36, roi="60, 30, 10, 10")
    assert spec.roi == (60, 30, 10, 10)
    a = render(spec)
    assert (a[30:, 60:] == 100).all() and (a[:30] == 0).all() and (a[:, :60] == 0).all()


@pytest.mark.parametrize("kw, message", [
    ({"width": 0}, "width: expected an integer 1..16384, got 0"),
    ({"width": -8}, "width: expected an integer 1..16384"),
    ({"height": MAX_SIDE + 1}, "height: expected an integer 1..16384, got 16385"),
    ({"width": True}, "width: expected an integer"),
    ({"width": 12.0}, "width: expected an integer"),
    ({"width": 10**400}, "width: expected an integer 1..16384, got an integer of about 401 digits"),
    ({"bit_depth": True}, "bit_depth: expected an integer 1..16"),
    ({"bit_depth": 17}, "bit depth must be an integer 1..16"),
    ({"limited": "yes"}, "limited: expected true/false, got 'yes'"),
    ({"dtype": "u" * 100_000}, "dtype: expected a dtype name"),
    ({"dtype": ["uint16"]}, "dtype: expected a dtype name"),
    ({"counter_bits": float("inf")}, "counter_bits: inf is not a finite number"),
    ({"counter_bits": True}, "counter_bits: true is a true/false value"),
    ({"counter_bits": 99}, "counter bits must be 1..31"),
])
def test_bad_frame_settings_are_one_error_naming_the_setting(kw, message):
    args = dict(width=64, height=36) | kw
    with pytest.raises(ValueError, match=message):
        make_spec("solid", {}, **args)


def test_a_bad_pattern_name_or_parameter_set_is_one_error():
    with pytest.raises(ValueError, match=r"unknown pattern \['solid'\]"):
        make_spec(["solid"], {}, width=8, height=8)
    with pytest.raises(ValueError, match="unknown pattern 'sss"):
        make_spec("s" * 100_000, {}, width=8, height=8)
    with pytest.raises(ValueError, match=r"params: expected names and values, got \[1, 2\]"):
        make_spec("solid", [1, 2], width=8, height=8)
    with pytest.raises(ValueError) as info:
        make_spec("solid", {"k" * 100_000: 1}, width=8, height=8)
    assert "has no parameter 'kkk" in str(info.value) and len(str(info.value)) < 200


def test_the_largest_frame_is_16384_per_side_so_2_28_pixels():
    assert make_spec("solid", {}, width=MAX_SIDE, height=MAX_SIDE).width == 16384
    assert MAX_SIDE * MAX_SIDE == 2**28
    assert parse_size("16384x16384") == (16384, 16384)
    for text in ("16385x8", "0x8", "8x-8", "9" * 100_000 + "x8", "8x" + "9" * 30, "1e3x8", "infxinf"):
        with pytest.raises(ValueError) as info:
            parse_size(text)
        assert len(str(info.value)) < 200


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=30))
def test_any_size_text_is_a_size_or_one_value_error(text):
    try:
        w, h = parse_size(text)
    except ValueError as exc:
        assert "\n" not in str(exc)
        return
    assert 1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE


def _value_or_error_naming(param, value, levels=LEVELS):
    try:
        out = param.resolve(value, levels)
    except ValueError as exc:
        text = str(exc)
        assert text.startswith(param.name), text
        assert "\n" not in text and len(text) < 300, text
        return None
    return out


def _in_range(param, out, levels=LEVELS):
    if param.kind in ("int", "float"):
        assert isinstance(out, int if param.kind == "int" else float) and not isinstance(out, bool)
        assert math.isfinite(out) and param.min <= out <= param.max
    elif param.kind == "bool":
        assert isinstance(out, bool)
    elif param.kind == "choice":
        assert out in param.choices
    else:
        colours = [out] if param.kind == "colour" else list(out)
        assert 1 <= len(colours) <= 4
        for c in colours:
            assert len(c) == 3 and all(isinstance(v, int) and 0 <= v <= levels.top for v in c)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(PARAMS),
       st.text(max_size=40) | st.text(alphabet="0123456789.,;%eE+-inf nax/", max_size=24))
def test_any_text_for_any_parameter_is_its_value_or_one_error_naming_it(case, text):
    _, param = case
    out = _value_or_error_naming(param, text)
    if out is not None:
        _in_range(param, out)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(PARAMS), JUNK)
def test_any_json_value_for_any_parameter_is_its_value_or_one_error_naming_it(case, value):
    _, param = case
    out = _value_or_error_naming(param, value)
    if out is not None:
        _in_range(param, out)


@st.composite
def loose_specs(draw):
    """Specs drawn from anywhere near the limits (sizes, counts, colours), many of them invalid."""
    name = draw(st.sampled_from([p.name for p in catalog()]))
    pat = get_pattern(name)
    bits = draw(st.integers(1, 16))
    levels = Levels(bits)
    params = {}
    for p in pat.params:
        if not draw(st.booleans()):
            continue
        if p.kind in ("int", "float"):
            params[p.name] = draw(st.integers(int(p.min) - 1, int(p.max) + 1)
                                  | st.floats(p.min - 1, p.max + 1) | st.text(max_size=6))
        elif p.kind == "choice":
            params[p.name] = draw(st.sampled_from(p.choices) | st.text(max_size=6))
        elif p.kind == "bool":
            params[p.name] = draw(JUNK)
        else:
            colour = st.integers(-1, levels.top + 1) | st.text(alphabet="0123456789%,", max_size=8)
            params[p.name] = draw(colour | st.lists(colour, min_size=1, max_size=3)
                                  | st.lists(st.lists(colour, min_size=3, max_size=3), max_size=5))
    size = dict(width=draw(st.integers(1, 40)), height=draw(st.integers(1, 24)))
    roi = draw(st.none() | st.tuples(*[st.integers(-30, 40)] * 4))
    counter = draw(st.none() | st.integers(0, 32))
    return name, params, size, bits, draw(st.booleans()), roi, counter


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(loose_specs(), st.integers(0, 2**31 - 1))
def test_every_spec_that_validates_renders_at_a_small_size(case, frame):
    name, params, size, bits, limited, roi, counter = case
    try:
        spec = make_spec(name, params, bit_depth=bits, limited=limited, roi=roi,
                         counter_bits=counter, **size)
    except ValueError as exc:
        assert "\n" not in str(exc)
        return
    a = render(spec, frame, np)
    assert a.shape == (spec.height, spec.width, 3)
    assert 0 <= a.min() and a.max() <= spec.levels.top
