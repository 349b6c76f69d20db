"""The one place that knows how numpy and torch differ.

Pattern bodies call these helpers with an ``xp`` namespace (the ``numpy`` or
``torch`` module) and a ``device``; everything else they use (``where``,
``arange``, comparisons, arithmetic) behaves the same in both.  torch is never
imported here at module import time, so a numpy-only user pays nothing for it.
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import numpy as np

BACKENDS = ("numpy", "torch")

# Names accepted for the ``dtype`` parameter; resolved per namespace.
DTYPE_NAMES = (
    "uint8", "uint16", "uint32", "int16", "int32", "int64",
    "float16", "bfloat16", "float32", "float64",
)


def namespace(name: str):
    """Return the array module for a backend name ("numpy" or "torch")."""
    if name in ("numpy", "np"):
        return np
    if name == "torch":
        return importlib.import_module("torch")
    raise ValueError(f"unknown backend {name!r}: expected one of {', '.join(BACKENDS)}")


def is_torch(xp) -> bool:
    return getattr(xp, "__name__", "") == "torch"


def namespace_of(array) -> Any:
    """The namespace an array belongs to (numpy for numpy arrays and Python scalars)."""
    mod = type(array).__module__
    if mod.startswith("torch"):
        return importlib.import_module("torch")
    return np


def dtype_of(xp, name: str):
    """Resolve a dtype name in a namespace; refuses names it does not know."""
    if name not in DTYPE_NAMES:
        raise ValueError(f"unknown dtype {name!r}: expected one of {', '.join(DTYPE_NAMES)}")
    if is_torch(xp):
        return getattr(xp, name)
    if name == "bfloat16":
        raise ValueError("bfloat16 is a torch dtype; numpy cannot hold it")
    return np.dtype(name)


def exact_integer_limit(name: str) -> int:
    """The largest code value a dtype holds exactly (and every integer below it).

    Integers: ``iinfo.max``.  Floats: ``2**(round(-log2(eps)) + 1)`` -- float32
    reaches 2**24, float16 2048, bfloat16 256.
    """
    if name == "bfloat16":
        return 2 ** (7 + 1)
    dt = np.dtype(name)
    if dt.kind in "iu":
        return int(np.iinfo(dt).max)
    if dt.kind == "f":
        eps = float(np.finfo(dt).eps)
        return 2 ** (round(-math.log2(eps)) + 1)
    raise ValueError(f"dtype {name!r} cannot hold code values")


def check_dtype(name: str, bit_depth: int) -> None:
    """Refuse a dtype that cannot hold ``2**bit_depth - 1`` exactly."""
    if name not in DTYPE_NAMES:
        raise ValueError(f"unknown dtype {name!r}: expected one of {', '.join(DTYPE_NAMES)}")
    top = 2**bit_depth - 1
    limit = exact_integer_limit(name)
    if limit < top:
        raise ValueError(
            f"dtype {name} cannot hold {bit_depth}-bit code values exactly "
            f"(needs {top}, holds integers up to {limit})"
        )


def device_of(xp, array):
    """The torch device ``array`` lives on (None for numpy)."""
    return array.device if is_torch(xp) else None


def arange(xp, n: int, device=None, dtype: str = "int64"):
    if is_torch(xp):
        return xp.arange(n, device=device, dtype=getattr(xp, dtype))
    return np.arange(n, dtype=dtype)


def asarray(xp, values, device=None, dtype: str = "int64"):
    """A small constant array built on the host and placed on the device."""
    if is_torch(xp):
        return xp.tensor(values, device=device, dtype=getattr(xp, dtype))
    return np.asarray(values, dtype=dtype)


def full(xp, shape, value, device=None, dtype: str = "int64"):
    if is_torch(xp):
        return xp.full(shape, value, device=device, dtype=getattr(xp, dtype))
    return np.full(shape, value, dtype=dtype)


def astype(xp, array, dtype: str):
    if is_torch(xp):
        return array.to(getattr(xp, dtype))
    return array.astype(dtype, copy=False)


def cast_like(xp, array, like):
    """``array`` in ``like``'s dtype (torch and numpy spell the cast differently)."""
    if is_torch(xp):
        return array.to(like.dtype)
    return array.astype(like.dtype, copy=False)


def take_rows(xp, rows, index):
    """``rows[index]`` along axis 0 -- the one gather every pattern ends in."""
    if is_torch(xp):
        return xp.index_select(rows, 0, index)
    return np.take(rows, index, axis=0)


def concat(xp, arrays, axis: int = 0):
    if is_torch(xp):
        return xp.cat(list(arrays), dim=axis)
    return np.concatenate(arrays, axis=axis)


def stack(xp, arrays, axis: int = 0):
    if is_torch(xp):
        return xp.stack(list(arrays), dim=axis)
    return np.stack(arrays, axis=axis)


def broadcast_copy(xp, array, shape):
    """Materialise ``array`` broadcast to ``shape`` as a new contiguous array."""
    if tuple(array.shape) == tuple(shape):
        return array
    if is_torch(xp):
        return array.expand(*shape).contiguous()
    return np.ascontiguousarray(np.broadcast_to(array, shape))


def frame_scalar(xp, frame, device=None, modulus_bits: int = 31):
    """The frame index as a 0-d int64 array on the device, reduced modulo 2**bits.

    A Python int becomes a constant; a 0-d tensor stays array data, so a
    compiled graph sees the same input every frame and never recompiles.
    """
    mask = (1 << modulus_bits) - 1
    if isinstance(frame, (int, np.integer)):
        return asarray(xp, int(frame) & mask, device=device, dtype="int64")
    if is_torch(xp):
        f = frame if frame.dtype == xp.int64 else frame.to(xp.int64)
        return xp.bitwise_and(f, mask)
    f = np.asarray(frame)
    if f.ndim != 0 or f.dtype.kind not in "iu":
        raise ValueError("frame must be an int or a 0-d integer array")
    return np.bitwise_and(f.astype(np.int64), mask)


def to_numpy(array) -> np.ndarray:
    """Copy any backend's array to a numpy array on the host (tests, writers)."""
    if isinstance(array, np.ndarray):
        return array
    if type(array).__module__.startswith("torch"):
        t = array.detach().cpu()
        if str(t.dtype) in ("torch.uint16", "torch.uint32"):
            # numpy conversion of torch's shell unsigned types goes through int32/int64
            wide = t.to(__import__("torch").int64).numpy()
            return wide.astype("uint16" if str(t.dtype) == "torch.uint16" else "uint32")
        if str(t.dtype) == "torch.bfloat16":
            return t.float().numpy()
        return t.numpy()
    return np.asarray(array)
