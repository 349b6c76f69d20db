"""Display-ready output formats, converted on the plan's rows before the final gather.

A presenter hands these bytes to Qt (or a GL texture) without touching them:

- ``native``: ``(H, W, 3)`` code values in the spec's dtype;
- ``rgb8``:   ``(H, W, 4)`` uint8 RGBX        -> ``QImage.Format_RGBX8888``;
- ``rgb10``:  ``(H, W)`` uint32 packed words  -> ``QImage.Format_RGB30``:
  ``0b11 << 30 | r << 20 | g << 10 | b``;
- ``rgb16``:  ``(H, W, 4)`` uint16 RGBX64     -> ``QImage.Format_RGBX64``.

The conversion is applied to the few distinct rows of a :class:`core.plan.Rows`
plan, so the frame is still produced by one gather: under torch.compile the
pattern, the conversion and the gather are one kernel writing display bytes.

Depth changes follow the one rule of :func:`core.levels.rescale_terms`, narrowing and
widening alike: full range by proportion, ``round(v * (2**n - 1) / (2**m - 1))`` halves up
(10-bit 767 -> 8-bit 191, 4-bit 15 -> 8-bit 255, 10-bit 1023 -> 16-bit 65535), limited range
by shift (10-bit 940 -> 16-bit 60160, 8-bit 235).  Widening is exact (every code comes back);
a format narrower than the bit depth is refused unless rounding is allowed.  The arithmetic is
int64 on both backends (``2 * 32767 * 65535`` passes int32), so numpy and torch give the same
codes for every value.

On torch the device arrays avoid the unsigned shell dtypes (uint16, uint32),
which neither every kernel nor Inductor's Metal backend maps: rgb10 words are
computed as int32 and rgb16 / native uint16 as int16 holding the same bits.
The host buffer is a numpy view of those bits in the unsigned dtype, so the
bytes handed to the presenter are exactly the unsigned values.
"""

from __future__ import annotations

import numpy as np

from core import xp as X
from core.levels import Levels, depth_rule, rescale_code, rescale_terms

FORMATS = ("native", "rgb8", "rgb10", "rgb16")
FORMAT_BITS = {"rgb8": 8, "rgb10": 10, "rgb16": 16}

# Unsigned host dtypes carried on torch devices as the signed type of the same width.
_SIGNED_CARRIER = {"uint16": "int16", "uint32": "int32"}


