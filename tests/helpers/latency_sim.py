"""A synthetic display and capture for the latency join: everything known, nothing rendered.

testcard presents index ``p`` at ``present[p]``; the display shows it from ``present[p] +
latency[p]`` (its onset) until the next shown index's onset, scanning out top to bottom over
``scan_s`` (band ``b`` at scan position ``y`` changes ``y * scan_s`` after the onset).  A
capture at time ``t`` sees, in each band, the last index whose band onset is at or before ``t``.
Drops are indices never shown; a repeat holds an index one period longer, delaying every later
onset (so later latencies grow by a period).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.decode.latency import CaptureLog, CaptureSample, PresentLog
from core.timing.clocks import ClockPair

BAND_Y = (0.2, 0.5, 0.8)


@dataclass
class Run:
    frames: int = 240
    display_hz: float = 60.0
    capture_hz: float = 240.0
    latency_s: object = 0.030          # a number, or one per frame
    phase_s: float = 0.0               # first capture after the first present
    t0: float = 1000.0
    drops: tuple = ()
    repeats: tuple = ()
    scan_s: float = 0.0
    modulus: int = 1 << 16
    first_index: int = 0
    present_jitter_s: float = 0.0
    seed: int = 0
    capture_until_s: float = 0.25      # captures run on this long after the last present
    truth: dict = field(default_factory=dict)

    def present_times(self) -> np.ndarray:
        rng = np.random.default_rng(self.seed)
        d = 1.0 / self.display_hz
        base = self.t0 + np.arange(self.frames) * d
        if self.present_jitter_s:
            base = base + rng.uniform(0, self.present_jitter_s, self.frames)
        return base

    def onsets(self) -> np.ndarray:
        """When each frame reaches the top of the screen (NaN: dropped)."""
        d = 1.0 / self.display_hz
        lat = np.broadcast_to(np.asarray(self.latency_s, np.float64), (self.frames,))
        on = self.present_times() + lat
        held = np.zeros(self.frames)
        for r in self.repeats:
            held[r + 1:] += d
        on = on + held
        on[list(self.drops)] = np.nan
        shown = on[~np.isnan(on)]
        if (np.diff(shown) <= 0).any():
            raise ValueError("frames would reach the screen out of order: not a display")
        return on

    def build(self) -> tuple[PresentLog, CaptureLog]:
        index = self.first_index + np.arange(self.frames)
        pres = self.present_times()
        on = self.onsets()
        shown = ~np.isnan(on)
        self.truth = {"latency_s": dict(zip(index[shown].tolist(), (on - pres)[shown].tolist(), strict=True))}
        order = np.flatnonzero(shown)
        tc = 1.0 / self.capture_hz
        times = np.arange(pres[0] + self.phase_s, pres[-1] + self.capture_until_s, tc)
        samples = []
        for t in times:
            vals = []
            for y in BAND_Y:
                k = np.searchsorted(on[order] + y * self.scan_s, t, side="right") - 1
                vals.append(None if k < 0 else int(index[order[k]]) % self.modulus)
            samples.append(sample(float(t), vals))
        return PresentLog(index, pres), CaptureLog(samples, self.modulus, BAND_Y, self.capture_hz)


def sample(t: float, bands, lost_before: int = 0) -> CaptureSample:
    """A capture showing ``bands`` (top to bottom; None: nothing there yet)."""
    seen = [v for v in bands if v is not None]
    if not seen:
        return CaptureSample(t, "undecodable", (), tuple(bands), lost_before)
    distinct = tuple(dict.fromkeys(seen))
    return CaptureSample(t, "torn" if len(distinct) > 1 else "ok", distinct, tuple(bands), lost_before)


def wall_clock(present: PresentLog, captures: CaptureLog, *, offset_s: float = 1.7e9,
               slew_ppm: float = 0.0, every_s: float = 2.0, uncertainty_s: float = 1e-6,
               step_at_s: float | None = None, step_s: float = 0.0):
    """The same run with the wall clock beside the present clock: wall = monotonic + offset,
    the offset slewing ``slew_ppm`` and jumping ``step_s`` at monotonic ``step_at_s``.  Returns
    the present log with clock pairs every ``every_s`` over the presents (and one at each end),
    the captures stamped by the wall clock, and the wall clock as a function."""

    def wall(m):
        m = np.asarray(m, np.float64)
        jump = 0.0 if step_at_s is None else np.where(m >= step_at_s, step_s, 0.0)
        return m + offset_s + (m - present.t_s[0]) * slew_ppm * 1e-6 + jump

    at = np.arange(present.t_s[0], present.t_s[-1], every_s).tolist() + [float(present.t_s[-1])]
    pairs = tuple(ClockPair(float(wall(m)), float(m), uncertainty_s) for m in at)
    stamped = [CaptureSample(float(wall(s.t_s)), s.status, s.indices, s.bands, s.lost_before)
               for s in captures.samples]
    return (PresentLog(present.index, present.t_s, pairs),
            CaptureLog(stamped, captures.modulus, captures.band_y, captures.rate_hz), wall)
