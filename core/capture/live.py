"""Live capture sources: frames as they arrive, each stamped on CLOCK_MONOTONIC.

``open_source(SPEC)`` opens one of

* ``v4l2:/dev/videoN``: a V4L2 device through PyAV's ``v4l2`` input (``size``, ``fps`` and
  ``pixel_format`` -- FFmpeg's ``input_format``, e.g. ``mjpeg``, ``yuyv422`` -- as asked).  Its
  kernel timestamps are CLOCK_MONOTONIC microseconds (clock ``monotonic``); a driver stamping
  the wall clock is mapped like x11grab, and one stamping neither is stamped on arrival
  (clock ``arrival``);
* ``x11grab:DISPLAY[+X,Y]`` (``x11grab::99``, ``x11grab::0.0+100,50``): an X11 screen grab.
  Its timestamps are wall-clock (CLOCK_REALTIME) microseconds, mapped onto the monotonic clock
  by bracketed clock readings refreshed every second (:class:`core.capture.clock.ClockMapping`,
  clock ``realtime-mapped``; ``LiveSource.mapping`` is the mapping used);
* ``file:PATH``, a plain path, or a FIFO: a video played as a live stream at its own rate, each
  frame released when its pts says, stamped ``t0 + (pts - pts0)`` on the monotonic clock (clock
  ``stream``).  ``paced=False`` releases frames as fast as they are taken, stamped with the pts
  itself and never dropped (reading a recording offline).

A source's own thread reads and decodes, and a slow consumer makes it drop, never wait
(:mod:`core.capture.source`: the queue, the counters, capture-side drops kept apart).

Frames carry only the plane the counter panel needs (:mod:`core.capture.planes`): the luma
plane of YUV, the green channel of RGB, as a private ``(H, W)`` array.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import stat
import time
from dataclasses import replace

from core.capture.clock import ClockMapping
from core.capture.header import MAX_IMAGE_PIXELS
from core.capture.source import OPEN_TIMEOUT_S, QUEUE_FRAMES, LiveSource, SourceInfo, error_text

FORMS = "v4l2:/dev/videoN, x11grab:DISPLAY[+X,Y], file:PATH or a path to a video file or FIFO"
_DISPLAY = re.compile(r"([A-Za-z0-9._-]*):(\d+)(?:\.(\d+))?(?:\+(\d+),(\d+))?")


def _check_rate(fps) -> float | None:
    if fps is None:
        return None
    if isinstance(fps, bool) or not isinstance(fps, int | float) or not math.isfinite(fps) \
            or not 0 < fps <= 10_000:
        raise ValueError(f"fps must be a number of frames per second above 0, got {fps!r}")
    return float(fps)


def _check_size(size) -> tuple[int, int] | None:
    if size is None:
        return None
    ok = isinstance(size, tuple | list) and len(size) == 2 and all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in size)
    if not ok:
        raise ValueError(f"size must be (width, height) in whole pixels of 1 or more, got {size!r}")
    w, h = int(size[0]), int(size[1])
    if w * h > MAX_IMAGE_PIXELS:
        raise ValueError(f"size {w}x{h} is over the limit of {MAX_IMAGE_PIXELS:,} pixels")
    return w, h


class X11GrabSource(LiveSource):
    kind = "x11grab"
    clock = "realtime-mapped"

    def __init__(self, spec: str, display: str, *, size=None, fps=None, queue_size=QUEUE_FRAMES,
                 monotonic=time.monotonic, realtime=time.time):
        super().__init__(spec, queue_size=queue_size, monotonic=monotonic)
        self.display, self.size, self.fps = display, size, fps
        self._realtime = realtime
        self._mapping: ClockMapping | None = None

    def _open(self) -> SourceInfo:
        import av

        # no probing: FFmpeg would otherwise buffer half a second of frames before the first
        opts = {"draw_mouse": "0", "analyzeduration": "0", "probesize": "32"}
        if self.fps:
            opts["framerate"] = f"{self.fps:g}"
        if self.size:
            opts["video_size"] = f"{self.size[0]}x{self.size[1]}"
        self._mapping = ClockMapping(self._monotonic, self._realtime)
        try:
            self._container = av.open(self.display, format="x11grab", options=opts)
        except Exception as exc:  # noqa: BLE001
            raise ValueError(f"{self.spec}: cannot grab display {self.display}: {error_text(exc)}") from None
        return self._describe(self._container, self.kind, self.clock)

    def _stamp(self, frame) -> tuple[float, float | None]:
        assert self._mapping is not None   # made by _open, before any frame
        self._mapping.refresh()
        raw = frame.time
        if raw is None:
            return self._monotonic(), None
        return self._mapping.to_monotonic(raw), float(raw)

    @property
    def mapping(self) -> dict | None:
        """The wall-clock to monotonic mapping in use (:meth:`ClockMapping.describe`)."""
        return self._mapping.describe() if self._mapping is not None else None


class V4L2Source(LiveSource):
    kind = "v4l2"

    def __init__(self, spec: str, path: str, *, size=None, fps=None, pixel_format=None,
                 queue_size=QUEUE_FRAMES, monotonic=time.monotonic, realtime=time.time):
        super().__init__(spec, queue_size=queue_size, monotonic=monotonic)
        self.path, self.size, self.fps, self.pixel_format = path, size, fps, pixel_format
        self._realtime = realtime
        self._mapping: ClockMapping | None = None

    def _open(self) -> SourceInfo:
        import av

        try:
            mode = os.stat(self.path).st_mode
        except OSError as exc:
            raise ValueError(f"{self.spec}: {exc.strerror or exc} (see the device list)") from None
        if not stat.S_ISCHR(mode):
            raise ValueError(f"{self.spec}: {self.path} is not a device")
        opts = {}
        if self.fps:
            opts["framerate"] = f"{self.fps:g}"
        if self.size:
            opts["video_size"] = f"{self.size[0]}x{self.size[1]}"
        if self.pixel_format:
            opts["input_format"] = self.pixel_format
        try:
            self._container = av.open(self.path, format="video4linux2", options=opts)
        except Exception as exc:  # noqa: BLE001
            raise ValueError(f"{self.spec}: cannot open: {error_text(exc)}") from None
        return self._describe(self._container, self.kind, self.clock)

    def _stamp(self, frame) -> tuple[float, float | None]:
        raw = frame.time
        if raw is None:
            return self._arrival()
        raw = float(raw)
        if self._mapping is not None:
            self._mapping.refresh()
            return self._mapping.to_monotonic(raw), raw
        if self.clock == "arrival":
            return self._arrival()
        if abs(raw - self._monotonic()) < 10.0:
            return raw, raw
        if self.frames_read == 0 and abs(raw - self._realtime()) < 10.0:
            self.clock = "realtime-mapped"
            self._mapping = ClockMapping(self._monotonic, self._realtime)
            return self._mapping.to_monotonic(raw), raw
        if self.frames_read == 0:
            self.clock = "arrival"
            return self._arrival()
        return raw, raw

    def _arrival(self) -> tuple[float, None]:
        return self._monotonic(), None

    def _deliver(self, frame) -> None:
        before = self.clock
        super()._deliver(frame)
        if self.clock != before and self.info is not None:
            self.info = replace(self.info, clock=self.clock)

    @property
    def mapping(self) -> dict | None:
        return self._mapping.describe() if self._mapping is not None else None


class FileSource(LiveSource):
    kind = "file"
    clock = "stream"

    def __init__(self, spec: str, path: str, *, queue_size=QUEUE_FRAMES, paced=True,
                 monotonic=time.monotonic):
        super().__init__(spec, queue_size=queue_size, paced=paced, monotonic=monotonic)
        self.path = path
        self.fifo = False
        self._t0: float | None = None
        self._pts0: float | None = None
        self._count = 0

    def _open(self) -> SourceInfo:
        import av

        try:
            st = os.stat(self.path)
        except OSError as exc:
            raise ValueError(f"{self.spec}: {exc.strerror or exc}") from None
        self.fifo = stat.S_ISFIFO(st.st_mode)
        if not (self.fifo or stat.S_ISREG(st.st_mode)):
            raise ValueError(f"{self.spec}: not a video file or FIFO")
        try:
            self._container = av.open(self.path)
        except Exception as exc:  # noqa: BLE001
            raise ValueError(f"{self.spec}: cannot open video: {error_text(exc)}") from None
        if not self._container.streams.video:
            raise ValueError(f"{self.spec}: has no video stream")
        self._container.streams.video[0].thread_type = "AUTO"
        return self._describe(self._container, self.kind, self.clock)

    def _stamp(self, frame) -> tuple[float, float | None]:
        rate = self.info.rate_hz if self.info is not None else None
        pts = frame.time
        if pts is None:
            pts = self._count / rate if rate else float(self._count)
        pts = float(pts)
        self._count += 1
        if not self.paced:
            return pts, pts
        if self._t0 is None or self._pts0 is None:   # (set together, at the first frame)
            self._t0, self._pts0 = self._monotonic(), pts
        return self._t0 + (pts - self._pts0), pts

    def _pace(self, t_s: float) -> None:
        if self.paced:
            delay = t_s - self._monotonic()
            if delay > 0:
                self._stop.wait(delay)

    def _unblock(self) -> None:
        if self.fifo:   # a reader still in open() waits for a writer: be one
            with contextlib.suppress(OSError):
                os.close(os.open(self.path, os.O_WRONLY | os.O_NONBLOCK))


def parse_spec(spec: str) -> tuple[str, str]:
    """(kind, target) for a source spec; ``ValueError`` naming the accepted forms."""
    text = str(spec).strip()
    if not text:
        raise ValueError(f"no capture source given: expected {FORMS}")
    if text.startswith("v4l2:"):
        path = text[5:]
        if not path:
            raise ValueError("v4l2: needs a device path, e.g. v4l2:/dev/video0")
        return "v4l2", path
    if text.startswith("x11grab:"):
        display = text[8:] or os.environ.get("DISPLAY", "")
        if not _DISPLAY.fullmatch(display):
            raise ValueError(f"x11grab needs a display like x11grab::0 or x11grab::0.0+100,50, "
                             f"got {text!r}")
        return "x11grab", display
    if text.startswith("file:"):
        if not text[5:]:
            raise ValueError("file: needs a path, e.g. file:capture.mkv")
        return "file", text[5:]
    if os.path.exists(text):
        with contextlib.suppress(OSError):
            if stat.S_ISCHR(os.stat(text).st_mode) and os.path.basename(text).startswith("video"):
                return "v4l2", text
        return "file", text
    raise ValueError(f"unknown capture source {text!r}: expected {FORMS}")


def open_source(spec: str, *, size=None, fps=None, pixel_format=None, queue_size: int = QUEUE_FRAMES,
                paced: bool = True, open_timeout: float = OPEN_TIMEOUT_S) -> LiveSource:
    """A started live source for ``spec`` (see the module's text).

    Refuses with ``ValueError`` (one sentence naming the parameter) a malformed spec, size, fps,
    pixel format or queue size, and a source that cannot be opened.  ``size`` is
    ``(width, height)``; ``pixel_format`` applies to V4L2 devices only.
    """
    kind, target = parse_spec(spec)
    size, fps = _check_size(size), _check_rate(fps)
    if pixel_format is not None:
        if kind != "v4l2":
            raise ValueError(f"pixel_format applies to v4l2 sources only ({kind} delivers its own "
                             f"format), got {pixel_format!r}")
        if not isinstance(pixel_format, str) or not re.fullmatch(r"[a-z0-9_]{1,32}", pixel_format):
            raise ValueError(f"pixel_format must be an FFmpeg format name like mjpeg or yuyv422, "
                             f"got {pixel_format!r}")
    if kind == "x11grab":
        source: LiveSource = X11GrabSource(spec, target, size=size, fps=fps, queue_size=queue_size)
    elif kind == "v4l2":
        source = V4L2Source(spec, target, size=size, fps=fps, pixel_format=pixel_format,
                            queue_size=queue_size)
    else:
        if size is not None or fps is not None:
            raise ValueError("size and fps apply to v4l2 and x11grab sources: a file plays at its "
                             "own size and rate")
        source = FileSource(spec, target, queue_size=queue_size, paced=paced)
    return source.start(open_timeout)
