"""The one depth-conversion rule on arrays: every code value of every depth, numpy and torch.

The rule (:func:`core.levels.rescale_terms`): full range ``round(v * (2**n - 1) / (2**m - 1))``
halves up, limited range by shift.  Each result is checked against what it must be (the nearest
integer to the exact ratio: no formula is compared with itself) and torch against numpy, for
all ``2**m`` values of every depth 1..16 to every depth 1..16.
"""

import numpy as np
import pytest
import torch

from core import xp as X
from core.engine import formats as F
from core.levels import Levels, rescale_code

DEPTHS = range(1, 17)


def codes(bits: int) -> np.ndarray:
    return np.arange(1 << bits, dtype=np.int64)


@pytest.mark.parametrize("m", DEPTHS)
def test_full_range_every_code_is_the_nearest_integer_on_every_backend(m, backend):
    xp, device = backend
    v = codes(m)
    src = (1 << m) - 1
    tv = X.arange(xp, 1 << m, device=device)
    for n in DEPTHS:
        dst = (1 << n) - 1
        got = F.rescale(np, v, m, n)
        # the nearest integer to v * dst / src: |out * src - v * dst| < src / 2 (never a tie:
        # src is odd), and that integer is unique
        err = np.abs(got * src - v * dst)
        assert np.all(2 * err < src), f"{m} -> {n} bits"
        assert got.min() >= 0 and got.max() <= dst
        assert got[-1] == dst and got[0] == 0, f"{m} -> {n}: white and black stay white and black"
        there = F.rescale(xp, tv, m, n)
        assert str(there.dtype).endswith("int64")
        np.testing.assert_array_equal(X.to_numpy(there), got, err_msg=f"{xp.__name__}, {m} -> {n} bits")


@pytest.mark.parametrize("m", range(1, 13))
def test_the_array_rule_is_the_scalar_rule_for_every_code_up_to_12_bits(m):
    for n in (8, 10, 12, 16):
        want = [rescale_code(int(c), Levels(m), Levels(n)) for c in codes(m)]
        assert F.rescale(np, codes(m), m, n).tolist() == want


@pytest.mark.parametrize("m", range(8, 17))
def test_limited_range_is_the_shift_on_numpy_and_torch(m):
    v = codes(m)
    for n in range(8, 17):
        got = F.rescale(np, v, m, n, limited=True)
        if n >= m:
            want = v << (n - m)
        else:
            s = m - n
            want = np.minimum((v + (1 << (s - 1))) >> s, (1 << n) - 1)
        np.testing.assert_array_equal(got, want, err_msg=f"{m} -> {n} bits")
        np.testing.assert_array_equal(F.rescale(torch, torch.from_numpy(v), m, n, limited=True).numpy(),
                                      want, err_msg=f"torch, {m} -> {n} bits")
        a, b = Levels(m, True), Levels(n, True)
        assert got[a.black] == b.black and got[a.white] == b.white


def test_the_reported_values():
    ten, eight = Levels(10), Levels(8)
    assert rescale_code(767, ten, eight) == 191          # 75 % bars: 767 at 10 bits
    assert rescale_code(514, ten, eight) == 128          # DisplayCAL's 128/255, sent at 10 bits
    assert rescale_code(15, Levels(4), eight) == 255     # white stays white going up
    assert rescale_code(1, Levels(1), eight) == 255
    assert rescale_code(8, Levels(4), eight) == 136      # round(8 * 255 / 15)


@pytest.mark.parametrize("fmt", ["rgb8", "rgb10", "rgb16"])
@pytest.mark.parametrize("limited", [False, True])
def test_display_rows_give_the_same_bytes_on_numpy_and_torch_for_every_code(fmt, limited):
    target = F.FORMAT_BITS[fmt]
    for m in range(8 if limited else 1, 17):
        v = codes(m)
        # three different channels so a packing mistake cannot hide: v, its reverse, a rotation
        rows = np.stack([v, v[::-1], np.roll(v, 1)], axis=-1).reshape(1, -1, 3)
        want_codes = F.rescale(np, rows, m, target, limited)
        ref = F.convert_frame(rows, fmt, m, limited=limited)
        if fmt == "rgb10":
            np.testing.assert_array_equal(F.unpack_rgb10(ref), want_codes)
        else:
            np.testing.assert_array_equal(ref[..., :3], want_codes)
        for xp in (np, torch):
            dev = F.convert_rows(xp, X.asarray(xp, rows), fmt, m, limited=limited)
            got = F.host_view(X.to_numpy(dev), fmt)
            np.testing.assert_array_equal(got, ref, err_msg=f"{xp.__name__} {m} bits -> {fmt}")


@pytest.mark.slow
@pytest.mark.skipif(not torch._dynamo.is_dynamo_supported(), reason="torch.compile unsupported here")
def test_compiled_rule_gives_the_eager_codes():
    from core.engine import path_problem

    problem = path_problem("torch-compiled", "cpu")
    if problem is not None:
        pytest.skip(problem)
    torch._dynamo.reset()
    try:
        for m, n in [(10, 8), (4, 8), (1, 8), (16, 8), (15, 16), (8, 10)]:
            v = torch.from_numpy(codes(m))
            fn = torch.compile(lambda t, m=m, n=n: F.rescale(torch, t, m, n), fullgraph=True)
            np.testing.assert_array_equal(fn(v).numpy(), F.rescale(np, codes(m), m, n),
                                          err_msg=f"compiled {m} -> {n} bits")
    finally:
        torch._dynamo.reset()
