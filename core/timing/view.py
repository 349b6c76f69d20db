"""The numbers the frame-timing dock shows, computed from the live loop's timeline (no Qt).

:func:`timing_view` runs on a worker thread a few times a second over :func:`timeline_columns`;
:func:`counter_texts` turns its figures into the dock's strings.  What each figure covers:

- **since start** (the run's running totals, O(1) per frame, exact however long the run):
  frames, warm-up frames, late frames, missed vsyncs, the longest (and shortest) interval, and
  the interval histogram (fixed 0.1 ms bins);
- **recent** (the rows the bounded timeline holds: the last ten minutes at the screen's rate,
  or the whole run when it is younger): interval and render percentiles, headroom and the
  measured period;
- **the plot**: the chosen window (5 s, 1 min, 10 min) of the recent rows, reduced to a min/max
  pair per pixel column, so it costs the same however many frames the window spans.

A refresh therefore computes over at most the timeline's capacity of samples, after an hour or
after a day.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core.timing.stats import frame_stats
from core.timing.totals import HIST_BIN_MS, HIST_BINS, HIST_MAX_MS, RunningTotals, check_period

PLOT_COLUMNS = 1200          # min/max pairs at most: wider than the dock's plot at 1280 px
HIST_DISPLAY_BINS = 120
WINDOWS_S = (5.0, 60.0, 600.0)


def _ms(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "\u2013"
    return f"{v:.2f} ms"


def span_text(seconds) -> str:
    """A duration the way the dock titles say it: ``42 s``, ``10 min``, ``1.5 h``."""
    if seconds is None or not math.isfinite(seconds):
        return "\u2013"
    s = max(0.0, float(seconds))

    def short(v: float) -> str:
        return f"{v:.1f}".rstrip("0").rstrip(".")

    if s < 59.5:
        return f"{s:.0f} s"
    if s < 3600:
        return f"{short(s / 60)} min"
    return f"{short(s / 3600)} h"


def counter_texts(stats: dict, since_start: dict | None = None) -> dict[str, str]:
    """The counters' strings for a ``frame_stats`` result (what the dock shows); the counts and
    the interval maximum come from ``since_start`` (:meth:`RunningTotals.figures`) when given."""
    none = {k: None for k in ("p50", "p95", "p99", "max")}
    iv, rd = stats["interval_ms"] or none, stats["render_ms"] or none
    s = since_start
    return {
        "frames": str(s["frames"] if s else stats["frames"]),
        "late": str(s["late"] if s else stats["late"]),
        "missed_vsyncs": str(s["missed_vsyncs"] if s else stats["missed_vsyncs"]),
        "interval_p50": _ms(iv["p50"]),
        "interval_p95": _ms(iv["p95"]),
        "interval_p99": _ms(iv["p99"]),
        "interval_max": _ms(s["interval_max_ms"] if s else iv["max"]),
        "render_p50": _ms(rd["p50"]),
        "render_p99": _ms(rd["p99"]),
        "headroom": _ms(stats["headroom_ms"]),
        "period": _ms(stats["period_ms"]),
        "measured": _ms(stats.get("measured_period_ms")),
        "warmup": str(s["warmup"] if s else stats.get("warmup", 0)),
    }


def coverage_texts(view: dict) -> dict[str, str]:
    """Titles saying what the two groups of figures cover: ``since start (2.5 h)``, ``last 10 min``."""
    s = view.get("since_start")
    if view.get("stats") is None or s is None:
        return {"since_start": "since start", "recent": "recent"}
    return {"since_start": f"since start ({span_text(s['span_s'])})",
            "recent": f"last {span_text(view['history_s'])}"}


def timeline_columns(timeline) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, RunningTotals]:
    """What :func:`timing_view` needs from a timeline, in its argument order: copies of the
    present times, render and transfer costs and warm-up flags of the rows held, and of the
    running totals; a worker thread may read them while the loop appends."""
    return (np.array(timeline.column("present_s")), np.array(timeline.column("render_ms")),
            np.array(timeline.column("transfer_ms")), np.array(timeline.warmup_mask()),
            timeline.totals.copy())


def timing_view(present, render, transfer, warmup, totals, period_ms: float, window_s: float = 5.0,
                columns: int = PLOT_COLUMNS) -> dict:
    """Everything the dock shows (no Qt; runs on a worker), from the recent rows and the totals.

    ``stats`` is ``core.timing.frame_stats`` over the rows given; ``since_start`` the running
    totals' figures (``totals`` None: the rows given are the whole run, and the totals are
    computed from them); ``samples`` how many rows the refresh computed over.  The rest is plot
    data in float64: the last ``window_s`` seconds of intervals and render times against
    seconds before the newest frame, at most ``2 * columns`` points (a min and a max per pixel
    column once there are more samples than that); the since-start histogram regrouped into
    about 120 bins; and a y range that keeps the budget band readable (a stall runs off the top;
    its size is in "interval max").
    """
    if totals is not None and not isinstance(totals, RunningTotals):
        raise TypeError("totals must be RunningTotals or None: timing_view(present, render, "
                        "transfer, warmup, totals, period_ms, window_s)")
    period = check_period(period_ms)
    present = np.asarray(present, dtype=np.float64).ravel()
    view: dict[str, Any] = {"period_ms": period, "stats": None, "since_start": None, "edges": None,
            "samples": int(present.size), "history_s": 0.0, "window_s": float(window_s)}
    if present.size == 0:
        return view
    view["stats"] = frame_stats(present, period, render_ms=render, transfer_ms=transfer, warmup=warmup)
    if totals is None:
        totals = RunningTotals(period)
        totals.extend(present, render, warmup)
    view["since_start"] = totals.figures()
    view["history_s"] = float(present[-1] - present[0])
    view.update(plot_data(present, render, period, window_s, columns))
    edges, counts = display_histogram(totals.hist, period)
    if edges is not None:
        view["edges"], view["counts"] = edges, counts
    return view


def plot_data(present, render, period_ms: float, window_s: float, columns: int = PLOT_COLUMNS) -> dict:
    """The plot's series over the last ``window_s`` seconds (see :func:`timing_view`)."""
    window = float(window_s)
    if not (math.isfinite(window) and window > 0):
        raise ValueError(f"window_s must be a positive number of seconds, got {window_s!r}")
    present = np.asarray(present, dtype=np.float64)
    now = float(present[-1])
    first = int(np.searchsorted(present, now - window))
    x = present[first:] - now
    intervals = np.diff(present[max(first - 1, 0):]) * 1e3
    if first == 0:
        intervals = np.concatenate([[np.nan], intervals])
    rend = np.asarray(render[first:], np.float64)
    finite = intervals[np.isfinite(intervals)]
    p99 = float(np.percentile(finite, 99)) if len(finite) else period_ms
    x, (intervals, rend) = decimate(x, (intervals, rend), -window, 0.0, columns)
    return {"x": x, "intervals": intervals, "render": rend,
            "y_top": max(2.0 * period_ms, 1.25 * p99), "points": int(len(x))}


