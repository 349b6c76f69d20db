"""Do presents wait for the vblank?  A verdict from a run of present timestamps (pure: the
Qt side collects them from a presenter asked to present again as soon as each present lands).

The judgement is the frame loop's own (:class:`core.timing.PacingMonitor`: swaps returning far
faster than the period, or landing off the vblank grid, are not vsync), so the doctor says what
the live loop will do: ``vsync-locked`` (presents paced by the display) or ``timer-paced, no
vsync`` (the loop paces itself by a timer, and the timing view measures that timer).  The
figures: median interval, its spread, the fraction within tolerance of the refresh period, and
the late frames (Psychtoolbox's rule, :func:`core.timing.late_mask`) over the run.
"""

from __future__ import annotations

import numpy as np

from core.doctor.check import FAIL, OK, WARNING, Check
from core.timing import TIMER, PacingMonitor, late_mask, missed_vsyncs, summary

VSYNC_LOCKED = "vsync-locked"
TIMER_PACED = "timer-paced, no vsync"
WHY = "only presents that wait for the vblank reach the screen once each, on the refresh"
MIN_INTERVALS = 30


def tolerance_ms(period_ms: float) -> float:
    """How far an interval may be from one period and still count as on it (the monitor's own)."""
    mon = PacingMonitor(period_ms)
    return max(mon.tolerance_ms, mon.tolerance * period_ms)


def judge_presents(present_s, period_ms: float, name: str = "presents") -> Check:
    """The verdict on presents at ``present_s`` (seconds, one per present, free-running) against a
    screen of ``period_ms``.  Too few presents to judge is a ``fail`` (the surface did not
    present)."""
    t = np.asarray(present_s, dtype=np.float64).ravel()
    mon = PacingMonitor(period_ms)
    for ts in t:
        mon.observe(float(ts))
    iv = np.diff(t[mon.skip:]) * 1e3 if t.size > mon.skip + 1 else np.zeros(0)
    if iv.size < MIN_INTERVALS:
        return Check("surface", name, FAIL, f"only {t.size} presents arrived", WHY,
                     "the surface stopped presenting before the run could be judged",
                     {"presents": int(t.size), "period_ms": period_ms})
    s = summary(iv)
    assert s is not None   # at least MIN_INTERVALS intervals
    tol = tolerance_ms(period_ms)
    within = float(np.mean(np.abs(iv - period_ms) <= tol))
    late = int(late_mask(iv, period_ms).sum())
    data = {"presents": int(t.size), "intervals": int(iv.size), "period_ms": round(period_ms, 3),
            "median_ms": round(s["p50"], 3), "sd_ms": round(s["sd"], 3),
            "p5_ms": round(float(np.percentile(iv, 5)), 3), "p95_ms": round(s["p95"], 3),
            "within_tolerance": round(within, 3), "tolerance_ms": round(tol, 3), "late": late,
            "missed_vsyncs": missed_vsyncs(iv, period_ms)}
    figures = (f"median {s['p50']:.2f} ms (sd {s['sd']:.2f}) against {period_ms:.2f} ms, "
               f"{within:.0%} within {tol:.1f} ms, {late} late of {iv.size}")
    if mon.mode == TIMER:
        data["pacing"] = TIMER_PACED
        return Check("surface", name, WARNING, f"{TIMER_PACED}: {figures}", WHY, mon.reason, data)
    data["pacing"] = VSYNC_LOCKED
    verdict = OK if late == 0 else WARNING
    detail = "" if late == 0 else f"{late} presents missed a vblank ({data['missed_vsyncs']} vsyncs)"
    return Check("surface", name, verdict, f"{VSYNC_LOCKED}: {figures}", WHY, detail, data)


def no_vsync_surface(reason: str, name: str = "presents") -> Check:
    """A surface with no swap to wait on (the raster presenter, the offscreen platform)."""
    return Check("surface", name, WARNING, f"{TIMER_PACED}: {reason}", WHY,
                 "the live loop paces this surface by timer; its timing view measures that timer",
                 {"pacing": TIMER_PACED, "reason": reason})
