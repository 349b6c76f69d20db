"""Live-capture test material: small lossless videos written with PyAV, and a source that plays
a list of frames as a live source would hand them over."""

from __future__ import annotations

import fractions

import numpy as np
import pytest

from core.capture import LiveFrame, SourceInfo


def lossless_codec() -> str:
    """A lossless encoder PyAV has here (ffv1, else libx264rgb); skips when there is none."""
    import av

    for codec in ("ffv1", "libx264rgb"):
        if codec in av.codecs_available:
            return codec
    pytest.skip("no lossless video encoder (ffv1, libx264rgb) in this PyAV")


def write_gray_video(path, frames, fps: int = 60, pts=None) -> None:
    """``(H, W)`` uint8 frames as a lossless video; ``pts`` in frame periods (default 0, 1, ...)."""
    import av

    codec = lossless_codec()
    tb = fractions.Fraction(1, fps)
    with av.open(str(path), "w") as out:
        stream = out.add_stream(codec, rate=fps)
        h, w = frames[0].shape[:2]
        stream.width, stream.height = w, h
        stream.pix_fmt = "gray" if codec == "ffv1" else "rgb24"
        stream.time_base = tb
        for i, img in enumerate(frames):
            if codec == "ffv1":
                vf = av.VideoFrame.from_ndarray(np.ascontiguousarray(img), format="gray")
            else:
                vf = av.VideoFrame.from_ndarray(np.ascontiguousarray(np.dstack([img] * 3)), format="rgb24")
            vf.pts = i if pts is None else pts[i]
            vf.time_base = tb
            for packet in stream.encode(vf):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)


def levels(n: int, shape=(48, 64)) -> list[np.ndarray]:
    """``n`` frames of rising grey levels (frame i is 8 * i + 4): a frame's level is its number."""
    return [np.full(shape, 8 * i + 4, np.uint8) for i in range(n)]


class ListSource:
    """Frames from a list, one per ``read`` (None once they run out), as a live source hands them
    over; what the decode asks of a source, and nothing else."""

    def __init__(self, frames: list[LiveFrame], rate_hz: float | None = 60.0, clock: str = "monotonic",
                 on_read=None):
        h, w = frames[0].image.shape[:2] if frames else (0, 0)
        self.info = SourceInfo("list:", "list", (w, h), rate_hz, "gray", "luma", clock, 16)
        self.frames = list(frames)
        self.frames_behind = sum(f.dropped_before for f in frames)
        self.source_lost = sum(f.source_seq_gap for f in frames)
        self.closed = False
        self.reads = 0
        self.on_read = on_read

    def read(self, timeout=None):
        self.reads += 1
        if self.on_read is not None:
            self.on_read(self)
        return self.frames.pop(0) if self.frames else None

    @property
    def finished(self) -> bool:
        return not self.frames

    @property
    def mapping(self):
        return None

    def describe(self) -> dict:
        return dict(self.info.to_dict(), frames_behind=self.frames_behind)

    def close(self) -> None:
        self.closed = True
