import numpy as np
import pytest

from core.counter import CounterGeometry
from core.decode import decode_counter
from core.patterns import make_spec, render


def test_reference_geometry_1080p():
    g = CounterGeometry.compat(1920, 1080, 16)
    assert (g.pad_x, g.pad_y, g.cell_w, g.cell_h) == (192, 108, 96, 96)
    # bit 0 is the last cell, centred at row 156, column 240 + 15*96
    assert g.centres()[0] == (156, 240)
    assert g.centres()[-1] == (156, 240 + 15 * 96)


def test_bits_out_of_range_refused():
    for bits in (0, 32):
        with pytest.raises(ValueError, match="counter bits"):
            CounterGeometry.compat(640, 360, bits)
    with pytest.raises(ValueError, match="does not fit"):
        CounterGeometry.compat(20, 20, 31)


def test_round_trip_many_frames(backend, to_np):
    xp, dev = backend
    spec = make_spec("counter", {"bits": 12}, width=320, height=180, bit_depth=10)
    g = spec.counter_geometry()
    for f in list(range(0, 300)) + [4094, 4095, 4096, 4097, 123456]:
        frame = f if xp is np else xp.tensor(f, device=dev)
        img = to_np(render(spec, frame, xp, dev))
        assert decode_counter(img, g, bit_depth=10) == f % 4096


def test_lit_is_white_unlit_black_msb_first():
    spec = make_spec("counter", {"bits": 4}, width=100, height=50, bit_depth=8)
    img = render(spec, 0b1010)
    g = spec.counter_geometry()
    vals = [int(img[r, c, 0]) for r, c in g.centres()]
    assert vals == [255, 0, 255, 0]
    limited = render(make_spec("counter", {"bits": 4}, width=100, height=50, bit_depth=10,
                               limited=True), 0b0110)
    assert [int(limited[r, c, 1]) for r, c in g.centres()] == [64, 940, 940, 64]


def test_wraps_modulo_bits():
    spec = make_spec("counter", {"bits": 8}, width=200, height=100, bit_depth=8)
    assert np.array_equal(render(spec, 5), render(spec, 5 + 256))
    assert np.array_equal(render(spec, 0), render(spec, 2**31 - 2**8 * 3))


def test_decode_through_lossy_chain():
    spec = make_spec("counter", {"bits": 16}, width=640, height=360, bit_depth=10)
    g = spec.counter_geometry()
    rng = np.random.default_rng(1)
    for f in rng.integers(0, 2**16, 50):
        img = render(spec, int(f)).astype(np.float64) / 1023.0
        captured = np.clip(0.7 * img + 0.1, 0, 1)  # gain 0.7, lift 0.1
        assert decode_counter(captured, g) == f


def test_zero_d_array_frame(backend, to_np):
    xp, dev = backend
    spec = make_spec("counter", {}, width=320, height=180, bit_depth=8)
    f = np.array(777) if xp is np else xp.tensor(777, device=dev)
    assert decode_counter(to_np(render(spec, f, xp, dev)), spec.counter_geometry(), 8) == 777


def test_overlay_on_any_pattern_decodes(backend, to_np):
    xp, dev = backend
    for name, params in [("checkerboard", {"tile": 7}), ("ramp", {"direction": "vertical"}),
                         ("zone_plate", {}), ("bars", {})]:
        spec = make_spec(name, params, width=320, height=180, bit_depth=10, counter_bits=10)
        base = to_np(render(make_spec(name, params, width=320, height=180, bit_depth=10), 0, xp, dev))
        for f in (0, 1, 513, 1023):
            frame = f if xp is np else xp.tensor(f, device=dev)
            img = to_np(render(spec, frame, xp, dev))
            g = spec.counter_geometry()
            assert decode_counter(img, g, bit_depth=10) == f
            # outside the panel the base pattern is untouched
            mask = np.ones(img.shape[:2], bool)
            mask[g.y0:g.y1, g.x0:g.x1] = False
            assert np.array_equal(img[mask], base[mask])
