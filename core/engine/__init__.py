"""The frame engine: frame N of a spec, display-ready, on a render path.

``PATHS`` is the one tuple of render paths; ``Engine`` renders on one of them into a reused
host buffer and returns a ``RenderedFrame``; ``formats`` converts code values to display
formats; ``devices`` says which torch devices exist.
"""

from core.engine.bench import bench_engine, bench_frames
from core.engine.devices import available_devices, check_device, device_problem
from core.engine.engine import Engine, RenderedFrame
from core.engine.formats import FORMAT_BITS, FORMATS
from core.engine.gather import LeadLines, compiled_gather, finish_lines, frame_rows, gather_into, realize_op
from core.engine.render_paths import COMPILED_PATHS, PATHS, available_paths, path_problem

__all__ = [
    "Engine",
    "FORMATS",
    "LeadLines",
    "PATHS",
    "RenderedFrame",
    "available_devices",
    "available_paths",
    "bench_engine",
    "bench_frames",
    "check_device",
    "compiled_gather",
    "device_problem",
    "finish_lines",
    "frame_rows",
    "gather_into",
    "path_problem",
    "realize_op",
    "FORMAT_BITS",
    "COMPILED_PATHS",
]
