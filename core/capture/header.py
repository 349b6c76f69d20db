"""An image file's format and size from its header alone, read before any decoder runs.

A 2.6 MB PNG can declare 30000 x 30000 pixels; decoding it takes gigabytes and tens of
seconds.  :func:`check_image` reads the few bytes that declare the size (the PNG ``IHDR``
chunk, the first TIFF directory's ``ImageWidth``/``ImageLength``, the JPEG frame header, the
``.npy`` header) and refuses, with one sentence naming the file, anything over
:data:`MAX_IMAGE_PIXELS`, anything that is none of those formats (OpenCV picks its decoder by
content, so a ``.png`` holding another format would otherwise reach a decoder unchecked), and
a header that is cut short or makes no sense.
"""

from __future__ import annotations

import re
import stat
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# 2**27 = 134,217,728 pixels: 16384 x 8192, or a 100-megapixel camera's 11648 x 8736.  At 16
# bits per RGB sample such a frame is 768 MiB decoded; 30000 x 30000 (900 Mpx) is refused.
MAX_IMAGE_PIXELS = 2**27
# What decoding one image file may cost in memory, its working copies included: the decoded
# samples twice (the decoder's array and its conversion to three channels of code values) and
# about 8 bytes a pixel of working planes (luma and the panel search), measured as 13.5 bytes a
# pixel for 8-bit frames and 19.4 for 16-bit ones.  1 GiB admits 8-bit frames to 76 Mpx (11648 x
# 6552) and 16-bit ones to 53 Mpx; a 127 kB PNG declaring 16384 x 8192 pixels (1.9 GB to decode)
# is refused from its header.
MAX_FRAME_BYTES = 2**30
WORK_BYTES_PER_PIXEL = 8
DECODED_COPIES = 2
_MAX_SEGMENTS = 4096          # JPEG segments before the frame header; TIFF directory entries


@dataclass(frozen=True)
class ImageHeader:
    format: str       # "png", "tiff", "jpeg" or "npy"
    width: int
    height: int
    sample_bytes: int = 2     # bytes a decoded sample takes (2 where the header does not say)
    channels: int = 3         # decoded channels (images are decoded to three)

    @property
    def pixels(self) -> int:
        return self.width * self.height

    @property
    def decode_bytes(self) -> int:
        """What decoding it costs in memory, working copies included (see MAX_FRAME_BYTES)."""
        per = WORK_BYTES_PER_PIXEL + DECODED_COPIES * max(3, self.channels) * self.sample_bytes
        return self.pixels * per


def check_image(path, max_pixels: int = MAX_IMAGE_PIXELS, max_bytes: int = MAX_FRAME_BYTES) -> ImageHeader:
    """The header of image ``path`` when it may be decoded; ``ValueError`` naming the file when
    it is over ``max_pixels``, would cost more than ``max_bytes`` of memory to decode
    (:attr:`ImageHeader.decode_bytes`), is of an unknown format, truncated or unreadable."""
    header = read_header(path)
    if header.pixels > max_pixels:
        raise ValueError(f"cannot read {Path(path).name}: its header declares {header.width}x"
                         f"{header.height} pixels ({header.pixels:,}), over the limit of "
                         f"{max_pixels:,} pixels")
    if header.decode_bytes > max_bytes:
        raise ValueError(f"cannot read {Path(path).name}: its header declares {header.width}x"
                         f"{header.height} pixels of {8 * header.sample_bytes}-bit samples, which "
                         f"would take {header.decode_bytes / 2**30:.1f} GiB to decode, over the limit of "
                         f"{max_bytes / 2**30:.1f} GiB a frame (refused before decoding)")
    return header


