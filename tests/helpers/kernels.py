"""The sets of vector kernels this CPU offers: ``packaging/setup test`` runs the numeric tests
once more under each (``python -m tests.helpers.kernels`` prints one line per pass).

numpy and torch pick their ``pow``, ``exp``, ``log`` and ``cos`` loops by CPU, and the loops
differ by a few ulp (numpy: its baseline loops, AVX2, Intel's SVML on AVX-512; torch: the C
library under ``default``, Sleef under ``avx2`` and ``avx512``).  A user's CPU runs whichever it
has, so a numeric test that passes only under this machine's best kernels is not yet a test.
Each pass pins both libraries to one level: torch through ``ATEN_CPU_CAPABILITY``, numpy by
turning off (``NPY_DISABLE_CPU_FEATURES``) its dispatch targets above that level.
"""

from __future__ import annotations

import os

X86_LADDER = ("default", "avx2", "avx512")


def _above_avx2(feature: str) -> bool:
    return feature.startswith("AVX512") or feature == "X86_V4"   # numpy < 2.4 and >= 2.4 names


def passes(capability: str, dispatch) -> list[tuple[str, list[str]]]:
    """``(ATEN_CPU_CAPABILITY, numpy targets to turn off)`` for every level up to
    ``capability`` (torch's own pick for this CPU), given numpy's dispatch targets."""
    cap = capability.lower()
    if cap in X86_LADDER:
        levels = X86_LADDER[:X86_LADDER.index(cap) + 1]
    else:                                   # another architecture: its baseline and its best
        levels = ("default",) if cap == "default" else ("default", cap)
    out = []
    for level in levels:
        if level == "default":
            off = list(dispatch)
        elif level == "avx2":
            off = [f for f in dispatch if _above_avx2(f)]
        else:
            off = []
        out.append((level, off))
    return out


def numpy_dispatch() -> list[str]:
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:                     # numpy 1.x
        from numpy.core import _multiarray_umath as umath
    return list(umath.__cpu_dispatch__)


def torch_capability() -> str:
    """torch's pick for this CPU (``ATEN_CPU_CAPABILITY`` must be unset to read it)."""
    import torch

    return torch.backends.cpu.get_cpu_capability().lower()


def main() -> None:
    assert "ATEN_CPU_CAPABILITY" not in os.environ, "unset ATEN_CPU_CAPABILITY to detect the CPU's"
    for level, off in passes(torch_capability(), numpy_dispatch()):
        print(level, ",".join(off))


if __name__ == "__main__":
    main()
