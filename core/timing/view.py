"""The numbers the frame-timing dock shows, computed from the live loop's timeline (no Qt).

:func:`timing_view` runs on a worker thread a few times a second over :func:`timeline_columns`;
:func:`counter_texts` turns its statistics into the dock's strings.
"""

from __future__ import annotations

import math

import numpy as np

from core.timing.stats import frame_stats


def _ms(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "\u2013"
    return f"{v:.2f} ms"


def counter_texts(stats: dict) -> dict[str, str]:
    """The counters' strings for a ``frame_stats`` result (what the dock shows)."""
    none = {k: None for k in ("p50", "p95", "p99", "max")}
    iv, rd = stats["interval_ms"] or none, stats["render_ms"] or none
    return {
        "frames": str(stats["frames"]),
        "late": str(stats["late"]),
        "missed_vsyncs": str(stats["missed_vsyncs"]),
        "interval_p50": _ms(iv["p50"]),
        "interval_p95": _ms(iv["p95"]),
        "interval_p99": _ms(iv["p99"]),
        "interval_max": _ms(iv["max"]),
        "render_p50": _ms(rd["p50"]),
        "render_p99": _ms(rd["p99"]),
        "headroom": _ms(stats["headroom_ms"]),
        "period": _ms(stats["period_ms"]),
        "measured": _ms(stats.get("measured_period_ms")),
        "warmup": str(stats.get("warmup", 0)),
    }


def timeline_columns(timeline) -> tuple:
    """The arrays :func:`timing_view` needs, as views a worker thread may read: appends write
    past their end and a growing timeline leaves them on the old buffer."""
    return (timeline.column("present_s"), timeline.column("render_ms"), timeline.column("transfer_ms"),
            timeline.warmup_mask())


def timing_view(present, render, transfer, warmup, period_ms: float, window_s: float = 5.0) -> dict:
    """Everything the dock shows, computed from the timeline's columns (no Qt; runs on a worker).

    ``stats`` is ``core.timing.frame_stats``; the rest is plot data in float64: the last
    ``window_s`` seconds of intervals and render times against seconds before the newest
    frame, a 120-bin histogram of every interval, and a y range that keeps the budget band
    readable (a stall runs off the top; its size is in "interval max").
    """
    view = {"period_ms": period_ms, "stats": None, "edges": None}
    if len(present) == 0:
        return view
    view["stats"] = frame_stats(present, period_ms, render_ms=render, transfer_ms=transfer, warmup=warmup)
    now = float(present[-1])
    first = int(np.searchsorted(present, now - window_s))
    view["x"] = np.asarray(present[first:], np.float64) - now
    intervals = np.diff(present[max(first - 1, 0):]) * 1e3
    if first == 0:
        intervals = np.concatenate([[np.nan], intervals])
    view["intervals"] = intervals.astype(np.float64)
    view["render"] = np.asarray(render[first:], np.float64)
    finite = intervals[np.isfinite(intervals)]
    p99 = float(np.percentile(finite, 99)) if len(finite) else period_ms
    view["y_top"] = max(2.0 * period_ms, 1.25 * p99)
    all_iv = np.diff(present) * 1e3
    if len(all_iv):
        top = max(3.0 * period_ms, float(np.percentile(all_iv, 99.5)) * 1.1)
        counts, edges = np.histogram(np.clip(all_iv, 0, top), bins=120, range=(0.0, top))
        view["edges"], view["counts"] = edges.astype(np.float64), counts.astype(np.float64)
    return view
