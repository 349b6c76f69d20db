"""The latency join's vocabulary: the present log, the capture log, corrections, and the small
figures the report is made of (:mod:`core.decode.latency` joins them).

The present log may carry clock pairs (:class:`core.timing.clocks.ClockPair`: the wall clock
read around the present clock while testcard presented), with which a capture stamped by the
wall clock is put on the present log's clock (:mod:`core.decode.latency_clock`).  How the
capture's timestamps were placed is a :class:`ClockCorrection`, listed first among the report's
``corrections``: it is applied to the capture's timestamps before the join, so it is in
``latency_ms`` and ``uncorrected_latency_ms`` alike; a :class:`Correction` is a constant added
to every latency afterwards (in ``latency_ms`` only, summed in ``corrections_total_ms``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.timing import ClockPair


@dataclass(frozen=True)
class PresentLog:
    """Frame indices testcard presented and when (CLOCK_MONOTONIC seconds), in present order."""

    index: np.ndarray
    t_s: np.ndarray
    clock_pairs: tuple[ClockPair, ...] = ()   # wall clock / present clock readings, if recorded

    def __post_init__(self):
        idx = np.asarray(self.index, dtype=np.int64).ravel()
        t = np.asarray(self.t_s, dtype=np.float64).ravel()
        if idx.shape != t.shape:
            raise ValueError(f"the present log has {idx.size} indices for {t.size} times")
        if not np.isfinite(t).all():
            raise ValueError("the present log's times must be finite seconds")
        object.__setattr__(self, "index", idx)
        object.__setattr__(self, "t_s", t)
        pairs = tuple(ClockPair(*map(float, p)) for p in self.clock_pairs)
        if not all(math.isfinite(x) for p in pairs for x in p) or any(p.uncertainty_s < 0 for p in pairs):
            raise ValueError("the present log's clock pairs must be finite seconds, uncertainty >= 0")
        object.__setattr__(self, "clock_pairs", pairs)

    def __len__(self) -> int:
        return int(self.index.size)

    @classmethod
    def from_snapshot(cls, snap) -> PresentLog:
        """From a :class:`core.timing.TimelineSnapshot`; rows whose render failed are left out."""
        keep = np.ones(len(snap), bool)
        for row in snap.errors:
            keep[row] = False
        return cls(np.asarray(snap.index)[keep], np.asarray(snap.present_s)[keep],
                   tuple(p for _, p in snap.clock_pairs))


@dataclass(frozen=True)
class CaptureSample:
    """One capture: ``t_s`` (CLOCK_MONOTONIC seconds), ``status`` (``ok``, ``torn``,
    ``undecodable``, ``unreadable``), ``indices`` (the distinct counter values it shows, top
    first), ``bands`` (per robust band, top to bottom, its value or None; empty when unknown),
    ``lost_before`` (capture frames lost just before it)."""

    t_s: float
    status: str
    indices: tuple[int, ...] = ()
    bands: tuple[int | None, ...] = ()
    lost_before: int = 0

    @property
    def index(self) -> int | None:
        return self.indices[0] if self.indices else None


@dataclass(frozen=True)
class CaptureLog:
    """The captures of a run.  ``band_y``: each band's data row as a fraction of the capture's
    height (scan position); ``rate_hz``: the capture rate if known (else measured);
    ``clock``: what ``t_s`` is on; ``mapping``: the wall-clock mapping used, if any;
    ``placed``: how a recording's timestamps were put on the present log's clock, if they were."""

    samples: Sequence[CaptureSample]
    modulus: int
    band_y: tuple[float, ...] = ()
    rate_hz: float | None = None
    clock: str = "monotonic"
    mapping: dict | None = None
    capture_drops: int | None = None     # when None: the sum of the samples' lost_before
    placed: ClockCorrection | None = None


@dataclass(frozen=True)
class Correction:
    """A constant added to every latency (milliseconds; negative to subtract), and why."""

    name: str
    ms: float
    why: str = ""

    def __post_init__(self):
        if not self.name:
            raise ValueError("a correction needs a name")
        if isinstance(self.ms, bool) or not isinstance(self.ms, int | float) or not math.isfinite(self.ms):
            raise ValueError(f"correction {self.name!r} must be a finite number of ms, got {self.ms!r}")

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": "constant", "ms": round(float(self.ms), 4), "why": self.why}


@dataclass(frozen=True)
class ClockCorrection:
    """How a capture's timestamps were put on the present log's clock, before the join.

    ``clock``: what they were on (``monotonic``: already the present clock; ``realtime``: the
    wall clock, mapped through the present log's clock pairs; ``offset``: shifted by the user's
    ``--capture-offset-s``).  ``offset_s``: seconds added to them (the median, when the mapping
    follows drift); ``uncertainty_ms``: the widest error bound of the mapping over the samples
    (None: unknown, a user's offset); ``pairs``: clock pairs used; ``steps``: jumps of the wall
    clock between pairs (near one, the nearest pair's offset is used, and the uncertainty is the
    jump)."""

    clock: str
    offset_s: float
    uncertainty_ms: float | None
    why: str
    pairs: int = 0
    steps: int = 0
    offset_span_s: float = 0.0          # how far the offset moved over the capture

    def to_dict(self) -> dict:
        return {"name": "capture clock", "kind": "clock", "clock": self.clock,
                "applied_to": "capture timestamps, before the join (in latency_ms and "
                              "uncorrected_latency_ms alike)",
                "offset_s": round(float(self.offset_s), 6),
                "offset_span_ms": round(float(self.offset_span_s) * 1e3, 4),
                "uncertainty_ms": None if self.uncertainty_ms is None else round(self.uncertainty_ms, 4),
                "clock_pairs": self.pairs, "steps": self.steps, "why": self.why}


def end_of_frame_correction(capture_rate_hz: float) -> Correction:
    """The capture stamps a frame when it is complete, not when its exposure (or scan) began:
    the light it shows was sampled up to one capture period earlier.  Subtracts one period."""
    rate = capture_rate_hz
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not math.isfinite(rate) or rate <= 0:
        raise ValueError(f"capture rate must be above 0 frames/s, got {capture_rate_hz!r}")
    return Correction("capture end-of-frame timestamp", -1000.0 / capture_rate_hz,
                      "timestamps mark the end of each capture frame; its exposure began one "
                      "capture period earlier")


MAX_OFFSET_MS = 10_000.0     # a capture chain ten seconds late is no capture chain


def offset_correction(ms: float) -> Correction:
    """The capture chain's own latency (measured once by looping the output straight into the
    capture), subtracted from every sample: a finite number of milliseconds within
    +-:data:`MAX_OFFSET_MS` (beyond, every figure of the report would be the offset's)."""
    if isinstance(ms, bool) or not isinstance(ms, int | float) or not math.isfinite(ms) \
            or abs(ms) > MAX_OFFSET_MS:
        raise ValueError(f"--offset-ms must be a finite number of milliseconds from "
                         f"-{MAX_OFFSET_MS:g} to {MAX_OFFSET_MS:g}, got {ms!r}")
    return Correction("capture chain offset", -float(ms),
                      "the capture chain's own latency, entered by the user")


def latency_stats(values_ms) -> dict:
    """n, min, p5, median, mean, p95, p99, max and sd (sample, n-1) of latencies in ms; the
    figures are None when there are none (sd when fewer than two)."""
    v = np.asarray(values_ms, dtype=np.float64)
    v = v[np.isfinite(v)]
    keys = ("min", "p5", "median", "mean", "p95", "p99", "max", "sd")
    if v.size == 0:
        return {"n": 0, **{k: None for k in keys}}
    p5, p50, p95, p99 = np.percentile(v, [5, 50, 95, 99])
    sd = float(np.std(v, ddof=1)) if v.size > 1 else None
    figures = (v.min(), p5, p50, v.mean(), p95, p99, v.max(), sd)
    return {"n": int(v.size), **{k: None if x is None else round(float(x), 4)
                                 for k, x in zip(keys, figures, strict=True)}}


def band_names(count: int) -> list[str]:
    """top / middle / bottom for the robust panel's bands (``band N`` for the others)."""
    names = [f"band {i}" for i in range(count)]
    if count >= 1:
        names[0] = "top"
    if count >= 2:
        names[-1] = "bottom"
    if count >= 3:
        names[count // 2] = "middle"
    return names



def precision_note(rate_hz: float | None) -> str:
    if not rate_hz:
        return "capture rate unknown: each sample is quantised to the capture period"
    period = 1000.0 / rate_hz
    return (f"each sample is quantised to the capture period ({period:.2f} ms at {rate_hz:.2f} Hz): a "
            "frame is seen at the first capture after it reaches the screen, up to one period late. "
            "A free-running capture's phase wanders, so the error averages below one period (about "
            "half); a capture genlocked to the display keeps one phase and can bias every sample by "
            "up to a frame.  Capture faster than the display to tighten it.")


