"""The sidecar manifest written beside every saved frame (``OUT.json``).

It records the pattern, every parameter with its resolved value, the bit
depth, range and dtype, the frame index and, when there is a counter panel,
its geometry -- enough for the decoder to find and read the panel in a
capture without being told anything else.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from core import version
from core.imageio import check_output_path, write_frame
from core.xp import to_numpy

MANIFEST_VERSION = 1


def manifest(spec, frame: int, backend: str = "numpy", device: str | None = None) -> dict:
    d = {"testcard_manifest": MANIFEST_VERSION, "testcard_version": version(),
         "frame": int(frame), "backend": backend, "device": device}
    d.update(spec.to_dict())
    geom = spec.counter_geometry()
    d["counter"] = geom.to_dict() if geom is not None else None
    return d


def save_frame(path, spec, frame_array, frame: int, backend: str = "numpy",
               device: str | None = None) -> Path:
    """Write a rendered frame and its manifest; used by ``testcard render`` and the app.

    ``spec`` is a ``core.patterns.Spec`` (this module sits below patterns and names no type
    from it)."""
    check_output_path(path)
    arr = np.asarray(to_numpy(frame_array))
    return write_frame(path, arr, spec.bit_depth, manifest(spec, frame, backend, device))
