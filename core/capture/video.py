"""A video file's frames through PyAV: the codec's own decoding threads, the luma plane where
the format has one (no colour conversion), and a size checked from the container's header (a
raw YUV4MPEG2 stream's from its first line, before FFmpeg reads it) and again per frame; a raw
stream's frames are checked against its header before each is decoded (:mod:`core.capture.y4m`).

``open_capture`` (:mod:`core.capture.files`) opens these for a video file's suffix.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from core.capture.base import Capture, CapturedFrame
from core.capture.header import MAX_IMAGE_PIXELS
from core.capture.y4m import frame_checks, y4m_layout
from core.imageio import sidecar_path


class VideoCapture(Capture):
    kind = "video"

    def __init__(self, path: Path, fps: float | None = None, max_pixels: int = MAX_IMAGE_PIXELS,
                 threads: int | None = None):
        """``threads``: the codec's decoding threads (default: FFmpeg's own choice; 1: one)."""
        import av

        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                    or threads < 1):
            raise ValueError(f"read threads: expected a whole number >= 1, got {threads!r}")

        super().__init__(str(path), fps)
        self.path = path
        self._y4m = y4m_layout(path)   # a raw stream's size, refused before FFmpeg reads it
        if self._y4m is not None and self._y4m.width * self._y4m.height > max_pixels:
            raise ValueError(_over_cap(path, self._y4m.width, self._y4m.height, max_pixels))
        try:
            self._container = av.open(str(path))
        except Exception as exc:
            raise ValueError(f"cannot open video {path.name}: {_av_message(exc)}") from None
        if not self._container.streams.video:
            self._container.close()
            raise ValueError(f"{path.name} has no video stream (no frames to decode)")
        stream = self._container.streams.video[0]
        # frame and slice threads as the codec allows (FFmpeg decodes one thread by default)
        stream.thread_type = "AUTO" if threads != 1 else "NONE"
        if threads is not None and threads > 1:
            stream.thread_count = threads
        self._stream = stream
        self.count = int(stream.frames) or None
        rate = stream.average_rate or stream.guessed_rate
        if self.fps is None and rate:
            self.fps = float(rate)
        self.codec = stream.codec_context.name
        self.pix_fmt = stream.codec_context.pix_fmt
        self.max_pixels = max_pixels
        w, h = stream.codec_context.width or 0, stream.codec_context.height or 0
        if w * h > max_pixels:  # from the container's header, before a frame is decoded
            self._container.close()
            raise ValueError(_over_cap(path, w, h, max_pixels))

        if sidecar_path(path).exists():
            self.manifest_path = sidecar_path(path)

    def describe(self) -> dict:
        return dict(super().describe(), codec=self.codec, pix_fmt=self.pix_fmt)

    def frames(self) -> Iterator[CapturedFrame]:
        pos = 0
        fallback_dt = 1.0 / self.fps if self.fps else None
        # a raw stream's frames are checked against its header before each is decoded
        checks = frame_checks(self.path, self._y4m) if self._y4m is not None else None
        try:
            packets = self._container.demux(self._stream)
            while True:
                try:
                    packet = next(packets)
                except StopIteration:   # a raw stream's last frame cut short is no packet: said
                    left = next(checks, None) if checks is not None else None
                    if left is not None:
                        yield CapturedFrame(pos, pos * fallback_dt if fallback_dt else None, None, None, left)
                    break
                except Exception as exc:  # damaged container: report and stop reading
                    yield CapturedFrame(pos, None, None, None, f"reading stopped: {_av_message(exc)}")
                    break
                wrong = next(checks, None) if checks is not None and packet.size else None
                if wrong is not None:   # never decoded: its picture would mix two frames
                    yield CapturedFrame(pos, _packet_time(packet), None, None,
                                        f"{wrong}; reading stopped (the frames after it are not where "
                                        "the header puts them)")
                    break
                try:
                    decoded = packet.decode()
                except Exception as exc:  # a damaged packet: one unreadable frame, go on
                    yield CapturedFrame(pos, _packet_time(packet), None, None,
                                        f"undecodable video data: {_av_message(exc)}")
                    pos += 1
                    continue
                for frame in decoded:
                    ts = frame.time
                    if ts is None and fallback_dt:
                        ts = pos * fallback_dt
                    try:
                        if frame.width * frame.height > self.max_pixels:  # a stream that grew
                            raise ValueError(f"{frame.width}x{frame.height} is over the limit of "
                                             f"{self.max_pixels:,} pixels")
                        image = video_frame_array(frame)
                    except Exception as exc:
                        yield CapturedFrame(pos, ts, None, None, f"cannot convert frame: {exc}")
                    else:
                        yield CapturedFrame(pos, ts, image, None)
                    pos += 1
        finally:
            self.close()

    def close(self) -> None:
        try:
            self._container.close()
        except Exception:  # already closed
            pass


def _over_cap(path: Path, w: int, h: int, max_pixels: int) -> str:
    return (f"cannot open video {path.name}: its {w}x{h} frames ({w * h:,} pixels) "
            f"are over the limit of {max_pixels:,} pixels")


def _packet_time(packet) -> float | None:
    try:
        return float(packet.pts * packet.time_base) if packet.pts is not None else None
    except Exception:
        return None


def _av_message(exc) -> str:
    # FFmpeg errors carry the file name in str(); strerror is the reason alone
    text = (getattr(exc, "strerror", None) or str(exc)).strip() or type(exc).__name__
    return text.splitlines()[0][:200]


_LUMA_PREFIXES = ("yuv", "yuvj", "nv12", "nv21", "nv16", "gray", "p010", "p016", "gbrp")


def video_frame_array(frame) -> np.ndarray:
    """The luma (or green) plane as ``(H, W)`` when the format is planar, else RGB ``(H, W, 3)``.

    The plane is a view of the frame's memory: no colour conversion, no copy.
    """
    fmt = frame.format
    name = fmt.name
    if name.startswith(_LUMA_PREFIXES) and fmt.components:
        depth = fmt.components[0].bits
        dt: np.dtype
        if depth <= 8:
            dt = np.dtype(np.uint8)
        else:
            dt = np.dtype(">u2" if name.endswith("be") else "<u2")
        plane = frame.planes[0]
        stride = plane.line_size // dt.itemsize
        arr: np.ndarray = np.frombuffer(plane, dtype=dt, count=stride * plane.height)
        arr = arr.reshape(plane.height, stride)[:, : plane.width]
        if name.startswith(("p010", "p016")):  # MSB-aligned 10-bit
            arr = arr >> 6 if name.startswith("p010") else arr
        return arr
    high = any(c.bits > 8 for c in fmt.components)
    return frame.to_ndarray(format="rgb48le" if high else "rgb24")
