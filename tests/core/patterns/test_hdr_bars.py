"""hdr_bars: every BT.2111 patch at 10 and 12 bits, PQ narrow and full and HLG narrow, equal to
the standard's tables; its geometry at 1920, 3840 and 7680 and scaled elsewhere; BT.814's HDR
PLUGE; numpy and torch identical; the combinations the standards do not give refused.

The expected values are typed here again from the tables (not imported from the pattern), so a
slip in either copy fails."""

import numpy as np
import pytest
import torch

from core.patterns import make_spec, render
from core.patterns.hdr import bar_geometry
from core.xp import to_numpy

# ---------------------------------------------------------------- BT.2111-2, typed again
# per (system, depth): 100 %, 0 %, 40 % grey, the 75 % HLG / 58 % PQ bar level
LEVELS = {
    ("hlg", 10): (940, 64, 414, 721), ("hlg", 12): (3760, 256, 1656, 2884),
    ("pq", 10): (940, 64, 414, 572), ("pq", 12): (3760, 256, 1656, 2288),
    ("pq_full", 10): (1023, 0, 409, 593), ("pq_full", 12): (4095, 0, 1638, 2375),
}
STEPS = {  # -7 %, 0 %, 10 % .. 100 %, 109 %
    "narrow10": [4, 64, 152, 239, 327, 414, 502, 590, 677, 765, 852, 940, 1019],
    "narrow12": [16, 256, 608, 956, 1308, 1656, 2008, 2360, 2708, 3060, 3408, 3760, 4076],
    "full10": [0, 0, 102, 205, 307, 409, 512, 614, 716, 818, 921, 1023, 1023],
    "full12": [0, 0, 410, 819, 1229, 1638, 2048, 2457, 2867, 3276, 3686, 4095, 4095],
}
PLUGE = {  # 0, -2 %, 0, +2 %, 0, +4 %, 0
    "narrow10": [64, 48, 64, 80, 64, 99, 64], "narrow12": [256, 192, 256, 320, 256, 396, 256],
    "full10": [0, 0, 0, 20, 0, 41, 0], "full12": [0, 0, 0, 82, 0, 164, 0],
}
RAMP = {  # the 0 % side, the -7 % patch, the ramp's ends
    "narrow10": (64, 4, 4, 1019), "narrow12": (256, 16, 16, 4079),
    "full10": (0, 0, 0, 1023), "full12": (0, 0, 0, 4095),
}
BT709 = {  # yellow, cyan, green, magenta, red, blue at 75 % HLG / 58 % PQ
    ("hlg", 10): [(713, 719, 316), (538, 709, 718), (512, 706, 296), (651, 286, 705), (639, 269, 164),
                  (227, 147, 702)],
    ("hlg", 12): [(2852, 2876, 1264), (2152, 2836, 2872), (2048, 2824, 1184), (2604, 1144, 2820),
                  (2556, 1076, 656), (908, 588, 2808)],
    ("pq", 10): [(568, 571, 381), (484, 566, 571), (474, 564, 368), (536, 361, 564), (530, 350, 256),
                 (317, 236, 562)],
    ("pq", 12): [(2272, 2284, 1524), (1936, 2264, 2284), (1896, 2256, 1472), (2144, 1444, 2256),
                 (2120, 1400, 1024), (1268, 944, 2248)],
    ("pq_full", 10): [(589, 592, 370), (491, 586, 592), (478, 584, 355), (551, 347, 584),
                      (544, 334, 225), (296, 201, 582)],
    ("pq_full", 12): [(2356, 2370, 1480), (1964, 2345, 2368), (1915, 2339, 1420), (2206, 1389, 2336),
                      (2178, 1337, 900), (1184, 805, 2328)],
}
BARS_W = [240, 206, 206, 206, 204, 206, 206, 206, 240]
STEPS_W = [240, 206, 103, 103, 103, 103, 102, 102, 103, 103, 103, 103, 103, 103, 240]
BOTTOM_W = [80, 80, 80, 136, 70, 68, 70, 68, 70, 238, 438, 282, 80, 80, 80]
RAMP_W = {  # (-7 % patch, ramp, 109 % patch) after the 0 % side, by range+depth and width
    "narrow10": {1920: (559, 1015, 106), 3840: (1118, 2030, 212), 7680: (2236, 4060, 424)},
    "full10": {1920: (551, 1023, 106), 3840: (1102, 2046, 212), 7680: (2204, 4092, 424)},
    "narrow12": {1920: (559, 1015, 106), 3840: (1117, 2031, 212), 7680: (2233, 4062, 425)},
    "full12": {1920: (551, 1023, 106), 3840: (1101, 2047, 212), 7680: (2201, 4094, 425)},
}
SYSTEMS = [("pq", True), ("pq", False), ("hlg", True)]   # (transfer, limited): BT.2111's three


