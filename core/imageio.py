"""Writing and reading frames: PNG, TIFF (8/16-bit RGB, exact) and .npy, with a JSON sidecar.

An N-bit frame in a PNG or TIFF is stored MSB-aligned in 8-bit (N <= 8) or 16-bit samples
and marked with N (PNG ``sBIT``, TIFF SMaxSampleValue; see "code values in image samples"
below), so a viewer shows a 10-bit frame at its brightness and a file read back here equals
the array that was rendered; .npy holds the code values themselves.  The sidecar says the
bit depth too.  PNG and TIFF go through OpenCV, which reads and writes 16-bit RGB losslessly
(Pillow cannot write 48-bit RGB).
"""

from __future__ import annotations

import contextlib
import io
import struct
import zlib
from pathlib import Path

import numpy as np

from core.atomic import atomic_write, atomic_write_all, require_writable
from core.jsonfile import JsonError, dump_json, parse_json

IMAGE_SUFFIXES = (".png", ".tif", ".tiff")
WRITE_SUFFIXES = IMAGE_SUFFIXES + (".npy",)


def sidecar_path(path) -> Path:
    """``frame.png`` -> ``frame.png.json``."""
    p = Path(path)
    return p.with_name(p.name + ".json")


def check_output_path(path, *, sidecar: bool = False) -> Path:
    """``path`` as a frame file a write can replace (and, with ``sidecar``, its ``PATH.json``);
    ``ValueError`` naming the path for a wrong suffix, or one :func:`core.atomic.require_writable`
    refuses."""
    p = require_writable(path)
    if p.suffix.lower() not in WRITE_SUFFIXES:
        raise ValueError(f"cannot write {p.name}: the output must end in {', '.join(WRITE_SUFFIXES)}")
    if sidecar:
        require_writable(sidecar_path(p))
    return p


def _cv2():
    import cv2

    # a damaged frame is reported once, as testcard's own per-frame error; OpenCV's own
    # warnings (``PNG input buffer is incomplete``) would be a second, unprefixed stderr line
    with contextlib.suppress(AttributeError, ImportError):   # builds without cv2.utils.logging
        import cv2.utils.logging as cv2_logging

        cv2_logging.setLogLevel(cv2_logging.LOG_LEVEL_ERROR)
    return cv2


def storage_dtype(bit_depth: int) -> np.dtype:
    return np.dtype(np.uint8) if bit_depth <= 8 else np.dtype(np.uint16)


def write_frame(path, frame: np.ndarray, bit_depth: int, sidecar: dict | None = None) -> Path:
    """Write ``frame`` (H, W, 3) and, when given, ``sidecar`` as ``PATH.json``.

    Image files hold 8-bit samples at bit depth <= 8 and 16-bit above.  The frame and its
    sidecar are one write (:func:`core.atomic.atomic_write_all`): both are replaced or neither,
    so a full disk never leaves a new image beside an old sidecar.
    """
    p = check_output_path(path, sidecar=sidecar is not None)
    frame = np.asarray(frame)
    if frame.ndim != 3 or frame.shape[2] not in (3, 4):
        raise ValueError(f"expected an (H, W, 3) frame, got shape {frame.shape}")
    if p.suffix.lower() == ".npy":
        buf = io.BytesIO()
        np.save(buf, frame)
        data = buf.getvalue()
    else:
        data = encode_image(frame, bit_depth, p.suffix.lower())
    if sidecar is None:
        atomic_write(p, data)
    else:
        text = dump_json(sidecar, indent=2, sort_keys=True) + "\n"
        atomic_write_all({p: data, sidecar_path(p): text.encode("utf-8")})
    return p


