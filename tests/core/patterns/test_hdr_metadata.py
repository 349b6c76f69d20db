"""HDR static metadata from the rendered frame: MaxCLL and MaxFALL of windows against hand
computation, the mastering display as a spec option, the 32-byte HDR_OUTPUT_METADATA blob
against one packed by hand, and the sidecar's signal and hdr entries.

The light levels are compared within the error bounds of the two evaluations (numpy's kernels
for the table, Python's C library by hand; ``tests/helpers/fp_bounds.py``), not a fixed rtol:
near peak white PQ turns one ulp of ``pow`` into hundreds."""

import json
import math
import struct

import numpy as np
import pytest
import torch

from core.levels import Levels
from core.manifest import save_frame
from core.patterns import (
    Mastering,
    hdr_output_metadata,
    light_levels,
    make_spec,
    parse_mastering,
    render,
    window_geometry,
)
from tests.helpers import fp_bounds as B

ST2084 = dict(m1=2610 / 16384, m2=2523 / 4096 * 128, c1=3424 / 4096, c2=2413 / 4096 * 32,
              c3=2392 / 4096 * 32)


def pq_nits_by_hand(code: int, black: int, white: int) -> float:
    """ST 2084's EOTF written out once more, for one code value."""
    e = min(max((code - black) / (white - black), 0.0), 1.0)
    p = e ** (1 / ST2084["m2"])
    return 10000 * (max(p - ST2084["c1"], 0) / (ST2084["c2"] - ST2084["c3"] * p)) ** (1 / ST2084["m1"])


def pq_rel_bound(code: int, black: int, white: int) -> float:
    """How far (relative) one evaluation of that chain may be from the exact light, on any CPU;
    the signal ``(code - black) / (white - black)`` is the same float on both sides."""
    return float(B.pq_eotf(min(max((code - black) / (white - black), 0.0), 1.0)).rel())


def gamma_n(n: int) -> float:
    """Higham's bound for a sum of ``n`` non-negative terms (or a dot product of length ``n``),
    relative, in any order of summation: n u / (1 - n u)."""
    return n * B.U / (1 - n * B.U)


@pytest.mark.parametrize("limited", [False, True], ids=["full", "narrow"])
@pytest.mark.parametrize("area, nits, bg", [(10, "1000nits", "0nits"), (1, "4000nits", "0nits"),
                                            (25, "1000nits", "100nits"), (100, "203nits", "0nits")])
def test_max_cll_and_max_fall_of_windows_by_hand(limited, area, nits, bg):
    w, h = 320, 180
    spec = make_spec("window", {"area": area, "color": nits, "background": bg}, width=w, height=h,
                     limited=limited, transfer="pq")
    lv = spec.levels
    patch, back = spec.param_dict["color"][0], spec.param_dict["background"][0]
    _, _, pw, ph = window_geometry(w, h, area, 0.5, 0.5)
    l_patch, l_back = pq_nits_by_hand(patch, lv.black, lv.white), pq_nits_by_hand(back, lv.black, lv.white)
    inside = pw * ph
    want_fall = (inside * l_patch + (w * h - inside) * l_back) / (w * h)
    got = light_levels(render(spec), lv, "pq")
    rel = max(pq_rel_bound(patch, lv.black, lv.white), pq_rel_bound(back, lv.black, lv.white))
    B.assert_within(got.max_cll, max(l_patch, l_back), 2 * rel * max(l_patch, l_back), "MaxCLL")
    # MaxFALL: the histogram's dot product with the table (levels.top + 1 terms) over the pixel
    # count there; here two products, a sum and a division (gamma_n(4))
    fall_rel = 2 * rel + gamma_n(lv.top + 1) + B.U + gamma_n(4)
    B.assert_within(got.max_fall, want_fall, fall_rel * want_fall, "MaxFALL")


