"""What a refresh of the live timing figures costs after a long run: rows of figures for
``testcard bench timing`` (nothing here passes or fails), and the synthetic run it feeds.

A refresh is what the GUI does a few times a second: copy the timeline's recent rows on the GUI
thread (:func:`timeline_columns`), then compute :func:`timing_view` on a worker: the recent
statistics and the dock's plot and histogram data.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable

import numpy as np

from core.timing.stats import frame_stats
from core.timing.timeline import Timeline
from core.timing.view import display_histogram, plot_data, timeline_columns, timing_view

DURATIONS_S = (60, 3600, 86400)
DROP_EVERY = 1000          # the synthetic display misses one vsync every this many frames


def synthetic_frames(start: int, count: int, rate_hz: float = 60.0, seed: int = 0) -> dict:
    """Frames ``start .. start + count`` of a synthetic run at ``rate_hz``: presents on the
    vblank grid with 0.2 ms of jitter, one missed vsync every :data:`DROP_EVERY` frames, and
    render costs of 2 to 2.5 ms; keyword arguments for :meth:`Timeline.extend`."""
    i = np.arange(start, start + count, dtype=np.int64)
    rng = np.random.default_rng([seed, start])
    slots = i + (i + 1) // DROP_EVERY
    jitter = np.clip(rng.normal(0.0, 0.2e-3, count), -1e-3, 1e-3)
    return {"index": i, "present_s": slots / rate_hz + jitter,
            "render_ms": 2.0 + 0.5 * rng.random(count), "transfer_ms": 0.2, "upload_ms": 0.4,
            "present_ms": 1.0, "path": "numpy"}


def feed(timeline: Timeline, frames: int, rate_hz: float = 60.0, chunk: int = 36_000) -> None:
    """Extend ``timeline`` with the next ``frames`` synthetic frames, ``chunk`` at a time."""
    end = timeline.total + frames
    while timeline.total < end:
        n = min(chunk, end - timeline.total)
        timeline.extend(**synthetic_frames(timeline.total, n, rate_hz))


def _label(seconds: float) -> str:
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{seconds // 3600:.0f} h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds // 60:.0f} min"
    return f"{seconds:g} s"


def _median_ms(fn, repeats: int, clock) -> float:
    times = []
    for _ in range(repeats):
        t0 = clock()
        fn()
        times.append((clock() - t0) * 1e3)
    return round(statistics.median(times), 3)


def bench_timing(durations_s=DURATIONS_S, rate_hz: float = 60.0, window_s: float = 600.0,
                 repeats: int = 15, appends: int = 2000,
                 progress: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> list[dict]:
    """One row per run length: the refresh's cost (medians of ``repeats``) and the memory held.

    Columns: ``frames`` since start, ``rows_held`` and ``memory_mib`` (the timeline's arrays),
    ``samples`` (rows the refresh computes over) and ``points`` (what the plot draws),
    ``copy_ms`` (GUI thread), ``view_ms`` (the whole worker computation) split into
    ``stats_ms`` (recent statistics) and ``plot_ms`` (the dock's data: plot series and
    histogram), and ``append_us`` (one frame recorded by the loop, per frame).
    """
    if not (math.isfinite(rate_hz) and rate_hz > 0):
        raise ValueError(f"rate_hz must be a positive number, got {rate_hz!r}")
    step = progress or (lambda note: None)
    period = 1000.0 / rate_hz
    tl = Timeline(period_ms=period)
    rows = []
    for seconds in sorted(durations_s):
        label = _label(seconds)
        step(f"feeding {label}")
        # the last frames through the loop's own per-frame call, timed
        feed(tl, max(0, round(seconds * rate_hz) - tl.total - appends), rate_hz)
        more = synthetic_frames(tl.total, max(0, round(seconds * rate_hz) - tl.total), rate_hz)
        t0 = clock()
        for k in range(len(more["index"])):
            tl.append(int(more["index"][k]), float(more["present_s"][k]), float(more["render_ms"][k]),
                      0.2, 0.4, 1.0, "numpy")
        append_us = (clock() - t0) * 1e6 / max(1, len(more["index"]))
        step(f"refreshing after {label}")
        rows.append({"run": label, "frames": tl.total, "rows_held": len(tl),
                     "memory_mib": round(tl.nbytes / 2**20, 2),
                     **_refresh_costs(tl, period, window_s, repeats, clock),
                     "append_us": round(append_us, 2)})
    return rows


def _refresh_costs(tl: Timeline, period: float, window_s: float, repeats: int, clock) -> dict:
    cols = timeline_columns(tl)
    present, render, transfer, warmup, totals = cols
    view = timing_view(*cols, period, window_s)
    return {
        "samples": view["samples"], "points": view["points"],
        "copy_ms": _median_ms(lambda: timeline_columns(tl), repeats, clock),
        "view_ms": _median_ms(lambda: timing_view(*cols, period, window_s), repeats, clock),
        "stats_ms": _median_ms(lambda: frame_stats(present, period, render_ms=render,
                                                   transfer_ms=transfer, warmup=warmup),
                               repeats, clock),
        "plot_ms": _median_ms(lambda: (plot_data(present, render, period, window_s),
                                       display_histogram(totals.hist, period)), repeats, clock),
    }
