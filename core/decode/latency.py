"""Glass-to-glass latency: testcard's present log joined to a capture log, frame by frame.

The present log says when testcard presented each frame index (CLOCK_MONOTONIC seconds: the
timeline's ``index`` and ``present_s``; the first present of an index counts).  The capture log
says when each capture was taken (on the same clock: a live wall-clock source already mapped,
see :mod:`core.capture.clock`; a recording placed by :mod:`core.decode.latency_clock`), what it
showed (the decoded counter, modulo ``2**bits``, per robust
band top to bottom), and how many capture frames were lost just before it.

* **unwrapping**: a decoded counter value is taken as the presented index with that value
  nearest below the index on screen at the capture's time (the last one presented by then),
  allowing ``ahead`` frames above it for clock error: the counter may wrap any number of times,
  but a latency of ``2**bits - ahead - 1`` frames or more cannot be told from a shorter one;
* **matching**: each presented index is matched to the FIRST capture showing it (in any band;
  per band, the first capture where that band shows it); its latency is that capture's time
  minus the index's present time.  A capture showing an index never presented near its time
  is an unmatched capture (content from before the run, or a misread), never a match;
* **display drops**: presented indices between two matched ones that no capture showed.  A
  capture of unknown content (undecodable, unmatched) or a capture frame lost by the source may
  each have shown one of them, so that many are counted as ``unseen_in_capture_gaps``, never as
  display drops (as :mod:`core.decode.sequence` does for gaps);
* **repeats**: a matched frame held on screen (from its first capture to the next matched
  frame's) longer than called for -- a display period per index step, or testcard's own present
  interval when that was longer -- by more than half a display period and at least a capture
  period; ``round(extra / period)`` repeats.  A hold across a dropped frame is the drop, counted
  once; a late present of testcard's own (in its present log) is not a repeat;
* **corrections** are constant offsets, each listed with its value and applied explicitly
  (``latency_ms`` is corrected, ``uncorrected_latency_ms`` is not): never folded in silently.
  How a recording's timestamps were put on the present clock is listed first among them
  (``kind`` ``clock``, with its uncertainty); it was applied before the join, to both figures.

Each sample is quantised to the capture period; the report states the capture rate and what
that means (``precision``).

Unwrapping, matching, drops and repeats stay in this one module because each reads the others'
results over the same two logs; the logs, corrections and small figures are
:mod:`core.decode.latency_log` (re-exported here).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from core.decode.latency_log import (
    CaptureLog,
    CaptureSample,
    ClockCorrection,
    Correction,
    PresentLog,
    band_names,
    end_of_frame_correction,
    latency_stats,
    offset_correction,
    precision_note,
)

AHEAD = 2                 # frames a capture may show above the index presented by its time
MAX_LISTED = 10_000       # dropped indices and events listed (more are counted)
DECODED = ("ok", "torn")

__all__ = ["AHEAD", "CaptureLog", "CaptureSample", "ClockCorrection", "Correction", "Join", "PresentLog",
           "band_names", "end_of_frame_correction", "join", "latency_report", "latency_stats",
           "offset_correction", "precision_note", "unwrap_index"]


@dataclass
class _Present:
    """The present log reduced to the first present of each index, and the index on screen by
    any time (the highest presented so far)."""

    idx: np.ndarray                 # distinct indices, ascending
    t: np.ndarray                   # first present time of each
    times: np.ndarray               # every present, in time order
    high: np.ndarray                # highest index presented up to each of them
    where: dict = field(default_factory=dict)

    @classmethod
    def of(cls, log: PresentLog) -> _Present:
        order = np.argsort(log.t_s, kind="stable")
        idx, t = log.index[order], log.t_s[order]
        uniq, first = np.unique(idx, return_index=True)
        p = cls(uniq, t[first], t, np.maximum.accumulate(idx) if idx.size else idx)
        p.where = {int(v): k for k, v in enumerate(uniq.tolist())}
        return p

    def on_screen(self, t_s: float) -> int:
        k = bisect.bisect_right(self.times, t_s) - 1
        return int(self.high[max(k, 0)])

    def period_s(self) -> float | None:
        """The display period: the median present interval per index step."""
        if self.idx.size < 2:
            return None
        steps = np.diff(self.t) / np.diff(self.idx)
        steps = steps[steps > 0]
        return float(np.median(steps)) if steps.size else None


def unwrap_index(value: int, on_screen: int, modulus: int, ahead: int = AHEAD) -> int:
    """The index showing counter ``value`` nearest ``on_screen``: at most ``ahead`` above it."""
    ahead = max(0, min(ahead, modulus // 4))
    step = (int(value) - on_screen) % modulus
    if step > ahead:
        step -= modulus
    return on_screen + step


def _capture_rate(log: CaptureLog) -> float | None:
    if log.rate_hz:
        return float(log.rate_hz)
    t = np.unique(np.asarray([s.t_s for s in log.samples], np.float64))
    d = np.diff(t)
    d = d[d > 0]
    return float(1.0 / np.median(d)) if d.size else None


@dataclass
class Join:
    """What :func:`join` found: per distinct presented index (ascending, as ``_Present.idx``)
    the first capture showing it (``first_k`` sample number or -1, ``first_t``), the last
    (``last_k``), and per band the first time that band showed it (NaN: never)."""

    present: _Present
    samples: list[CaptureSample]
    first_k: np.ndarray
    first_t: np.ndarray
    last_k: np.ndarray
    band_t: np.ndarray              # (bands, indices)
    unmatched: np.ndarray           # per sample: decoded, but no value matched a presented index
    modulus: int


def join(present: PresentLog, captures: CaptureLog, *, ahead: int = AHEAD) -> Join:
    """Match every presented index to the first capture showing it (see the module's text)."""
    modulus = int(captures.modulus)
    if modulus < 2:
        raise ValueError(f"counter modulus must be at least 2, got {modulus}")
    p = _Present.of(present)
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
    v: int | None   # a decoded index, or None where a band could not be read
    for k, s in enumerate(samples):
        if s.status not in DECODED:
            continue
        ref = p.on_screen(s.t_s)
        values = set(s.indices) | {v for v in s.bands if v is not None}
        hit = False
        for v in values:
            j = p.where.get(unwrap_index(v, ref, modulus, ahead))
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
            j = p.where.get(unwrap_index(v, ref, modulus, ahead))
            if j is not None and np.isnan(band_t[b, j]):
                band_t[b, j] = s.t_s
    return Join(p, samples, first_k, first_t, last_k, band_t, unmatched, modulus)


def latency_report(present: PresentLog, captures: CaptureLog, *,
                   corrections: Sequence[Correction] = (), ahead: int = AHEAD) -> dict:
    """The latency document (JSON-ready): counts, ``latency_ms`` statistics, per-band figures,
    corrections, precision, events and one row per presented index (``frames``)."""
    jn = join(present, captures, ahead=ahead)
    p, samples = jn.present, jn.samples
    shift_ms = float(sum(c.ms for c in corrections))
    raw_ms = (jn.first_t - p.t) * 1e3
    matched = jn.first_k >= 0
    rate = _capture_rate(captures)
    period = p.period_s()
    status = np.full(p.idx.size, "", dtype=object)
    events: list[dict] = []
    dropped: list[int] = []
    drops = hidden_total = repeats = 0

    # unknown content and lost capture frames, as prefix sums over the samples
    unknown = np.array([s.status not in DECODED for s in samples], bool) | jn.unmatched
    u_sum = np.concatenate([[0], np.cumsum(unknown)])
    l_sum = np.concatenate([[0], np.cumsum([int(s.lost_before) for s in samples])])
    m_pos = np.flatnonzero(matched)
    if m_pos.size:
        status[: m_pos[0]] = "before_capture"
        status[m_pos[-1] + 1:] = "after_capture"
        status[m_pos] = "matched"
    else:
        status[:] = "unmatched"
    threshold = None if period is None else max(0.5 * period, 1.0 / rate if rate else 0.0)
    for a, b in zip(m_pos[:-1], m_pos[1:], strict=True):
        missing = int(b - a - 1)
        if missing:
            i, j = int(jn.last_k[a]), int(jn.first_k[b])
            gap = int(u_sum[j] - u_sum[i + 1] + l_sum[j + 1] - l_sum[i + 1]) if j > i else 0
            hidden = min(missing, gap)
            hidden_total += hidden
            lost = missing - hidden
            drops += lost
            status[a + 1: b] = "dropped" if hidden == 0 else "unseen"
            after, before = int(p.idx[a]), int(p.idx[b])
            if lost:
                ev = {"kind": "drop", "after": after, "before": before, "count": lost,
                      "t_s": round(float(jn.first_t[b]), 6)}
                if hidden == 0 and len(dropped) < MAX_LISTED:
                    dropped.extend(int(v) for v in p.idx[a + 1: b])
                    ev["indices"] = [int(v) for v in p.idx[a + 1: b][:64]]
                events.append(ev)
            if hidden:
                events.append({"kind": "gap", "after": after, "before": before, "indices_unknown": hidden,
                               "capture_frames": gap, "t_s": round(float(jn.first_t[b]), 6)})
        # how long the screen held ``a``, against the longer of what the display's period and
        # testcard's own presents called for (a late present of testcard's is not a repeat)
        held = jn.first_t[b] - jn.first_t[a]
        extra = held - max((p.idx[b] - p.idx[a]) * period, p.t[b] - p.t[a]) if period else 0.0
        if threshold is not None and period is not None and extra > threshold:
            n_extra = max(1, round(extra / period))
            repeats += n_extra
            events.append({"kind": "repeat", "index": int(p.idx[a]), "extra": n_extra,
                           "held_ms": round(extra * 1e3, 3), "t_s": round(float(jn.first_t[a]), 6)})
    torn = 0
    for s in samples:
        if s.status == "torn":
            torn += 1
            if len(events) < MAX_LISTED:
                events.append({"kind": "torn", "indices": list(s.indices), "t_s": round(s.t_s, 6)})
    events.sort(key=lambda e: e["t_s"])
    del events[MAX_LISTED:]

    lat = raw_ms[matched] + shift_ms
    names = band_names(jn.band_t.shape[0])
    bands: dict[str, dict] = {}
    for b, name in enumerate(names):
        ms = (jn.band_t[b] - p.t) * 1e3 + shift_ms
        pos = captures.band_y[b] if b < len(captures.band_y) else None
        bands[name] = {"band": b, "position": None if pos is None else round(float(pos), 4),
                       "latency_ms": latency_stats(ms[np.isfinite(ms)])}
    scan = None
    if len(names) >= 2:
        d = (jn.band_t[-1] - jn.band_t[0]) * 1e3
        d = d[np.isfinite(d)]
        scan = round(float(np.median(d)), 4) if d.size else None
    capture_drops = captures.capture_drops if captures.capture_drops is not None else int(l_sum[-1])
    notes = []
    if captures.clock == "stream":
        notes.append("capture times are on the stream's own clock, not CLOCK_MONOTONIC: the "
                     "latencies carry an unknown constant offset")
    negative = int((lat < 0).sum())
    if negative:
        notes.append(f"{negative} latencies below zero: the capture saw a frame before testcard's "
                     "present returned (a present time is when the swap returned, which may come "
                     "after the picture is up), or the clocks disagree (a wall-clock source mapped "
                     "badly, a correction too large)")
    frames = []
    for j in range(p.idx.size):
        ok = bool(matched[j])
        frames.append({
            "index": int(p.idx[j]), "counter": int(p.idx[j]) % jn.modulus,
            "present_s": round(float(p.t[j]), 6),
            "capture_s": round(float(jn.first_t[j]), 6) if ok else None,
            "latency_ms": round(float(raw_ms[j] + shift_ms), 4) if ok else None,
            "bands_ms": [None if math.isnan(x) else round(float(x), 4)
                         for x in (jn.band_t[:, j] - p.t[j]) * 1e3 + shift_ms],
            "status": str(status[j])})
    in_span = int(m_pos[-1] - m_pos[0] + 1) if m_pos.size else 0
    return {
        "testcard_latency": 1,
        "presented": int(p.idx.size),
        "matched": int(matched.sum()),
        "matched_fraction": round(float(matched.mean()), 4) if p.idx.size else None,
        "comparable": in_span,
        "before_capture": int((status == "before_capture").sum()),
        "after_capture": int((status == "after_capture").sum()),
        "latency_ms": latency_stats(lat),
        "uncorrected_latency_ms": latency_stats(raw_ms[matched]),
        "corrections": ([captures.placed.to_dict()] if captures.placed else [])
                       + [c.to_dict() for c in corrections],
        "corrections_total_ms": round(shift_ms, 4),
        "display_drops": drops,
        "dropped": dropped,
        "unseen_in_capture_gaps": hidden_total,
        "repeats": repeats if period is not None else None,
        "torn": torn,
        "capture_drops": int(capture_drops),
        "captures": len(samples),
        "captures_unknown": int((np.array([s.status not in DECODED for s in samples], bool)).sum()),
        "unmatched_captures": int(jn.unmatched.sum()),
        "negative_latencies": negative,
        "bands": bands,
        "top_to_bottom_ms": scan,
        "capture_rate_hz": None if rate is None else round(rate, 4),
        "display_rate_hz": None if period is None else round(1.0 / period, 4),
        "capture_clock": captures.clock,
        "clock_mapping": captures.mapping,
        "modulus": jn.modulus,
        "precision": precision_note(rate),
        "notes": notes,
        "events": events,
        "frames": frames,
    }
