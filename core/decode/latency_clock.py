"""Which clock a recording's timestamps are on, and putting them on the present log's clock.

A present log is on testcard's present clock (CLOCK_MONOTONIC on Linux); a recording may be
stamped by

* the **monotonic** clock: a V4L2 device's kernel timestamps, kept by FFmpeg's ``-copyts``;
* the **wall clock** (CLOCK_REALTIME): FFmpeg's and PyAV's ``x11grab``, kept by ``-copyts``
  (or a V4L2 capture converted with ``-ts mono2abs``);
* **nothing**: times counted from the start of the recording, FFmpeg's default without
  ``-copyts`` (and what a constant-rate muxer writes).

:func:`place_capture` tries the clocks it can read the recording on -- as it is (monotonic),
and through the present log's clock pairs (wall clock) when the log has them -- and takes the
one that puts the captures over the presents (from the first present to :data:`MAX_LATENCY_S`
after the last).  A recording on no clock is refused with the FFmpeg flags that keep the
grabber's, since no offset can be recovered from it; a user's ``--capture-offset-s`` is taken
as given, recognising nothing.

Wall-clock times are mapped by the offset (wall minus monotonic) at their time: interpolated
between the two clock pairs around it (a wall clock slewed by NTP moves smoothly), the end
pairs' beyond them.  An offset that jumps between two pairs by more than
:data:`STEP_S` plus a slew of :data:`MAX_SLEW` (the wall clock was set) cannot be
interpolated: the nearer pair's offset is used and the jump is that sample's uncertainty.  A
time beyond the end pairs adds the most a slew could have moved it since (:data:`MAX_SLEW`).
(:class:`core.capture.clock.ClockMapping` does the same live, forgetting the readings before a
step; a recording is read whole afterwards, so the pairs on both sides of a step are kept.)
"""

from __future__ import annotations

import math

import numpy as np

from core.decode.latency_log import ClockCorrection, PresentLog

MAX_LATENCY_S = 2.0       # a recording starting later than this after the last present cannot join
RELATIVE_START_S = 60.0   # a recording whose times start within this of zero counts from its start
EPOCH_2001_S = 1e9        # wall-clock seconds are past this; a monotonic clock almost never is
STEP_S = 1e-3             # an offset moving more than this (plus slew) between pairs: a step
MAX_SLEW = 500e-6         # the fastest an NTP slew moves the wall clock (seconds per second)

KEEP_CLOCK_FLAGS = "-copyts -fps_mode passthrough"


def _pair_arrays(present: PresentLog) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pairs = sorted(present.clock_pairs, key=lambda p: p.monotonic_s)
    r = np.array([p.realtime_s for p in pairs], np.float64)
    m = np.array([p.monotonic_s for p in pairs], np.float64)
    u = np.array([p.uncertainty_s for p in pairs], np.float64)
    return r - m, m, u


def wall_to_present(present: PresentLog, realtime_s) -> tuple[np.ndarray, np.ndarray, int]:
    """Wall-clock seconds put on the present clock through the log's clock pairs: (times,
    per-time uncertainty in seconds, steps between pairs).  ``ValueError`` without pairs."""
    if not present.clock_pairs:
        raise ValueError("the present log has no clock pairs to map wall-clock times with")
    off, m, u = _pair_arrays(present)
    x = np.asarray(realtime_s, np.float64)
    gap = np.diff(m)
    jump = np.abs(np.diff(off))
    is_step = jump > STEP_S + MAX_SLEW * gap
    est = x - off[0]
    for _ in range(3):     # the offset depends (barely) on the time it is read at: settle it
        k = np.searchsorted(m, est, side="right")
        a = np.clip(k - 1, 0, len(m) - 1)
        b = np.clip(k, 0, len(m) - 1)
        span = m[b] - m[a]
        w = np.clip(np.divide(est - m[a], span, out=np.zeros_like(est), where=span > 0), 0.0, 1.0)
        step = np.zeros(x.shape, bool)
        inside = b > a
        step[inside] = is_step[a[inside]]
        near = np.where(w < 0.5, off[a], off[b])
        at = np.where(step, near, off[a] + w * (off[b] - off[a]))
        est = x - at
    # beyond the end pairs the wall clock may have slewed on unseen, at most MAX_SLEW
    beyond = np.maximum(0.0, np.maximum(m[0] - est, est - m[-1]))
    unc = np.maximum(u[a], u[b]) + np.where(step, np.abs(off[b] - off[a]), 0.0) + MAX_SLEW * beyond
    return est, unc, int(is_step.sum())


