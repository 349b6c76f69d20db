"""The kernel passes of ``packaging/setup test``: one per level of vector kernels the CPU offers,
each pinning torch and numpy to that level, and each run on the kernels it names."""

import os

import pytest

from tests.helpers.kernels import numpy_dispatch, passes

NUMPY_24 = ["X86_V3", "X86_V4", "AVX512_ICL", "AVX512_SPR"]
NUMPY_1X = ["SSE41", "POPCNT", "SSE42", "AVX", "F16C", "FMA3", "AVX2", "AVX512F", "AVX512CD",
            "AVX512_KNL", "AVX512_KNM", "AVX512_SKX", "AVX512_CLX", "AVX512_CNL", "AVX512_ICL"]


def test_an_avx512_cpu_gets_three_passes_each_pinning_numpy_to_the_same_level():
    assert passes("AVX512", NUMPY_24) == [("default", NUMPY_24), ("avx2", NUMPY_24[1:]),
                                          ("avx512", [])]
    default, avx2, avx512 = passes("avx512", NUMPY_1X)
    assert default == ("default", NUMPY_1X) and avx512 == ("avx512", [])
    assert avx2[0] == "avx2" and "AVX2" not in avx2[1] and "FMA3" not in avx2[1]
    assert avx2[1] == [f for f in NUMPY_1X if f.startswith("AVX512")]


def test_fewer_kernels_fewer_passes_and_another_architecture_its_baseline_and_its_best():
    assert [c for c, _ in passes("AVX2", NUMPY_24)] == ["default", "avx2"]
    assert passes("DEFAULT", NUMPY_24) == [("default", NUMPY_24)]
    assert passes("SVE256", ["ASIMDHP", "ASIMDDP"]) == [("default", ["ASIMDHP", "ASIMDDP"]),
                                                        ("sve256", [])]


@pytest.mark.skipif("ATEN_CPU_CAPABILITY" not in os.environ, reason="not a kernel pass")
def test_a_kernel_pass_runs_on_the_kernels_it_names():
    import torch
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:
        from numpy.core import _multiarray_umath as umath

    assert torch.backends.cpu.get_cpu_capability().lower() == os.environ["ATEN_CPU_CAPABILITY"]
    off = [f for f in os.environ.get("NPY_DISABLE_CPU_FEATURES", "").split(",") if f]
    assert set(off) <= set(numpy_dispatch())
    assert not [f for f in off if umath.__cpu_features__.get(f)], "numpy still dispatches to them"
