"""PQ and HLG against an independent implementation (colour-science) and the standards' own
reference points; code values to cd/m2 and back; the cd/m2 colour parser."""

import math
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core.levels import Levels
from core.transfer import (
    HLG_PEAK,
    check_transfer,
    code_to_signal,
    codes_to_nits,
    hlg_eotf,
    hlg_gamma,
    hlg_inverse_eotf,
    hlg_inverse_oetf,
    hlg_oetf,
    nits_to_codes,
    pq_eotf,
    pq_inverse_eotf,
    resolve_nits,
    signal_to_code,
)

with warnings.catch_warnings():   # colour-science warns that SciPy is absent; nothing here needs it
    warnings.simplefilter("ignore")
    from colour.models import (
        eotf_BT2100_HLG,
        eotf_inverse_BT2100_HLG,
        eotf_inverse_ST2084,
        eotf_ST2084,
        oetf_BT2100_HLG,
        oetf_inverse_BT2100_HLG,
    )

SIGNALS = np.linspace(0.0, 1.0, 1025)
NITS = np.concatenate([[0.0], np.logspace(-4, 4, 801)])
SCENE = np.concatenate([[0.0], np.logspace(-6, 0, 601)])
LEVELS = [Levels(10, True), Levels(10), Levels(12, True), Levels(12)]
IDS = ["10-narrow", "10-full", "12-narrow", "12-full"]


# ---------------------------------------------------------------- against colour-science
def test_pq_eotf_matches_colour_science_over_a_sweep():
    np.testing.assert_allclose(pq_eotf(SIGNALS), eotf_ST2084(SIGNALS), rtol=1e-12, atol=1e-12)


def test_pq_inverse_eotf_matches_colour_science_over_a_sweep():
    np.testing.assert_allclose(pq_inverse_eotf(NITS), eotf_inverse_ST2084(NITS), rtol=1e-12, atol=1e-12)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # colour-science's own arithmetic at black
