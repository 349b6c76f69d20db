"""Decoding a live source as its frames arrive: running counts, and the capture log for latency.

:class:`LiveDecode` reads each :class:`core.capture.LiveFrame` with the decoder that reads a
file (:class:`core.decode.reader.PanelReader`: the panel is found in the first frames -- up to
:data:`core.decode.job.LOOKAHEAD` are held back meanwhile -- then followed), on the plane the
source hands over (luma or green: no colour conversion).  ``steps(cancel)`` is a generator, as
:meth:`core.decode.job.DecodeJob.steps`: it yields a :class:`LiveBatch` about four times a
second (the readings since the last, their capture samples, the running summary) and returns
the final report, the same document ``testcard decode`` writes (``live: true``).

Drops and repeats come from :func:`core.decode.sequence.analyse`, run on bounded windows: the
readings are cut into chunks of about :data:`CHUNK` frames, each cut just after a decoded frame
and before a frame showing another index (a hold never spans two chunks), and the next chunk
starts with that decoded frame again as context (so a drop across the cut is seen once; events
at the context frame are not counted twice).  Closed chunks add to the totals; the open one is
analysed again for each summary, so a summary costs the same after a minute or a day.

Capture-side losses stay the capture's: frames the source lost or dropped just before a frame
enter the analysis as frames of unknown content (which may hide an index each, never a display
drop); a loss longer than :data:`MAX_PLACEHOLDERS` frames ends the chunk instead, and nothing is
said across it.  They are counted as ``capture_drops``, apart from ``unreadable``.  A capture
slower than the display (both rates known) leaves indices unobservable, never drops; a present
log (``present_log``, read when the run ends, as ``testcard show`` writes it when it ends) tells
capture misses from display drops (:mod:`core.decode.unseen`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Generator
from itertools import islice
from typing import Any

from core.capture import as_image
from core.decode.hint import load_hint
from core.decode.holds import holds_unknown, repeat_threshold
from core.decode.job import LOOKAHEAD, DecodeRequest, FrameReading
from core.decode.latency import CaptureLog, CaptureSample
from core.decode.live_request import FrameSource, LiveBatch, LiveRequest
from core.decode.reader import PanelReader
from core.decode.sequence import analyse, unknown_figures
from core.decode.unseen import read_present, with_present_log
from core.decode.verdict import with_verdict

CHUNK = 600               # readings per analysis window (10 s at 60 Hz)
MAX_CHUNK = 4 * CHUNK     # a window is cut here even without an index change (a frozen display)
MAX_PLACEHOLDERS = 1024   # a longer capture loss ends the window
MAX_EVENTS = 10_000
READ_TIMEOUT_S = 0.05
LOST_NOTE = "lost by the capture (not a display drop)"
_SUMMED = ("dropped_count", "gap_indices", "gap_runs", "repeated", "out_of_order", "jumps_back", "wraps",
           "distinct_indices", "unobservable")


class LiveDecode:
    """Decode ``source`` live (see the module's text); the source is closed when the run ends.

    ``request`` is a :class:`LiveRequest` (a :class:`DecodeRequest` lends its manifest, bits and
    display rate).  ``clock`` times the run (``seconds``, batches).  ``ValueError`` for bad input
    before any frame is read.
    """

    def __init__(self, source: FrameSource, request: LiveRequest | DecodeRequest | None = None, *,
                 clock=time.monotonic):
        if isinstance(request, DecodeRequest):
            request = LiveRequest(request.manifest, request.bits, request.display_fps)
        self.request = request = request or LiveRequest()
        request.check()
        hint = load_hint(request.manifest).geometry if request.manifest else None
        self.source, self.clock = source, clock
        self.reader = PanelReader(hint, request.bits)
        rate = source.info.rate_hz
        self.capture_fps: float | None = float(rate) if rate else None
        self.readings: deque[FrameReading] = deque(maxlen=request.keep)
        self.samples: deque[CaptureSample] = deque(maxlen=request.keep)
        self.counts = {"ok": 0, "torn": 0, "undecodable": 0, "unreadable": 0}
        self.capture_lost = 0
        self.total = 0
        self.elapsed_s = 0.0
        self._pending: list = []
        self._position = 0
        self._open: list[FrameReading] = []
        self._context: int | None = None       # position of the open window's context frame
        self._closed = {k: 0 for k in _SUMMED}
        self._closed_dropped: list[int] = []
        self._closed_unobservable: list[int] = []
        self._closed_events: list[dict] = []
        self._closed_k: list[tuple[float, int]] = []
        self._indices: tuple[int | None, int | None, bool] = (None, None, False)   # first, last, changed
        self._band_y: tuple[float, ...] = ()

    # ------------------------------------------------------------ one frame
    def _take(self, frame) -> list[tuple[FrameReading, CaptureSample]]:
        pos = self._position
        self._position += 1
        error: str | None
        try:
            image = as_image(frame.image, f"frame {pos}")
        except ValueError as exc:
            image, error = None, str(exc)
        else:
            error = None
        item = (pos, frame, image, error)
        reader = self.reader
        if reader.layout is None:
            if image is None or not reader.search(image):
                # held back until the layout is known (the frames are the source's own copies)
                self._pending.append(item)
                if sum(1 for it in self._pending if it[2] is not None) < LOOKAHEAD:
                    return []
                reader.settle("robust" if reader.structure_seen else "compat")
                return self._flush()
        out = self._flush()
        out.append(self._one(*item))
        return out

    def _flush(self) -> list[tuple[FrameReading, CaptureSample]]:
        if not self._pending:
            return []
        if self.reader.layout is None:
            self.reader.settle("robust" if self.reader.structure_seen else "compat")
        out = [self._one(*it) for it in self._pending]
        self._pending = []
        return out

    def _one(self, pos, frame, image, error) -> tuple[FrameReading, CaptureSample]:
        lost = int(frame.source_seq_gap) + int(frame.dropped_before)
        bands: tuple = ()
        if image is None:
            r = FrameReading(pos, frame.t_s, None, "unreadable", 0.0, note=error)
        else:
            try:
                rd = self.reader.read(image)
                r = FrameReading(pos, frame.t_s, rd.index, rd.status, rd.confidence, rd.indices,
                                 None, rd.note)
                bands = self._bands(image, rd) if rd.status in ("ok", "torn") else ()
            except (ValueError, IndexError, TypeError, MemoryError) as exc:
                r = FrameReading(pos, frame.t_s, None, "undecodable", 0.0,
                                 note=f"cannot sample this frame: {exc}")
        indices = tuple(r.indices) if r.status in ("ok", "torn") and r.indices else \
            ((r.index,) if r.index is not None and r.status == "ok" else ())
        sample = CaptureSample(float(frame.t_s), r.status, indices, bands, lost)
        self._record(r, lost)
        return r, sample

    def _bands(self, image, reading) -> tuple:
        """Each robust band's index, top to bottom (None where a band did not read)."""
        loc = self.reader.location
        if self.reader.layout != "robust" or loc is None or (loc.width, loc.height) != image.shape[1::-1]:
            return ()
        if not self._band_y:
            self._band_y = tuple(b.y_data / loc.height for b in loc.bands)
        if reading.status == "ok" and reading.note is None:
            # every band read, and all the same (the reader notes a band that did not): no
            # second read of the panel for the common case
            return (reading.index,) * len(loc.bands)
        return tuple(b.index for b in loc.sampler.read(image, self.reader.header))

    # ------------------------------------------------------------ the windows
    def _record(self, r: FrameReading, lost: int) -> None:
        self.total += 1
        self.counts[r.status] = self.counts.get(r.status, 0) + 1
        self.capture_lost += lost
        self.readings.append(r)
        if r.status == "ok":
            first, _last, changed = self._indices
            self._indices = (r.index if first is None else first, r.index,
                             changed or (first is not None and r.index != first))
        n = len(self._open)
        if lost > MAX_PLACEHOLDERS:
            self._close(keep_context=False)
        elif n >= MAX_CHUNK or (n >= CHUNK and r.status == "ok" and self._last_decoded_index() != r.index):
            self._close(keep_context=True)
        if 0 < lost <= MAX_PLACEHOLDERS:
            self._open.extend(FrameReading(r.position, r.timestamp, None, "unreadable", 0.0, note=LOST_NOTE)
                              for _ in range(lost))
        self._open.append(r)

    def _last_decoded_index(self) -> int | None:
        for r in reversed(self._open):
            if r.status in ("ok", "torn"):
                return r.index
        return None

    def _analyse(self, readings):
        return analyse(readings, self.reader.modulus, self.capture_fps, self.request.display_fps)

    def _close(self, keep_context: bool) -> None:
        k = max((i for i, r in enumerate(self._open) if r.status in ("ok", "torn")), default=-1)
        keep_context = keep_context and k >= 0   # a window of unknown frames only: nothing to carry
        done, rest = (self._open[: k + 1], self._open[k + 1:]) if keep_context else (self._open, [])
        if done:
            seq = self._analyse(done)
            for key in _SUMMED:
                self._closed[key] += seq.summary[key]
            room = MAX_EVENTS - len(self._closed_events)
            self._closed_events.extend(self._own(seq.events)[:max(0, room)])
            for mine, theirs in ((self._closed_dropped, "dropped"), (self._closed_unobservable,
                                                                     "unobservable_indices")):
                mine.extend(seq.summary[theirs][: max(0, 100_000 - len(mine))])
            if seq.summary["captures_per_frame"] is not None:   # a window its holds tell
                self._closed_k.append((seq.summary["captures_per_frame"], len(done)))
        if keep_context:
            # the context frame's indices open the next window too: counted once
            ctx = self._open[k]
            self._closed["distinct_indices"] -= max(1, len(ctx.indices)) if ctx.status == "torn" else 1
            self._open, self._context = [ctx, *rest], ctx.position
        else:
            self._open, self._context = [], None

    def _own(self, events: list[dict]) -> list[dict]:
        """The window's events, less those at its context frame (the previous window's), with
        capture losses named as such."""
        out = []
        for e in events:
            if self._context is not None and e["position"] == self._context:
                continue
            if e["kind"] == "unreadable" and e.get("note") == LOST_NOTE:
                e = dict(e, kind="capture_drop")
            out.append(e)
        return out

    # ------------------------------------------------------------ figures
    def summary(self) -> dict:
        """The running summary (what ``testcard decode`` reports, plus the capture's own drops)."""
        totals = dict(self._closed)
        dropped, unobservable = list(self._closed_dropped), list(self._closed_unobservable)
        ks = list(self._closed_k)
        if self._open:
            seq = self._analyse(self._open)
            for key in _SUMMED:
                totals[key] += seq.summary[key]
            dropped += seq.summary["dropped"]
            unobservable += seq.summary["unobservable_indices"]
            if seq.summary["captures_per_frame"] is not None:
                ks.append((seq.summary["captures_per_frame"], len(self._open)))
        n_k = sum(n for _, n in ks)
        k = sum(v * n for v, n in ks) / n_k if n_k else None
        c = self.counts
        decoded = c["ok"] + c["torn"]
        first, last, changed = self._indices
        rates = bool(self.capture_fps and self.request.display_fps)
        if rates:
            assert self.capture_fps is not None and self.request.display_fps is not None   # rates: both known
            k = self.capture_fps / self.request.display_fps
        distinct = totals["distinct_indices"] if changed else min(1, decoded)
        k_why = None if k is not None else (holds_unknown(decoded, distinct, True)
                                            or "no window of the capture shows a presentation end")
        frozen = None if decoded < 2 else False if changed else (
            decoded > repeat_threshold(k) if rates and k is not None else None)
        times = [s.t_s for s in islice(reversed(self.samples), 120)]
        span = times[0] - times[-1] if len(times) > 2 else 0.0
        measured = round((len(times) - 1) / span, 3) if span > 0 else None
        display = self.request.display_fps or (round(self.capture_fps / k, 3)
                                               if self.capture_fps and k is not None else None)
        unknown = unknown_figures(decoded, distinct, rates, self.capture_fps, self.request.display_fps, k_why)
        return {
            "frames": self.total, "read": self.total - c["unreadable"], "decoded": decoded,
            "ok": c["ok"], "torn": c["torn"], "undecodable": c["undecodable"], "unreadable": c["unreadable"],
            "dropped": dropped[:100_000], "dropped_count": totals["dropped_count"],
            "unobservable": totals["unobservable"], "unobservable_indices": unobservable[:100_000],
            "capture_misses": 0, "capture_missed": [],
            "gap_frames": c["undecodable"] + c["unreadable"] + self.capture_lost,
            "gap_runs": totals["gap_runs"], "gap_indices": totals["gap_indices"],
            "repeated": totals["repeated"], "frozen": frozen, "out_of_order": totals["out_of_order"],
            "distinct_indices": totals["distinct_indices"],
            "jumps_back": totals["jumps_back"], "wraps": totals["wraps"],
            "first_index": first, "last_index": last,
            "captures_per_frame": None if k is None else round(k, 3),
            "captures_per_frame_from": "rates" if rates else "holds",
            "capture_fps": self.capture_fps, "capture_fps_measured": measured, "display_fps": display,
            "capture_drops": self.capture_lost, "frames_behind": int(self.source.frames_behind),
            "source_lost": int(self.source.source_lost), "elapsed_s": round(self.elapsed_s, 3),
            "modulus": self.reader.modulus, "layout": self.reader.layout, "bits": self.reader.bits,
            "unknown": unknown,
        }

    def events(self) -> list[dict]:
        out = list(self._closed_events)
        if self._open:
            out += self._own(self._analyse(self._open).events)
        return out[:MAX_EVENTS]

    def describe_decoder(self) -> dict:
        r = self.reader
        d: dict[str, Any]
        d = {"layout": r.layout, "bits": r.bits, "gray": r.gray if r.layout == "robust" else None,
             "searches": r.searches}
        if r.location is not None:
            d["panel"] = r.location.to_dict()
        return d

    def report(self, cancelled: bool = False) -> dict:
        doc: dict[str, Any]
        doc = {"testcard_decode": 1, "live": True, "source": self.source.describe().get("spec"),
               "capture": self.source.describe(), "manifest": self.request.manifest,
               "decoder": self.describe_decoder(), "cancelled": bool(cancelled),
               "frames": [r.to_dict() for r in self.readings], "frames_kept": len(self.readings),
               "summary": self.summary(), "events": self.events()}
        notes = list(self.reader.notes)
        if self.request.present_log:   # read now: testcard show writes it when it ends
            try:
                log = read_present(self.request.present_log)
                doc["summary"], doc["events"] = with_present_log(
                    doc["summary"], doc["events"], log, self.reader.modulus,
                    self.capture_fps or doc["summary"]["capture_fps_measured"], self.request.present_log)
            except ValueError as exc:
                notes.append(f"present log not used: {exc}")
        if notes:
            doc["notes"] = notes
        with_verdict(doc)
        return doc

    def capture_log(self) -> CaptureLog:
        """The captures so far, for :func:`core.decode.latency.latency_report`."""
        info = self.source.info
        return CaptureLog(tuple(self.samples), self.reader.modulus, self._band_y, self.capture_fps,
                          info.clock, self.source.mapping, self.capture_lost)

    # ------------------------------------------------------------ the run
    def steps(self, cancel: threading.Event | None = None) -> Generator[LiveBatch, None, dict]:
        """Read and decode until ``seconds`` / ``frames`` are reached, the source ends or
        ``cancel`` is set; yields a :class:`LiveBatch` every ``batch_s`` (with no readings while
        the source sends nothing, so a caller sees it stall) and returns the report."""
        req = self.request
        start = last = self.clock()
        got_r: list[FrameReading] = []
        got_s: list[CaptureSample] = []
        cancelled = False
        try:
            while True:
                if cancel is not None and cancel.is_set():
                    cancelled = True
                    break
                now = self.clock()
                self.elapsed_s = now - start
                if (req.seconds is not None and now - start >= req.seconds) or \
                        (req.frames is not None and self._position >= req.frames):
                    break
                frame = self.source.read(timeout=READ_TIMEOUT_S)
                if frame is None and self.source.finished:
                    break
                for r, s in self._take(frame) if frame is not None else []:
                    got_r.append(r)
                    got_s.append(s)
                    self.samples.append(s)
                if self.clock() - last >= req.batch_s:   # (empty while the source is silent)
                    last = self.clock()
                    yield LiveBatch(tuple(got_r), tuple(got_s), self.summary())
                    got_r, got_s = [], []
            for r, s in self._flush():
                got_r.append(r)
                got_s.append(s)
                self.samples.append(s)
            if got_r:
                yield LiveBatch(tuple(got_r), tuple(got_s), self.summary())
            return self.report(cancelled)
        finally:
            self.source.close()
