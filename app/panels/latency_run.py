"""A latency measurement against the live output: the present log recorded from the frame loop,
the capture decoded on a worker, the two joined by ``core.decode.latency``.

:class:`PresentRecorder` listens to a frame loop's ``frame_presented`` (on the GUI thread) and
keeps each presented index with its present time: the timeline's ``present_s``, the moment the
presenter's swap (or paint) returned, on ``time.perf_counter()`` (CLOCK_MONOTONIC on Linux, the
clock the capture's timestamps are put on).  A frame whose render failed presented nothing new
and is left out.

:func:`latency_steps` is the job a :class:`~app.workers.GeneratorWorker` runs: it opens the
source (on the worker thread: opening a device takes time), decodes it live
(:class:`core.decode.LiveDecode`), and about four times a second yields a
:class:`LatencyProgress` with the frames whose matching has settled (presented at least
:data:`SETTLE_S` before the newest capture); it returns the full report
(:func:`core.decode.latency_report` over the presents made while the capture ran), with the
capture's decode summary and the source's description beside it.  The command line
(``testcard latency``) and the Latency panel run the same job.
"""

from __future__ import annotations

import threading
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import takewhile

import numpy as np
from PySide6.QtCore import QObject, Slot

from core.capture import bracketed_reading
from core.decode import (
    CaptureLog,
    LiveDecode,
    LiveRequest,
    PresentLog,
    end_of_frame_correction,
    joinable,
    latency_report,
)

SETTLE_S = 1.0        # a frame presented this long before the newest capture has had its chance
STALE_S = 2.0         # presents before the capture whose frames may still be on screen when it starts
CONTEXT_S = 1.0       # presents and captures either side of a live slice, so its edges join right
MAX_PRESENTS = 1 << 22   # presents kept (19 hours at 60 Hz)
SWITCH_INTERVAL_S = 0.0005    # the interpreter's thread switch interval while measuring
PRESENT_CLOCK = ("time.perf_counter (CLOCK_MONOTONIC on Linux; put on time.monotonic elsewhere): when "
                 "the swap (or paint) returned")


def screen_grab_rate(refresh_hz: float) -> float:
    """A screen grab's default rate: a little over twice the refresh, so that its phase sweeps
    across the display's frames during a run (a grab locked to the output's timer would keep
    one phase, and every sample the same share of the capture period)."""
    return float(round(2.0 * refresh_hz) + 5)


def present_clock_offset(perf=time.perf_counter, mono=time.monotonic, same: bool | None = None) -> float:
    """Seconds to add to a present time (``perf``, the frame loop's clock) to put it on ``mono``
    (the capture's): 0 where both are one clock (``same``; by default, whether Python says they
    are: CLOCK_MONOTONIC both on Linux), else a bracketed reading of the two."""
    if same is None:
        same = time.get_clock_info("perf_counter").implementation == \
            time.get_clock_info("monotonic").implementation
    return 0.0 if same else bracketed_reading(perf, mono).offset


class Refused(Exception):
    """The source cannot be measured as asked (bad input); the message is one sentence."""


class PresentRecorder(QObject):
    """The present log of a frame loop while :meth:`start` ... :meth:`stop` (GUI thread writes,
    any thread reads :meth:`log`)."""

    def __init__(self, loop, parent=None):
        super().__init__(parent)
        self.loop = loop
        self.offset_s = present_clock_offset()   # onto time.monotonic, the capture's clock
        self._lock = threading.Lock()
        self._index = array("q")
        self._t = array("d")
        self.dropped_rows = 0      # presents past MAX_PRESENTS (not kept)
        self.active = False

    def start(self) -> None:
        if not self.active:
            self.active = True
            self.loop.frame_presented.connect(self._presented)

    def stop(self) -> None:
        if self.active:
            self.active = False
            try:
                self.loop.frame_presented.disconnect(self._presented)
            except (RuntimeError, TypeError):
                pass

    def __len__(self) -> int:
        return len(self._index)

    @Slot(int)
    def _presented(self, index: int) -> None:
        if self.loop.last_error is not None:   # the render failed: the last good frame stayed up
            return
        t = self.loop.timeline.column("present_s", 1)
        if not len(t):
            return
        with self._lock:
            if len(self._index) >= MAX_PRESENTS:
                self.dropped_rows += 1
                return
            self._index.append(int(index))
            self._t.append(float(t[-1]) + self.offset_s)

    def log(self, t0: float = -np.inf, t1: float = np.inf) -> PresentLog:
        """The presents made from ``t0`` to ``t1`` (seconds on the present clock), copied."""
        with self._lock:
            if not len(self._t):
                return PresentLog(np.zeros(0, np.int64), np.zeros(0))
            # views must be gone before the next append (an exported array cannot grow)
            tv = np.frombuffer(self._t, np.float64)
            a = int(np.searchsorted(tv, t0, side="left"))    # presents are in time order
            b = int(np.searchsorted(tv, t1, side="right"))
            t = tv[a:b].copy()
            iv = np.frombuffer(self._index, np.int64)
            idx = iv[a:b].copy()
            del tv, iv
        return PresentLog(idx, t)


@dataclass(frozen=True)
class LatencyRequest:
    """What to measure: the live decode's request (``seconds`` ends the run), the corrections,
    and how to open the source (``open_source()``: a started :class:`core.capture.LiveSource`,
    called on the worker thread; ``ValueError`` when it cannot be opened)."""

    open_source: Callable[[], object]
    live: LiveRequest = LiveRequest()
    corrections: tuple = ()
    end_of_frame: bool = False         # subtract one capture period (the source's rate)


