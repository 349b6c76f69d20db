"""Benchmarks as plain functions returning rows of figures (the CLI prints them).

Timings are medians of repeated runs after warm-up; each row carries the same
run's cost of merely producing an output array of that shape (``np.full`` or
its torch equivalent), so ratios compare like with like on a noisy machine.
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable

import numpy as np

from core import xp as X
from core.patterns.registry import catalog
from core.patterns.rendering import render
from core.patterns.spec import make_spec


def time_ms(fn: Callable[[], object], repeats: int = 15, warmup: int = 3,
            clock: Callable[[], float] = time.perf_counter,
            sync: Callable[[], None] | None = None) -> list[float]:
    """Wall times of ``fn`` in ms, after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    if sync:
        sync()
    out = []
    for _ in range(repeats):
        t0 = clock()
        fn()
        if sync:
            sync()
        out.append((clock() - t0) * 1e3)
    return out


def baseline_full(xp, shape, dtype: str, device=None) -> Callable[[], object]:
    """The cost of producing a fresh output array: ``np.full`` / ``torch.full``."""
    if X.is_torch(xp):
        dt = getattr(xp, dtype)
        return lambda: xp.full(shape, 1, dtype=dt, device=device)
    return lambda: np.full(shape, 1, dtype=dtype)


def _fits(pattern, width: int, height: int) -> bool:
    try:
        pattern.fits({q.name: q.default for q in pattern.params}, width, height)
    except ValueError:
        return False
    return True


def bench_patterns(width: int, height: int, backends=("numpy", "torch"), patterns=None,
                   bit_depth: int = 10, dtype: str = "uint16", repeats: int = 15,
                   warmup: int = 3, progress: Callable[[str], None] | None = None) -> list[dict]:
    """Median render time of every pattern per backend, against ``full`` of the same shape
    (every pattern drawn at that size, when ``patterns`` names none: the scale chart needs
    1280x720)."""
    rows = []
    names = patterns or [p.name for p in catalog() if _fits(p, width, height)]
    for backend in backends:
        xp = X.namespace(backend)
        shape = (height, width, 3)
        for name in names:
            if progress:
                progress(f"{backend} {name}")
            spec = make_spec(name, {}, width=width, height=height, bit_depth=bit_depth, dtype=dtype)
            frame = 7 if not X.is_torch(xp) else xp.tensor(7)
            # interleave pattern and baseline so both see the same machine state
            t_pat, t_base = [], []
            base = baseline_full(xp, shape, dtype)
            for _ in range(warmup):
                render(spec, frame, xp)
                base()
            for _ in range(repeats):
                t_pat += time_ms(functools.partial(render, spec, frame, xp), 1, 0)
                t_base += time_ms(base, 1, 0)
            med, bmed = statistics.median(t_pat), statistics.median(t_base)
            rows.append({"pattern": name, "backend": backend, "size": f"{width}x{height}",
                         "dtype": dtype, "bit_depth": bit_depth, "median_ms": round(med, 3),
                         "baseline_ms": round(bmed, 3), "ratio": round(med / bmed, 2)})
    return rows