def _system(transfer, limited):
    return "hlg" if transfer == "hlg" else ("pq" if limited else "pq_full")


def _bands(height):
    edges = [0, height // 12, height // 12 * 7, height // 12 * 8, height // 12 * 9, height]
    return list(zip(edges[:-1], edges[1:], strict=True))


def _spans(widths, scale):
    x, out = 0, []
    for w in widths:
        out.append((x, x + w * scale))
        x += w * scale
    return out


def _bars(on, off, side, level):
    bits = [(1, 1, 1), (1, 1, 0), (0, 1, 1), (0, 1, 0), (1, 0, 1), (1, 0, 0), (0, 0, 1)]
    return [(side,) * 3] + [tuple(level if b else off for b in c) for c in bits] + [(side,) * 3]


def _expected_rows(system, depth):
    on, off, side, bar = LEVELS[(system, depth)]
    key = ("full" if system == "pq_full" else "narrow") + str(depth)
    c709 = BT709[(system, depth)]
    bottom = c709[:3] + [(v,) * 3 for v in PLUGE[key]] + [(bar,) * 3, (PLUGE[key][0],) * 3] + c709[3:]
    return {"top": _bars(on, off, side, on), "middle": _bars(on, off, side, bar),
            "steps": [(bar,) * 3] + [(v,) * 3 for v in STEPS[key]] + [(bar,) * 3],
            "bottom": bottom}, key


def _check_patches(a, spans, colours, y0, y1, what):
    assert len(spans) == len(colours)
    for (x0, x1), c in zip(spans, colours, strict=True):
        band = a[y0:y1, x0:x1]
        assert band.size, f"{what}: empty column {x0}..{x1}"
        assert (band == np.array(c)).all(), f"{what}: columns {x0}..{x1} are not {c}"


@pytest.mark.parametrize("depth", [10, 12])
@pytest.mark.parametrize("transfer, limited", SYSTEMS, ids=["pq-narrow", "pq-full", "hlg-narrow"])
@pytest.mark.parametrize("width, height", [(1920, 1080), (3840, 120), (7680, 48)])
def test_every_patch_equals_the_bt2111_tables(transfer, limited, depth, width, height):
    spec = make_spec("hdr_bars", {"transfer": transfer}, width=width, height=height, bit_depth=depth,
                     limited=limited)
    a = render(spec)
    assert spec.transfer == transfer and a.shape == (height, width, 3)
    rows, key = _expected_rows(_system(transfer, limited), depth)
    k = width // 1920
    (t0, t1), (m0, m1), (s0, s1), (r0, r1), (b0, b1) = _bands(height)
    assert (t1 - t0, m1 - m0, s1 - s0, r1 - r0, b1 - b0) == tuple(height * f // 12 for f in (1, 6, 1, 1, 3))
    _check_patches(a, _spans(BARS_W, k), rows["top"], t0, t1, "100 % bars")
    _check_patches(a, _spans(BARS_W, k), rows["middle"], m0, m1, "75 % / 58 % bars")
    _check_patches(a, _spans(STEPS_W, k), rows["steps"], s0, s1, "step row")
    _check_patches(a, _spans(BOTTOM_W, k), rows["bottom"], b0, b1, "bottom row")
    # the ramp row: 0 % side, -7 % patch, the ramp, the 109 % patch
    zero, minus7, start, end = RAMP[key]
    w7, wr, w109 = RAMP_W[key][width]
    x = [0, 240 * k, 240 * k + w7, 240 * k + w7 + wr, width]
    assert x[3] + w109 == width
    _check_patches(a, [(x[0], x[1]), (x[1], x[2]), (x[3], x[4])],
                   [(zero,) * 3, (minus7,) * 3, (end,) * 3], r0, r1, "ramp row")
    i = np.arange(wr)
    ramp = start + ((end - start) * i) // wr
    assert (a[r0:r1, x[2]:x[3]] == ramp[None, :, None]).all()


def test_at_1920_the_10_bit_ramp_shows_every_code_once():
    a = render(make_spec("hdr_bars", {}, width=1920, height=1080, limited=True))
    ramp = a[800, 240 + 559:240 + 559 + 1015, 0]
    assert ramp.tolist() == list(range(4, 1019))
    assert a[800, -106:, 0].tolist() == [1019] * 106


@pytest.mark.parametrize("width, height", [(1280, 720), (2048, 1080), (333, 187)])
def test_other_sizes_scale_the_1920_columns_and_the_twelfths(width, height):
    geom = bar_geometry(width, height, True, 10)
    for name, widths in (("bars", BARS_W), ("steps", STEPS_W), ("bottom", BOTTOM_W),
                         ("ramp", [240, *RAMP_W["narrow10"][1920]])):
        acc = np.cumsum([0, *widths])
        assert geom[name] == [int(np.floor(e * width / 1920 + 0.5)) for e in acc], name
    assert geom["rows"] == [0] + [int(np.floor(k * height / 12 + 0.5)) for k in (1, 7, 8, 9)] + [height]
    a = render(make_spec("hdr_bars", {}, width=width, height=height, limited=True))
    e = geom["bars"]
    assert (a[0, e[1]:e[2]] == 940).all() and (a[0, :e[1]] == 414).all()   # white bar, grey side
    assert (a[-1, geom["bottom"][10]:geom["bottom"][11]] == 572).all()       # the 58 % patch


@pytest.mark.parametrize("depth, want", [(8, (235, 16, 104, 143)), (16, (60160, 4096, 26496, 36608))])
def test_other_depths_take_the_12_bit_table_rescaled(depth, want):
    a = render(make_spec("hdr_bars", {}, width=1920, height=1080, bit_depth=depth, limited=True))
    on, off, side, bar = want   # narrow range: by shift from 12 bits (1656 >> 4 = 103.5 -> 104)
    assert a[0, 300, 0] == on and a[0, 1000, 2] == off and a[0, 0, 0] == side and a[200, 300, 0] == bar


# ---------------------------------------------------------------- BT.814-4 HDR PLUGE
def test_pluge_levels_and_geometry_at_1080_and_2160():
    for width, height in ((1920, 1080), (3840, 2160)):
        k = width // 1920
        a = render(make_spec("hdr_bars", {"pluge": True}, width=width, height=height, limited=True))
        assert set(np.unique(a).tolist()) == {48, 64, 80, 399}
        # toru-ver4's BT.814-4 coordinates at 1080 (inclusive), doubled at 2160
        higher = a[468 * k:612 * k, 888 * k:1032 * k]
        assert (higher == 399).all()
        assert (a[324 * k:468 * k, 1320 * k:1608 * k] == 80).all()      # lighter patch
        assert (a[612 * k:756 * k, 1320 * k:1608 * k] == 48).all()      # darker patch
        stripes = a[345 * k:735 * k, 312 * k:600 * k, 0]
        per_stripe = stripes.reshape(39, 10 * k, -1)
        want = [80 if s % 2 == 0 and s < 19 else 48 if s % 2 == 0 and s > 19 else 64 for s in range(39)]
        assert [int(v) for v in per_stripe[:, 0, 0]] == want
        assert (per_stripe == per_stripe[:, :1, :1]).all()
        outside = np.ones(a.shape[:2], bool)
        for y0, y1, x0, x1 in ((468, 612, 888, 1032), (324, 468, 1320, 1608), (612, 756, 1320, 1608),
                               (345, 735, 312, 600)):
            outside[y0 * k:y1 * k, x0 * k:x1 * k] = False
        assert (a[outside] == 64).all()


def test_pluge_at_12_bits():
    a = render(make_spec("hdr_bars", {"pluge": True}, width=1920, height=1080, bit_depth=12, limited=True))
    assert set(np.unique(a).tolist()) == {192, 256, 320, 1596}


# ---------------------------------------------------------------- numpy and torch
VARIANTS = [
    ({}, True, 10, None, None), ({}, False, 12, None, None), ({"transfer": "hlg"}, True, 12, None, None),
    ({}, True, 8, None, None), ({}, False, 16, None, None), ({"pluge": True}, True, 10, None, None),
    ({"pluge": True}, True, 16, None, None), ({}, True, 10, (30, 20, 500, 300), 8),
]


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720), (333, 187)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("params, limited, depth, roi, counter", VARIANTS)
def test_numpy_and_torch_identical(params, limited, depth, roi, counter, size):
    spec = make_spec("hdr_bars", params, width=size[0], height=size[1], bit_depth=depth, limited=limited,
                     roi=roi, counter_bits=counter)
    a = render(spec, 5)
    b = to_numpy(render(spec, torch.tensor(5), torch, torch.device("cpu")))
    assert a.dtype == b.dtype and np.array_equal(a, b)


# ---------------------------------------------------------------- what is refused
@pytest.mark.parametrize("params, kw, message", [
    ({"transfer": "hlg"}, {}, "transfer: HLG bars in full range are not in the standard"),
    ({}, {"transfer": "hlg"}, "transfer: HLG bars in full range are not in the standard"),
    ({"pluge": True, "transfer": "hlg"}, {"limited": True}, "pluge: an HLG PLUGE is not in the standard"),
    ({"pluge": True}, {}, "pluge: a full-range PLUGE is not in the standard"),
    ({}, {"transfer": "sdr"}, "transfer: hdr_bars is drawn for pq or hlg only, not sdr"),
    ({"transfer": "pq"}, {"transfer": "hlg", "limited": True},
     "transfer: hdr_bars is set to pq .* but the frame's transfer is hlg"),
    ({}, {"bit_depth": 6}, "needs at least 8 bits"),
])
def test_combinations_the_standards_do_not_give_are_refused(params, kw, message):
    with pytest.raises(ValueError, match=message):
        make_spec("hdr_bars", params, width=1920, height=1080, **kw)


def test_the_spec_s_transfer_follows_the_pattern_and_fills_it():
    assert make_spec("hdr_bars", {}, width=64, height=36).transfer == "pq"
    s = make_spec("hdr_bars", {}, width=64, height=36, transfer="hlg", limited=True)
    assert s.transfer == "hlg" and s.param_dict["transfer"] == "hlg"
    assert s.replace(transfer="pq").param_dict["transfer"] == "pq"
    assert make_spec("solid", {}, width=4, height=4).transfer == "sdr"


# ---------------------------------------------------------------- compiled: one graph
@pytest.mark.slow
@pytest.mark.parametrize("params, limited", [({}, True), ({"pluge": True}, True)], ids=["bars", "pluge"])
def test_compiled_hdr_bars_under_a_counter_is_one_graph_and_exact(params, limited):
    from torch._dynamo.utils import counters

    from core.engine import Engine, path_problem
    from core.engine import formats as F

    if path_problem("torch-compiled", "cpu") is not None:
        pytest.skip(str(path_problem("torch-compiled", "cpu")))   # no C++ compiler for Inductor
    torch._dynamo.reset()
    counters.clear()
    spec = make_spec("hdr_bars", params, width=96, height=48, limited=limited, counter_bits=6)
    try:
        with torch._dynamo.config.patch(error_on_recompile=True):
            with Engine(spec, path="torch-compiled", fmt="rgb10", background_compile=False) as eng:
                assert eng.compile_error is None
                for i in range(40):
                    res = eng.render(i)
                    assert res.error is None and res.path == "torch-compiled"
                    want = F.convert_frame(render(spec, i), "rgb10", spec.bit_depth, spec.dtype)
                    np.testing.assert_array_equal(res.data, want, err_msg=f"frame {i}")
                assert eng.graphs == 1
        assert counters["stats"]["unique_graphs"] == 1
    finally:
        torch._dynamo.reset()
