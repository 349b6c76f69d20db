"""Fake live sources: what ``core.capture.open_source`` hands a live decode, with no device.

:class:`FakeSource` plays a list of frames (``(H, W)`` arrays) at a nominal rate, stamped
``t0 + k / rate`` on the monotonic clock, optionally forever, optionally calling ``on_read(k)``
before frame ``k`` (a test's hook: cancel, send a signal).  :class:`DelayedScreen` is a display
with a known latency seen by a capture: fed the frame loop's presents, it captures at ``rate``
the counter index that reached the screen ``latency_s`` after its present.

Nothing here imports Qt: the headless tests use it too.
"""

from __future__ import annotations

import bisect
import threading
import time

import numpy as np

from core.capture import LiveFrame, SourceInfo
from core.patterns import make_spec, render


def counter_spec(width: int = 320, height: int = 180, bits: int = 16):
    return make_spec("counter", {"layout": "robust", "bits": bits}, width=width, height=height, bit_depth=8,
                     dtype="uint8")


def counter_plane(spec, index: int) -> np.ndarray:
    """The green plane of the robust counter at ``index``: what a source hands a decoder."""
    return np.ascontiguousarray(render(spec, index)[..., 1])


class FakeSource:
    """A live source playing ``frames`` (see the module's text); the FrameSource protocol."""

    kind = "fake"

    def __init__(self, frames, rate_hz: float = 60.0, *, t0: float = 1000.0, endless: bool = False,
                 on_read=None, lost=None):
        self.frames = list(frames)
        self.rate_hz, self.t0, self.endless, self.on_read = rate_hz, t0, endless, on_read
        self.lost = dict(lost or {})          # frame number -> frames lost by the source before it
        h, w = self.frames[0].shape[:2]
        self.info = SourceInfo("fake:", "file", (w, h), rate_hz, "gray", "luma", "monotonic", 16)
        self.queue_size = 16
        self.frames_behind = 0
        self.source_lost = 0
        self.error = None
        self.closed = False
        self.k = 0
        self._slot = 0                        # capture slots so far, lost ones included

    @property
    def mapping(self):
        return None

    @property
    def finished(self) -> bool:
        return self.closed or (not self.endless and self.k >= len(self.frames))

    def read(self, timeout=None):
        if self.finished:
            return None
        k = self.k
        if self.on_read is not None:
            self.on_read(k)
        self.k += 1
        gap = self.lost.get(k, 0)
        self.source_lost += gap
        self._slot += gap
        t = self.t0 + self._slot / self.rate_hz
        self._slot += 1
        return LiveFrame(self.frames[k % len(self.frames)], t, "monotonic", None, gap)

    def describe(self) -> dict:
        return {"spec": "fake:", "kind": "file", "clock": "monotonic", "frames_read": self.k,
                "frames_behind": self.frames_behind, "source_lost": self.source_lost}

    def close(self) -> None:
        self.closed = True


class DelayedScreen:
    """A screen showing each presented index ``latency_s`` after its present, captured at
    ``rate_hz`` by a source on the given clock.  Call :meth:`presented` with each presented
    index (the GUI thread); the capture (:meth:`read`) runs on the decode's thread."""

    kind = "fake"

    def __init__(self, spec, latency_s: float, rate_hz: float = 120.0, *, seconds: float = 30.0,
                 clock=time.perf_counter):
        self.spec, self.latency_s, self.rate_hz, self.clock = spec, latency_s, rate_hz, clock
        self.info = SourceInfo("screen:", "file", (spec.width, spec.height), rate_hz, "gray", "luma",
                               "monotonic", 16)
        self.queue_size = 16
        self.frames_behind = self.source_lost = 0
        self.error = None
        self._lock = threading.Lock()
        self._times: list[float] = []
        self._indices: list[int] = []
        self._stop = threading.Event()
        self._next: float | None = None
        self._until = clock() + seconds
        self._planes: dict[int, np.ndarray] = {}
        self._black = np.zeros((spec.height, spec.width), np.uint8)
        self.captures = 0

    def presented(self, index: int) -> None:
        with self._lock:
            self._times.append(self.clock())
            self._indices.append(int(index))

    def shown_for(self, index: int) -> float:
        """How long ``index`` was on this screen (until the next present reached it), seconds."""
        with self._lock:
            k = self._indices.index(index)
            return self._times[k + 1] - self._times[k] if k + 1 < len(self._times) else float("inf")

    @property
    def mapping(self):
        return None

    @property
    def finished(self) -> bool:
        return self._stop.is_set() or self.clock() >= self._until

    def _shown(self, t: float) -> int | None:
        with self._lock:
            k = bisect.bisect_right(self._times, t - self.latency_s) - 1
            return self._indices[k] if k >= 0 else None

    def read(self, timeout=None):
        now = self.clock()
        if self._next is None:
            self._next = now
        # a device delivers its next frame at its own time: wait for it (or for close)
        if self._stop.wait(max(0.0, self._next - now)) or self.finished:
            return None
        t = self._next
        self._next += 1.0 / self.rate_hz
        index = self._shown(t)
        if index is None:
            image = self._black
        else:
            image = self._planes.get(index)
            if image is None:
                image = self._planes[index] = counter_plane(self.spec, index)
        self.captures += 1
        return LiveFrame(image, t, "monotonic", None, 0)

    def describe(self) -> dict:
        return {"spec": "screen:", "kind": "file", "clock": "monotonic", "frames_read": self.captures}

    def close(self) -> None:
        self._stop.set()
