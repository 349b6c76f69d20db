"""Reading counter panels from captured frames, one frame at a time.

``CaptureDecoder`` is a generator over a capture's frames that yields one
``FrameReading`` per frame, so a command line can draw progress and a GUI
worker can stop between frames.  Each result has a status:

* ``ok``: the panel was read; ``index`` is the frame number it shows;
* ``torn``: the robust panel's bands show different (each checked) indices:
  the frame was scanned out across a buffer swap; ``indices`` lists them top to
  bottom and ``index`` is the top one;
* ``undecodable``: no panel could be read (or, for the compat layout, a cell
  sat too close to the threshold to trust);
* ``unreadable``: the file or video data for this position could not be read.

The robust layout is recognised by itself (its header carries the bit count
and Gray flag).  A manifest, given or found beside the capture, is a hint
(``core.decode.hint`` refuses one whose geometry is not a panel testcard
draws): a robust one says where to look first, and a search follows when the
panel is not there; a compat one gives the row to read, but only once no robust
panel is seen in the first frames -- a robust panel is never read as compat.
A sidecar beside a folder of frames describes the first frame: when its compat
row does not show the frame the sidecar names, the sidecar is stale and is
ignored.  Without a robust panel in the first frames, the compat layout is
read at ``bits`` (default: the hint's, else the counter's default), assuming
the capture shows the whole frame.  A robust read is only reported when the
check code holds, so a misread is ``undecodable``, never a wrong index; the
compat layout has no check, so its reading is checked against the picture
(``core.decode.reader.CompatSampler``) and its confidence is the cells' margins.

Once a robust panel reads at its place, the capture is told which picture lines that read
samples (``lines_wanted``, e.g. ``Capture.read_lines``), so image files are read for those
lines alone; a frame so read that does not read at the panel's place is read again whole and
decoded as it would have been (searched, backed off), so the readings are the same either way.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.capture import as_image, open_capture
from core.counter import MAX_BITS, MIN_BITS, CounterGeometry
from core.decode.hint import Hint, load_hint
from core.decode.reader import PanelReader
from core.decode.sequence import analyse
from core.decode.unseen import read_present, with_present_log
from core.decode.verdict import with_verdict

STATUSES = ("ok", "undecodable", "torn", "unreadable")
LOOKAHEAD = 8          # frames searched for a robust panel before settling on compat


@dataclass(frozen=True)
class FrameReading:
    position: int
    timestamp: float | None
    index: int | None
    status: str
    confidence: float
    indices: tuple[int, ...] = ()
    name: str | None = None
    note: str | None = None

    def to_dict(self) -> dict:
        d: dict[str, Any]
        d = {"position": self.position,
             "timestamp": None if self.timestamp is None else round(float(self.timestamp), 6),
             "index": self.index, "status": self.status, "confidence": round(float(self.confidence), 3)}
        if self.status == "torn":
            d["indices"] = list(self.indices)
        if self.name is not None:
            d["name"] = self.name
        if self.note:
            d["note"] = self.note
        return d


def load_manifest(path) -> CounterGeometry:
    """The checked counter geometry of a manifest (:func:`core.decode.hint.load_hint`)."""
    return load_hint(path).geometry


# ---------------------------------------------------------------- a whole capture
@dataclass
class CaptureDecoder:
    """Iterate to decode every frame of ``frames`` (``CapturedFrame`` objects) in order.

    After (or during) iteration: ``layout``, ``bits``, ``gray``, ``modulus``,
    ``location`` describe what was found; ``results`` holds what was yielded.
    ``lines_wanted``, when given, is told the picture lines the next frames' reads need
    (None: whole pictures), each time that changes; with it, ``frames`` are
    ``CapturedFrame`` objects, and one that holds only some lines (``lines``) is read whole
    again (``whole()``) wherever those do not serve.  Without it, every frame is whole.
    """

    frames: Iterable
    hint: CounterGeometry | None = None
    bits: int | None = None
    keep_results: bool = True
    confirm: int | None = None    # the frame a sidecar says the first image shows
    lines_wanted: Callable[[tuple[int, ...] | None], None] | None = None
    reader: PanelReader = field(init=False)
    results: list[FrameReading] = field(init=False, default_factory=list)
    notes: list[str] = field(init=False, default_factory=list)

    def __post_init__(self):
        self.reader = PanelReader(self.hint, self.bits)
        self._asked: tuple[int, ...] | None = None

    @property
    def layout(self) -> str | None:
        return self.reader.layout

    @property
    def modulus(self) -> int:
        return self.reader.modulus

    def describe(self) -> dict:
        r = self.reader
        d: dict[str, Any]
        d = {"layout": r.layout, "bits": r.bits, "gray": r.gray if r.layout == "robust" else None,
             "searches": r.searches}
        if r.location is not None:
            d["panel"] = r.location.to_dict()
        if r.layout == "compat":   # where the compat bit count came from
            d["bits_from"] = ("--bits" if r.explicit_bits else "manifest" if r.hint is not None and
                              r.bits_settled else "picture" if r.bits_settled else "not settled")
        if self.hint is not None:
            d["hint"] = {"layout": self.hint.layout, "bits": self.hint.bits,
                         "used": r.hint is not None and r.hint.layout == r.layout}
        return d

    def hint_notes(self) -> list[str]:
        """What became of the hint, in a sentence each (with ``notes``: what the report says)."""
        r, hint = self.reader, self.hint
        out = list(self.notes) + list(r.notes)
        if hint is None or r.hint is None or r.layout is None:
            return out
        if hint.layout == "compat" and r.layout == "robust":
            out.append("the manifest describes a compat panel, but the capture shows a robust one: "
                       "read as robust")
        elif hint.layout == "robust" and r.layout == "compat":
            out.append("the manifest describes a robust panel, but none was found in the capture: "
                       "read as compat")
        elif hint.layout == "robust" and r.location is not None and r.location.found_by == "search":
            out.append("the robust panel was not where the manifest puts it: found by searching")
        return out

    def __iter__(self) -> Iterator[FrameReading]:
        for res in self._decode():
            if self.keep_results:
                self.results.append(res)
            yield res

    def _decode(self) -> Iterator[FrameReading]:
        reader = self.reader
        pending: list = []   # frames held back while the layout is not yet known
        first = True
        for cf in self.frames:
            if self.lines_wanted is not None and cf.lines is not None:   # asked for: see above
                held = first or pending or reader.layout is None
                reading = None if held else self._located(cf)
                if reading is not None:
                    yield reading
                    continue
                cf = cf.whole()
            image, error = cf.image, cf.error
            if image is not None:
                try:
                    image = as_image(image, cf.name or f"frame {cf.position}")
                except ValueError as exc:
                    image, error = None, str(exc)
            if first:
                first = False
                self._check_sidecar(cf, image)
            if reader.layout is not None:
                yield from self._flush(pending)
                pending = []
                yield self._told(self._one(cf, image, error))
                continue
            if image is not None and reader.search(image):
                yield from self._flush(pending)
                pending = []
                yield self._told(self._one(cf, image, error))
                continue
            # keep a private copy: a video frame's buffer is reused by the next frame
            pending.append((cf, None if image is None else np.array(image, copy=True), error))
            if sum(1 for _, im, _ in pending if im is not None) >= LOOKAHEAD:
                # clock rows seen but never read: a robust panel too degraded to read,
                # which must not be misread as compat
                reader.settle("robust" if reader.structure_seen else "compat")
        yield from self._flush(pending)

    def _located(self, cf) -> FrameReading | None:
        """A frame holding only some lines, read at the located panel; None when it must be
        read whole (not the lines the panel needs, or the panel does not read there)."""
        try:
            image = as_image(cf.image, cf.name or f"frame {cf.position}")
            r = self.reader.read_located(image, cf.lines)
        except (ValueError, IndexError, TypeError, MemoryError):   # the whole read says why
            return None
        if r is None:
            return None
        return self._told(FrameReading(cf.position, cf.timestamp, r.index, r.status, r.confidence,
                                       r.indices, cf.name, r.note))

    def _told(self, reading: FrameReading) -> FrameReading:
        """Tell ``lines_wanted`` what the next reads need, after this frame's reading: the
        located panel's lines while it reads, whole pictures while it does not."""
        if self.lines_wanted is None or reading.status == "unreadable":
            return reading
        want = self.reader.lines_needed() if reading.status in ("ok", "torn") else None
        if want != self._asked:
            self._asked = want
            self.lines_wanted(want)
        return reading

    def _check_sidecar(self, cf, image) -> None:
        """A compat sidecar is believed only when its own image (the first) shows its frame."""
        hint, frame = self.reader.hint, self.confirm
        if hint is None or hint.layout != "compat" or frame is None:
            return
        name = cf.name or "the first frame"
        if image is None:
            why = f"{name} cannot be read to check it"
        else:
            try:
                reading = self.reader.read_compat_once(image)
            except (ValueError, IndexError, TypeError, MemoryError) as exc:
                why = f"{name} cannot be sampled ({exc})"
            else:
                if reading.status == "ok" and reading.index == frame % (1 << hint.bits):
                    self.reader.bits_settled = True   # the picture bears the sidecar out
                    return
                shows = f"reads {reading.index}" if reading.index is not None else "shows no compat row there"
                why = f"it says {name} shows frame {frame} of a {hint.bits}-bit compat panel; {name} {shows}"
        self.notes.append(f"sidecar ignored as stale: {why}")
        self.reader.use_hint(None, self.bits)

    def _flush(self, pending) -> Iterator[FrameReading]:
        if self.reader.layout is None and pending:
            self.reader.settle("robust" if self.reader.structure_seen else "compat")
        for cf, image, error in pending:
            yield self._one(cf, image, error)

    def _one(self, cf, image, error=None) -> FrameReading:
        if image is None:
            return FrameReading(cf.position, cf.timestamp, None, "unreadable", 0.0, name=cf.name,
                               note=error or "unreadable")
        try:
            r = self.reader.read(image)
        except (ValueError, IndexError, TypeError, MemoryError) as exc:  # an image it cannot use
            return FrameReading(cf.position, cf.timestamp, None, "undecodable", 0.0, name=cf.name,
                               note=f"cannot sample this frame: {exc}")
        return FrameReading(cf.position, cf.timestamp, r.index, r.status, r.confidence, r.indices,
                           cf.name, r.note)