def test_hlg_oetf_and_its_inverse_match_colour_science():
    np.testing.assert_allclose(hlg_oetf(SCENE), oetf_BT2100_HLG(SCENE), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(hlg_inverse_oetf(SIGNALS), oetf_inverse_BT2100_HLG(SIGNALS),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # colour-science's own arithmetic at black
def test_hlg_eotf_on_the_nominal_display_matches_colour_science_for_colours():
    rng = np.random.default_rng(7)
    rgb = np.concatenate([rng.random((500, 3)), np.repeat(SIGNALS[:, None], 3, axis=1)])
    ours = hlg_eotf(rgb)
    # rtol 1e-7: BT.2100's rounded HLG constants put E' = 1 a hair above E = 1, which testcard clips
    np.testing.assert_allclose(ours, eotf_BT2100_HLG(rgb, L_B=0, L_W=1000), rtol=1e-7, atol=1e-9)
    back = hlg_inverse_eotf(ours)
    np.testing.assert_allclose(back, eotf_inverse_BT2100_HLG(ours, L_B=0, L_W=1000), rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(back, rgb, atol=1e-9)


# ---------------------------------------------------------------- the standards' reference points
@pytest.mark.parametrize("nits, signal", [(0.0, 7.3e-7), (100.0, 0.5081), (203.0, 0.5807),
                                          (1000.0, 0.7518), (10000.0, 1.0)])
def test_pq_reference_points(nits, signal):
    assert float(pq_inverse_eotf(nits)) == pytest.approx(signal, abs=5e-5)
    if nits:
        assert float(pq_eotf(pq_inverse_eotf(nits))) == pytest.approx(nits, rel=1e-12)


def test_hlg_reference_points():
    assert float(hlg_oetf(1 / 12)) == pytest.approx(0.5, abs=1e-12)      # the knee
    assert float(hlg_oetf(1.0)) == pytest.approx(1.0, abs=1e-7)
    assert float(hlg_inverse_oetf(0.5)) == pytest.approx(1 / 12, abs=1e-15)
    assert hlg_gamma(1000) == 1.2 and hlg_gamma(2000) == pytest.approx(1.2 + 0.42 * math.log10(2))
    # a grey on the nominal display: L = 1000 * E ** 1.2, so 75 % HLG is about 203 cd/m2
    grey = 1000 * float(hlg_inverse_oetf(0.75)) ** 1.2
    assert float(hlg_eotf(np.array([0.75] * 3))[0]) == pytest.approx(grey) == pytest.approx(203, abs=0.5)
    assert float(hlg_eotf(np.array([1.0] * 3))[0]) == pytest.approx(HLG_PEAK, rel=1e-6)


def test_203_nits_is_573_narrow_and_594_full_at_10_bits_and_721_under_hlg():
    assert nits_to_codes([203], Levels(10, True), "pq") == (573, 573, 573)
    assert nits_to_codes([203], Levels(10), "pq") == (594, 594, 594)
    assert nits_to_codes([203], Levels(12, True), "pq") == (256 + math.floor(3504 * 0.58068888 + 0.5),) * 3
    assert nits_to_codes([203], Levels(10, True), "hlg") == (721, 721, 721)


# ---------------------------------------------------------------- numpy and torch
@pytest.mark.parametrize("fn, values", [(pq_eotf, SIGNALS), (pq_inverse_eotf, NITS), (hlg_oetf, SCENE),
                                        (hlg_inverse_oetf, SIGNALS)])
def test_torch_float64_gives_numpy_s_values(fn, values):
    ours = fn(values)
    theirs = fn(torch.tensor(values, dtype=torch.float64))
    assert theirs.dtype == torch.float64
    np.testing.assert_allclose(theirs.numpy(), ours, rtol=1e-13, atol=1e-13)
    assert fn(torch.tensor(values, dtype=torch.float32)).dtype == torch.float32


def test_torch_hlg_eotf_gives_numpy_s_values():
    rgb = np.random.default_rng(3).random((64, 3))
    np.testing.assert_allclose(hlg_eotf(torch.tensor(rgb)).numpy(), hlg_eotf(rgb), rtol=1e-12)


def test_integer_input_becomes_float64_and_nothing_warns():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pq_eotf(np.array([0, 1])).dtype == np.float64
        assert hlg_oetf(np.array([0, 1])).dtype == np.float64
        assert hlg_oetf(torch.tensor([0, 1])).dtype == torch.float64
        hlg_inverse_oetf(np.array([-1.0, 0.0, 2.0]))


# ---------------------------------------------------------------- code values
@pytest.mark.parametrize("levels", LEVELS, ids=IDS)
@pytest.mark.parametrize("transfer", ["pq", "hlg"])
def test_code_to_nits_to_code_is_the_identity(levels, transfer):
    codes = np.arange(levels.black, levels.white + 1)
    grey = np.repeat(codes[:, None], 3, axis=1)
    nits = codes_to_nits(grey, levels, transfer)
    back = [nits_to_codes([n], levels, transfer)[0] for n in nits[:, 0]]
    assert back == codes.tolist()


def test_signal_to_code_rounds_once_half_up():
    lv = Levels(10, True)
    assert signal_to_code(0.0, lv) == 64 and signal_to_code(1.0, lv) == 940
    assert signal_to_code(0.5 / 876, lv) == 65          # exactly half a code: up
    assert signal_to_code(0.4999 / 876, lv) == 64
    assert float(code_to_signal(np.array(502), lv)) == pytest.approx(0.5)


def test_hlg_colour_converts_its_channels_together():
    lv = Levels(10, True)
    codes = nits_to_codes([100, 100, 50], lv, "hlg")
    shown = codes_to_nits(np.array(codes), lv, "hlg")
    np.testing.assert_allclose(shown, [100, 100, 50], rtol=0.02)
    with pytest.raises(ValueError, match="brighter than an HLG signal reaches"):
        nits_to_codes([1000, 0, 0], lv, "hlg")


@pytest.mark.parametrize("value, transfer, message", [
    ("203nits", "sdr", "color: a colour in cd/m2 needs transfer pq or hlg"),
    ("203nits,5,5", "pq", "color: give a colour in cd/m2 as one value or three"),
    ("1,2nits", "pq", "color: give a colour in cd/m2 as one value or three"),
    ("10001nits", "pq", "color: 10001 cd/m2 is over PQ's 10000 cd/m2"),
    ("1001nits", "hlg", "color: 1001 cd/m2 is over the nominal HLG display's 1000 cd/m2"),
    ("-1nits", "pq", "color: -1 cd/m2 is not a luminance"),
    ("infnits", "pq", "color: inf is not a finite number"),
    ("xnits", "pq", "color: cannot read 'x' as a number"),
])
def test_a_bad_colour_in_nits_is_one_error_naming_the_parameter(value, transfer, message):
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(")):
        resolve_nits(value, "colour", Levels(10, True), transfer, "color")


def test_the_forms_a_colour_in_nits_takes():
    lv = Levels(10, True)
    g = nits_to_codes([100], lv, "pq")
    assert resolve_nits("100nits", "colour", lv, "pq", "c") == g
    assert resolve_nits(" 100 nits ", "colour", lv, "pq", "c") == g
    assert resolve_nits("100cd/m2", "colour", lv, "pq", "c") == g
    assert resolve_nits("100 cd/m²", "colour", lv, "pq", "c") == g
    assert resolve_nits(["100nits"] * 3, "colour", lv, "pq", "c") == g
    half = nits_to_codes([50], lv, "pq")[0]
    assert resolve_nits("100nits,100nits,50nits", "colour", lv, "pq", "c") == (g[0], g[0], half)
    peak = nits_to_codes([1000], lv, "pq")
    assert resolve_nits("100nits;0/1000nits", "palette", lv, "pq", "p") == [g, "0", peak]
    for untouched in ("50%", "940,64,64", (1, 2, 3), "940;64", 12):
        assert resolve_nits(untouched, "colour", lv, "sdr", "c") == untouched
        assert resolve_nits(untouched, "palette", lv, "sdr", "p") == untouched


def test_check_transfer():
    assert check_transfer(" PQ ") == "pq"
    with pytest.raises(ValueError, match="transfer: expected one of sdr, pq, hlg, got 'hdr10'"):
        check_transfer("hdr10")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789.,;/ -+eEnitscd/m²%", max_size=40),
       st.sampled_from(["colour", "palette"]), st.sampled_from(["sdr", "pq", "hlg"]))
def test_any_text_is_left_alone_resolved_in_range_or_one_error_naming_it(text, kind, transfer):
    lv = Levels(10, True)
    try:
        out = resolve_nits(text, kind, lv, transfer, "color")
    except ValueError as exc:
        assert str(exc).startswith("color") and "\n" not in str(exc)
        return
    if out is text:
        return
    colours = [out] if kind == "colour" else [c for c in out if isinstance(c, tuple)]
    for c in colours:
        assert len(c) == 3 and all(lv.black <= v <= lv.white for v in c)


@settings(max_examples=300, deadline=None)
@given(st.floats(0, 10000), st.sampled_from(LEVELS))
def test_nits_come_back_within_half_a_code(nits, levels):
    code = nits_to_codes([nits], levels, "pq")[0]
    span = levels.white - levels.black
    e = float(pq_inverse_eotf(nits)) * span
    assert abs(code - levels.black - e) <= 0.5 + 1e-9