def read_frame(path, bit_depth: int | None = None) -> np.ndarray:
    """Read an image (PNG, TIFF, JPEG: 8 or 16-bit) or .npy as (H, W, 3) RGB code values.

    Image samples are shifted back to code values by their file's mark, or by ``bit_depth``
    (the sidecar's) for a file without one (:func:`decode_image`); .npy is read as stored.
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
    data = np.fromfile(p, dtype=np.uint8) if p.exists() else None
    if data is None or data.size == 0:
        raise ValueError(f"cannot read {p.name}: empty or missing file")
    return decode_image(data, p.name, bit_depth)


def read_sidecar(path) -> dict | None:
    sp = sidecar_path(path)
    if not sp.exists():
        return None
    try:
        return parse_json(sp.read_bytes(), source=sp.name)   # bounded: a sidecar may be anything
    except OSError as exc:
        raise ValueError(f"cannot read sidecar {sp.name}: {exc.strerror or exc}") from None
    except JsonError as exc:
        raise ValueError(f"cannot read sidecar {exc}") from None


# ---------------------------------------------------------------- code values in image samples
# An N-bit frame in C-bit samples (C = 8 up to 8 bits, 16 above) is written MSB-aligned,
# ``sample = code << (C - N)``, so a viewer shows it at its brightness, and marked:
#   PNG   an ``sBIT`` chunk (N per channel) before the image data;
#   TIFF  BitsPerSample stays C; SMaxSampleValue (tag 341) = ``(2**N - 1) << (C - N)`` per
#         channel, the largest sample such a file can hold, from which N is read back.
# Reading shifts back, ``code = sample >> (C - N)``, exact for every code.  A file with no
# mark (older testcard files hold codes in the low bits, or the mark was stripped) is read
# with the sidecar's bit depth N when it has one: a sample above ``2**N - 1`` cannot be a
# low-bit N-bit code, so such a file is taken as MSB-aligned and shifted; otherwise it is
# taken as it stands.  .npy files hold the code values themselves.

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_CHANNELS = {0: 1, 2: 3, 3: 3, 4: 2, 6: 4}   # colour type -> sBIT bytes
TIFF_SMAX = 341
_TIFF_SHORT, _TIFF_LONG = 3, 4


def encode_image(frame: np.ndarray, bit_depth: int, suffix: str) -> bytes:
    """``frame`` (H, W, 3 or 4) code values as a PNG or TIFF file's bytes (RGB, MSB-aligned)."""
    dt = storage_dtype(bit_depth)
    top = (1 << bit_depth) - 1
    if frame.dtype.kind == "f" and not np.array_equal(frame, np.round(frame)):
        raise ValueError("image files hold integer code values; this frame has fractions")
    if frame.size and (frame.min() < 0 or frame.max() > top):
        raise ValueError(f"frame values exceed {bit_depth}-bit code values")
    shift = dt.itemsize * 8 - bit_depth
    samples = frame[..., 2::-1].astype(dt)
    if shift:
        samples = np.left_shift(samples, shift, dtype=dt)
    ok, encoded = _cv2().imencode(suffix, np.ascontiguousarray(samples))
    if not ok:
        raise ValueError(f"could not encode a {suffix} image")
    data = encoded.tobytes()
    if shift and suffix == ".png":
        data = png_with_sbit(data, bit_depth)
    elif shift:
        data = tiff_with_smax(data, top << shift)
    return data


def decode_image(data, name: str = "image", bit_depth: int | None = None) -> np.ndarray:
    """An image file's bytes as (H, W, 3) RGB code values (see the rule above).

    ``bit_depth``: the sidecar's, for a 16- or 8-bit file without a PNG sBIT chunk or a
    TIFF SMaxSampleValue.  ``ValueError`` naming ``name`` for what cannot be decoded.
    """
    buf = np.frombuffer(data, dtype=np.uint8) if isinstance(data, (bytes, bytearray)) else data
    cv2 = _cv2()
    img = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    if img is None:
        raise ValueError(f"cannot read {name}: not a readable image")
    img = _rgb(cv2, img)
    container = img.dtype.itemsize * 8 if img.dtype.kind == "u" else 0
    # the marks are read in place: no copy of the file (an ndarray exports the buffer protocol;
    # numpy's stubs declare its __buffer__ only for Python 3.12 and later)
    raw = memoryview(buf).cast("B")  # type: ignore[arg-type]
    bits = png_sbit(raw) if raw[:8] == _PNG_SIGNATURE else tiff_significant_bits(raw)
    if bits is None and bit_depth is not None and 0 < bit_depth < container and img.size \
            and int(img.max()) > (1 << bit_depth) - 1:
        bits = (bit_depth,) * 3
    if bits is not None and container:
        shifts = [container - b if 0 < b < container else 0 for b in bits]
        if any(shifts):
            img = np.right_shift(img, np.array(shifts, dtype=img.dtype))
    return np.ascontiguousarray(img)


def _rgb(cv2, img: np.ndarray) -> np.ndarray:
    """Grey, BGR or BGRA as OpenCV decodes them -> RGB.  OpenCV's own conversion (an exact
    copy) releases the GIL, so frames decoded on several threads stay parallel, and runs
    several times faster than numpy's strided 3-wide copy, which is kept for other layouts."""
    code = {1: cv2.COLOR_GRAY2RGB, 3: cv2.COLOR_BGR2RGB, 4: cv2.COLOR_BGRA2RGB}.get(
        1 if img.ndim == 2 else img.shape[2])
    if code is not None and img.dtype in (np.uint8, np.uint16, np.float32):
        return cv2.cvtColor(img, code)
    if img.ndim == 2:
        img = np.repeat(img[..., None], 3, axis=2)
    elif img.shape[2] == 4:
        img = img[..., :3]
    return img[..., ::-1]


