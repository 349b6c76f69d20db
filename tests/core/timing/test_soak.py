"""A day at 60 Hz (5.2 M frames) fed through the timeline: memory and a refresh's work are the
same after 1 h and after 24 h (sizes and counts, never wall-clock times).

The frames go in by ``Timeline.extend`` in ten-minute chunks (test_timeline proves it leaves
exactly what per-frame appends leave); the last frames of each stretch go through ``append``.
"""

import numpy as np

from core.timing import Timeline, timeline_columns, timing_view
from core.timing.bench import DROP_EVERY, feed, synthetic_frames
from core.timing.view import PLOT_COLUMNS

RATE = 60.0
PERIOD = 1000.0 / RATE
HOUR = round(3600 * RATE)


def _append_tail(tl, n):
    f = synthetic_frames(tl.total, n, RATE)
    for k in range(n):
        tl.append(int(f["index"][k]), float(f["present_s"][k]), float(f["render_ms"][k]),
                  0.2, 0.4, 1.0, "numpy", error="boom" if k % 7 == 0 else None)


def _footprint(tl):
    """Everything a refresh touches and everything the timeline holds, as sizes and counts."""
    cols = timeline_columns(tl)
    view = timing_view(*cols, PERIOD, 600.0)
    arrays = {k: v.size for k, v in view.items() if isinstance(v, np.ndarray)}
    return {
        "nbytes": tl.nbytes, "rows": len(tl), "capacity": tl.capacity,
        "errors_held": len(tl._errors), "paths": len(tl._path_names),
        "copied_bytes": sum(c.nbytes for c in cols[:4]) + cols[4].nbytes,
        "samples": view["samples"], "points": view["points"], "view_arrays": arrays,
    }, view


def test_a_day_costs_what_an_hour_costs():
    tl = Timeline(period_ms=PERIOD)
    feed(tl, HOUR - 1000, RATE)
    _append_tail(tl, 1000)
    after_hour, view_hour = _footprint(tl)
    feed(tl, 23 * HOUR - 1000, RATE)
    _append_tail(tl, 1000)
    after_day, view_day = _footprint(tl)

    assert tl.total == 24 * HOUR == 5_184_000
    assert after_day == after_hour
    # bounded, not merely equal: ten minutes at 60 Hz (plus margin), a plot of bounded points
    assert after_day["rows"] == tl.capacity == 45_000 and after_day["nbytes"] < 3 * 2**20
    assert after_day["samples"] == 45_000 and after_day["points"] <= 2 * PLOT_COLUMNS
    assert after_day["errors_held"] <= tl.capacity
    # and the since-start figures still cover the whole day, exactly
    since = view_day["since_start"]
    assert since["frames"] == 24 * HOUR and since["warmup"] == 0
    assert since["late"] == since["missed_vsyncs"] == 24 * HOUR // DROP_EVERY
    assert view_hour["since_start"]["late"] == HOUR // DROP_EVERY
    assert view_day["counts"].sum() == 24 * HOUR - 1
    assert since["span_s"] > 24 * 3600 - 1
    # the recent figures cover the last rows only: the same shape of numbers either way
    assert view_day["stats"]["frames"] == view_hour["stats"]["frames"] == 45_000
