"""Writing and reading frames: PNG, TIFF (8/16-bit RGB, exact) and .npy, with a JSON sidecar.

Code values are stored as they are (a 10-bit frame in a 16-bit PNG holds
0..1023), so a file read back equals the array that was rendered; the
sidecar says the bit depth.  PNG and TIFF go through OpenCV, which reads and
writes 16-bit RGB losslessly (Pillow cannot write 48-bit RGB).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np

from core.atomic import atomic_text, atomic_write, require_parent

IMAGE_SUFFIXES = (".png", ".tif", ".tiff")
WRITE_SUFFIXES = IMAGE_SUFFIXES + (".npy",)


def sidecar_path(path) -> Path:
    """``frame.png`` -> ``frame.png.json``."""
    p = Path(path)
    return p.with_name(p.name + ".json")


def check_output_path(path) -> Path:
    p = Path(path)
    if p.suffix.lower() not in WRITE_SUFFIXES:
        raise ValueError(f"cannot write {p.name}: the output must end in {', '.join(WRITE_SUFFIXES)}")
    return require_parent(p)


def _cv2():
    import cv2

    return cv2


def storage_dtype(bit_depth: int) -> np.dtype:
    return np.dtype(np.uint8) if bit_depth <= 8 else np.dtype(np.uint16)


def write_frame(path, frame: np.ndarray, bit_depth: int, sidecar: dict | None = None) -> Path:
    """Write ``frame`` (H, W, 3) and, when given, ``sidecar`` as ``PATH.json``.

    Image files hold 8-bit samples at bit depth <= 8 and 16-bit above.  Both files go
    through :func:`core.atomic.atomic_write`, so a failed write leaves the old file whole.
    """
    p = check_output_path(path)
    frame = np.asarray(frame)
    if frame.ndim != 3 or frame.shape[2] not in (3, 4):
        raise ValueError(f"expected an (H, W, 3) frame, got shape {frame.shape}")
    if p.suffix.lower() == ".npy":
        buf = io.BytesIO()
        np.save(buf, frame)
        data = buf.getvalue()
    else:
        dt = storage_dtype(bit_depth)
        top = (1 << bit_depth) - 1
        if frame.dtype.kind == "f" and not np.array_equal(frame, np.round(frame)):
            raise ValueError("image files hold integer code values; this frame has fractions")
        if frame.size and (frame.min() < 0 or frame.max() > top):
            raise ValueError(f"frame values exceed {bit_depth}-bit code values")
        bgr = np.ascontiguousarray(frame[..., 2::-1].astype(dt))
        ok, encoded = _cv2().imencode(p.suffix.lower(), bgr)
        if not ok:
            raise ValueError(f"could not write {p}")
        data = encoded.tobytes()
    atomic_write(p, data)
    if sidecar is not None:
        atomic_text(sidecar_path(p), json.dumps(sidecar, indent=2, sort_keys=True) + "\n")
    return p


def read_frame(path) -> np.ndarray:
    """Read an image (PNG, TIFF, JPEG: 8 or 16-bit) or .npy as (H, W, 3) RGB.

    Raises ``ValueError`` naming the file when it cannot be read.
    """
    p = Path(path)
    if p.suffix.lower() == ".npy":
        try:
            arr = np.load(p, allow_pickle=False)
        except Exception as exc:  # truncated, not an npy, pickled objects
            raise ValueError(f"cannot read {p.name}: {exc}") from None
        if arr.ndim == 2:
            arr = arr[..., None].repeat(3, axis=2)
        if arr.ndim != 3:
            raise ValueError(f"cannot read {p.name}: expected an image array, got shape {arr.shape}")
        return arr
    cv2 = _cv2()
    data = np.fromfile(p, dtype=np.uint8) if p.exists() else None
    if data is None or data.size == 0:
        raise ValueError(f"cannot read {p.name}: empty or missing file")
    img = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
    if img is None:
        raise ValueError(f"cannot read {p.name}: not a readable image")
    if img.ndim == 2:
        return np.repeat(img[..., None], 3, axis=2)
    if img.shape[2] == 4:
        img = img[..., :3]
    return np.ascontiguousarray(img[..., ::-1])


def read_sidecar(path) -> dict | None:
    sp = sidecar_path(path)
    if not sp.exists():
        return None
    try:
        return json.loads(sp.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read sidecar {sp.name}: {exc}") from None
