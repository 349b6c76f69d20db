"""The sidecar manifest written beside every saved frame (``OUT.json``), and read back.

It records the pattern, every parameter with its resolved value, the bit
depth, range and dtype, the frame index and, when there is a counter panel,
its geometry -- enough for the decoder to find and read the panel in a
capture without being told anything else.

Read back, a manifest is a file testcard did not just write: :func:`read_manifest` reads it
bounded (:mod:`core.jsonfile`) and :func:`counter_fields` checks its counter entry's fields
for type and sign (whole numbers, never booleans; positive cell sizes; a layout name), naming
the field it refuses.  Whether the fields make a panel testcard draws is the decoder's to check
(``core.decode.hint``: the layout's rules live in ``core.counter``, beside this module).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from core import version
from core.imageio import check_output_path, write_frame
from core.jsonfile import JsonError, parse_json
from core.xp import to_numpy

MANIFEST_VERSION = 1
MAX_MANIFEST_BYTES = 1 << 20      # a manifest is a few hundred bytes
MAX_FIELD = 1 << 20               # no geometry field is larger (frames are at most 16384 a side)
GEOMETRY_FIELDS = ("width", "height", "bits", "pad_x", "pad_y", "cell_w", "cell_h")
_AT_LEAST = {"width": 1, "height": 1, "bits": 1, "pad_x": 0, "pad_y": 0, "cell_w": 1, "cell_h": 1}


# Patterns whose layout a reader of the capture needs (the scale chart's rulers and ladder)
# register ``fn(params, width, height) -> dict`` here as core.patterns loads; the manifest
# carries it as ``geometry``.  (This module sits below core.patterns and names nothing from it.)
PATTERN_GEOMETRY: dict[str, Callable[[dict, int, int], dict]] = {}


def register_geometry(pattern: str, fn: Callable[[dict, int, int], dict]) -> None:
    if pattern in PATTERN_GEOMETRY:
        raise ValueError(f"pattern {pattern!r} registered its geometry twice")
    PATTERN_GEOMETRY[pattern] = fn


def manifest(spec, frame: int, backend: str = "numpy", device: str | None = None) -> dict:
    d = {"testcard_manifest": MANIFEST_VERSION, "testcard_version": version(),
         "frame": int(frame), "backend": backend, "device": device}
    d.update(spec.to_dict())
    geom = spec.counter_geometry()
    d["counter"] = geom.to_dict() if geom is not None else None
    layout = PATTERN_GEOMETRY.get(spec.pattern)
    if layout is not None:
        d["geometry"] = layout(spec.param_dict, spec.width, spec.height)
    return d


def save_frame(path, spec, frame_array, frame: int, backend: str = "numpy",
               device: str | None = None, signal: dict | None = None) -> Path:
    """Write a rendered frame and its manifest; used by ``testcard render`` and the app.

    ``spec`` is a ``core.patterns.Spec`` (this module sits below patterns and names no type
    from it).  The manifest also carries the frame's ``signal`` entry and, under PQ or HLG,
    its ``hdr`` entry (MaxCLL and MaxFALL from these code values: ``spec.signal_fields``),
    or ``signal`` when the caller computed them already."""
    check_output_path(path)
    arr = np.asarray(to_numpy(frame_array))
    doc = manifest(spec, frame, backend, device)
    doc.update(spec.signal_fields(arr) if signal is None else signal)
    return write_frame(path, arr, spec.bit_depth, doc)


# ---------------------------------------------------------------- reading one back
def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def read_manifest(path) -> dict:
    """The manifest document at ``path``; ``ValueError`` naming the file when it cannot be read,
    is not JSON testcard accepts (:func:`core.jsonfile.parse_json`), is not an object, or was
    written by a newer testcard."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            data = fh.read(MAX_MANIFEST_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"cannot read manifest {p.name}: {exc.strerror or exc}") from None
    if len(data) > MAX_MANIFEST_BYTES:
        raise ValueError(f"cannot read manifest {p.name}: over {MAX_MANIFEST_BYTES} bytes, "
                         "not a manifest")
    try:
        doc = parse_json(data, source=p.name)
    except JsonError as exc:
        raise ValueError(f"cannot read manifest {exc}") from None
    if not isinstance(doc, dict):
        raise ValueError(f"cannot read manifest {p.name}: not a JSON object")
    v = doc.get("testcard_manifest", MANIFEST_VERSION)
    if type(v) is not int or v < 1:
        raise ValueError(f"manifest {p.name}: testcard_manifest must be a whole number, got {_shown(v)}")
    if v > MANIFEST_VERSION:
        raise ValueError(f"manifest {p.name} was written by a newer testcard (manifest version {v}; "
                         f"this one reads {MANIFEST_VERSION})")
    return doc


def manifest_frame(doc: dict, name: str) -> int | None:
    """The frame index the manifest's own image shows (None when it says none)."""
    f = doc.get("frame")
    if f is None:
        return None
    if type(f) is not int or not 0 <= f < 1 << 62:
        raise ValueError(f"manifest {name}: frame must be a whole number 0 or more, got {_shown(f)}")
    return f


def counter_fields(doc: dict, name: str) -> dict | None:
    """The manifest's ``counter`` entry with every field checked for type and sign: the seven
    geometry fields whole numbers (not booleans, not ``16.0``), sizes and bits at least 1, pads
    at least 0; ``layout`` a string; ``extra`` an object whose ``gray`` is a boolean, ``bands``,
    ``cells`` and ``version`` whole numbers and ``band_y`` a list of them.  None when the
    manifest describes no counter; ``ValueError`` naming the field otherwise."""
    c = doc.get("counter")
    if c is None:
        return None
    if not isinstance(c, dict):
        raise ValueError(f"manifest {name}: counter must be an object, got {_shown(c)}")
    out: dict = {}
    for key in GEOMETRY_FIELDS:
        if key not in c:
            raise ValueError(f"manifest {name}: counter.{key} is missing")
        out[key] = _whole(c[key], f"counter.{key}", name, _AT_LEAST[key])
    layout = c.get("layout", "compat")
    if not isinstance(layout, str):
        raise ValueError(f"manifest {name}: counter.layout must be a name, got {_shown(layout)}")
    out["layout"] = layout
    extra = c.get("extra", {})
    if not isinstance(extra, dict):
        raise ValueError(f"manifest {name}: counter.extra must be an object, got {_shown(extra)}")
    checked: dict = {}
    if "gray" in extra:
        if not isinstance(extra["gray"], bool):
            raise ValueError(f"manifest {name}: counter.extra.gray must be true or false, "
                             f"got {_shown(extra['gray'])}")
        checked["gray"] = extra["gray"]
    for key in ("bands", "cells", "version"):
        if key in extra:
            checked[key] = _whole(extra[key], f"counter.extra.{key}", name, 1)
    if "band_y" in extra:
        ys = extra["band_y"]
        if not isinstance(ys, list) or len(ys) > 64:
            raise ValueError(f"manifest {name}: counter.extra.band_y must be a list of lines, "
                             f"got {_shown(ys)}")
        checked["band_y"] = [_whole(y, "counter.extra.band_y", name, 0) for y in ys]
    out["extra"] = checked
    return out


def _whole(value, field: str, name: str, least: int) -> int:
    if type(value) is not int:   # bool is an int subclass; 16.0 and "16" are not whole numbers here
        raise ValueError(f"manifest {name}: {field} must be a whole number, got {_shown(value)}")
    if not least <= value <= MAX_FIELD:
        raise ValueError(f"manifest {name}: {field} must be {least}..{MAX_FIELD}, got {value}")
    return value
