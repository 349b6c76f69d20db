"""``testcard render --bit-depth 8`` and a 10-bit frame shown on an 8-bit surface give the same
codes: the engine's conversion is the one rule, ``round(v*255/1023)``, not a shift."""

import numpy as np
import pytest

from app.cli import main
from core.engine import Engine
from core.levels import Levels, rescale_code
from core.patterns import make_spec


def rendered(tmp_path, name, bits, *sets):
    out = tmp_path / f"{name}{bits}.npy"
    args = ["render", name, "--size", "64x36", "--bit-depth", str(bits), "-o", str(out)]
    for s in sets:
        args += ["--set", s]
    assert main(args) == 0
    return np.load(out)


@pytest.mark.parametrize("path", ["numpy", "torch-eager"])
def test_render_at_eight_bits_is_the_ten_bit_frame_on_an_eight_bit_surface(tmp_path, path):
    eight = rendered(tmp_path, "bars", 8)
    ten = rendered(tmp_path, "bars", 10)
    assert int(ten[0, 0, 0]) == 767 and int(eight[0, 0, 0]) == 191
    assert rescale_code(767, Levels(10), Levels(8)) == 191
    spec = make_spec("bars", {}, width=64, height=36, bit_depth=10)
    with Engine(spec, path=path, fmt="rgb8", allow_rounding=True) as eng:
        on_surface = eng.render(0).data[..., :3]
    np.testing.assert_array_equal(on_surface, eight)          # by shift it was 192


def test_every_ten_bit_code_of_a_ramp_is_shown_by_the_rule(tmp_path):
    ten = rendered(tmp_path, "ramp", 10)
    spec = make_spec("ramp", {}, width=64, height=36, bit_depth=10)
    with Engine(spec, fmt="rgb8", allow_rounding=True) as eng:
        on_surface = eng.render(0).data[..., :3]
    want = np.vectorize(lambda v: rescale_code(int(v), Levels(10), Levels(8)))(ten)
    np.testing.assert_array_equal(on_surface, want)