def check_format(fmt: str, bit_depth: int, dtype: str = "uint16",
                 allow_rounding: bool = False, limited: bool = False) -> tuple[bool, str]:
    """``(exact, note)`` for showing ``bit_depth`` code values in ``fmt`` (``limited``: the
    frame is limited range).

    Raises ``ValueError`` for an unknown format, or a format narrower than the
    bit depth unless ``allow_rounding`` (then ``exact`` is False).  ``note`` names the rule
    whenever the depth changes: ``10-bit frame in rgb8: codes scaled by round(v*255/1023),
    rounded``.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if fmt == "native":
        if dtype == "bfloat16":
            raise ValueError("native bfloat16 frames cannot be handed to the host (numpy has no "
                             "bfloat16); use float32 or a display format")
        return True, ""
    target = FORMAT_BITS[fmt]
    if bit_depth > target:
        if not allow_rounding:
            raise ValueError(
                f"{bit_depth}-bit code values do not fit {fmt} ({target} bits) exactly; "
                f"choose a wider format or allow rounding")
    if bit_depth == target:
        return True, ""
    rule = depth_rule(Levels(bit_depth, limited), Levels(target, limited))
    note = f"{bit_depth}-bit frame in {fmt}: codes scaled by {rule}"
    return bit_depth < target, note + (", rounded" if bit_depth > target else "")


def host_shape(fmt: str, width: int, height: int) -> tuple[int, ...]:
    if fmt == "rgb10":
        return (height, width)
    if fmt in ("rgb8", "rgb16"):
        return (height, width, 4)
    return (height, width, 3)


def host_dtype(fmt: str, dtype: str = "uint16") -> str:
    """The numpy dtype of the display-ready array the presenter receives."""
    return {"rgb8": "uint8", "rgb10": "uint32", "rgb16": "uint16"}.get(fmt, dtype)


def device_dtype(xp, fmt: str, dtype: str = "uint16") -> str:
    """The dtype the render computes in: the host dtype, or its signed carrier on torch."""
    host = host_dtype(fmt, dtype)
    if fmt == "rgb10":
        return "int32"
    if X.is_torch(xp):
        return _SIGNED_CARRIER.get(host, host)
    return host


def host_view(array: np.ndarray, fmt: str, dtype: str = "uint16") -> np.ndarray:
    """The presenter's view of a host buffer holding the device dtype's bits."""
    want = np.dtype(host_dtype(fmt, dtype))
    return array if array.dtype == want else array.view(want)


def rescale(xp, values, bit_depth: int, target: int, limited: bool = False):
    """Code values at ``bit_depth`` -> ``target`` bits by the one rule
    (:func:`core.levels.rescale_terms`), clamped to ``0..2**target - 1``; int64 out when the
    depth changes, ``values`` themselves when it does not.  Numpy or torch, eager or compiled:
    the same integers as :func:`core.levels.rescale_code` for every value."""
    if target == bit_depth:
        return values
    old, new = Levels(bit_depth, limited), Levels(target, limited)
    mul, add, div = rescale_terms(old, new)
    v = X.astype(xp, values, "int64")
    v = (v * mul + add) // div
    v = xp.where(v > new.top, v * 0 + new.top, v)
    return xp.where(v < 0, v * 0, v)


def convert_rows(xp, rows, fmt: str, bit_depth: int, dtype: str = "uint16", limited: bool = False):
    """Plan rows ``(K, W or 1, 3)`` int64 code values -> rows in the device dtype of ``fmt``
    (``limited``: the rows are limited range, which decides the rule of a depth change).

    rgb10 rows come back ``(K, W or 1)``: one packed word per pixel.  Element-wise
    on the small rows only; the caller's gather makes the frame.
    """
    carrier = device_dtype(xp, fmt, dtype)
    if fmt == "native" and carrier == dtype:
        return X.astype(xp, rows, dtype)
    rows = _wide(xp, rows)
    if fmt == "native":
        return _carry(xp, rows, carrier, dtype)
    target = FORMAT_BITS[fmt]
    v = rescale(xp, rows, bit_depth, target, limited)
    if fmt == "rgb10":
        # 0b11 << 30 | r << 20 | g << 10 | b, as int32 bits: the top two bits set
        # make it 2**30 below zero, so no value ever overflows the signed word
        word = v[..., 0] * (1 << 20) + v[..., 1] * (1 << 10) + v[..., 2] - (1 << 30)
        return X.astype(xp, word, "int32")
    pad = v[..., :1] * 0 + ((1 << target) - 1)
    rgbx = X.concat(xp, [v, pad], axis=-1)
    return _carry(xp, rgbx, carrier, host_dtype(fmt, dtype))


def _wide(xp, rows):
    """Signed arithmetic room for shifts and packing (bodies may hand back narrow rows)."""
    name = str(rows.dtype).replace("torch.", "")
    return rows if name in ("int64", "int32") else X.astype(xp, rows, "int32")


def _carry(xp, values, carrier: str, host: str):
    """Cast to ``carrier``; unsigned values above the signed range wrap explicitly."""
    if carrier != host and carrier == "int16":
        values = xp.where(values >= (1 << 15), values - (1 << 16), values)
    return X.astype(xp, values, carrier)


def convert_frame(frame: np.ndarray, fmt: str, bit_depth: int, dtype: str = "uint16",
                  limited: bool = False) -> np.ndarray:
    """Reference conversion of a whole ``(H, W, 3)`` host frame, pixel by pixel (tests, tools):
    each distinct code value through :func:`core.levels.rescale_code` itself."""
    v = np.asarray(frame).astype(np.int64)
    if fmt == "native":
        return v.astype(dtype)
    target = FORMAT_BITS[fmt]
    if target != bit_depth:
        old, new = Levels(bit_depth, limited), Levels(target, limited)
        codes, inverse = np.unique(v, return_inverse=True)
        table = np.array([rescale_code(int(c), old, new) for c in codes], dtype=np.int64)
        v = table[inverse].reshape(v.shape)
    if fmt == "rgb10":
        return (np.uint32(3 << 30) | (v[..., 0] << 20) | (v[..., 1] << 10) | v[..., 2]).astype(np.uint32)
    x = np.full(v.shape[:-1] + (1,), (1 << target) - 1, dtype=np.int64)
    return np.concatenate([v, x], axis=-1).astype(host_dtype(fmt))


def unpack_rgb10(words: np.ndarray) -> np.ndarray:
    """``(H, W)`` Format_RGB30 words -> ``(H, W, 3)`` 10-bit code values (uint16)."""
    w = np.asarray(words).astype(np.uint32)
    return np.stack([(w >> 20) & 1023, (w >> 10) & 1023, w & 1023], axis=-1).astype(np.uint16)
