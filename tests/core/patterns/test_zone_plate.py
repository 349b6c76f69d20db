"""The zone plate's code values, pixel by pixel, on every backend: the circle's edge, the grey
beside and above it, odd sizes whose centre line and column are their own mirror."""

import math

import numpy as np
import pytest

from core.patterns import make_spec, render
from core.patterns.render import render_plan


def reference(spec, diameter: float, amplitude: float) -> np.ndarray:
    """The definition, per pixel: phase (n mod 8d)/(8d) cycles, n = u*u + v*v on doubled
    offsets, inside n <= d*d; mid grey outside."""
    w, h, lv = spec.width, spec.height, spec.levels
    d = max(2, round(min(w, h) * diameter / 100.0))
    mid = (lv.black + lv.white + 1) // 2
    amp = (lv.white - lv.black) / 2.0 * amplitude / 100.0
    out = np.full((h, w), mid, np.int64)
    for y in range(h):
        v = 2 * y + 1 - h
        for x in range(w):
            u = 2 * x + 1 - w
            n = u * u + v * v
            if n <= d * d:
                code = math.floor(mid + amp * math.cos(2 * math.pi * (n % (8 * d)) / (8 * d)) + 0.5)
                out[y, x] = min(max(code, 0), lv.top)
    return out


CASES = [
    pytest.param(1, 1, 100.0, 100.0, 10, False, id="1x1"),
    pytest.param(1, 6, 100.0, 100.0, 8, False, id="one-column"),
    pytest.param(7, 2, 100.0, 100.0, 8, False, id="two-lines"),
    pytest.param(41, 31, 100.0, 100.0, 10, False, id="odd-full"),
    pytest.param(96, 54, 100.0, 100.0, 16, False, id="wide-16bit"),
    pytest.param(54, 96, 100.0, 70.0, 10, True, id="tall-limited"),
    pytest.param(97, 55, 37.5, 100.0, 10, False, id="small-circle-grey-around"),
    pytest.param(80, 45, 3.0, 100.0, 12, False, id="tiny-circle"),
    pytest.param(64, 36, 100.0, 0.0, 10, False, id="no-swing"),
]


@pytest.mark.parametrize("w, h, diameter, amplitude, bits, limited", CASES)
def test_every_pixel_is_the_definition(backend, to_np, w, h, diameter, amplitude, bits, limited):
    xp, dev = backend
    spec = make_spec("zone_plate", {"diameter": diameter, "amplitude": amplitude}, width=w, height=h,
                     bit_depth=bits, limited=limited)
    frame = 0 if xp is np else xp.tensor(0, device=dev)
    got = to_np(render(spec, frame, xp, dev))
    assert got.shape == (h, w, 3) and got.dtype == np.uint16
    want = reference(spec, diameter, amplitude)
    for c in range(3):
        np.testing.assert_array_equal(got[..., c], want, err_msg=f"channel {c}")


def test_numpy_reads_only_the_lines_that_meet_the_circle():
    # 37.5 % of 55 lines: d = 21, so the 17 lines above (and below) the circle share one grey row
    spec = make_spec("zone_plate", {"diameter": 37.5}, width=97, height=55)
    plan = render_plan(spec, 0, np)
    assert plan.rows.shape == (28 - 17 + 1, 97, 3)
    assert (plan.rows[-1] == plan.rows[-1, 0, 0]).all()
    assert np.array_equal(plan.index[:17], np.full(17, plan.rows.shape[0] - 1))
