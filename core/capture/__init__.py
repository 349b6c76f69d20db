"""Captured frames in: image folders and video files, one frame at a time."""

from core.capture.files import CapturedFrame, as_image, natural_key, open_capture

__all__ = [
    "CapturedFrame",
    "as_image",
    "natural_key",
    "open_capture",
]
