"""Glass-to-glass latency: testcard's present log joined to a capture log, frame by frame.

The present log says when testcard presented each frame index (CLOCK_MONOTONIC seconds: the
timeline's ``index`` and ``present_s``; the first present of an index counts).  The capture log
says when each capture was taken (on the same clock: a live wall-clock source already mapped,
see :mod:`core.capture.clock`; a recording placed by :mod:`core.decode.latency_clock`), what it
showed (the decoded counter, modulo ``2**bits``, per robust
band top to bottom), and how many capture frames were lost just before it.

* **unwrapping**: a decoded counter value is taken as the presented index with that value
  nearest below the index on screen at the capture's time (the last one presented by then),
  allowing ``ahead`` frames above it for clock error (``ahead`` indices, or every index
  presented within ``ahead`` display periods after the capture's time where that is more: the
  presents of a loaded box come late and in a burst): the counter may wrap any number of times,
  but a latency of ``2**bits - ahead - 1`` frames or more cannot be told from a shorter one.
  A capture log cut at its last capture joins the presents that capture may show
  (:func:`joinable`);
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

``latency_report`` reads as its steps: join the logs (unwrap and match:
:mod:`core.decode.latency_join`, re-exported here), count what the captures could not see
(:class:`CaptureGaps`), judge each step between matched frames for drops and repeats
(:func:`judge_steps`), list the torn captures and sort the events, and summarise (the
latencies overall, per band and per frame).  The logs, corrections and small figures are
:mod:`core.decode.latency_log` (re-exported here).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from core.decode.latency_join import AHEAD, DECODED, Join, join, joinable, unwrap_index
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

MAX_LISTED = 10_000       # dropped indices and events listed (more are counted)

__all__ = ["AHEAD", "CaptureLog", "CaptureSample", "ClockCorrection", "Correction", "Join", "PresentLog",
           "band_names", "end_of_frame_correction", "join", "joinable", "latency_report", "latency_stats",
           "offset_correction", "precision_note", "unwrap_index"]


def _capture_rate(log: CaptureLog) -> float | None:
    """The capture rate the log gives, else one over the median interval of its captures."""
    if log.rate_hz:
        return float(log.rate_hz)
    t = np.unique(np.asarray([s.t_s for s in log.samples], np.float64))
    d = np.diff(t)
    d = d[d > 0]
    return float(1.0 / np.median(d)) if d.size else None


def latency_report(present: PresentLog, captures: CaptureLog, *,
                   corrections: Sequence[Correction] = (), ahead: int = AHEAD) -> dict:
    """The latency document (JSON-ready): counts, ``latency_ms`` statistics, per-band figures,
    corrections, precision, events and one row per presented index (``frames``)."""
    jn = join(present, captures, ahead=ahead)
    shift_ms = float(sum(c.ms for c in corrections))
    raw_ms = (jn.first_t - jn.present.t) * 1e3           # per presented index; NaN: never seen
    rate, period = _capture_rate(captures), jn.present.period_s()
    gaps = CaptureGaps.of(jn.samples, jn.unmatched)
    steps = judge_steps(jn, gaps, period, rate)
    torn, torn_evs = torn_captures(jn.samples, room=MAX_LISTED - len(steps.events))
    events = in_time_order(steps.events + torn_evs)
    return summarise(jn, captures, corrections, shift_ms, raw_ms, rate, period, gaps, steps, torn, events)


# -- what the captures could not see: unknown content and lost capture frames


@dataclass(frozen=True)
class CaptureGaps:
    """Prefix sums over the samples (one longer than them) of the captures of unknown content
    (undecodable, unreadable, or decoded but unmatched) and of the capture frames lost before
    each; ``undecoded`` marks the samples not decoded."""

    undecoded: np.ndarray
    unknown_before: np.ndarray
    lost_before: np.ndarray

    @classmethod
    def of(cls, samples: Sequence[CaptureSample], unmatched: np.ndarray) -> CaptureGaps:
        undecoded = np.array([s.status not in DECODED for s in samples], bool)
        unknown = undecoded | unmatched
        return cls(undecoded, np.concatenate([[0], np.cumsum(unknown)]),
                   np.concatenate([[0], np.cumsum([int(s.lost_before) for s in samples])]))

    def between(self, i: int, j: int) -> int:
        """Captures that may have shown something unseen after sample ``i`` and up to ``j``:
        those of unknown content between them, and the frames lost before ``i + 1`` to ``j``."""
        if j <= i:
            return 0
        return int(self.unknown_before[j] - self.unknown_before[i + 1]
                   + self.lost_before[j + 1] - self.lost_before[i + 1])


# -- drops and repeats, from one matched frame to the next


@dataclass
class Steps:
    """What :func:`judge_steps` found: each presented index's ``status``, the events (drops,
    gaps, repeats, in the order found), the dropped indices listed, and the counts."""

    status: np.ndarray
    events: list[dict] = field(default_factory=list)
    dropped: list[int] = field(default_factory=list)
    drops: int = 0
    hidden: int = 0
    repeats: int = 0


def frame_status(matched: np.ndarray) -> np.ndarray:
    """Each presented index before the first matched one ``before_capture``, after the last
    ``after_capture``, a matched one ``matched``; with none matched, all ``unmatched``; the
    rest (between matched ones) are left empty, for :func:`judge_steps`."""
    status = np.full(matched.size, "", dtype=object)
    m_pos = np.flatnonzero(matched)
    if m_pos.size:
        status[: m_pos[0]] = "before_capture"
        status[m_pos[-1] + 1:] = "after_capture"
        status[m_pos] = "matched"
    else:
        status[:] = "unmatched"
    return status


def repeat_margin_s(period: float | None, rate: float | None) -> float | None:
    """Extra hold above which a frame is a repeat: half a display period, at least a capture
    period (None: no display period, no repeats counted)."""
    return None if period is None else max(0.5 * period, 1.0 / rate if rate else 0.0)


def judge_steps(jn: Join, gaps: CaptureGaps, period: float | None, rate: float | None) -> Steps:
    """Each step from one matched index to the next: the indices between that no capture
    showed (dropped, or unseen in a capture gap), and how long the screen held the first."""
    out = Steps(frame_status(jn.first_k >= 0))
    m_pos = np.flatnonzero(jn.first_k >= 0)
    threshold = repeat_margin_s(period, rate)
    for a, b in zip(m_pos[:-1], m_pos[1:], strict=True):
        if b > a + 1:
            _judge_missing(jn, gaps, a, b, out)
        if threshold is not None and period is not None:
            _judge_hold(jn, a, b, period, threshold, out)
    return out


def _judge_hold(jn: Join, a: int, b: int, period: float, threshold: float, out: Steps) -> None:
    """How long the screen held matched ``a`` (to the first capture of ``b``), against the longer
    of what the display's period and testcard's own presents called for (a late present of
    testcard's is not a repeat): more than ``threshold`` over is ``round(extra / period)``
    repeats, at least one."""
    p = jn.present
    held = jn.first_t[b] - jn.first_t[a]
    extra = held - max((p.idx[b] - p.idx[a]) * period, p.t[b] - p.t[a])
    if extra > threshold:
        n_extra = max(1, round(extra / period))
        out.repeats += n_extra
        out.events.append({"kind": "repeat", "index": int(p.idx[a]), "extra": n_extra,
                           "held_ms": round(extra * 1e3, 3), "t_s": round(float(jn.first_t[a]), 6)})


def _judge_missing(jn: Join, gaps: CaptureGaps, a: int, b: int, out: Steps) -> None:
    """The presented indices between matched ``a`` and ``b``, none of them captured: up to one
    per capture of unknown content (or capture frame lost) between the last capture of ``a`` and
    the first of ``b`` is unseen, the rest are display drops."""
    p = jn.present
    missing = int(b - a - 1)
    gap = gaps.between(int(jn.last_k[a]), int(jn.first_k[b]))
    hidden = min(missing, gap)
    out.hidden += hidden
    lost = missing - hidden
    out.drops += lost
    out.status[a + 1: b] = "dropped" if hidden == 0 else "unseen"
    after, before = int(p.idx[a]), int(p.idx[b])
    if lost:
        ev = {"kind": "drop", "after": after, "before": before, "count": lost,
              "t_s": round(float(jn.first_t[b]), 6)}
        if hidden == 0 and len(out.dropped) < MAX_LISTED:
            out.dropped.extend(int(v) for v in p.idx[a + 1: b])
            ev["indices"] = [int(v) for v in p.idx[a + 1: b][:64]]
        out.events.append(ev)
    if hidden:
        out.events.append({"kind": "gap", "after": after, "before": before, "indices_unknown": hidden,
                           "capture_frames": gap, "t_s": round(float(jn.first_t[b]), 6)})


def torn_captures(samples: Sequence[CaptureSample], room: int) -> tuple[int, list[dict]]:
    """How many captures are torn, and an event for each of the first ``room`` of them."""
    torn = 0
    events: list[dict] = []
    for s in samples:
        if s.status == "torn":
            torn += 1
            if len(events) < room:
                events.append({"kind": "torn", "indices": list(s.indices), "t_s": round(s.t_s, 6)})
    return torn, events


def in_time_order(events: list[dict]) -> list[dict]:
    """Events in time order (a stable sort), the first :data:`MAX_LISTED` of them."""
    events.sort(key=lambda e: e["t_s"])
    del events[MAX_LISTED:]
    return events


# -- summarise: the latencies, per band, per frame, and the document


def band_figures(jn: Join, band_y: Sequence[float], shift_ms: float) -> tuple[dict[str, dict], float | None]:
    """Per band (top to bottom), its scan position and latency statistics; and the median
    time from the top band to the bottom one (None: fewer than two bands, or never both)."""
    p = jn.present
    names = band_names(jn.band_t.shape[0])
    bands: dict[str, dict] = {}
    for b, name in enumerate(names):
        ms = (jn.band_t[b] - p.t) * 1e3 + shift_ms
        pos = band_y[b] if b < len(band_y) else None
        bands[name] = {"band": b, "position": None if pos is None else round(float(pos), 4),
                       "latency_ms": latency_stats(ms[np.isfinite(ms)])}
    scan = None
    if len(names) >= 2:
        d = (jn.band_t[-1] - jn.band_t[0]) * 1e3
        d = d[np.isfinite(d)]
        scan = round(float(np.median(d)), 4) if d.size else None
    return bands, scan


def report_notes(clock: str, negative: int) -> list[str]:
    """What the reader must know to read the latencies: an unknown offset, or latencies below zero."""
    notes = []
    if clock == "stream":
        notes.append("capture times are on the stream's own clock, not CLOCK_MONOTONIC: the "
                     "latencies carry an unknown constant offset")
    if negative:
        notes.append(f"{negative} latencies below zero: the capture saw a frame before testcard's "
                     "present returned (a present time is when the swap returned, which may come "
                     "after the picture is up), or the clocks disagree (a wall-clock source mapped "
                     "badly, a correction too large)")
    return notes


def frame_rows(jn: Join, raw_ms: np.ndarray, shift_ms: float, status: np.ndarray) -> list[dict]:
    """One row per presented index: its counter value, present and capture times, latency
    (corrected), per-band latencies and status."""
    p = jn.present
    matched = jn.first_k >= 0
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
    return frames


def summarise(jn: Join, captures: CaptureLog, corrections: Sequence[Correction], shift_ms: float,
              raw_ms: np.ndarray, rate: float | None, period: float | None, gaps: CaptureGaps,
              steps: Steps, torn: int, events: list[dict]) -> dict:
    """The latency document from what the steps found (see :func:`latency_report`)."""
    p, samples, status = jn.present, jn.samples, steps.status
    matched = jn.first_k >= 0
    m_pos = np.flatnonzero(matched)
    lat = raw_ms[matched] + shift_ms
    bands, scan = band_figures(jn, captures.band_y, shift_ms)
    lost = int(gaps.lost_before[-1])
    capture_drops = captures.capture_drops if captures.capture_drops is not None else lost
    negative = int((lat < 0).sum())
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
        "display_drops": steps.drops,
        "dropped": steps.dropped,
        "unseen_in_capture_gaps": steps.hidden,
        "repeats": steps.repeats if period is not None else None,
        "torn": torn,
        "capture_drops": int(capture_drops),
        "captures": len(samples),
        "captures_unknown": int(gaps.undecoded.sum()),
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
        "notes": report_notes(captures.clock, negative),
        "events": events,
        "frames": frame_rows(jn, raw_ms, shift_ms, status),
    }