@dataclass(frozen=True)
class LatencyProgress:
    """One live update: the decode batch, the newly settled frames (present time, latency in
    ms or NaN, status) and the running totals over every settled frame so far."""

    batch: object                      # core.decode.LiveBatch
    present_s: np.ndarray
    latency_ms: np.ndarray
    status: tuple[str, ...]
    presented: int
    matched: int
    display_drops: int
    capture_drops: int


def latency_steps(request: LatencyRequest, recorder: PresentRecorder, cancel: threading.Event):
    """The measurement as its worker runs it (see the module's text); bad input raises
    :class:`Refused`.  Returns the report, ``"cancelled": true`` once ``cancel`` was set."""
    try:
        source = request.open_source()
    except ValueError as exc:
        raise Refused(str(exc)) from None
    try:
        live = LiveDecode(source, request.live)
        if request.end_of_frame:
            rate = source.info.rate_hz
            if not rate:
                raise ValueError(f"{source.info.spec} does not say its frame rate: the end-of-frame "
                                 "correction needs it (ask for a rate)")
            request = replace(request, corrections=(end_of_frame_correction(rate), *request.corrections))
    except ValueError as exc:
        source.close()
        raise Refused(str(exc)) from None
    steps = live.steps(cancel)
    done_to: float | None = None
    totals = {"presented": 0, "matched": 0, "display_drops": 0}
    while True:
        try:
            batch = next(steps)
        except StopIteration as stop:
            decoded = stop.value
            break
        if not live.samples:
            continue
        if done_to is None:
            done_to = live.samples[0].t_s
        cut = live.samples[-1].t_s - SETTLE_S
        if cut <= done_to:
            yield LatencyProgress(batch, np.zeros(0), np.zeros(0), (), capture_drops=live.capture_lost,
                                  **totals)
            continue
        t, ms, status = _slice(live, recorder, request, done_to, cut)
        done_to = cut
        totals["presented"] += len(t)
        totals["matched"] += int(np.isfinite(ms).sum())
        totals["display_drops"] += sum(1 for s in status if s == "dropped")
        yield LatencyProgress(batch, t, ms, status, capture_drops=live.capture_lost, **totals)
    return finish(live, recorder, request, decoded)


def _slice(live, recorder, request, t0: float, t1: float):
    """Frames presented in [t0, t1), joined with CONTEXT_S of presents and captures before and
    the presents of half the settling time after (so a drop at the end of the slice is told by
    the frame after it), with every capture since."""
    present = recorder.log(t0 - CONTEXT_S, t1 + SETTLE_S / 2)
    # the newest captures only (read from the end: a long run keeps many)
    recent = list(takewhile(lambda s: s.t_s >= t0 - CONTEXT_S, reversed(live.samples)))
    samples = tuple(reversed(recent))
    if not len(present) or not samples:
        return np.zeros(0), np.zeros(0), ()
    log = CaptureLog(samples, live.reader.modulus, (), live.capture_fps, live.source.info.clock, None, 0)
    rep = latency_report(present, log, corrections=request.corrections)
    rows = [f for f in rep["frames"] if t0 <= f["present_s"] < t1]
    t = np.array([f["present_s"] for f in rows], np.float64)
    ms = np.array([np.nan if f["latency_ms"] is None else f["latency_ms"] for f in rows], np.float64)
    return t, ms, tuple(f["status"] for f in rows)


def fresh_captures(log, recorder, t0: float) -> tuple:
    """The captures from the first that shows anything presented from ``t0`` on: those before
    it show the screen as it was when the capture began (frames presented before ``t0``, still
    on screen for the chain's latency), which the join would call unmatched."""
    before = recorder.log(t0 - STALE_S, t0)
    stale = {int(i) % log.modulus for i, t in zip(before.index, before.t_s, strict=True) if t < t0}
    samples = list(log.samples)
    k = 0
    while k < len(samples) and (samples[k].t_s < t0 or (
            samples[k].status in ("ok", "torn") and samples[k].indices and set(samples[k].indices) <= stale)):
        k += 1
    return tuple(samples[k:])


def joined_presents(recorder, log) -> PresentLog:
    """The presents joined with the capture ``log``: those made while it ran, and after its last
    capture those it may show (:func:`core.decode.joinable`: a grab is stamped before it is
    taken, a present after its swap returns, so the last capture may show a frame presented a
    moment after it, which cut at its time would be called unmatched)."""
    if not log.samples:
        return recorder.log(np.inf, np.inf)
    t0, t1 = log.samples[0].t_s, log.samples[-1].t_s
    return joinable(recorder.log(t0, t1 + STALE_S), t1)


def finish(live, recorder, request, decoded: dict) -> dict:
    """The full report: every present made while the capture ran (:func:`joined_presents`),
    joined with the captures that may show them (:func:`fresh_captures`)."""
    log = live.capture_log()
    present = joined_presents(recorder, log)
    if len(present):
        log = replace(log, samples=fresh_captures(log, recorder, float(present.t_s[0])))
    report = latency_report(present, log, corrections=request.corrections)
    report["cancelled"] = bool(decoded.get("cancelled"))
    report["source"] = decoded.get("capture")
    report["decode"] = {k: decoded["summary"].get(k) for k in (
        "frames", "decoded", "ok", "torn", "undecodable", "unreadable", "capture_drops", "frames_behind",
        "source_lost", "capture_fps", "capture_fps_measured", "layout", "bits", "elapsed_s")}
    report["present_clock"] = PRESENT_CLOCK
    report["presents_recorded"] = len(recorder)
    return report
