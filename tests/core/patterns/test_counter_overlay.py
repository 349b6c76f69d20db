"""The robust counter layout: geometry, code words, functional render on every backend."""

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import xp as X
from core.counter import (
    CHECK_BITS,
    HEADER_BITS,
    CounterGeometry,
    crc16,
    gray_decode,
    parse_header,
    robust_cells,
    robust_header,
    robust_line_kinds,
    robust_word,
)
from core.patterns import make_spec, overlay_robust, render, render_plan, robust_columns
from core.plan import materialize


def robust_spec(bits=16, gray=False, bands=3, w=640, h=360, **kw):
    return make_spec("counter", {"bits": bits, "layout": "robust", "gray": gray, "bands": bands},
                     width=w, height=h, **kw)


def data_row_bits(img, g, band=0):
    n = robust_cells(g.bits)[0]
    y = g.band_y[band] + g.cell_h + g.cell_h // 2
    xs = [g.pad_x + i * g.cell_w + g.cell_w // 2 for i in range(n)]
    top = int(img.max())
    return [int(img[y, x, 0] > top // 2) for x in xs]


def word_bits(word, n):
    return [(word >> (n - 1 - i)) & 1 for i in range(n)]


def test_crc_is_ccitt_false():
    # the standard check value of CRC-16/CCITT-FALSE over the ASCII digits 1..9
    assert crc16(int.from_bytes(b"123456789", "big"), 72) == 0x29B1


def test_geometry_1080p_and_self_description():
    g = CounterGeometry.robust(1920, 1080, 16)
    n, m = robust_cells(16)
    assert (n, m) == (HEADER_BITS + 16 + CHECK_BITS, 41)
    assert (g.cell_w, g.cell_h, g.cells, g.band_y) == (42, 42, 41, [43, 477, 911])
    assert g.x0 == 99 and g.x1 == 99 + 41 * 42 <= 1920 - 96
    assert parse_header(robust_header(16, True)) == (1, 16, True)
    assert CounterGeometry.from_dict(g.to_dict()) == g
    assert CounterGeometry.from_dict(g.to_dict()).extra == g.extra


def test_cells_are_odd_for_every_bit_count():
    for bits in range(1, 32):
        n, m = robust_cells(bits)
        assert m % 2 == 1 and m in (n, n + 1)


def test_robust_refusals():
    with pytest.raises(ValueError, match="counter bits"):
        CounterGeometry.robust(640, 360, 0)
    with pytest.raises(ValueError, match="bands"):
        CounterGeometry.robust(640, 360, 8, bands=1)
    with pytest.raises(ValueError, match="does not fit"):
        CounterGeometry.robust(40, 40, 31)
    with pytest.raises(ValueError, match="does not fit"):
        make_spec("counter", {"layout": "robust", "bands": 8}, width=640, height=40)
    with pytest.raises(ValueError, match="unknown counter layout"):
        CounterGeometry.from_dict(dict(CounterGeometry.compat(64, 64, 4).to_dict(), layout="qr"))


def test_default_layout_is_compat():
    spec = make_spec("counter", {}, width=320, height=180)
    assert spec.counter_geometry().layout == "compat"
    assert spec.counter_geometry() == CounterGeometry.compat(320, 180, 16)


@pytest.mark.parametrize("w,h,bits", [(1920, 1080, 16), (320, 180, 12), (101, 37, 5), (64, 64, 31)])
def test_compat_unchanged_against_independent_reference(w, h, bits):
    """The compat panel, built here from the reference facts alone, pixel for pixel."""
    spec = make_spec("counter", {"bits": bits}, width=w, height=h, bit_depth=10)
    pad_x, pad_y = round(0.1 * w), round(0.1 * h)
    cw = (w - 2 * pad_x) // bits
    ch = min(cw, h - 2 * pad_y)
    for f in (0, 1, 0b1011, 2**bits - 1, 987654):
        want = np.zeros((h, w, 3), np.uint16)
        for i in range(bits):
            if (f >> (bits - 1 - i)) & 1:
                want[pad_y:pad_y + ch, pad_x + i * cw:pad_x + (i + 1) * cw] = 1023
        assert np.array_equal(render(spec, f), want)


def test_rows_carry_word_clocks_and_references(backend, to_np):
    xp, dev = backend
    spec = robust_spec(bits=12, gray=False, bit_depth=8)
    g = spec.counter_geometry()
    n, m = robust_cells(12)
    for f in (0, 1, 2, 777, 4095, 4096 + 5):
        frame = f if xp is np else xp.tensor(f, device=dev)
        img = to_np(render(spec, frame, xp, dev))
        for b in range(g.extra["bands"]):
            assert data_row_bits(img, g, b) == word_bits(robust_word(f, 12, False), n)
        y_top = g.band_y[0] + g.cell_h // 2
        y_bot = g.band_y[0] + 2 * g.cell_h + g.cell_h // 2
        xs = [g.pad_x + i * g.cell_w + g.cell_w // 2 for i in range(m)]
        assert [int(img[y_top, x, 0] > 127) for x in xs] == [(i + 1) % 2 for i in range(m)]
        assert [int(img[y_bot, x, 0] > 127) for x in xs] == [i % 2 for i in range(m)]
        # the padding cell (when there is one) and everything outside the bands is black
        if m > n:
            assert int(img[y_top + g.cell_h, xs[-1], 0]) == 0
        kinds = robust_line_kinds(g)
        assert not img[kinds == 0].any()
        assert not img[:, :g.x0].any() and not img[:, g.x1:].any()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bits=st.integers(1, 31), gray=st.booleans(), frame=st.integers(0, 2**31 - 1))
def test_functional_check_code_equals_host_crc(bits, gray, frame):
    """The render's shift-and-XOR check bits equal the bitwise CRC, on numpy and torch."""
    g = CounterGeometry.robust(2400, 200, bits, gray=gray, bands=2)
    n = robust_cells(bits)[0]
    want = word_bits(robust_word(frame, bits, gray), n)
    for xp, f in ((np, frame), (torch, torch.tensor(frame))):
        lit, _ = robust_columns(xp, g, f)
        lit = X.to_numpy(lit)
        xs = [g.pad_x + i * g.cell_w + g.cell_w // 2 for i in range(n)]
        assert [int(lit[1, x]) for x in xs] == want
    code = (robust_word(frame, bits, gray) >> CHECK_BITS) & ((1 << bits) - 1)
    assert (gray_decode(code) if gray else code) == frame % (1 << bits)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bits=st.integers(1, 31), gray=st.booleans(), bands=st.integers(2, 5),
       w=st.integers(120, 700), h=st.integers(60, 300), depth=st.sampled_from([8, 10, 12, 16]),
       limited=st.booleans(), dtype=st.sampled_from(["uint16", "int32", "float32"]),
       frame=st.integers(0, 2**31 - 1))
def test_robust_numpy_and_torch_identical(bits, gray, bands, w, h, depth, limited, dtype, frame):
    try:
        spec = robust_spec(bits, gray, bands, w, h, bit_depth=depth, limited=limited, dtype=dtype)
    except ValueError as exc:
        assert "does not fit" in str(exc)
        return
    a = render(spec, frame)
    b = X.to_numpy(render(spec, torch.tensor(frame), torch, torch.device("cpu")))
    c = X.to_numpy(render(spec, frame, torch, torch.device("cpu")))
    assert a.dtype == b.dtype and np.array_equal(a, b) and np.array_equal(a, c)


def test_many_row_branch_equals_painting(backend, to_np):
    """Over a plan with many distinct rows only band lines are painted; same picture either way."""
    xp, dev = backend
    base_spec = make_spec("ramp", {"direction": "vertical"}, width=320, height=180, bit_depth=10)
    g = CounterGeometry.robust(320, 180, 6, gray=True, bands=2)
    plan = render_plan(base_spec, 0, xp, dev)
    assert plan.rows.shape[0] * 3 > int((robust_line_kinds(g) > 0).sum())
    frame = 41 if xp is np else xp.tensor(41, device=dev)
    got = to_np(materialize(xp, overlay_robust(xp, plan, g, frame, 1023, 0, dev)))
    want = to_np(materialize(xp, plan)).copy()
    lit = to_np(robust_columns(xp, g, frame, dev)[0])
    inside = np.zeros(320, bool)
    inside[g.x0:g.x1] = True
    for y, kind in enumerate(robust_line_kinds(g)):
        if kind:
            want[y, inside] = (lit[kind - 1, inside] * 1023)[:, None]
    assert np.array_equal(got, want)


@pytest.mark.slow
def test_compiled_path_one_graph_identical_bytes():
    """Host-side constants (line kinds, check masks) fold into the graph: 200 frames, one graph."""
    from torch._dynamo.utils import counters

    from core.engine import Engine, path_problem
    from core.engine import formats as F

    if path_problem("torch-compiled", "cpu") is not None:
        pytest.skip(str(path_problem("torch-compiled", "cpu")))
    spec = make_spec("counter", {"layout": "robust", "bits": 12, "gray": True}, width=160, height=90,
                     bit_depth=10)
    torch._dynamo.reset()
    counters.clear()
    try:
        with torch._dynamo.config.patch(error_on_recompile=True):
            with Engine(spec, path="torch-compiled", fmt="rgb10", background_compile=False) as eng:
                assert eng.compile_error is None
                for i in range(200):
                    res = eng.render(i)
                    assert res.error is None and res.path == "torch-compiled"
                    want = F.convert_frame(render(spec, i), "rgb10", spec.bit_depth, spec.dtype)
                    np.testing.assert_array_equal(res.data, want, err_msg=f"frame {i}")
                assert eng.graphs == 1
        assert counters["stats"]["unique_graphs"] == 1
    finally:
        torch._dynamo.reset()
