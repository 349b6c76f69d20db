"""A live source's machinery: its reader thread, its bounded queue, its counters.

:class:`LiveSource` runs the source's container on a thread of its own and hands frames over
through a queue of ``queue_size`` frames.  A consumer that falls behind never blocks the
capture: while the queue is full, new frames are dropped and counted (``frames_behind``,
capture-side drops).  Frames the source itself lost -- by an interval longer than
:data:`GAP_FACTOR` periods at its nominal rate, where it has no sequence numbers -- are counted
apart (``source_lost``).  Each :class:`LiveFrame` carries the number lost just before it both
ways, so a decoder never blames a capture gap on the display.  The kinds of source are in
:mod:`core.capture.live`.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.capture.header import MAX_IMAGE_PIXELS
from core.capture.planes import panel_plane, plane_kind

if TYPE_CHECKING:   # PyAV is imported lazily, where a source opens
    from av.container import InputContainer

QUEUE_FRAMES = 16          # frames a source holds for a slow consumer before it drops
OPEN_TIMEOUT_S = 10.0
GAP_FACTOR = 1.5           # an interval above this many periods lost frames
CLOCKS = ("monotonic", "realtime-mapped", "stream", "arrival")


@dataclass(frozen=True)
class LiveFrame:
    """One captured frame.  ``t_s``: when it was captured, CLOCK_MONOTONIC seconds (for clock
    ``stream``: the stream's own time laid on it).  ``seq``: the source's sequence number, where
    it has one.  ``source_seq_gap``: frames the source lost just before this one; ``dropped_before``:
    frames dropped just before it because the consumer fell behind.  ``source_time``: the raw
    timestamp before mapping (seconds on the source's clock)."""

    image: np.ndarray
    t_s: float
    clock: str
    seq: int | None
    source_seq_gap: int
    dropped_before: int = 0
    source_time: float | None = None

    @property
    def lost_before(self) -> int:
        """Capture-side frames missing just before this one, for any reason."""
        return self.source_seq_gap + self.dropped_before


@dataclass(frozen=True)
class SourceInfo:
    spec: str
    kind: str                      # "v4l2", "x11grab" or "file"
    size: tuple[int, int]          # (width, height)
    rate_hz: float | None          # nominal frame rate
    pixel_format: str              # the source's format (FFmpeg's name)
    plane: str                     # what the frames carry: luma, green or gray (converted)
    clock: str
    queue_size: int

    def to_dict(self) -> dict:
        d = asdict(self)
        d["size"] = list(self.size)
        return d


def error_text(exc: BaseException) -> str:
    text = (getattr(exc, "strerror", None) or str(exc)).strip() or type(exc).__name__
    return text.splitlines()[0][:200]


class LiveSource:
    """Frames from a live source, read on the source's own thread (see the module's text).

    Iterate for :class:`LiveFrame` objects until the source ends or :meth:`close` is called, or
    call :meth:`read` with a timeout.  ``info`` describes the source once open; ``error`` is the
    sentence that stopped a source that failed mid-run.
    """

    kind = "live"
    clock = "monotonic"

    def __init__(self, spec: str, *, queue_size: int = QUEUE_FRAMES, paced: bool = True,
                 monotonic=time.monotonic):
        if isinstance(queue_size, bool) or not isinstance(queue_size, int) or not 1 <= queue_size <= 1024:
            raise ValueError(f"queue_size must be a whole number of frames 1..1024, got {queue_size!r}")
        self.spec = spec
        self.queue_size = queue_size
        self.paced = paced
        self._monotonic = monotonic
        self._queue: queue.Queue = queue.Queue(maxsize=queue_size)
        self._stop = threading.Event()
        self._opened = threading.Event()
        self._finished = threading.Event()
        self._open_error: str | None = None
        self.info: SourceInfo | None = None
        self.error: str | None = None
        self.frames_read = 0          # frames the source delivered to its reader
        self.frames_behind = 0        # dropped because the consumer fell behind
        self.source_lost = 0          # lost by the source itself (sequence or interval gaps)
        self.max_backlog = 0          # the most frames ever waiting in the queue
        self.decode_errors = 0
        self._carry_gap = 0
        self._carry_drop = 0
        self._last_t: float | None = None
        self._container: InputContainer | None = None   # opened and closed on the reader thread
        self._thread = threading.Thread(target=self._run, name=f"testcard-capture-{self.kind}",
                                        daemon=True)

    # ------------------------------------------------------------ what a kind provides
    def _open(self) -> SourceInfo:  # pragma: no cover - abstract
        """Open the container (on the reader thread); the source's description."""
        raise NotImplementedError

    def _stamp(self, frame) -> tuple[float, float | None]:  # pragma: no cover - abstract
        """(t_s on the monotonic clock, raw source time) for a decoded frame."""
        raise NotImplementedError

    def _unblock(self) -> None:
        """Release a reader blocked in open or read (a FIFO without a writer)."""

    # ------------------------------------------------------------ running
    def start(self, open_timeout: float = OPEN_TIMEOUT_S) -> LiveSource:
        self._thread.start()
        if not self._opened.wait(open_timeout):
            self.close()
            raise ValueError(f"{self.spec}: did not open within {open_timeout:g} s "
                             "(a FIFO nobody writes to, or a device that does not answer)")
        if self._open_error is not None:
            self._thread.join(timeout=2.0)
            raise ValueError(self._open_error)
        return self

    def _run(self) -> None:
        try:
            try:
                self.info = self._open()
            except Exception as exc:  # noqa: BLE001 - FFmpeg's errors, said as one sentence
                self._open_error = exc.args[0] if isinstance(exc, ValueError) and exc.args else \
                    f"{self.spec}: cannot open: {error_text(exc)}"
                return
            finally:
                self._opened.set()
            self._read_all()
        except Exception as exc:  # noqa: BLE001 - a device unplugged, a stream cut: said, not raised
            self.error = f"{self.spec}: capture stopped: {error_text(exc)}"
        finally:
            with contextlib.suppress(Exception):
                if self._container is not None:
                    self._container.close()
            self._finished.set()

    def _read_all(self) -> None:
        assert self._container is not None   # _run reads only after _open opened it
        stream = self._container.streams.video[0]
        for packet in self._container.demux(stream):
            if self._stop.is_set():
                return
            try:
                frames = packet.decode()
            except Exception:  # noqa: BLE001 - a damaged packet: its frame is lost, reading goes on
                self.decode_errors += 1
                continue
            for frame in frames:
                if self._stop.is_set():
                    return
                self._deliver(frame)
        if self.kind != "file" and not self._stop.is_set():
            self.error = f"{self.spec}: the source ended"

    def _deliver(self, frame) -> None:
        if frame.width * frame.height > MAX_IMAGE_PIXELS:
            raise ValueError(f"frames of {frame.width}x{frame.height} are over the limit of "
                             f"{MAX_IMAGE_PIXELS:,} pixels")
        t_s, raw = self._stamp(frame)
        image = panel_plane(frame)
        self.frames_read += 1
        gap = self._interval_gap(t_s)
        self.source_lost += gap
        self._pace(t_s)
        live = LiveFrame(image, t_s, self.clock, None, self._carry_gap + gap, self._carry_drop, raw)
        if not self.paced:   # offline: never drop, wait for the consumer
            while not self._stop.is_set():
                try:
                    self._queue.put(live, timeout=0.1)
                    break
                except queue.Full:
                    continue
        else:
            try:
                self._queue.put_nowait(live)
            except queue.Full:
                self.frames_behind += 1
                self._carry_gap, self._carry_drop = live.source_seq_gap, live.dropped_before + 1
                return
        self._carry_gap = self._carry_drop = 0
        self.max_backlog = max(self.max_backlog, self._queue.qsize())

    def _interval_gap(self, t_s: float) -> int:
        """Frames the source lost before this one, judged by the interval at the nominal rate."""
        last, self._last_t = self._last_t, t_s
        rate = self.info.rate_hz if self.info is not None else None
        if last is None or not rate:
            return 0
        periods = (t_s - last) * rate
        return max(0, round(periods) - 1) if periods > GAP_FACTOR else 0

    def _pace(self, t_s: float) -> None:
        """A file played live waits for its frame's time."""

    # ------------------------------------------------------------ consuming
    def read(self, timeout: float | None = None) -> LiveFrame | None:
        """The next frame; None when none came within ``timeout`` or the source has ended."""
        deadline = None if timeout is None else self._monotonic() + timeout
        while True:
            try:
                return self._queue.get(timeout=0.05)
            except queue.Empty:
                if self._finished.is_set() and self._queue.empty():
                    return None
                if deadline is not None and self._monotonic() >= deadline:
                    return None

    @property
    def finished(self) -> bool:
        """The source has ended (or was closed) and every frame it queued has been read."""
        return self._finished.is_set() and self._queue.empty()

    @property
    def backlog(self) -> int:
        return self._queue.qsize()

    @property
    def capture_drops(self) -> int:
        return self.frames_behind + self.source_lost

    def __iter__(self) -> Iterator[LiveFrame]:
        while (frame := self.read()) is not None:
            yield frame

    @property
    def mapping(self) -> dict | None:
        """The wall-clock to monotonic mapping in use, for sources stamped by the wall clock."""
        return None

    def describe(self) -> dict:
        """What a report says of the source: its info, counters, and clock mapping if any."""
        d = self.info.to_dict() if self.info is not None else {"spec": self.spec, "kind": self.kind}
        d.update(self.counters())
        if self.mapping is not None:
            d["clock_mapping"] = self.mapping
        if self.error:
            d["error"] = self.error
        return d

    def counters(self) -> dict:
        return {"frames_read": self.frames_read, "frames_behind": self.frames_behind,
                "source_lost": self.source_lost, "capture_drops": self.capture_drops,
                "decode_errors": self.decode_errors, "backlog": self.backlog,
                "max_backlog": self.max_backlog, "queue_size": self.queue_size}

    def close(self) -> None:
        """Stop reading and release the device or file (waits up to a few seconds)."""
        self._stop.set()
        if not self._opened.is_set():     # still in open(): a FIFO waits for a writer
            self._unblock()
        if self._thread.is_alive():
            self._thread.join(timeout=2.0)
        if self._thread.is_alive():
            self._unblock()
            self._thread.join(timeout=2.0)
        with contextlib.suppress(queue.Empty):
            while True:
                self._queue.get_nowait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _describe(self, container, kind: str, clock: str) -> SourceInfo:
        cc = container.streams.video[0].codec_context
        stream = container.streams.video[0]
        if (cc.width or 0) * (cc.height or 0) > MAX_IMAGE_PIXELS:
            raise ValueError(f"{self.spec}: its {cc.width}x{cc.height} frames are over the limit "
                             f"of {MAX_IMAGE_PIXELS:,} pixels")
        rate = stream.average_rate or stream.guessed_rate or stream.base_rate
        return SourceInfo(self.spec, kind, (int(cc.width or 0), int(cc.height or 0)),
                          float(rate) if rate else None, cc.pix_fmt or "", plane_kind(cc.pix_fmt),
                          clock, self.queue_size)
