"""``Spec.changing_lines`` and ``Engine.render(lines=)``: where two frames of a spec can differ,
and a numpy render that writes only those lines over the frame already in ``out``.

The spans are a promise a presenter builds on (it uploads only them), so they are checked
against real frames of every pattern: outside the spans, frames of different indices are equal.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import Engine
from core.engine import formats as F
from core.patterns import catalog, make_spec, render

INDICES = (0, 1, 2, 5, 170, 255, 256, 1023)


def spec_for(name, **kw):
    for size in ((320, 180), (1280, 720)):
        try:
            return make_spec(name, {}, width=size[0], height=size[1], bit_depth=8, dtype="uint8", **kw)
        except ValueError:
            continue
    raise AssertionError(f"{name}: no size fits")


def outside(spans, height):
    keep = np.ones(height, bool)
    for y0, y1 in spans:
        keep[y0:y1] = False
    return keep


def specs_of_every_pattern():
    for pat in catalog():
        if pat.name == "counter":
            for layout in ("compat", "robust"):
                yield make_spec("counter", {"bits": 10, "layout": layout}, width=320, height=180,
                                bit_depth=8, dtype="uint8")
            continue
        yield spec_for(pat.name)
        yield spec_for(pat.name, counter_bits=10)
    # a background chosen to hold the APL, and a region of interest cutting the panel
    yield make_spec("window", {"background_mode": "apl", "apl": 30.0}, width=320, height=180,
                    bit_depth=10, counter_bits=8)
    yield make_spec("bars", {}, width=320, height=180, roi=(40, 0, 200, 100), counter_bits=8)


@pytest.mark.parametrize("spec", list(specs_of_every_pattern()),
                         ids=lambda s: f"{s.pattern}-{s.counter_bits}")
def test_frames_differ_only_inside_the_changing_lines(spec):
    spans = spec.changing_lines
    frames = [render(spec, i) for i in INDICES]
    if spans is None:
        assert spec.animated
        return
    keep = outside(spans, spec.height)
    for f in frames[1:]:
        np.testing.assert_array_equal(f[keep], frames[0][keep])
    if spans:
        assert spec.animated
        # and the spans are not the whole frame: a presenter saves real work
        assert keep.sum() > spec.height // 2
        # the counter really moves inside them
        assert any(not np.array_equal(f[~keep], frames[0][~keep]) for f in frames[1:])
    else:
        assert not spec.animated


def test_a_static_pattern_changes_nowhere_and_a_moving_one_everywhere():
    assert spec_for("bars").changing_lines == ()
    moving = make_spec("checkerboard", {"invert_every": 1}, width=320, height=180, counter_bits=8)
    assert moving.changing_lines is None


def test_the_robust_counter_changes_in_each_of_its_bands():
    spec = make_spec("counter", {"bits": 12, "layout": "robust", "bands": 4}, width=640, height=360)
    geom = spec.counter_geometry()
    assert len(spec.changing_lines) == 4
    assert [a for a, _ in spec.changing_lines] == geom.band_y


def expected(spec, index, fmt):
    return F.convert_frame(render(spec, index), fmt, spec.bit_depth, spec.dtype)


@settings(deadline=None, max_examples=30)
@given(before=st.integers(0, 4095), after=st.integers(0, 4095),
       layout=st.sampled_from(["compat", "robust"]), fmt=st.sampled_from(["rgb8", "rgb10", "native"]))
def test_numpy_writes_only_the_changing_lines_and_the_frame_is_exact(before, after, layout, fmt):
    spec = make_spec("counter", {"bits": 12, "layout": layout}, width=192, height=108, bit_depth=10)
    with Engine(spec, path="numpy", fmt=fmt, allow_rounding=True) as eng:
        out = np.zeros(*eng.frame_layout)
        eng.render(before, out=out)
        r = eng.render(after, out=out, lines=spec.changing_lines)
        assert r.lines == spec.changing_lines and r.data is out
        np.testing.assert_array_equal(out, expected(spec, after, fmt))
        # only those lines were written: lines outside hold what was there
        poison = out.copy()
        keep = outside(spec.changing_lines, spec.height)
        poison[keep] = 123
        eng.render(after + 1, out=poison, lines=spec.changing_lines)
        assert (poison[keep] == 123).all()
        np.testing.assert_array_equal(poison[~keep], expected(spec, after + 1, fmt)[~keep])


def test_an_overlay_on_a_vertical_ramp_keeps_its_patch_exact():
    # one value per line with a patch (the counter band painted over narrow rows)
    spec = make_spec("ramp", {"direction": "vertical"}, width=256, height=1024, bit_depth=10,
                     counter_bits=8)
    with Engine(spec, path="numpy", fmt="rgb10") as eng:
        out = np.zeros(*eng.frame_layout)
        eng.render(3, out=out)
        r = eng.render(200, out=out, lines=spec.changing_lines)
        assert r.lines == spec.changing_lines
        np.testing.assert_array_equal(out, expected(spec, 200, "rgb10"))


def test_a_path_that_cannot_writes_the_whole_frame_and_says_so():
    pytest.importorskip("torch")
    spec = make_spec("counter", {"bits": 8}, width=64, height=36, bit_depth=8, dtype="uint8")
    with Engine(spec, path="torch-eager", fmt="rgb8") as eng:
        out = np.full(eng.frame_layout[0], 9, eng.frame_layout[1])
        r = eng.render(7, out=out, lines=spec.changing_lines)
        assert r.lines is None
        np.testing.assert_array_equal(out, expected(spec, 7, "rgb8"))


@pytest.mark.parametrize("lines, out, match", [
    (((0, 10),), False, "only with out"),
    (((5, 5),), True, "not inside"),
    (((-1, 4),), True, "not inside"),
    (((0, 37),), True, "not inside"),
    ((("a", 3),), True, "expected"),
    ((3,), True, "expected"),
])
def test_bad_lines_are_refused_before_anything_is_written(lines, out, match):
    spec = make_spec("counter", {"bits": 8}, width=64, height=36, bit_depth=8, dtype="uint8")
    with Engine(spec, path="numpy", fmt="rgb8") as eng:
        buf = np.full(eng.frame_layout[0], 9, eng.frame_layout[1])
        with pytest.raises(ValueError, match=match):
            eng.render(1, out=buf if out else None, lines=lines)
        assert (buf == 9).all()
