"""The zone plate's code values, pixel by pixel, on every backend: the circle's edge, the grey
beside and above it, odd sizes whose centre line and column are their own mirror.

The plate's table takes numpy's cosine, the reference here the C library's, and which kernel
numpy runs depends on the CPU: the reference refuses a case whose code values sit within the
cosines' error of a rounding tie (``cosine_code``), so an exact comparison is exact on every CPU."""

import math

import numpy as np
import pytest

from core.engine import Engine
from core.patterns import make_spec, render
from core.patterns.rendering import render_plan
from core.plan import Rows, map_rows, materialize
from tests.helpers.fp_bounds import cosine_code


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
                out[y, x] = cosine_code(mid, amp, 2 * math.pi * (n % (8 * d)) / (8 * d), 0, lv.top)
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
    # quarters of 64 x 64 and 65 x 65 pixels whose lines and columns have the same squares:
    # numpy reads three quarters of each from the table and transposes the rest
    pytest.param(200, 128, 100.0, 100.0, 10, False, id="quarter-about-its-diagonal"),
    pytest.param(201, 129, 100.0, 100.0, 12, False, id="odd-quarter-about-its-diagonal"),
    pytest.param(200, 129, 100.0, 100.0, 10, False, id="mixed-parity-no-diagonal"),
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


def test_the_reference_refuses_a_phase_on_a_rounding_tie_and_keeps_the_safe_ones():
    # 10-bit narrow at 50 %: mid 502, swing 219, and at a sixth of a cycle cos is 0.5 within an
    # ulp, so 502 + 109.5 + 0.5 is a tie that a one-ulp-different cosine rounds the other way
    with pytest.raises(AssertionError, match="rounding tie"):
        cosine_code(502, 219.0, 2 * math.pi * 4 / 24, 0, 1023)
    # full range at 100 %: mid 512 +- 511.5 is a tie too, but cos of 0 and of pi can only move
    # towards 0, so every cosine gives the same codes there
    assert cosine_code(512, 511.5, 0.0, 0, 1023) == 1023
    assert cosine_code(512, 511.5, 2 * math.pi * 12 / 24, 0, 1023) == 1


def test_numpy_reads_only_the_lines_that_meet_the_circle():
    # 37.5 % of 55 lines: d = 21, so the 17 lines above (and below) the circle share one grey row
    spec = make_spec("zone_plate", {"diameter": 37.5}, width=97, height=55)
    plan = render_plan(spec, 0, np)
    assert plan.rows.shape == (28 - 17 + 1, 97, 3)
    assert (plan.rows[-1] == plan.rows[-1, 0, 0]).all()
    assert np.array_equal(plan.index[:17], np.full(17, plan.rows.shape[0] - 1))


def _compact(spec) -> np.ndarray:
    """The frame from the plan numpy builds when no buffer is offered (rows of their own)."""
    plan = render_plan(spec, 0, np)
    assert plan.frame is None
    return materialize(np, map_rows(plan, lambda rows: rows.astype(spec.dtype, copy=False)))


@pytest.mark.parametrize("w, h, diameter, dtype", [
    (200, 128, 100.0, "uint16"), (201, 129, 100.0, "uint16"), (97, 55, 37.5, "uint8"),
    (128, 200, 100.0, "uint16"), (3, 2, 100.0, "uint16"), (1, 1, 100.0, "uint8"),
])
def test_numpy_writes_the_top_half_where_it_lands_and_mirrors_it(w, h, diameter, dtype):
    spec = make_spec("zone_plate", {"diameter": diameter}, width=w, height=h,
                     bit_depth=8 if dtype == "uint8" else 10, dtype=dtype)
    into = np.full((h, w, 3), 7, dtype)
    plan = render_plan(spec, 0, np, into=into)
    half = (h + 1) // 2
    assert plan.frame is into and plan.rows.shape == (half, w, 3)
    assert np.shares_memory(plan.rows, into[:half])
    assert np.array_equal(plan.index[:half], np.arange(half))
    frame = materialize(np, map_rows(plan, lambda rows: rows.astype(dtype, copy=False)))
    assert frame is into
    np.testing.assert_array_equal(frame, _compact(spec))
    np.testing.assert_array_equal(render(spec, 0, np), frame)


def test_a_buffer_numpy_cannot_write_into_is_left_alone():
    spec = make_spec("zone_plate", {}, width=64, height=36)
    for into in (np.zeros((36, 64, 3), np.float32), np.zeros((36, 64, 4), np.uint16),
                 np.zeros((64, 36, 3), np.uint16)[::2], np.zeros((36, 64, 3), np.uint8)):
        plan = render_plan(spec, 0, np, into=into)
        assert plan.frame is None and not (into != 0).any()
        np.testing.assert_array_equal(materialize(np, plan), _compact(spec))


def test_a_transform_of_the_rows_drops_the_frame_and_keeps_the_picture():
    spec = make_spec("zone_plate", {}, width=96, height=54)
    into = np.empty((54, 96, 3), np.uint16)
    plan = render_plan(spec, 0, np, into=into)
    widened = map_rows(plan, lambda rows: rows.astype(np.int64))
    assert widened.frame is None
    np.testing.assert_array_equal(materialize(np, widened), _compact(spec))
    assert isinstance(plan.lines(3, 9), Rows) and plan.lines(3, 9).frame is None


@pytest.mark.parametrize("fmt", ["native", "rgb10"])
def test_the_numpy_engine_renders_the_plate_into_its_own_buffer_exactly(fmt):
    spec = make_spec("zone_plate", {}, width=200, height=128)
    with Engine(spec, path="numpy", fmt=fmt, reuse_static=False) as eng:
        first = eng.render(0).data.copy()
        again = eng.render(1).data
    with Engine(spec, path="torch-eager", fmt=fmt, reuse_static=False) as eng:
        torch_frame = eng.render(0).data.copy()
    np.testing.assert_array_equal(first, torch_frame)
    np.testing.assert_array_equal(again, first)


def test_a_foreign_buffer_is_written_but_never_offered_to_the_body(monkeypatch):
    # a caller's ``out`` may be a mapped pixel buffer, slow to read back: the plate's rows are
    # gathered into it, never written there first and mirrored from it
    from core.engine import renderers as R

    offered = []
    real = R.frame_rows

    def spy(*args, into=None, **kwargs):
        offered.append(into)
        return real(*args, into=into, **kwargs)

    monkeypatch.setattr(R, "frame_rows", spy)
    spec = make_spec("zone_plate", {}, width=200, height=128)
    with Engine(spec, path="numpy", reuse_static=False) as eng:
        own = eng.render(0).data.copy()
        out = np.zeros_like(own)
        eng.render(1, out=out)
    assert offered[0] is not None and offered[1] is None
    np.testing.assert_array_equal(out, own)
    np.testing.assert_array_equal(own, _compact(spec))


@pytest.mark.parametrize("extra", [{"roi": (10, 5, 100, 60)}, {"counter_bits": 8}])
def test_a_region_or_a_counter_keeps_the_buffer_from_the_body(extra):
    # either would copy the plate's rows anyway, and a failure there would leave it half written
    spec = make_spec("zone_plate", {}, width=200, height=128, **extra)
    into = np.zeros((128, 200, 3), np.uint16)
    plan = render_plan(spec, 0, np, into=into)
    assert plan.frame is None and not into.any()
    frame = render(spec, 0, np)
    plain = make_spec("zone_plate", {}, width=200, height=128)
    assert frame.shape == (128, 200, 3) and not np.array_equal(frame, render(plain, 0, np))
