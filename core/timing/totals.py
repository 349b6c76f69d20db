"""Running totals of a live run: what the timing view reports "since start", O(1) per frame.

A run may last a day, so nothing here grows with it: a handful of numbers and one fixed-bin
histogram of present intervals (0.1 ms bins up to 200 ms, one more bin for every longer
interval).  The rules are those of :func:`core.timing.frame_stats` with a warm-up mask: a
warm-up frame is counted apart, an interval counts when both of its frames count, it is late
above 1.5 periods and missed ``round(interval / period) - 1`` vsyncs (halves up).  The period is
the one in force when the frame arrived (:meth:`RunningTotals.set_period`).

:meth:`RunningTotals.add` (one frame, plain Python) and :meth:`RunningTotals.extend` (a batch,
numpy) give identical results for the same frames, however they are split.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from core.timing.stats import LATE_FACTOR, late_mask, missed_vsyncs

HIST_BIN_MS = 0.1
HIST_BINS = 2000                       # 0 .. 200 ms; index HIST_BINS counts everything longer
HIST_MAX_MS = HIST_BIN_MS * HIST_BINS


def check_period(period_ms) -> float:
    period = float(period_ms)
    if not (math.isfinite(period) and period > 0):
        raise ValueError(f"period_ms must be a positive number of ms, got {period_ms!r}")
    return period


def hist_bins(intervals_ms) -> np.ndarray:
    """The fixed histogram's bin of each interval (negative ones in bin 0, long ones in the last)."""
    iv = np.asarray(intervals_ms, dtype=np.float64)
    return np.clip(iv / HIST_BIN_MS, 0.0, float(HIST_BINS)).astype(np.int64)


def _hist_bin(iv: float) -> int:
    # the scalar twin of hist_bins: the same division, clip and truncation
    return int(min(max(iv / HIST_BIN_MS, 0.0), float(HIST_BINS)))


@dataclass
class RunningTotals:
    """Totals since the start (or the last :meth:`clear`) of a run of presented frames."""

    period_ms: float = 1000.0 / 60.0
    frames: int = 0                    # counted frames (not warm-up)
    warmup: int = 0                    # warm-up frames, counted apart
    intervals: int = 0                 # counted intervals
    late: int = 0
    missed_vsyncs: int = 0
    interval_min_ms: float = math.inf
    interval_max_ms: float = -math.inf
    render_max_ms: float = -math.inf
    first_s: float | None = None
    last_s: float | None = None
    hist: np.ndarray = field(default_factory=lambda: np.zeros(HIST_BINS + 1, np.int64))
    _prev_warm: bool = True

    def __post_init__(self):
        self.period_ms = check_period(self.period_ms)

    def set_period(self, period_ms: float) -> None:
        """Judge later frames against ``period_ms``; frames already counted keep their verdict."""
        self.period_ms = check_period(period_ms)

    def clear(self) -> None:
        # every field back to its default; RunningTotals is never subclassed, so this
        # __init__ is the dataclass's own
        self.__init__(self.period_ms)  # type: ignore[misc]

    def copy(self) -> RunningTotals:
        out = RunningTotals(self.period_ms)
        out.__dict__.update({k: v for k, v in self.__dict__.items() if k != "hist"})
        out.hist = self.hist.copy()
        return out

    @property
    def nbytes(self) -> int:
        return int(self.hist.nbytes)

    def add(self, present_s: float, render_ms: float, warmup: bool) -> None:
        """One frame (plain Python: a few operations, nothing allocated)."""
        warm = bool(warmup)
        last = self.last_s
        if last is not None and not warm and not self._prev_warm:
            iv = (present_s - last) * 1e3
            self.intervals += 1
            if iv < self.interval_min_ms:
                self.interval_min_ms = iv
            if iv > self.interval_max_ms:
                self.interval_max_ms = iv
            period = self.period_ms
            if iv > LATE_FACTOR * period:
                self.late += 1
                self.missed_vsyncs += math.floor(iv / period + 0.5) - 1
            self.hist[_hist_bin(iv)] += 1
        if warm:
            self.warmup += 1
        else:
            self.frames += 1
            if render_ms > self.render_max_ms:
                self.render_max_ms = float(render_ms)
        if self.first_s is None:
            self.first_s = float(present_s)
        self.last_s = float(present_s)
        self._prev_warm = warm

    def extend(self, present_s, render_ms, warmup) -> None:
        """A batch of frames (numpy arrays of one length): the same totals as :meth:`add` per frame."""
        t = np.asarray(present_s, dtype=np.float64).ravel()
        if t.size == 0:
            return
        render = np.asarray(render_ms, dtype=np.float64).ravel()
        warm = np.asarray(warmup, dtype=bool).ravel()
        if self.last_s is None:
            full_t, full_warm = t, warm
        else:
            full_t = np.concatenate([[self.last_s], t])
            full_warm = np.concatenate([[self._prev_warm], warm])
        if full_t.size > 1:
            keep = ~full_warm[1:] & ~full_warm[:-1]
            iv = (np.diff(full_t) * 1e3)[keep]
            if iv.size:
                self.intervals += int(iv.size)
                self.interval_min_ms = min(self.interval_min_ms, float(iv.min()))
                self.interval_max_ms = max(self.interval_max_ms, float(iv.max()))
                self.late += int(late_mask(iv, self.period_ms).sum())
                self.missed_vsyncs += missed_vsyncs(iv, self.period_ms)
                self.hist += np.bincount(hist_bins(iv), minlength=HIST_BINS + 1)
        counted = render[~warm]
        self.warmup += int(warm.sum())
        self.frames += int(counted.size)
        finite = counted[~np.isnan(counted)]
        if finite.size:
            self.render_max_ms = max(self.render_max_ms, float(finite.max()))
        if self.first_s is None:
            self.first_s = float(t[0])
        self.last_s = float(t[-1])
        self._prev_warm = bool(warm[-1])

    def figures(self) -> dict:
        """The totals as plain numbers (None where nothing was counted yet)."""
        def known(v):
            return None if math.isinf(v) else v

        span = (self.last_s - self.first_s) if self.first_s is not None and self.last_s is not None else None
        return {"frames": self.frames, "warmup": self.warmup, "intervals": self.intervals,
                "late": self.late, "missed_vsyncs": self.missed_vsyncs,
                "interval_min_ms": known(self.interval_min_ms),
                "interval_max_ms": known(self.interval_max_ms),
                "render_max_ms": known(self.render_max_ms), "span_s": span,
                "period_ms": self.period_ms}

    def __eq__(self, other) -> bool:
        if not isinstance(other, RunningTotals):
            return NotImplemented
        mine = {k: v for k, v in self.__dict__.items() if k != "hist"}
        theirs = {k: v for k, v in other.__dict__.items() if k != "hist"}
        return mine == theirs and np.array_equal(self.hist, other.hist)