def test_a_coloured_pixel_counts_its_brightest_channel():
    lv = Levels(10)
    frame = np.zeros((2, 2, 3), np.uint16)
    frame[0, 0] = (769, 0, 0)        # a red of about 1000 cd/m2
    frame[1, 1] = (0, 0, 520)        # a blue of about 100 cd/m2
    got = light_levels(frame, lv, "pq")
    r, b = pq_nits_by_hand(769, 0, 1023), pq_nits_by_hand(520, 0, 1023)
    assert got.max_cll == pytest.approx(r) and got.max_fall == pytest.approx((r + b) / 4)
    assert light_levels(torch.tensor(frame.astype(np.int32)), lv, "pq") == got


def test_hlg_window_on_the_nominal_display_by_hand():
    spec = make_spec("window", {"area": 25, "color": "721", "background": "64"}, width=160, height=90,
                     limited=True, transfer="hlg")
    a, b, c = 0.17883277, 1 - 4 * 0.17883277, 0.5 - 0.17883277 * math.log(4 * 0.17883277)
    e = (721 - 64) / 876
    scene = (math.exp((e - c) / a) + b) / 12
    l_patch = 1000 * scene ** 1.2                  # a grey: the OOTF is L = 1000 * E ** 1.2
    _, _, pw, ph = window_geometry(160, 90, 25, 0.5, 0.5)
    got = light_levels(render(spec), spec.levels, "hlg", block=7)   # blocks that do not divide
    # bounds: testcard's chain (the scene light's table, Y_S from three weights, peak * Y_S **
    # 0.2 * E) and this one (1000 * E ** 1.2); the doubles of the weights sum to 1 within u,
    # which the 0.2 power carries as 0.2 u
    ours = float(B.hlg_eotf(np.array([e] * 3)).rel()[0])
    mine = float((1000 * B.hlg_inverse_oetf(e) ** 1.2).rel())
    rel = ours + mine + 0.2 * B.U
    B.assert_within(got.max_cll, l_patch, rel * l_patch, "MaxCLL")
    want_fall = l_patch * pw * ph / (160 * 90)
    # MaxFALL: a sum of 160 * 90 non-negative lights (in blocks), divided by the pixels; here two
    # products and a division
    B.assert_within(got.max_fall, want_fall, (rel + gamma_n(160 * 90) + B.U + gamma_n(3)) * want_fall,
                    "MaxFALL")
    assert got.max_cll == pytest.approx(203, abs=1)


def test_sdr_has_no_light_levels():
    with pytest.raises(ValueError, match="transfer: sdr code values have no defined luminance"):
        light_levels(np.zeros((2, 2, 3), np.uint16), Levels(10), "sdr")


# ---------------------------------------------------------------- the blob
def test_the_blob_equals_one_packed_by_hand():
    # BT.2020 R (0.708, 0.292), G (0.170, 0.797), B (0.131, 0.046), D65 (0.3127, 0.3290) in
    # units of 0.00002; 1000 cd/m2 peak, 0.0001 cd/m2 black (1 unit); MaxCLL 1000, MaxFALL 400
    want = (struct.pack("<I", 0) + bytes([2, 0])
            + struct.pack("<8H", 35400, 14600, 8500, 39850, 6550, 2300, 15635, 16450)
            + struct.pack("<4H", 1000, 1, 1000, 400) + b"\x00\x00")
    assert len(want) == 32
    got = hdr_output_metadata("pq", Mastering(), 1000.4, 399.5)
    assert got == want
    assert got.hex() == ("00000000" "0200" "488a" "0839" "3421" "aa9b" "9619" "fc08" "133d" "4240"
                         "e803" "0100" "e803" "9001" "0000")


def test_the_blob_s_eotf_and_its_own_mastering():
    m = parse_mastering({"primaries": "p3", "white": "d65", "max_nits": 4000, "min_nits": 0.005})
    blob = hdr_output_metadata("hlg", m, 70000, 0)
    fields = struct.unpack("<IBB12H2x", blob)
    assert fields[:3] == (0, 3, 0)
    assert fields[3:9] == (34000, 16000, 13250, 34500, 7500, 3000)   # P3: x265's G/B/R numbers
    assert fields[9:] == (15635, 16450, 4000, 50, 65535, 0)          # MaxCLL clamped to 16 bits


