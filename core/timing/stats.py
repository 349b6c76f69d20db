"""Frame statistics as pure functions over timestamp arrays (no Qt, no clocks).

A frame is late when its present interval exceeds 1.5 periods (Psychtoolbox's
rule); each late interval missed ``round(interval / period) - 1`` vsyncs, with
halves rounded up.  The measured period is PsychoPy's settled estimate: the
mean of the most recent window of intervals whose spread is under a threshold.
Warm-up and compile frames are excluded from everything and counted apart.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

LATE_FACTOR = 1.5
STAT_KEYS = ("mean", "sd", "p50", "p95", "p99", "max")


def summary(values) -> dict | None:
    """mean, sd (population), p50, p95, p99, max of ``values`` in ms; None when empty."""
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size == 0:
        return None
    p50, p95, p99 = np.percentile(v, [50, 95, 99])
    return {"mean": float(v.mean()), "sd": float(v.std()), "p50": float(p50), "p95": float(p95),
            "p99": float(p99), "max": float(v.max())}


def intervals_ms(present_s) -> np.ndarray:
    """Present-to-present intervals in ms from present timestamps in seconds."""
    t = np.asarray(present_s, dtype=np.float64).ravel()
    return np.diff(t) * 1e3 if t.size > 1 else np.zeros(0)


def late_mask(intervals, period_ms: float) -> np.ndarray:
    """True for each interval longer than 1.5 periods."""
    return np.asarray(intervals, dtype=np.float64) > LATE_FACTOR * float(period_ms)


def missed_vsyncs(intervals, period_ms: float) -> int:
    """Sum over late intervals of ``round(interval / period) - 1`` (halves round up)."""
    iv = np.asarray(intervals, dtype=np.float64)
    late = iv[late_mask(iv, period_ms)]
    if late.size == 0:
        return 0
    return int(np.sum(np.floor(late / float(period_ms) + 0.5) - 1))


def measured_period(intervals_ms, window: int = 30, settle_sd_ms: float = 1.0) -> float | None:
    """The mean of the latest ``window`` consecutive intervals whose SD is under
    ``settle_sd_ms``; None when no such window exists (too few, or never settled)."""
    iv = np.asarray(intervals_ms, dtype=np.float64).ravel()
    if window < 2:
        raise ValueError(f"window must be at least 2 intervals, got {window}")
    if iv.size < window:
        return None
    # sliding sums, newest window first
    c1 = np.concatenate([[0.0], np.cumsum(iv)])
    c2 = np.concatenate([[0.0], np.cumsum(iv * iv)])
    sums = c1[window:] - c1[:-window]
    sq = c2[window:] - c2[:-window]
    mean = sums / window
    var = np.maximum(sq / window - mean * mean, 0.0)
    ok = np.flatnonzero(np.sqrt(var) < settle_sd_ms)
    if ok.size == 0:
        return None
    start = int(ok[-1])
    # recompute exactly (cumulative sums lose digits on long runs)
    return float(iv[start:start + window].mean())


def frame_stats(present_s, period_ms: float, render_ms=None, transfer_ms=None,
                warmup: int | np.ndarray = 0, window: int = 30, settle_sd_ms: float = 1.0) -> dict:
    """Statistics of a run of presented frames.

    ``present_s``: one present timestamp per frame (seconds, any origin);
    ``render_ms`` / ``transfer_ms``: optional per-frame costs.  ``warmup`` is
    either a count of leading frames or a per-frame boolean mask (frames served
    while a graph compiled after a mid-run spec change, say); those frames are
    excluded from every figure and reported as ``warmup``.  With a count,
    intervals are taken between consecutive counted frames, so ``frames``
    counted frames give ``frames - 1`` intervals; with a mask, a frame's
    interval (from the frame before it) counts when both frames count, so a
    leading mask gives the same figures as the same count.
    """
    if not isinstance(warmup, (int, np.integer)):
        return _masked_stats(present_s, period_ms, render_ms, transfer_ms, warmup, window,
                             settle_sd_ms)
    period = float(period_ms)
    if not period > 0 or not math.isfinite(period):
        raise ValueError(f"period must be a positive number of ms, got {period_ms!r}")
    t = np.asarray(present_s, dtype=np.float64).ravel()
    warmup = max(0, min(int(warmup), t.size))
    t = t[warmup:]
    iv = intervals_ms(t)
    if iv.size and np.any(iv < 0):
        raise ValueError("present timestamps must not go backwards")
    late = late_mask(iv, period)
    render = _counted(render_ms, warmup)
    out: dict[str, Any] = {
        "frames": int(t.size),
        "warmup": warmup,
        "period_ms": period,
        "measured_period_ms": measured_period(iv, window, settle_sd_ms) if iv.size >= window else None,
        "late": int(late.sum()),
        "missed_vsyncs": missed_vsyncs(iv, period),
        "interval_ms": summary(iv),
        "render_ms": summary(render) if render is not None else None,
        "transfer_ms": summary(_counted(transfer_ms, warmup)) if transfer_ms is not None else None,
        "headroom_ms": None,
    }
    if out["render_ms"] is not None:
        out["headroom_ms"] = period - out["render_ms"]["p99"]
    return out


def _masked_stats(present_s, period_ms, render_ms, transfer_ms, mask, window, settle_sd_ms) -> dict:
    # each figure computed once: the live view calls this on every refresh
    period = float(period_ms)
    if not period > 0 or not math.isfinite(period):
        raise ValueError(f"period must be a positive number of ms, got {period_ms!r}")
    t = np.asarray(present_s, dtype=np.float64).ravel()
    warm = np.asarray(mask, dtype=bool).ravel()
    if warm.size != t.size:
        raise ValueError(f"warm-up mask has {warm.size} entries for {t.size} frames")
    keep = ~warm
    iv_all = intervals_ms(t)
    if iv_all.size and np.any(iv_all < 0):
        raise ValueError("present timestamps must not go backwards")
    iv = iv_all[keep[1:] & keep[:-1]] if t.size > 1 else iv_all
    out: dict[str, Any] = {
        "frames": int(keep.sum()),
        "warmup": int(warm.sum()),
        "period_ms": period,
        "measured_period_ms": measured_period(iv, window, settle_sd_ms) if iv.size >= window else None,
        "late": int(late_mask(iv, period).sum()),
        "missed_vsyncs": missed_vsyncs(iv, period),
        "interval_ms": summary(iv),
        "render_ms": None,
        "transfer_ms": None,
    }
    for key, values in (("render_ms", render_ms), ("transfer_ms", transfer_ms)):
        if values is not None:
            out[key] = summary(np.asarray(values, dtype=np.float64).ravel()[keep])
    out["headroom_ms"] = period - out["render_ms"]["p99"] if out.get("render_ms") else None
    return out


def _counted(values, warmup: int):
    if values is None:
        return None
    return np.asarray(values, dtype=np.float64).ravel()[warmup:]
