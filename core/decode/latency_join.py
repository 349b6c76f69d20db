"""The latency join: each presented index matched to the first capture showing it.

The rules (unwrapping a decoded counter value against the index on screen at the capture's
time, ``ahead`` frames of clock error allowed -- ``ahead`` indices, or what was presented within
``ahead`` display periods, whichever is more; matching each presented index to the FIRST
capture showing it, per band too; a decoded capture that matches nothing is unmatched) are
described with the report they feed, :mod:`core.decode.latency`, which re-exports these names.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

from core.decode.latency_log import CaptureLog, CaptureSample, PresentLog

AHEAD = 2                 # frames a capture may show above the index presented by its time
DECODED = ("ok", "torn")


@dataclass
class Presented:
    """The present log reduced to the first present of each index, and the index on screen by
    any time (the highest presented so far)."""

    idx: np.ndarray                 # distinct indices, ascending
    t: np.ndarray                   # first present time of each
    times: np.ndarray               # every present, in time order
    high: np.ndarray                # highest index presented up to each of them
    where: dict = field(default_factory=dict)

    @classmethod
    def of(cls, log: PresentLog) -> Presented:
        order = np.argsort(log.t_s, kind="stable")
        idx, t = log.index[order], log.t_s[order]
        uniq, first = np.unique(idx, return_index=True)
        p = cls(uniq, t[first], t, np.maximum.accumulate(idx) if idx.size else idx)
        p.where = {int(v): k for k, v in enumerate(uniq.tolist())}
        return p

    def on_screen(self, t_s: float) -> int:
        k = bisect.bisect_right(self.times, t_s) - 1
        return int(self.high[max(k, 0)])

    def lead(self, t_s: float, ahead: int, period: float | None) -> tuple[int, int]:
        """The index on screen at ``t_s``, and how many above it a capture stamped then may
        show: ``ahead`` indices, or all presented within ``ahead`` display periods after it
        where that is more (presents that came in a burst, late: a loaded box)."""
        ref = self.on_screen(t_s)
        top = ref + ahead
        if period is not None:
            top = max(top, self.on_screen(t_s + ahead * period))
        return ref, top - ref

    def period_s(self) -> float | None:
        """The display period: the median present interval per index step."""
        if self.idx.size < 2:
            return None
        steps = np.diff(self.t) / np.diff(self.idx)
        steps = steps[steps > 0]
        return float(np.median(steps)) if steps.size else None


def joinable(present: PresentLog, t1: float, ahead: int = AHEAD) -> PresentLog:
    """The presents up to ``t1`` (a capture log's last time) and those after it that a capture
    stamped by then may show (see :meth:`Presented.lead`): a capture may be stamped a little
    before the present of the frame it shows (a grab's time is read before the grab, a present's
    after its swap returns), and cut at ``t1`` such a frame would find no present."""
    during = present.t_s <= t1
    if not during.any():
        return PresentLog(present.index[:0], present.t_s[:0])
    p = Presented.of(present)
    ref, lead = p.lead(t1, ahead, p.period_s())
    keep = during | (present.index <= ref + lead)
    return PresentLog(present.index[keep], present.t_s[keep])


def unwrap_index(value: int, on_screen: int, modulus: int, ahead: int = AHEAD) -> int:
    """The index showing counter ``value`` nearest ``on_screen``: at most ``ahead`` above it."""
    ahead = max(0, min(ahead, modulus // 4))
    step = (int(value) - on_screen) % modulus
    if step > ahead:
        step -= modulus
    return on_screen + step


@dataclass
class Join:
    """What :func:`join` found: per distinct presented index (ascending, as ``Presented.idx``)
    the first capture showing it (``first_k`` sample number or -1, ``first_t``), the last
    (``last_k``), and per band the first time that band showed it (NaN: never)."""

    present: Presented
    samples: list[CaptureSample]
    first_k: np.ndarray
    first_t: np.ndarray
    last_k: np.ndarray
    band_t: np.ndarray              # (bands, indices)
    unmatched: np.ndarray           # per sample: decoded, but no value matched a presented index
    modulus: int


def join(present: PresentLog, captures: CaptureLog, *, ahead: int = AHEAD) -> Join:
    """Match every presented index to the first capture showing it (see :mod:`core.decode.latency`)."""
    modulus = int(captures.modulus)
    if modulus < 2:
        raise ValueError(f"counter modulus must be at least 2, got {modulus}")
    p = Presented.of(present)
    samples = sorted(captures.samples, key=lambda s: s.t_s)
    n = p.idx.size
    nb = max((len(s.bands) for s in samples), default=0)
    first_k = np.full(n, -1, np.int64)
    first_t = np.full(n, np.nan)
    last_k = np.full(n, -1, np.int64)
    band_t = np.full((nb, n), np.nan)
    unmatched = np.zeros(len(samples), bool)
    if n == 0:
        return Join(p, samples, first_k, first_t, last_k, band_t, unmatched, modulus)
    period = p.period_s()
    v: int | None   # a decoded index, or None where a band could not be read
    for k, s in enumerate(samples):
        if s.status not in DECODED:
            continue
        ref, lead = p.lead(s.t_s, ahead, period)
        values = set(s.indices) | {v for v in s.bands if v is not None}
        hit = False
        for v in values:
            j = p.where.get(unwrap_index(v, ref, modulus, lead))
            if j is None:
                continue
            hit = True
            if first_k[j] < 0:
                first_k[j], first_t[j] = k, s.t_s
            last_k[j] = k
        unmatched[k] = not hit
        for b, v in enumerate(s.bands):
            if v is None:
                continue
            j = p.where.get(unwrap_index(v, ref, modulus, lead))
            if j is not None and np.isnan(band_t[b, j]):
                band_t[b, j] = s.t_s
    return Join(p, samples, first_k, first_t, last_k, band_t, unmatched, modulus)