# ---------------------------------------------------------------- a decode job (CLI and GUI)
@dataclass(frozen=True)
class DecodeRequest:
    """What to decode; built on the caller's thread, handed to whoever does the work."""

    path: str
    manifest: str | None = None
    bits: int | None = None
    capture_fps: float | None = None
    display_fps: float | None = None
    read_threads: int | None = None    # image files decoded ahead (see ``open_capture``)
    panel_lines_only: bool = True      # once located, read image files for the panel's lines
    present_log: str | None = None     # testcard show's --timeline CSV: tells capture misses apart


class DecodeJob:
    """Open a capture and decode it frame by frame: iterate for ``FrameReading`` objects,
    then ``report()`` for the whole document.  Stopping early is just not iterating
    further (``report(cancelled=True)`` then covers the frames decoded so far).

    Raises ``ValueError`` (one clear sentence) for bad input before any work.
    """

    def __init__(self, request: DecodeRequest, frames: Iterable | None = None):
        self.request = request
        if request.bits is not None and (type(request.bits) is not int
                                         or not MIN_BITS <= request.bits <= MAX_BITS):
            raise ValueError(f"--bits must be {MIN_BITS}..{MAX_BITS}, got {request.bits}")
        for name, rate in (("--capture-fps", request.capture_fps), ("--display-fps", request.display_fps)):
            if rate is not None and (isinstance(rate, bool) or not isinstance(rate, int | float)
                                     or not math.isfinite(rate) or rate <= 0):
                raise ValueError(f"{name} must be a number above 0, got {rate}")
        self.manifest_used: str | None = None
        self.present = read_present(request.present_log) if request.present_log else None
        self.notes: list[str] = []
        hint: Hint | None = None
        confirm = None
        if request.manifest:
            hint = load_hint(request.manifest)
            self.manifest_used = str(request.manifest)
        self.capture = None
        if frames is None:
            self.capture = open_capture(request.path, request.capture_fps,
                                        read_threads=request.read_threads)
            if hint is None and self.capture.manifest_path is not None:
                try:
                    hint = load_hint(self.capture.manifest_path)
                    self.manifest_used = str(self.capture.manifest_path)
                except ValueError as exc:
                    self.notes.append(f"sidecar ignored: {exc}")
                else:   # a folder's sidecar describes its first frame
                    confirm = hint.frame if self.capture.kind == "images" else None
            frames = self.capture.frames()
        self.total: int | None = self.capture.count if self.capture is not None else None
        self.fps: float | None = request.capture_fps or (self.capture.fps if self.capture else None)
        lines_wanted = self.capture.read_lines if self.capture is not None and \
            request.panel_lines_only else None
        self.decoder = CaptureDecoder(frames, hint.geometry if hint else None, request.bits,
                                      confirm=confirm, lines_wanted=lines_wanted)
        self._started = False

    def __iter__(self) -> Iterator[FrameReading]:
        if self._started:
            raise RuntimeError("a decode job runs once")
        self._started = True
        try:
            yield from self.decoder
        finally:
            self.close()

    def steps(self, cancel: threading.Event | None = None
              ) -> Generator[FrameReading, None, dict]:
        """Decode frame by frame, yielding each :class:`FrameReading`; returns the report.

        Once ``cancel`` is set the job stops after the frame in hand, and the report it returns
        covers the frames read so far (``"cancelled": true``).  The capture is closed either way.
        """
        try:
            for reading in self:
                yield reading
                if cancel is not None and cancel.is_set():
                    break
            return self.report(cancelled=cancel is not None and cancel.is_set())
        finally:
            self.close()

    def close(self) -> None:
        if self.capture is not None:
            self.capture.close()

    @property
    def results(self) -> list[FrameReading]:
        return self.decoder.results

    def analysis(self):
        return analyse(self.results, self.decoder.modulus, self.fps, self.request.display_fps)

    def report(self, cancelled: bool = False) -> dict:
        """The whole document: source, capture, decoder, frames, summary, events, and whether it
        shows that no frame was dropped (``verified``, ``verdict``: :mod:`core.decode.verdict`)."""
        seq = self.analysis()
        if self.present is not None:
            seq.summary, seq.events = with_present_log(seq.summary, seq.events, self.present,
                                                       self.decoder.modulus, self.fps,
                                                       str(self.request.present_log))
        doc = {
            "testcard_decode": 1,
            "source": self.request.path,
            "capture": self.capture.describe() if self.capture is not None else None,
            "manifest": self.manifest_used,
            "decoder": self.decoder.describe(),
            "cancelled": bool(cancelled),
            "frames": [r.to_dict() for r in self.results],
            "summary": dict(seq.summary, layout=self.decoder.layout, bits=self.decoder.reader.bits),
            "events": seq.events,
        }
        notes = self.notes + self.decoder.hint_notes()
        if notes:
            doc["notes"] = notes
        with_verdict(doc)   # did every frame show (the caller may ask other checks)
        return doc


def decode_path(path, manifest=None, bits=None, capture_fps=None, display_fps=None) -> dict:
    """Decode a whole capture synchronously and return the report document."""
    job = DecodeJob(DecodeRequest(str(path), manifest, bits, capture_fps, display_fps))
    for _ in job:
        pass
    return job.report()
