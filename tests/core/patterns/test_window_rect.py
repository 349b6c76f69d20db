"""The window pattern's rectangle form: a patch x, y, w, h anywhere over the background, in
frame fractions or pixels, exact on numpy and torch; the area form unchanged."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core.levels import Levels
from core.patterns import make_spec, rect_geometry, render, window_geometry, window_patch
from core.xp import to_numpy


def reference(w, h, rect, color, background):
    out = np.empty((h, w, 3), np.int64)
    out[...] = background
    x, y, pw, ph = rect
    out[y:y + ph, x:x + pw] = color
    return out


def rendered(spec, backend, to_np):
    xp, dev = backend
    return to_np(render(spec, 0, xp, dev)) if xp is not np else render(spec, 0)


@pytest.mark.parametrize("geometry, rect, pixels", [
    ("fraction", (0.1, 0.2, 0.3, 0.4), (10, 12, 30, 24)),       # 100 x 60: 30 x 24 at 10,12
    ("fraction", (0.0, 0.0, 1.0, 0.5), (0, 0, 100, 30)),
    ("fraction", (0.95, 0.95, 0.1, 0.1), (90, 54, 10, 6)),      # kept within the frame
    ("pixels", (3, 5, 17, 9), (3, 5, 17, 9)),
    ("pixels", (0, 0, 100, 60), (0, 0, 100, 60)),
])
def test_rectangle_lands_on_its_pixels_on_every_backend(backend, to_np, geometry, rect, pixels):
    x, y, w, h = rect
    spec = make_spec("window", {"geometry": geometry, "x": x, "y": y, "w": w, "h": h,
                                "color": (1023, 512, 7), "background": (64, 65, 66)},
                     width=100, height=60, bit_depth=10)
    assert window_patch(100, 60, spec.param_dict) == pixels
    np.testing.assert_array_equal(rendered(spec, backend, to_np),
                                  reference(100, 60, pixels, (1023, 512, 7), (64, 65, 66)))


def test_a_square_patch_on_a_wide_frame_is_square():
    # DisplayCAL's 300/1920 x 300/1080 patch: 300 x 300 pixels, not a window of the frame's aspect
    spec = make_spec("window", {"geometry": "fraction", "x": 810 / 1920, "y": 390 / 1080,
                                "w": 300 / 1920, "h": 300 / 1080, "color": "100%"},
                     width=1920, height=1080, bit_depth=8)
    assert window_patch(1920, 1080, spec.param_dict) == (810, 390, 300, 300)
    frame = render(spec, 0)
    lit = np.argwhere(frame[..., 0] == 255)
    assert lit.min(axis=0).tolist() == [390, 810] and lit.max(axis=0).tolist() == [689, 1109]


def test_the_area_form_is_the_default_and_unchanged():
    spec = make_spec("window", {"area": 25, "cx": 0.3}, width=160, height=90, bit_depth=10)
    p = spec.param_dict
    assert p["geometry"] == "area"
    assert window_patch(160, 90, p) == window_geometry(160, 90, 25, 0.3, 0.5)
    # the rectangle's own parameters are ignored unless asked for
    other = make_spec("window", {"area": 25, "cx": 0.3, "x": 0.9, "w": 0.05}, width=160, height=90,
                      bit_depth=10)
    np.testing.assert_array_equal(render(spec, 0), render(other, 0))


def test_constant_apl_uses_the_rectangle_area():
    spec = make_spec("window", {"geometry": "pixels", "x": 0, "y": 0, "w": 50, "h": 30,
                                "color": "100%", "background_mode": "apl", "apl": 50},
                     width=100, height=60, bit_depth=10)
    frame = render(spec, 0)
    # a quarter of the frame at 1023: the background holds the mean at 50 % (code 512)
    target = Levels(10, False).level(50)
    assert frame[59, 99, 0] == int(np.floor((target * 6000 - 1023 * 1500) / 4500 + 0.5)) == 342
    assert frame[0, 0, 0] == 1023


@pytest.mark.parametrize("params, words", [
    ({"geometry": "fraction", "x": 1.5}, "x: 1.5 does not fit the frame"),
    ({"geometry": "fraction", "w": 0}, "w: a rectangle of width 0 does not fit"),
    ({"geometry": "pixels", "x": 2.5, "y": 0, "w": 4, "h": 4}, "x: 2.5 does not fit the pixel grid"),
    ({"geometry": "pixels", "x": 90, "y": 0, "w": 20, "h": 4}, "w: a 20-pixel rectangle at x 90 does not fit "
                                                       "the frame's 100-pixel width"),
    ({"geometry": "pixels", "x": 0, "y": 50, "w": 4, "h": 20}, "h: a 20-pixel rectangle at y 50"),
    ({"geometry": "square"}, "geometry: 'square' is not one of area, fraction, pixels"),
])
def test_a_rectangle_that_cannot_be_drawn_is_refused_naming_the_parameter(params, words):
    with pytest.raises(ValueError, match=words):
        make_spec("window", params, width=100, height=60, bit_depth=10)


@settings(max_examples=200, deadline=None)
@given(w=st.integers(1, 400), h=st.integers(1, 300),
       x=st.floats(0, 1), y=st.floats(0, 1), rw=st.floats(0.0001, 1), rh=st.floats(0.0001, 1))
def test_fraction_rectangles_keep_size_and_centre(w, h, x, y, rw, rh):
    px, py, pw, ph = rect_geometry(w, h, x, y, rw, rh)
    assert 0 <= px and px + pw <= w and 0 <= py and py + ph <= h
    assert pw == min(max(int(np.floor(rw * w + 0.5)), 1), w)
    assert ph == min(max(int(np.floor(rh * h + 0.5)), 1), h)
    # the centre within half a pixel, unless the frame's edge moved the patch inwards
    if px > 0 and px + pw < w:
        assert abs(px + pw / 2 - (x + rw / 2) * w) <= 0.5 + 1e-9


@settings(max_examples=60, deadline=None)
@given(w=st.integers(8, 64), h=st.integers(8, 48), x=st.floats(0, 1), y=st.floats(0, 1),
       rw=st.floats(0.01, 1), rh=st.floats(0.01, 1), bits=st.sampled_from([8, 10, 16]))
def test_numpy_and_torch_identical_for_rectangles(w, h, x, y, rw, rh, bits):
    top = (1 << bits) - 1
    spec = make_spec("window", {"geometry": "fraction", "x": x, "y": y, "w": rw, "h": rh,
                                "color": (top, 1, top // 3), "background": (2, top, 0)},
                     width=w, height=h, bit_depth=bits)
    a = render(spec, 0)
    b = to_numpy(render(spec, torch.tensor(0), torch, torch.device("cpu")))
    assert np.array_equal(a, b)
    np.testing.assert_array_equal(a, reference(w, h, rect_geometry(w, h, x, y, rw, rh),
                                               (top, 1, top // 3), (2, top, 0)))


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["rgb10"])
def test_the_compiled_path_draws_the_rectangle_exactly_in_one_graph(fmt):
    from core.engine import Engine, path_problem
    from core.engine import formats as F

    if path_problem("torch-compiled", "cpu") is not None:
        pytest.skip(str(path_problem("torch-compiled", "cpu")))
    torch._dynamo.reset()
    spec = make_spec("window", {"geometry": "fraction", "x": 0.1, "y": 0.3, "w": 0.2, "h": 0.5,
                                "color": (940, 64, 512), "background": (1, 2, 3)},
                     width=64, height=36, bit_depth=10, counter_bits=4)
    with Engine(spec, path="torch-compiled", fmt=fmt, background_compile=False, reuse_static=False) as eng:
        assert eng.compile_error is None
        for i in (0, 1, 5):
            res = eng.render(i)
            assert res.error is None and res.path == "torch-compiled"
            np.testing.assert_array_equal(res.data, F.convert_frame(render(spec, i), fmt, 10))
        assert eng.graphs == 1
    torch._dynamo.reset()