def decimate(x, ys, x0: float, x1: float, columns: int):
    """``x`` (sorted) and the series ``ys`` as at most ``2 * columns`` points: for each of
    ``columns`` equal spans of ``x0 .. x1`` that holds samples, its first and last x with the
    series' min and max there (NaN ignored).  Fewer samples than that come back as they are."""
    x = np.asarray(x, dtype=np.float64)
    ys = tuple(np.asarray(y, dtype=np.float64) for y in ys)
    if len(x) <= 2 * columns:
        return x, ys
    edges = np.linspace(min(x0, float(x[0])), x1, columns + 1)
    starts = np.unique(np.searchsorted(x, edges[:-1], side="left"))
    starts = starts[starts < len(x)]
    ends = np.append(starts[1:], len(x))
    xo = np.empty(2 * len(starts))
    xo[0::2], xo[1::2] = x[starts], x[ends - 1]
    out = []
    for y in ys:
        yo = np.empty(2 * len(starts))
        yo[0::2] = np.fmin.reduceat(y, starts)
        yo[1::2] = np.fmax.reduceat(y, starts)
        out.append(yo)
    return xo, tuple(out)


def display_histogram(hist, period_ms: float, bins: int = HIST_DISPLAY_BINS):
    """The fixed-bin interval histogram regrouped for display, as ``(edges, counts)`` float64
    (None, None when it is empty): from 0 to the larger of 3 periods and 1.1 x the 99.5th
    percentile (at most 200 ms), in whole groups of 0.1 ms bins, every longer interval in the
    last bin."""
    hist = np.asarray(hist, dtype=np.int64)
    total = int(hist.sum())
    if total == 0:
        return None, None
    rank = math.ceil(0.995 * total)
    k = int(np.searchsorted(np.cumsum(hist), rank))          # the bin holding that interval
    p995 = (k + 1) * HIST_BIN_MS
    top = min(HIST_MAX_MS, max(3.0 * period_ms, 1.1 * p995))
    fine = max(1, math.ceil(top / HIST_BIN_MS - 1e-9))
    group = max(1, math.ceil(fine / bins))
    n = math.ceil(fine / group)
    padded = np.zeros(n * group, np.int64)
    used = min(n * group, HIST_BINS)
    padded[:used] = hist[:used]
    counts = padded.reshape(n, group).sum(axis=1)
    counts[-1] += int(hist[used:].sum())
    edges = np.arange(n + 1, dtype=np.float64) * (group * HIST_BIN_MS)
    return edges, counts.astype(np.float64)