@pytest.mark.parametrize("value, message", [
    ({"primaries": "p4"}, "mastering primaries: expected bt2020, p3, bt709 or 6 numbers"),
    ({"primaries": "0.7,0.3,0.2,0.7,0.1"}, "mastering primaries: expected"),
    ({"white": "1.2,0.3"}, "mastering white: chromaticity 1.2 is outside 0..1"),
    ({"max_nits": 0}, "mastering max_nits: 0 cd/m2 is outside 1..65535"),
    ({"max_nits": "inf"}, "mastering max_nits: inf is not a finite number"),
    ({"min_nits": 7}, "mastering min_nits: 7 cd/m2 is outside 0..6.5535"),
    ({"max_nits": 2, "min_nits": 3}, "mastering min_nits: 3 cd/m2"),
    ({"gamut": "x"}, "mastering: unknown field 'gamut'"),
    ("bt2020", "mastering: expected primaries, white, max_nits and min_nits"),
])
def test_a_bad_mastering_display_is_one_error_naming_the_field(value, message):
    with pytest.raises(ValueError, match="^" + message):
        parse_mastering(value)


def test_mastering_is_a_spec_option_for_hdr_only():
    s = make_spec("solid", {}, width=4, height=4, transfer="pq",
                  mastering={"primaries": "0.68,0.32,0.265,0.69,0.15,0.06", "max_nits": 4000})
    assert s.mastering.primaries == ((0.68, 0.32), (0.265, 0.69), (0.15, 0.06))
    assert s.mastering.white == (0.3127, 0.3290) and s.mastering.max_nits == 4000
    assert s.to_dict()["mastering"]["max_nits"] == 4000
    assert type(s).from_dict(s.to_dict()) == s
    assert "mastering" not in make_spec("solid", {}, width=4, height=4).to_dict()
    with pytest.raises(ValueError, match="mastering: the mastering display describes an HDR master"):
        make_spec("solid", {}, width=4, height=4, mastering={"max_nits": 4000})


# ---------------------------------------------------------------- the sidecar
def test_the_sidecar_carries_the_resolved_codes_the_signal_and_the_light_levels(tmp_path):
    spec = make_spec("window", {"area": 10, "color": "1000nits"}, width=192, height=108, limited=True,
                     transfer="pq")
    out = save_frame(tmp_path / "w.npy", spec, render(spec), 0)
    doc = json.loads((tmp_path / "w.npy.json").read_text())
    assert out.exists() and doc["transfer"] == "pq"
    assert doc["params"]["color"] == [723, 723, 723]
    assert doc["signal"] == {"transfer": "pq", "range": "narrow", "tagged": False,
                             "note": doc["signal"]["note"]}
    assert "nothing tags them HDR" in doc["signal"]["note"]
    ll = light_levels(render(spec), spec.levels, "pq")
    assert doc["hdr"]["max_cll"] == round(ll.max_cll, 4) and doc["hdr"]["max_cll_metadata"] == 1004
    assert doc["hdr"]["max_fall"] == round(ll.max_fall, 4) and doc["hdr"]["eotf"] == 2
    assert doc["hdr"]["mastering"] == Mastering().to_dict()
    assert type(spec).from_dict({k: doc[k] for k in spec.to_dict()}) == spec


def test_an_sdr_sidecar_says_sdr_and_carries_no_hdr_entry(tmp_path):
    spec = make_spec("solid", {}, width=8, height=8)
    save_frame(tmp_path / "s.npy", spec, render(spec), 0)
    doc = json.loads((tmp_path / "s.npy.json").read_text())
    assert doc["transfer"] == "sdr" and doc["signal"] == {"transfer": "sdr", "range": "full", "tagged": False}
    assert "hdr" not in doc and "mastering" not in doc
