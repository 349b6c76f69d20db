"""The one plane of a video frame that the counter panel needs, copied out without colour
conversion.

The panel is black and white, so one channel reads it: the luma (Y) plane of a YUV frame, the
green channel of an RGB one.  Planar formats hand it over as their first plane
(:func:`core.capture.video.video_frame_array`); packed YUV 4:2:2 (``yuyv422``, ``uyvy422``) and
packed RGB (``bgr0``, ``rgb24`` ...) are read with a strided view; anything else is converted
to ``gray`` by FFmpeg.  The result is a private, contiguous ``(H, W)`` array (uint8, or uint16
for deeper formats): a live source queues frames, and a decoder's buffer is reused.
"""

from __future__ import annotations

import numpy as np

from core.capture.video import video_frame_array

# formats whose first plane is luma (or green, for gbrp): what video_frame_array hands over
LUMA_PREFIXES = ("yuv", "yuvj", "nv12", "nv21", "nv16", "gray", "p010", "p016", "gbrp")

# packed formats: (bytes per pixel, byte offset of the channel read within a pixel)
_PACKED = {
    "yuyv422": (2, 0), "yvyu422": (2, 0), "uyvy422": (2, 1),
    "bgr0": (4, 1), "rgb0": (4, 1), "bgra": (4, 1), "rgba": (4, 1),
    "0rgb": (4, 2), "0bgr": (4, 2), "argb": (4, 2), "abgr": (4, 2),
    "rgb24": (3, 1), "bgr24": (3, 1),
}


def plane_kind(pix_fmt: str | None) -> str:
    """What :func:`panel_plane` reads for a format: ``luma``, ``green`` or ``gray (converted)``."""
    name = pix_fmt or ""
    if name.startswith(LUMA_PREFIXES) or name.startswith(("yuyv", "yvyu", "uyvy")):
        return "green" if name.startswith("gbrp") else "luma"
    if name in _PACKED:
        return "green"
    return "gray (converted)"


def panel_plane(frame) -> np.ndarray:
    """A PyAV ``VideoFrame`` as the ``(H, W)`` plane the panel is read from (a copy)."""
    fmt = frame.format
    name = fmt.name
    if name.startswith(LUMA_PREFIXES):
        return np.ascontiguousarray(video_frame_array(frame)).copy()
    packed = _PACKED.get(name)
    if packed is not None:
        step, offset = packed
        plane = frame.planes[0]
        w, h = frame.width, frame.height
        raw = np.frombuffer(plane, np.uint8, count=plane.line_size * h).reshape(h, plane.line_size)
        return np.ascontiguousarray(raw[:, offset: step * w: step])
    gray = frame.reformat(format="gray")
    plane = gray.planes[0]
    raw = np.frombuffer(plane, np.uint8, count=plane.line_size * gray.height)
    return np.ascontiguousarray(raw.reshape(gray.height, plane.line_size)[:, : gray.width])