def png_with_sbit(data: bytes, bits: int) -> bytes:
    """A PNG with an ``sBIT`` chunk (``bits`` for every channel) right after IHDR."""
    if not data.startswith(_PNG_SIGNATURE) or data[12:16] != b"IHDR":
        raise ValueError("not a PNG: no IHDR chunk first")
    end = 8 + 12 + int.from_bytes(data[8:12], "big")
    colour_type = data[8 + 8 + 9]
    body = b"sBIT" + bytes([bits]) * _PNG_CHANNELS.get(colour_type, 3)
    chunk = (len(body) - 4).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")
    return data[:end] + chunk + data[end:]


def png_sbit(data) -> tuple[int, ...] | None:
    """Significant bits per R, G, B from a PNG's ``sBIT`` chunk, or None when it has none."""
    pos, colour_type = 8, None
    while pos + 8 <= len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR" and len(body) >= 10:
            colour_type = body[9]
        elif kind == b"sBIT":
            if colour_type in (0, 4) and body:
                return (body[0],) * 3
            return tuple(body[:3]) if len(body) >= 3 else None
        elif kind in (b"IDAT", b"IEND"):
            return None
        pos += 12 + length
    return None


def _tiff_ifd(data):
    """(byte order, IFD0 offset, entries as (tag, type, count, raw value field)) or None."""
    if len(data) < 8 or data[:4] not in (b"II*\x00", b"MM\x00*"):
        return None
    bo = "<" if data[:2] == b"II" else ">"
    off = struct.unpack(bo + "I", data[4:8])[0]
    if off + 2 > len(data):
        return None
    n = struct.unpack(bo + "H", data[off:off + 2])[0]
    if off + 2 + 12 * n + 4 > len(data):
        return None
    entries = [struct.unpack(bo + "HHI4s", data[off + 2 + 12 * i:off + 14 + 12 * i]) for i in range(n)]
    return bo, off, entries


def tiff_with_smax(data: bytes, smax: int) -> bytes:
    """A classic TIFF with SMaxSampleValue = ``smax`` for each channel, in a rewritten IFD0
    appended to the file (the image data is untouched)."""
    parsed = _tiff_ifd(data)
    if parsed is None:
        raise ValueError("not a classic TIFF")
    bo, off, entries = parsed
    n = len(entries)
    spp = next((struct.unpack(bo + "H", raw[:2])[0] for tag, _t, _c, raw in entries if tag == 277), 1)
    next_ifd = data[off + 2 + 12 * n:off + 6 + 12 * n]
    out = bytearray(data)
    if len(out) % 2:
        out += b"\x00"
    values = struct.pack(bo + "H" * spp, *([smax] * spp))
    if len(values) <= 4:
        field = values.ljust(4, b"\x00")
    else:
        field = struct.pack(bo + "I", len(out))
        out += values
    kept = [e for e in entries if e[0] != TIFF_SMAX]
    kept.append((TIFF_SMAX, _TIFF_SHORT, spp, field))
    kept.sort(key=lambda e: e[0])
    ifd_at = len(out)
    out += struct.pack(bo + "H", len(kept))
    for tag, typ, count, raw in kept:
        out += struct.pack(bo + "HHI4s", tag, typ, count, raw)
    out += next_ifd
    out[4:8] = struct.pack(bo + "I", ifd_at)
    return bytes(out)


def tiff_significant_bits(data) -> tuple[int, ...] | None:
    """Significant bits per channel read from a TIFF's SMaxSampleValue, when it has the form
    ``(2**N - 1) << (C - N)`` for its BitsPerSample ``C``; None otherwise."""
    parsed = _tiff_ifd(data)
    if parsed is None:
        return None
    bo, _off, entries = parsed
    tags = {tag: (typ, count, raw) for tag, typ, count, raw in entries}

    def values(tag):
        typ, count, raw = tags[tag]
        size = {_TIFF_SHORT: 2, _TIFF_LONG: 4}.get(typ)
        if size is None or count < 1 or count > 16:
            return None
        blob = raw if size * count <= 4 else data[struct.unpack(bo + "I", raw)[0]:][:size * count]
        if len(blob) < size * count:
            return None
        return list(struct.unpack(bo + ("H" if size == 2 else "I") * count, blob[:size * count]))

    if TIFF_SMAX not in tags or 258 not in tags:
        return None
    smax, depth = values(TIFF_SMAX), values(258)
    if not smax or not depth:
        return None
    container = depth[0]
    out = []
    for m in (smax * 3)[:3]:
        if m <= 0:
            return None
        zeros = (m & -m).bit_length() - 1
        bits = container - zeros
        if m >> zeros != (1 << bits) - 1:
            return None            # not an MSB-aligned maximum: codes as they stand
        out.append(bits)
    return tuple(out)