def _overlap(present: PresentLog, t: np.ndarray) -> float:
    """Seconds of the captures' span over the presents' (first present to MAX_LATENCY_S after
    the last); negative when they miss each other."""
    lo, hi = float(t.min()), float(t.max())
    p0, p1 = float(present.t_s.min()), float(present.t_s.max()) + MAX_LATENCY_S
    return min(hi, p1) - max(lo, p0)


def _span(t) -> str:
    return f"{float(np.min(t)):.3f}..{float(np.max(t)):.3f} s"


def place_capture(present: PresentLog, capture_t_s, offset_s: float | None = None
                  ) -> tuple[np.ndarray, ClockCorrection]:
    """The capture times on the present log's clock, and how they were put there (see the
    module's text).  ``ValueError`` (one sentence saying what to do) when they cannot be."""
    t = np.asarray(capture_t_s, np.float64)
    if t.size == 0 or len(present) == 0:
        raise ValueError("nothing to place: the capture or the present log is empty")
    if not np.isfinite(t).all():
        raise ValueError("the capture's timestamps must be finite seconds")
    p_span = _span(present.t_s)
    if offset_s is not None:
        placed = t + float(offset_s)
        if _overlap(present, placed) < 0:
            raise ValueError(f"the capture's timestamps plus --capture-offset-s {offset_s:g} "
                             f"({_span(placed)}) do not overlap the present log's ({p_span})")
        return placed, ClockCorrection("offset", float(offset_s), None,
                                       "--capture-offset-s, as given (the uncertainty is the user's)")
    options: list[tuple[float, str, np.ndarray, tuple[np.ndarray, int] | None]] = [
        (_overlap(present, t), "monotonic", t, None)]
    if present.clock_pairs:
        mapped, unc, steps = wall_to_present(present, t)
        options.append((_overlap(present, mapped), "realtime", mapped, (unc, steps)))
    fits = [o for o in options if o[0] >= 0]
    if not fits:
        raise ValueError(_refusal(present, t, p_span))
    _, clock, placed, extra = max(fits, key=lambda o: o[0])
    if clock == "monotonic":
        why = "the capture's timestamps are on the present log's clock (CLOCK_MONOTONIC)"
        if len(fits) > 1:
            why += "; they would fit the wall clock too (the two clocks are close): read as monotonic"
        return placed, ClockCorrection("monotonic", 0.0, 0.0, why)
    assert extra is not None   # only the monotonic reading carries none, and it returned above
    unc, steps = extra
    shift = placed - t
    return placed, ClockCorrection(
        "realtime", float(np.median(shift)), float(unc.max()) * 1e3,
        "the capture's timestamps are wall-clock (CLOCK_REALTIME) times: mapped onto CLOCK_MONOTONIC "
        "by the present log's clock pairs (interpolated between the pairs around each)",
        pairs=len(present.clock_pairs), steps=steps, offset_span_s=float(shift.max() - shift.min()))


def _refusal(present: PresentLog, t: np.ndarray, p_span: str) -> str:
    lo = float(t.min())
    if -1.0 <= lo < RELATIVE_START_S:
        return (f"the capture's timestamps start at {lo:.3f} s: they count from the start of the "
                "recording, on no clock the present log knows (FFmpeg rebases them so by default), "
                f"and no offset can be recovered from them; record again with `{KEEP_CLOCK_FLAGS}` "
                "before the output file (-copyts keeps x11grab's wall-clock and a V4L2 device's "
                "monotonic timestamps, -fps_mode passthrough keeps each grab's own time instead of "
                "a constant rate's padding), or give --capture-offset-s S if you know it")
    if not present.clock_pairs and lo > EPOCH_2001_S and math.isfinite(lo):
        return (f"the capture's timestamps ({_span(t)}) look like wall-clock times, and the present "
                f"log ({p_span}) has no clock pairs to map them with (it was written before testcard "
                "recorded the wall clock): record the present log again, or give --capture-offset-s")
    wall = ""
    if present.clock_pairs:
        mapped, _, _ = wall_to_present(present, t)
        wall = f", nor on its wall clock ({_span(mapped)} once mapped)"
    return (f"the capture's timestamps ({_span(t)}) do not overlap the present log's ({p_span}) on "
            f"its monotonic clock{wall}: the recording is of another run, or on another clock; give "
            "--capture-offset-s S to shift it onto the present log's clock")
