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


def test_depth_changes_by_proportion_in_full_range_and_by_shift_in_limited_range():
    eight = np.array([[[235, 16, 255]]], dtype=np.uint16)
    # full range: round(v * 1023 / 255), so white stays white
    assert F.unpack_rgb10(F.convert_frame(eight, "rgb10", 8)).tolist() == [[[943, 64, 1023]]]
    assert F.unpack_rgb10(F.convert_frame(eight, "rgb10", 8, limited=True)).tolist() == \
        [[[940, 64, 1020]]]
    sixteen = np.array([[[60160, 65535, 128]]], dtype=np.uint16)
    assert F.convert_frame(sixteen, "rgb8", 16).tolist() == [[[234, 255, 0, 255]]]
    assert F.convert_frame(sixteen, "rgb8", 16, limited=True).tolist() == [[[235, 255, 1, 255]]]
    assert F.convert_frame(np.array([[[767] * 3]]), "rgb8", 10)[0, 0, 0] == 191   # not 192
    assert F.convert_frame(np.array([[[15] * 3]]), "rgb8", 4)[0, 0, 0] == 255     # not 240
    assert F.convert_frame(np.array([[[1] * 3]]), "rgb8", 1)[0, 0, 0] == 255      # not 128


def test_check_format_refuses_narrowing_unless_rounding_allowed():
    with pytest.raises(ValueError, match="16-bit code values do not fit rgb8"):
        F.check_format("rgb8", 16)
    exact, note = F.check_format("rgb8", 16, allow_rounding=True)
    assert not exact and note == "16-bit frame in rgb8: codes scaled by round(v*255/65535), rounded"
    assert F.check_format("rgb10", 10) == (True, "")
    exact, note = F.check_format("rgb16", 10)
    assert exact and note == "10-bit frame in rgb16: codes scaled by round(v*65535/1023)"
    exact, note = F.check_format("rgb16", 10, limited=True)
    assert exact and note == "10-bit frame in rgb16: codes scaled by v*64 (limited range, by shift)"
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