def read_header(path) -> ImageHeader:
    """Format, width and height from the first bytes of ``path`` (``ValueError`` naming it)."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            head = fh.read(16)
            for magic, reader in _READERS:
                if head.startswith(magic):
                    return reader(fh)
    except _Truncated:
        raise ValueError(f"cannot read {p.name}: its header is cut short") from None
    except _Bad as exc:
        raise ValueError(f"cannot read {p.name}: {exc}") from None
    except OSError as exc:
        raise ValueError(f"cannot read {p.name}: {exc.strerror or type(exc).__name__}") from None
    if not head:
        raise ValueError(f"cannot read {p.name}: empty file")
    raise ValueError(f"cannot read {p.name}: not a PNG, TIFF, JPEG or .npy file "
                     f"(it starts with {head[:8]!r})")


class _Truncated(Exception):
    pass


class _Bad(Exception):
    pass


def _read(fh, offset: int, n: int) -> bytes:
    if not 0 <= offset < 1 << 62:   # an offset no file reaches (a BigTIFF's are 64-bit)
        raise _Truncated
    fh.seek(offset)
    data = fh.read(n)
    if len(data) < n:
        raise _Truncated
    return data


def _sized(fmt: str, width: int, height: int, sample_bytes: int = 2, channels: int = 3) -> ImageHeader:
    if width < 1 or height < 1:
        raise _Bad(f"its header declares {width}x{height} pixels")
    return ImageHeader(fmt, width, height, sample_bytes, channels)


def _png(fh) -> ImageHeader:
    length, kind, width, height, depth = struct.unpack(">I4sIIB", _read(fh, 8, 17))
    if kind != b"IHDR" or length != 13:
        raise _Bad("a PNG whose first chunk is not its header (IHDR)")
    return _sized("png", width, height, 2 if depth > 8 else 1)


_TIFF_SIZES = {3: ("H", 2), 4: ("I", 4), 16: ("Q", 8)}   # SHORT, LONG, LONG8


def _tiff(fh) -> ImageHeader:
    order = "<" if _read(fh, 0, 2) == b"II" else ">"
    (version,) = struct.unpack(order + "H", _read(fh, 2, 2))
    if version == 42:
        (ifd,) = struct.unpack(order + "I", _read(fh, 4, 4))
        count_fmt, entry_fmt, entry_size = "H", "HHI4s", 12
    else:  # BigTIFF: 8-byte offsets and counts
        (ifd,) = struct.unpack(order + "Q", _read(fh, 8, 8))
        count_fmt, entry_fmt, entry_size = "Q", "HHQ8s", 20
    count_size = struct.calcsize(count_fmt)
    (count,) = struct.unpack(order + count_fmt, _read(fh, ifd, count_size))
    if not 1 <= count <= _MAX_SEGMENTS:
        raise _Bad(f"a TIFF whose first directory has {count} entries")
    table = _read(fh, ifd + count_size, count * entry_size)
    found: dict[int, int] = {}
    for i in range(count):
        tag, kind, n, value = struct.unpack(order + entry_fmt, table[i * entry_size:(i + 1) * entry_size])
        if tag in (256, 257) and kind in _TIFF_SIZES and n == 1:
            code, size = _TIFF_SIZES[kind]
            (found[tag],) = struct.unpack(order + code, value[:size])
        elif tag == 258 and kind == 3 and n >= 1:   # BitsPerSample: the first sample's, in place or not
            first = value[:2] if 2 * n <= len(value) else \
                _read(fh, struct.unpack(order + ("I" if len(value) == 4 else "Q"), value)[0], 2)
            (found[tag],) = struct.unpack(order + "H", first)
    if 256 not in found or 257 not in found:
        raise _Bad("a TIFF without its width and height (ImageWidth, ImageLength)")
    bits = found.get(258, 16)
    return _sized("tiff", found[256], found[257], 1 if bits <= 8 else 2 if bits <= 16 else 4)


# Start-of-frame markers: baseline, extended, progressive, lossless, arithmetic (not DHT C4,
# JPG C8, DAC CC)
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg(fh) -> ImageHeader:
    pos = 2
    for _ in range(_MAX_SEGMENTS):
        marker = _read(fh, pos, 2)
        if marker[0] != 0xFF:
            raise _Bad("a JPEG whose segments do not follow one another")
        kind = marker[1]
        if kind == 0xFF:            # fill byte
            pos += 1
            continue
        if 0xD0 <= kind <= 0xD7 or kind == 0x01:   # markers without a length
            pos += 2
            continue
        if kind in (0xD9, 0xDA):
            raise _Bad("a JPEG without a frame header before its image data")
        (length,) = struct.unpack(">H", _read(fh, pos + 2, 2))
        if length < 2:
            raise _Bad(f"a JPEG with a segment of length {length}")
        if kind in _SOF:
            precision, height, width = struct.unpack(">BHH", _read(fh, pos + 4, 5))
            return _sized("jpeg", width, height, 2 if precision > 8 else 1)
        pos += 2 + length
    raise _Bad(f"a JPEG with more than {_MAX_SEGMENTS} segments before its frame header")


def _npy(fh) -> ImageHeader:
    fh.seek(0)
    try:
        version = np.lib.format.read_magic(fh)
        read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                else np.lib.format.read_array_header_2_0)
        shape, _fortran, dtype = read(fh)
    except (ValueError, EOFError) as exc:
        raise _Bad(f"a .npy file with an unreadable header ({str(exc).splitlines()[0][:120]})") from None
    if len(shape) not in (2, 3) or (len(shape) == 3 and not 1 <= shape[2] <= 4):
        raise _Bad(f"expected an (H, W) or (H, W, 1..4) image array, got shape {shape}")
    data_at = fh.tell()
    size = fh.seek(0, 2)
    needed = int(np.prod(shape, dtype=object)) * dtype.itemsize
    if size - data_at < needed:
        raise _Bad(f"a .npy file cut short ({size - data_at:,} of {needed:,} bytes of data)")
    return _sized("npy", shape[1], shape[0], max(1, dtype.itemsize), shape[2] if len(shape) == 3 else 1)


_READERS = (
    (b"\x89PNG\r\n\x1a\n", _png),
    (b"II*\x00", _tiff), (b"MM\x00*", _tiff), (b"II+\x00", _tiff), (b"MM\x00+", _tiff),
    (b"\xff\xd8\xff", _jpeg),
    (b"\x93NUMPY", _npy),
)


_Y4M_MAGIC = b"YUV4MPEG2"
_STRTOL = re.compile(rb"[ \t\n\v\f\r]*([+-]?[0-9]+)")


def y4m_size(path) -> tuple[int, int] | None:
    """``(width, height)`` a YUV4MPEG2 stream's first line claims, read as FFmpeg reads it, or
    None for anything else (a file of another kind, or not a regular file: a FIFO's bytes
    are the video reader's to take).

    FFmpeg's demuxer sizes its first read from these before a frame exists, and a stream
    claiming 30000 x 30000 (or 0 x 0) fails there with an unrelated system error, so the
    caller checks the claim first.  As in FFmpeg: the magic's 9 bytes, one byte skipped, then
    space-separated tokens, ``W`` and ``H`` read like ``strtol`` (the last of each counts).
    ``ValueError`` naming the file for a header without a positive width and height.
    """
    p = Path(path)
    try:
        if not stat.S_ISREG(p.stat().st_mode):
            return None
        with open(p, "rb") as fh:
            line = fh.readline(4096)
    except OSError:
        return None           # the video reader says why it cannot open it
    if not line.startswith(_Y4M_MAGIC):
        return None
    sizes = {}
    for token in line[len(_Y4M_MAGIC) + 1:].split(b" "):
        if token[:1] in (b"W", b"H"):
            m = _STRTOL.match(token, 1)
            sizes[token[:1].decode()] = int(m.group(1)) if m else 0
    w, h = sizes.get("W", 0), sizes.get("H", 0)
    if w < 1 or h < 1:
        got = "no frame size" if not sizes else f"a frame size of {w}x{h}"
        raise ValueError(f"cannot open video {p.name}: its YUV4MPEG2 header gives {got}")
    return w, h
