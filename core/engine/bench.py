"""Engine benchmarks as plain functions returning figures (the CLI prints them)."""

from __future__ import annotations

import time

import numpy as np

from core.engine import formats as F
from core.engine.engine import Engine
from core.engine.render_paths import COMPILED_PATHS
from core.patterns import Spec
from core.timing import summary


def fill_baseline(target_shape, dtype: str, device=None):
    """A callable filling an existing buffer of the frame's size: the floor any frame costs."""
    if device is None:
        buf = np.zeros(target_shape, dtype=dtype)
        return lambda v: buf.fill(v)
    import torch

    tbuf = torch.zeros(target_shape, dtype=getattr(torch, dtype), device=device)
    return lambda v: tbuf.fill_(v)


def bench_frames(spec: Spec, *, path: str = "numpy", device: str = "cpu", fmt: str = "native",
                 frames: int = 200, warmup: int = 5, allow_rounding: bool = False,
                 progress=None, clock=time.perf_counter) -> dict:
    """Render ``frames`` frames through an :class:`Engine` and report their cost.

    The compile (if any) happens up front and is reported as ``compile_s``;
    ``warmup`` frames follow, uncounted.  Static specs are rendered every frame
    here (``reuse_static=False``): the figure is the frame's cost, not the cache's.
    """
    if isinstance(frames, bool) or not isinstance(frames, int) or frames < 1:
        raise ValueError(f"frames must be an integer >= 1, got {frames!r}")
    eng = Engine(spec, path=path, device=device, fmt=fmt, background_compile=False,
                 allow_rounding=allow_rounding, reuse_static=False, clock=clock)
    try:
        return bench_engine(eng, frames=frames, warmup=warmup, progress=progress, clock=clock)
    finally:
        eng.close(wait=True)


def bench_engine(eng: Engine, *, frames: int = 200, warmup: int = 5, progress=None,
                 clock=time.perf_counter) -> dict:
    """Time ``frames`` frames of an engine after ``warmup`` uncounted ones.

    Each counted frame is followed by one timed fill of a buffer of the same
    size and dtype on the same device (``baseline_ms``, the median), so
    ``ratio = median render / baseline`` compares like with like on a busy machine.
    """
    spec, fmt = eng.spec, eng.fmt
    if eng.path in COMPILED_PATHS and eng.compile_error:
        raise ValueError(f"{eng.path} could not compile this frame: {eng.compile_error}")
    tdev = eng._torch_device
    dtype = F.device_dtype(np if tdev is None else __import__("torch"), fmt, spec.dtype)
    fill = fill_baseline(F.host_shape(fmt, spec.width, spec.height), dtype, tdev)
    sync = _sync_for(tdev)
    start = eng.frames_rendered
    for i in range(warmup):
        eng.render(start + i)
        fill(i & 1)
    render: list[float] = []
    transfer: list[float] = []
    base: list[float] = []
    served: dict[str, int] = {}
    errors: list[str] = []
    for n in range(frames):
        i = start + warmup + n
        res = eng.render(i)
        if res.error:
            errors.append(res.error)
        served[res.path] = served.get(res.path, 0) + 1
        render.append(res.render_ms)
        transfer.append(res.transfer_ms)
        sync()
        t0 = clock()
        fill(i & 1)
        sync()
        base.append((clock() - t0) * 1e3)
        if progress:
            progress(n + 1, frames)
    r, t = summary(render), summary(transfer)
    assert r is not None and t is not None   # frames >= 1: neither list is empty
    baseline = float(np.median(base))
    return {
        "pattern": spec.pattern, "size": f"{spec.width}x{spec.height}", "format": fmt,
        "bit_depth": spec.bit_depth, "path": eng.path, "device": eng.device, "frames": frames,
        "warmup": warmup, "graphs": eng.graphs, "compile_s": round(eng.compile_seconds, 3),
        "render_ms": {"median": round(r["p50"], 4), "p99": round(r["p99"], 4),
                      "mean": round(r["mean"], 4), "max": round(r["max"], 4)},
        "transfer_ms": {"median": round(t["p50"], 4), "p99": round(t["p99"], 4)},
        "baseline_ms": round(baseline, 6),
        "ratio": round(r["p50"] / baseline, 3) if baseline > 0 else None,
        "served": served, "errors": len(errors), "first_error": errors[0] if errors else None,
        "exact": eng.exact, "note": eng.note,
    }


def _sync_for(device):
    if device is None or device.type == "cpu":
        return lambda: None
    import torch

    if device.type == "cuda":
        return lambda: torch.cuda.synchronize(device)
    return torch.mps.synchronize
