"""Display formats: exact against a pixel-by-pixel numpy reference at 8, 10 and 16 bits."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import xp as X
from core.engine import Engine
from core.engine import formats as F
from core.patterns import make_spec, render


def test_rgb10_word_layout():
    frame = np.array([[[940, 64, 1023]]], dtype=np.uint16)
    word = F.convert_frame(frame, "rgb10", 10)
    assert word.dtype == np.uint32 and word.shape == (1, 1)
    assert int(word[0, 0]) == (3 << 30) | (940 << 20) | (64 << 10) | 1023
    assert F.unpack_rgb10(word).tolist() == [[[940, 64, 1023]]]


def test_widening_is_a_shift_and_narrowing_rounds():
    eight = np.array([[[235, 16, 255]]], dtype=np.uint16)
    assert F.unpack_rgb10(F.convert_frame(eight, "rgb10", 8)).tolist() == [[[940, 64, 1020]]]
    sixteen = np.array([[[60160, 65535, 127]]], dtype=np.uint16)
    assert F.convert_frame(sixteen, "rgb8", 16).tolist() == [[[235, 255, 0, 255]]]
    assert F.convert_frame(np.array([[[128]*3]]), "rgb8", 16)[0, 0, 0] == 1  # 128/256 rounds up


def test_check_format_refuses_narrowing_unless_rounding_allowed():
    with pytest.raises(ValueError, match="16-bit code values do not fit rgb8"):
        F.check_format("rgb8", 16)
    exact, note = F.check_format("rgb8", 16, allow_rounding=True)
    assert not exact and "rounded to 8 bits" in note
    assert F.check_format("rgb10", 10) == (True, "")
    exact, note = F.check_format("rgb16", 10)
    assert exact and "shifted left by 6" in note
    with pytest.raises(ValueError, match="unknown format"):
        F.check_format("rgb12", 10)


@pytest.mark.parametrize("bits", [8, 10, 16])
@pytest.mark.parametrize("fmt", ["native", "rgb8", "rgb10", "rgb16"])
@pytest.mark.parametrize("path", ["numpy", "torch-eager"])
def test_engine_output_equals_reference(bits, fmt, path):
    for name, params in [("ramp", {"scroll": 3}), ("zone_plate", {}), ("bars", {}),
                         ("ramp", {"direction": "vertical"}), ("checkerboard", {"invert_every": 2})]:
        spec = make_spec(name, params, width=64, height=36, bit_depth=bits, counter_bits=4)
        with Engine(spec, path=path, fmt=fmt, allow_rounding=True) as eng:
            for frame in (0, 5):
                got = eng.render(frame)
                assert got.error is None
                want = F.convert_frame(render(spec, frame), fmt, bits, spec.dtype)
                assert got.data.dtype == want.dtype and got.data.shape == want.shape
                np.testing.assert_array_equal(got.data, want, err_msg=f"{name} {params} frame {frame}")
            assert eng.exact == (fmt == "native" or bits <= F.FORMAT_BITS[fmt])


@settings(max_examples=60, deadline=None)
@given(bits=st.integers(1, 16), fmt=st.sampled_from(["rgb8", "rgb10", "rgb16"]),
       values=st.lists(st.integers(0, 65535), min_size=3, max_size=24))
def test_row_conversion_matches_reference_on_both_backends(bits, fmt, values):
    top = (1 << bits) - 1
    vals = np.array([v & top for v in values][: len(values) // 3 * 3], dtype=np.int64).reshape(1, -1, 3)
    want = F.convert_frame(vals, fmt, bits)
    for name in ("numpy", "torch"):
        xp = X.namespace(name)
        rows = X.asarray(xp, vals.tolist())
        got = F.host_view(X.to_numpy(F.convert_rows(xp, rows, fmt, bits)), fmt)
        np.testing.assert_array_equal(got, want)


def test_native_uint16_survives_the_signed_carrier_on_torch():
    spec = make_spec("solid", {"color": "65535,32768,32767"}, width=8, height=4, bit_depth=16)
    with Engine(spec, path="torch-eager") as eng:
        got = eng.render(0).data
    assert got.dtype == np.uint16
    assert got[0, 0].tolist() == [65535, 32768, 32767]
