"""Captured frames in: image folders and video files, one frame at a time; live sources
(V4L2 devices, X11 screen grabs, a video played live) as frames arrive (``open_source``).

An image's size is read from its header and capped (``MAX_IMAGE_PIXELS``, 2**27 pixels)
before anything is decoded; a video's from its container.  Image files are decoded a few
ahead on a small pool of threads, in order (``ReadAhead``)."""

from core.capture.clock import ClockMapping, ClockReading, bracketed_reading
from core.capture.devices import (
    NONE_FOUND,
    DeviceInfo,
    capture_devices,
    describe_devices,
    list_devices,
    screen_grab_spec,
    source_problem,
    x_screen_sizes,
)
from core.capture.files import CapturedFrame, as_image, natural_key, open_capture
from core.capture.header import MAX_IMAGE_PIXELS, ImageHeader, check_image, read_header
from core.capture.live import open_source, parse_spec
from core.capture.png_lines import INFLATER
from core.capture.readahead import ReadAhead, default_threads
from core.capture.source import CLOCKS, LiveFrame, LiveSource, SourceInfo
from core.capture.xdisplay import display_answers, screen_grabs

__all__ = [
    "CLOCKS",
    "MAX_IMAGE_PIXELS",
    "NONE_FOUND",
    "CapturedFrame",
    "ClockMapping",
    "ClockReading",
    "DeviceInfo",
    "ImageHeader",
    "LiveFrame",
    "LiveSource",
    "ReadAhead",
    "SourceInfo",
    "as_image",
    "bracketed_reading",
    "capture_devices",
    "check_image",
    "default_threads",
    "describe_devices",
    "list_devices",
    "natural_key",
    "open_capture",
    "open_source",
    "parse_spec",
    "read_header",
    "screen_grab_spec",
    "x_screen_sizes",
    "source_problem",
    "screen_grabs",
    "display_answers",
    "INFLATER",
]
