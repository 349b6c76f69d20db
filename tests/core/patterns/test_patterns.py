"""Exact code values for every pattern, checked against per-pixel references."""

import math

import numpy as np
import pytest

from core.levels import Levels
from core.patterns import SCALE_CHART_MIN, catalog, make_spec, render, render_pattern, window_geometry
from tests.helpers.fp_bounds import cosine_code

BITS = [8, 10, 16]


def rp(name, w=48, h=30, bits=10, backend=None, to_np=None, frame=0, **kw):
    if backend is None:
        return render_pattern(name, w, h, bit_depth=bits, frame=frame, **kw)
    xp, dev = backend
    f = frame if xp is np else xp.tensor(frame, device=dev)
    return to_np(render_pattern(name, w, h, bit_depth=bits, xp=xp, device=dev, frame=f, **kw))


def test_catalog_has_the_ten_families():
    names = {p.name for p in catalog()}
    assert {"solid", "checkerboard", "window", "ramp", "steps", "bars", "pluge", "zone_plate",
            "pixel_grid", "grid", "counter"} <= names
    for p in catalog():
        for prm in p.params:
            assert prm.description
            if prm.kind in ("int", "float"):
                assert prm.min is not None and prm.max is not None
                assert prm.min <= prm.default <= prm.max


@pytest.mark.parametrize("bits", BITS)
def test_solid_exact(backend, to_np, bits):
    top = (1 << bits) - 1
    a = rp("solid", bits=bits, backend=backend, to_np=to_np, color=(top, top // 2, 1))
    assert a.shape == (30, 48, 3) and a.dtype == np.uint16
    assert (a[..., 0] == top).all() and (a[..., 1] == top // 2).all() and (a[..., 2] == 1).all()


def checker_reference(w, h, palette, tile, roi=None):
    pal = {1: lambda p: p * 4, 2: lambda p: [p[0], p[1], p[1], p[0]],
           3: lambda p: [p[0], p[1], p[2], p[0]], 4: lambda p: p}[len(palette)](list(palette))
    out = np.zeros((h, w, 3), np.int64)
    x0, y0, rw, rh = roi or (0, 0, w, h)
    for y in range(h):
        for x in range(w):
            if not (x0 <= x < x0 + rw and y0 <= y < y0 + rh):
                continue
            r, c = ((y - y0) // tile) % 2, ((x - x0) // tile) % 2
            slot = {(0, 0): 0, (1, 0): 1, (0, 1): 2, (1, 1): 3}[(r, c)]
            out[y, x] = pal[slot]
    return out


@pytest.mark.parametrize("bits", BITS)
@pytest.mark.parametrize("npal", [1, 2, 3, 4])
def test_checkerboard_palette_semantics(backend, to_np, bits, npal):
    top = (1 << bits) - 1
    palette = [(top, 0, 0), (0, top, 0), (0, 0, top), (top, top, 1)][:npal]
    a = rp("checkerboard", bits=bits, backend=backend, to_np=to_np, palette=palette, tile=5)
    assert np.array_equal(a, checker_reference(48, 30, palette, 5))


@pytest.mark.parametrize("roi", [(7, 3, 20, 11), (40, 25, 30, 30), (-4, -3, 13, 9), (47, 29, 5, 5)])
def test_roi_bounds_clipping_and_parity(backend, to_np, roi):
    palette = [(1, 1, 1), (2, 2, 2), (3, 3, 3), (4, 4, 4)]
    a = rp("checkerboard", backend=backend, to_np=to_np, palette=palette, tile=3, roi=roi)
    assert np.array_equal(a, checker_reference(48, 30, palette, 3, roi))
    x0, y0 = max(roi[0], 0), max(roi[1], 0)
    x1, y1 = min(roi[0] + roi[2], 48), min(roi[1] + roi[3], 30)
    inside = np.zeros((30, 48), bool)
    inside[y0:y1, x0:x1] = True
    assert (a[~inside] == 0).all()
    if inside.any():
        assert (a[inside] > 0).all()
        # parity counts from the region's origin: its first pixel is slot 0
        if roi[0] >= 0 and roi[1] >= 0:
            assert (a[y0, x0] == 1).all()


def test_colour_over_bit_depth_refused():
    with pytest.raises(ValueError, match="outside 0..255"):
        make_spec("solid", {"color": (256, 0, 0)}, width=8, height=8, bit_depth=8)
    with pytest.raises(ValueError, match="outside 0..1023"):
        make_spec("checkerboard", {"palette": "1024;0"}, width=8, height=8, bit_depth=10)


@pytest.mark.parametrize("dtype,bits,ok", [
    ("uint8", 8, True), ("uint8", 9, False), ("uint16", 16, True), ("int16", 15, True),
    ("int16", 16, False), ("float16", 11, True), ("float16", 12, False), ("float32", 16, True),
    ("int32", 16, True), ("float64", 16, True), ("bfloat16", 8, True), ("bfloat16", 9, False),
])
def test_dtype_acceptance(dtype, bits, ok):
    if ok:
        make_spec("solid", {}, width=4, height=4, bit_depth=bits, dtype=dtype)
    else:
        with pytest.raises(ValueError, match="cannot hold"):
            make_spec("solid", {}, width=4, height=4, bit_depth=bits, dtype=dtype)


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32", "float16", "uint16"])
def test_dtypes_render_same_values(backend, to_np, dtype):
    a = rp("ramp", bits=8, backend=backend, to_np=to_np, dtype=dtype)
    b = rp("ramp", bits=8, backend=backend, to_np=to_np)
    assert str(a.dtype) == dtype
    assert np.array_equal(a.astype(np.int64), b.astype(np.int64))


@pytest.mark.parametrize("bits,black,white", [(8, 16, 235), (10, 64, 940), (12, 256, 3760),
                                              (16, 4096, 60160)])
def test_limited_range_by_shift(bits, black, white):
    lv = Levels(bits, limited=True)
    assert (lv.black, lv.white) == (black, white)
    a = render_pattern("ramp", 64, 4, bit_depth=bits, limited=True)
    assert a.min() == black and a.max() == white
    s = render_pattern("solid", 4, 4, bit_depth=bits, limited=True, color="50%")
    assert s[0, 0, 0] == black + (white - black + 1) // 2
    with pytest.raises(ValueError, match="limited range needs"):
        Levels(6, limited=True)


@pytest.mark.parametrize("bits", BITS)
def test_window_area_and_apl(backend, to_np, bits):
    top = (1 << bits) - 1
    a = rp("window", w=160, h=90, bits=bits, backend=backend, to_np=to_np, area=25, color=top,
           background=0)
    x, y, w, h = window_geometry(160, 90, 25, 0.5, 0.5)
    assert (w, h) == (80, 45)
    assert (a[y:y + h, x:x + w] == top).all()
    assert a.sum() == top * 3 * w * h
    # constant APL: the mean stays at the target as the patch grows
    target = Levels(bits).level(20)
    for area in (2, 5, 15):  # feasible: the patch alone stays under the target
        b = rp("window", w=160, h=90, bits=bits, backend=backend, to_np=to_np, area=area,
               color=top, background_mode="apl", apl=20)
        assert abs(b[..., 0].mean() - target) <= 1.0


@pytest.mark.parametrize("bits", BITS)
def test_ramp_exact(backend, to_np, bits):
    top = (1 << bits) - 1
    a = rp("ramp", w=100, h=3, bits=bits, backend=backend, to_np=to_np)
    expect = np.array([(top * x * 2 + 99) // 198 for x in range(100)])
    assert np.array_equal(a[1, :, 0], expect) and np.array_equal(a[2, :, 2], expect)
    v = rp("ramp", w=3, h=50, bits=bits, backend=backend, to_np=to_np, direction="vertical",
           start=(top, 0, 0), end=(0, 0, top))
    assert v[0, 2].tolist() == [top, 0, 0] and v[-1, 0].tolist() == [0, 0, top]
    assert (np.diff(v[:, 1, 0].astype(int)) <= 0).all()


@pytest.mark.parametrize("bits", BITS)
def test_steps_exact(backend, to_np, bits):
    a = rp("steps", w=110, h=4, bits=bits, backend=backend, to_np=to_np, count=11)
    lv = Levels(bits)
    for k in range(11):
        assert (a[:, k * 10:(k + 1) * 10] == lv.level(10 * k)).all()


@pytest.mark.parametrize("bits,limited,on,off", [(8, False, 191, 0), (8, True, 180, 16),
                                                  (10, True, 721, 64), (10, False, 767, 0),
                                                  (16, False, 49151, 0)])
def test_bars_75_exact(bits, limited, on, off):
    a = render_pattern("bars", 80, 4, bit_depth=bits, limited=limited)
    cols = [a[0, 10 * i + 5].tolist() for i in range(8)]
    assert cols[0] == [on] * 3
    assert cols[1] == [on, on, off] and cols[2] == [off, on, on] and cols[3] == [off, on, off]
    assert cols[4] == [on, off, on] and cols[5] == [on, off, off] and cols[6] == [off, off, on]
    assert cols[7] == [off] * 3
    full = render_pattern("bars", 80, 4, bit_depth=bits, limited=limited, level=100)
    assert full[0, 5].tolist() == [Levels(bits, limited).white] * 3


@pytest.mark.parametrize("bits,levels", [(8, (12, 16, 20)), (10, (48, 64, 80)), (12, (192, 256, 320))])
def test_pluge_levels(backend, to_np, bits, levels):
    a = rp("pluge", w=100, h=50, bits=bits, backend=backend, to_np=to_np)
    row = a[15, :, 0]
    assert row[35] == levels[0] and row[0] == levels[1] and row[65] == levels[2]
    assert set(np.unique(a)) <= set(levels) | {235 << (bits - 8) if bits >= 8 else 0}


def zone_reference(w, h, bits, d):
    lv = Levels(bits)
    mid = (lv.black + lv.white + 1) // 2
    amp = (lv.white - lv.black) / 2
    out = np.full((h, w), mid, np.int64)
    for y in range(h):
        for x in range(w):
            u, v = 2 * x + 1 - w, 2 * y + 1 - h
            n = u * u + v * v
            if n <= d * d:   # a code every cosine gives, or refused (see test_zone_plate.py)
                out[y, x] = cosine_code(mid, amp, 2 * math.pi * (n % (8 * d)) / (8 * d), 0, lv.top)
    return out


@pytest.mark.parametrize("bits", BITS)
@pytest.mark.parametrize("size", [(40, 30), (41, 31)])
def test_zone_plate_exact(backend, to_np, bits, size):
    w, h = size
    a = rp("zone_plate", w=w, h=h, bits=bits, backend=backend, to_np=to_np)
    assert np.array_equal(a[..., 0], zone_reference(w, h, bits, min(w, h)))
    assert (a[..., 0] == a[..., 2]).all()


def grid_reference(w, h, pitch, line, border, fg, bg):
    def on(c, ext):
        start = ext // 2 - line // 2
        return ((c - start) % pitch) < line or (border > 0 and (c < border or c >= ext - border))
    return np.array([[fg if on(x, w) or on(y, h) else bg for x in range(w)] for y in range(h)])


@pytest.mark.parametrize("bits", BITS)
def test_grid_exact(backend, to_np, bits):
    top = (1 << bits) - 1
    a = rp("grid", w=60, h=40, bits=bits, backend=backend, to_np=to_np, pitch=10, line=2, border=1)
    assert np.array_equal(a[..., 1], grid_reference(60, 40, 10, 2, 1, top, 0))


@pytest.mark.parametrize("mode", ["checker", "vstripes", "hstripes", "lines"])
@pytest.mark.parametrize("size", [1, 2, 3])
def test_pixel_grid_exact(backend, to_np, mode, size):
    a = rp("pixel_grid", w=24, h=12, bits=8, backend=backend, to_np=to_np, mode=mode, size=size)[..., 0]
    y, x = np.mgrid[0:12, 0:24]
    expect = {"checker": ((x // size) + (y // size)) % 2 == 0, "vstripes": (x // size) % 2 == 0,
              "hstripes": (y // size) % 2 == 0, "lines": (x % size == 0) | (y % size == 0)}[mode]
    assert np.array_equal(a, np.where(expect, 255, 0))


def test_every_pattern_renders_at_every_depth():
    for p in catalog():
        w, h = SCALE_CHART_MIN if p.name == "scale_chart" else (32, 18)   # the chart's smallest
        for bits in BITS:
            s = make_spec(p.name, {}, width=w, height=h, bit_depth=bits)
            a = render(s, 3)
            assert a.shape == (h, w, 3)
            assert a.max() <= (1 << bits) - 1


def test_unknown_parameter_and_range_errors():
    with pytest.raises(ValueError, match="has no parameter 'nope'"):
        make_spec("solid", {"nope": 1}, width=4, height=4)
    with pytest.raises(ValueError, match="above the maximum"):
        make_spec("checkerboard", {"tile": 100000}, width=4, height=4)
    with pytest.raises(ValueError, match="unknown pattern"):
        make_spec("nope", {}, width=4, height=4)
    with pytest.raises(ValueError, match="not one of"):
        make_spec("ramp", {"direction": "diagonal"}, width=4, height=4)


def test_animated_patterns_change_per_frame(backend, to_np):
    a = rp("checkerboard", backend=backend, to_np=to_np, invert_every=2, frame=0)
    b = rp("checkerboard", backend=backend, to_np=to_np, invert_every=2, frame=1)
    c = rp("checkerboard", backend=backend, to_np=to_np, invert_every=2, frame=2)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    r0 = rp("ramp", backend=backend, to_np=to_np, scroll=3, frame=0)
    r1 = rp("ramp", backend=backend, to_np=to_np, scroll=3, frame=1)
    assert np.array_equal(np.roll(r0, -3, axis=1), r1)
