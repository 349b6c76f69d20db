"""PQ and HLG against an independent implementation (colour-science) and the standards' own
reference points; code values to cd/m2 and back; the cd/m2 colour parser.

Float comparisons take their tolerance from the arithmetic (``tests/helpers/fp_bounds.py``): each
evaluation is within its first-order error bound of the exact value on any CPU and with any
math library numpy or torch picks, so two evaluations differ by at most the sum of their
bounds.  A fixed rtol does not hold: near E' = 1 PQ's EOTF divides by c2 - c3 p, about 0.16,
and raises the quotient to 1/m1 = 6.3, so one ulp of ``pow`` there is about 750 ulp of
the result (1.7e-13), and numpy and torch pick different ``pow`` kernels by CPU."""

import math
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core import transfer
from core.levels import Levels
from core.transfer import (
    HLG_A,
    HLG_B,
    HLG_C,
    HLG_PEAK,
    PQ_C1,
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
from tests.helpers import fp_bounds as B
from tests.helpers.fp_bounds import assert_within

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
# BT.2100's rounded HLG constants: E' = 1 is scene light a hair above 1 (about 2.7e-8), which
# testcard clips to 1 and colour-science does not; scene light 1 is E' a hair below 1 (4.9e-9)
HLG_OVERSHOOT = (math.exp((1 - HLG_C) / HLG_A) + HLG_B) / 12 - 1
HLG_SHORTFALL = 1 - (HLG_A * math.log(12 - HLG_B) + HLG_C)


def colour_science_bound(fn, x):
    """colour-science evaluates the same chains (checked in its source: ``eotf_ST2084`` and its
    inverse step for step; its HLG low branches through ``pow``), so its error is bounded as
    ours with every step counted as a math-library call."""
    with B.every_step_a_library_call():
        return fn(x).e


# ---------------------------------------------------------------- against colour-science
@pytest.mark.parametrize("ours, theirs, values", [
    (pq_eotf, eotf_ST2084, SIGNALS), (pq_inverse_eotf, eotf_inverse_ST2084, NITS),
    (hlg_oetf, oetf_BT2100_HLG, SCENE), (hlg_inverse_oetf, oetf_inverse_BT2100_HLG, SIGNALS)])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # colour-science's own arithmetic at black
def test_each_transfer_matches_colour_science_over_a_sweep(ours, theirs, values):
    bound = getattr(B, ours.__name__)
    assert_within(ours(values), theirs(values), bound(values).e + colour_science_bound(bound, values),
                  ours.__name__)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # colour-science's own arithmetic at black
def test_hlg_eotf_on_the_nominal_display_matches_colour_science_for_colours():
    rng = np.random.default_rng(7)
    rgb = np.concatenate([rng.random((500, 3)), np.repeat(SIGNALS[:, None], 3, axis=1)])
    ours, mine = hlg_eotf(rgb), B.hlg_eotf(rgb)
    theirs = eotf_BT2100_HLG(rgb, L_B=0, L_W=1000)
    # where a channel is at E' = 1 colour-science keeps the overshoot testcard clips: that
    # channel's light by (1 + d) ** gamma, the others' by (1 + d) ** (gamma - 1), gamma 1.2
    at_top = (rgb == 1).any(axis=-1, keepdims=True)
    clipped = np.where(at_top, math.expm1(1.2 * math.log1p(HLG_OVERSHOOT)) * np.abs(theirs), 0.0)
    assert_within(ours, theirs, mine.e + colour_science_bound(B.hlg_eotf, rgb) + clipped, "hlg_eotf")
    back, mine_back = hlg_inverse_eotf(ours), B.hlg_inverse_eotf(mine)
    assert_within(back, eotf_inverse_BT2100_HLG(ours, L_B=0, L_W=1000),
                  B.hlg_inverse_eotf(ours).e + colour_science_bound(B.hlg_inverse_eotf, ours), "inverse")
    # there and back is the identity but for E' = 1, which comes back as scene light 1's E'
    assert_within(back, rgb, mine_back.e + np.where(rgb == 1, HLG_SHORTFALL, 0.0), "round trip")


# ---------------------------------------------------------------- the standards' reference points
@pytest.mark.parametrize("nits, signal", [(0.0, 7.3e-7), (100.0, 0.5081), (203.0, 0.5807),
                                          (1000.0, 0.7518), (10000.0, 1.0)])
def test_pq_reference_points(nits, signal):
    assert float(pq_inverse_eotf(nits)) == pytest.approx(signal, abs=5e-5)   # given to 4 places
    if nits:   # there and back: the EOTF's bound with the inverse's error carried in
        assert_within(pq_eotf(pq_inverse_eotf(nits)), nits, B.pq_eotf(B.pq_inverse_eotf(nits)).e)


def test_hlg_reference_points():
    assert_within(hlg_oetf(1 / 12), 0.5, B.hlg_oetf(1 / 12).e)           # the knee
    assert_within(hlg_oetf(1.0), 1.0, B.hlg_oetf(1.0).e + HLG_SHORTFALL)
    assert HLG_SHORTFALL < 1e-8 and HLG_OVERSHOOT < 3e-8                # the constants' own hair
    assert_within(hlg_inverse_oetf(0.5), 1 / 12, B.hlg_inverse_oetf(0.5).e)
    assert hlg_gamma(1000) == 1.2 and hlg_gamma(2000) == pytest.approx(1.2 + 0.42 * math.log10(2))
    # a grey on the nominal display: L = 1000 * E ** 1.2, so 75 % HLG is about 203 cd/m2
    grey = 1000 * float(hlg_inverse_oetf(0.75)) ** 1.2
    assert float(hlg_eotf(np.array([0.75] * 3))[0]) == pytest.approx(grey) == pytest.approx(203, abs=0.5)
    assert_within(hlg_eotf(np.array([1.0] * 3)), HLG_PEAK, B.hlg_eotf(np.array([1.0] * 3)).e)


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
    # the same operations on both: each within its bound of the exact value, whichever kernels
    assert_within(theirs.numpy(), ours, 2 * getattr(B, fn.__name__)(values).e, fn.__name__)
    assert fn(torch.tensor(values, dtype=torch.float32)).dtype == torch.float32


def test_torch_hlg_eotf_gives_numpy_s_values():
    rgb = np.random.default_rng(3).random((64, 3))
    assert_within(hlg_eotf(torch.tensor(rgb)).numpy(), hlg_eotf(rgb), 2 * B.hlg_eotf(rgb).e)


def test_the_bound_catches_a_constant_slipped_in_its_13th_digit(monkeypatch):
    """The tolerance is not vacuous: PQ's worst (by E' = 1) is about 7.5e-13 relative, and an
    EOTF whose c1 is off by one part in 1e12 is refused."""
    bound = B.pq_eotf(SIGNALS)
    assert bound.rel().max() < 1e-12
    right = pq_eotf(SIGNALS)
    monkeypatch.setattr(transfer, "PQ_C1", PQ_C1 * (1 + 1e-12))
    with pytest.raises(AssertionError, match="differ by more than their error bound"):
        assert_within(pq_eotf(SIGNALS), right, 2 * bound.e)


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
    # half a code, plus what two evaluations of E' (an array of three, a scalar) may differ by
    assert abs(code - levels.black - e) <= 0.5 + 2 * span * float(B.pq_inverse_eotf(nits).e) * (1 + 4 * B.U)
