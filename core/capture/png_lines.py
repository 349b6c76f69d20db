"""Chosen lines of a PNG, decoded exactly, without decoding the rest of it.

Reading a located counter panel samples a few dozen lines of a frame, and inflating a PNG's
image data is most of what decoding it costs.  :func:`read_png_lines` inflates the IDAT stream
(a ``decompressobj``, which releases the GIL) in pieces only as far as the last line asked
for, and keeps only the filtered scanlines it needs: each line asked for, and the lines above
it that it depends on, back to the nearest one filtered None or Sub (which depends on no line
above it).  Those are wrapped as a PNG of that many lines -- the original's chunks before its
image data (palette, transparency, ``sBIT``, ...) and a stored, level-0 deflate stream -- and
decoded by :func:`core.imageio.decode_image`, so OpenCV unfilters, expands and converts each
line exactly as it does in the whole file, and the significant-bits shift is the same.  The
result is a whole-size array: the lines asked for hold what the whole decode gives there,
every other line is zero.

It returns None -- the caller then decodes the whole file, which reports any fault as it
always has -- wherever it cannot promise that: not a PNG, an interlaced (Adam7) one, an
animated one, an IHDR, PLTE, IDAT or IEND chunk whose CRC fails, chunks cut short or no IEND
(a truncated file), IDAT chunks that are not one run, a critical chunk OpenCV's libpng does not
know, a chunk after the image data that belongs before it, a zlib header it does not accept,
a stream that ends or fails before the last line asked for, a line filter type above 4, a
file without ``sBIT`` read with a sidecar's bit depth below its sample size (whether its
samples are shifted is decided by the whole picture's largest sample), or lines outside the
picture.  What it does not see is the image data after the last line asked for, nor the
stream's Adler-32: a stream that is wrong only there, under chunk CRCs that hold, is one a
faulty encoder wrote (damage in storage or transfer breaks a CRC or the chunk structure, and
is refused); the whole decode refuses such a file, this reads the lines it was asked for.

The stream is inflated by zlib-ng (the ``zlib-ng`` package, a dependency: the same bytes,
and on the run-length streams OpenCV writes over ten times faster), or by the standard
library's zlib where it is missing (:data:`INFLATER` says which).
"""

from __future__ import annotations

import mmap
import types
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from core.imageio import decode_image, png_sbit

_inflating: types.ModuleType
try:
    from zlib_ng import zlib_ng as _inflating
except ImportError:   # an optional accelerator: the standard library's zlib inflates the same
    _inflating = zlib
INFLATER = "zlib-ng" if _inflating is not zlib else "zlib"

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}          # colour type -> samples per pixel
_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
_CRITICAL = (b"IHDR", b"PLTE", b"IDAT", b"IEND")
_ANIMATION = (b"acTL", b"fcTL", b"fdAT")
# ancillary chunks with a place before the image data: after it, libpng may refuse them
_BEFORE_IDAT = (b"cHRM", b"gAMA", b"iCCP", b"sBIT", b"sRGB", b"bKGD", b"hIST", b"tRNS", b"pHYs",
                b"sPLT", b"oFFs", b"pCAL", b"sCAL", b"eXIf", b"cICP", b"mDCV", b"cLLI")
_MAX_SIDE = 1_000_000      # libpng's default limit on width and height
_MAX_PIXELS = 1 << 30      # OpenCV's default limit on an image's pixels
_PIECE = 1 << 18           # bytes inflated at a time: a few hundred kB stays in cache


@dataclass(frozen=True)
class _Png:
    width: int
    height: int
    depth: int
    colour: int
    ihdr_tail: bytes        # IHDR after width and height: depth, colour, methods, interlace
    before: memoryview      # the chunks between IHDR and the first IDAT, as they stand
    idat: tuple[memoryview, ...]

    @property
    def stride(self) -> int:
        """Bytes per filtered line: the filter type, then the line's samples."""
        return 1 + (self.width * _CHANNELS[self.colour] * self.depth + 7) // 8


def read_png_lines(data, lines: Iterable[int], bit_depth: int | None = None,
                   name: str = "image") -> np.ndarray | None:
    """Lines ``lines`` of the PNG in ``data`` (bytes or a uint8 array), as code values.

    An ``(H, W, 3)`` array of the whole picture's size in which the lines asked for equal
    :func:`core.imageio.decode_image` ``(data, name, bit_depth)`` there, and every other line
    is zero; None where that cannot be promised (see the module's text), for the caller to
    decode the whole file.  Never raises for what the file holds.
    """
    mv = memoryview(data).cast("B")
    png = _parse(mv)
    if png is None:
        return None
    want = np.unique(np.fromiter((int(y) for y in lines), dtype=np.int64))
    if want.size == 0 or want[0] < 0 or want[-1] >= png.height:
        return None
    container = 16 if png.depth == 16 else 8
    if png_sbit(mv) is None and bit_depth is not None and 0 < bit_depth < container:
        return None   # the shift is decided by the whole picture's largest sample
    wbits = _window_bits(png.idat)
    if wbits is None:
        return None
    stride = png.stride
    keeper = _Keeper(want.tolist(), stride)
    step = stride * max(1, _PIECE // stride)
    line = 0
    try:
        for piece in _inflate(png.idat, wbits, (int(want[-1]) + 1) * stride, step):
            if len(piece) % stride or not keeper.feed(line, piece):
                return None   # the stream ended part-way through a line, or a bad filter type
            line += len(piece) // stride
    except (_inflating.error, ValueError):   # a bad stream, or a window it will not take
        return None
    if not keeper.complete:
        return None           # the stream ended before the last line asked for
    sub = _sub_png(png, keeper.filtered())
    try:
        part = decode_image(np.frombuffer(sub, dtype=np.uint8), name, bit_depth)
    except Exception:  # noqa: BLE001 - whatever OpenCV makes of it, the whole decode says so
        return None
    if part.ndim != 3 or part.shape[:2] != (keeper.count, png.width):
        return None
    out = _zeros((png.height, png.width) + part.shape[2:], part.dtype)
    out[want] = part[np.asarray(keeper.index, dtype=np.intp)]
    return out


def _zeros(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A zero array in an anonymous mapping of its own: its pages are the kernel's zero page
    until written, so a picture of a few lines holds a few lines of memory and costs no
    clearing (``np.zeros`` of a reused block clears all of it)."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    return np.frombuffer(mmap.mmap(-1, size), dtype=dtype).reshape(shape)


# ---------------------------------------------------------------- the file's chunks
def _parse(mv: memoryview) -> _Png | None:
    """The chunks of a PNG this reader can take a few lines of; None otherwise."""
    n = len(mv)
    if n < 8 or mv[:8] != _SIGNATURE:
        return None
    pos, header, before_at, before_end = 8, None, None, None
    idat: list[memoryview] = []
    stage = "header"        # header -> before (IDAT) -> image -> after -> end
    while stage != "end":
        if pos + 12 > n:
            return None     # cut short: no IEND
        length = int.from_bytes(mv[pos:pos + 4], "big")
        kind = bytes(mv[pos + 4:pos + 8])
        end = pos + 12 + length
        if length > 0x7FFFFFFF or end > n or not kind.isalpha():
            return None
        body = mv[pos + 8:pos + 8 + length]
        critical = not kind[0] & 0x20
        if critical and zlib.crc32(body, zlib.crc32(kind)) != int.from_bytes(mv[end - 4:end], "big"):
            return None
        if critical and kind not in _CRITICAL or kind in _ANIMATION:
            return None
        if stage == "header":
            if kind != b"IHDR" or length != 13:
                return None
            header = bytes(body)
            before_at, stage = end, "before"
        elif kind == b"IHDR":
            return None
        elif kind == b"IDAT":
            if stage == "after":
                return None     # a second run of image data
            if stage == "before":
                before_end = pos
            idat.append(body)
            stage = "image"
        elif kind == b"IEND":
            if stage not in ("image", "after") or length:
                return None
            stage = "end"
        else:
            if stage in ("image", "after"):
                if critical or kind in _BEFORE_IDAT:
                    return None
                stage = "after"
        pos = end
    assert header is not None   # stage "end" is reached only after the IHDR chunk was read
    width, height = int.from_bytes(header[:4], "big"), int.from_bytes(header[4:8], "big")
    depth, colour, method, filtering, interlace = header[8:13]
    if not (0 < width <= _MAX_SIDE and 0 < height <= _MAX_SIDE) or width * height > _MAX_PIXELS \
            or method or filtering or interlace:
        return None
    if depth not in _DEPTHS.get(colour, ()):
        return None
    return _Png(width, height, depth, colour, header[8:], mv[before_at:before_end],
                tuple(c for c in idat if len(c)))


def _window_bits(idat: tuple[memoryview, ...]) -> int | None:
    """Raw-deflate window bits from the zlib header the stream starts with (the window it
    declares, as libpng holds it to); None for a header zlib or libpng refuses."""
    head = b"".join(bytes(c[:2]) for c in idat[:2])[:2]    # (chunks here are not empty)
    if len(head) < 2:
        return None
    cmf, flg = head
    if (cmf << 8 | flg) % 31 or cmf & 0x0F != 8 or cmf >> 4 > 7 or flg & 0x20:
        return None
    return -((cmf >> 4) + 8)


def _inflate(idat: tuple[memoryview, ...], wbits: int, total: int, step: int) -> Iterator[bytes]:
    """The stream's first ``total`` bytes, inflated ``step`` bytes at a time (the last piece,
    or one cut short because the stream ended, shorter): raw deflate after the 2-byte zlib
    header, so no Adler-32 is computed over lines that are not wanted."""
    d = _inflating.decompressobj(wbits)
    parts: list[bytes] = []
    got = have = 0
    data: memoryview | bytes   # a chunk's data, then what zlib left of it
    for data in _after_header(idat):
        while len(data) and got < total and not d.eof:
            out = d.decompress(data, min(step, total - got) - have)
            data = d.unconsumed_tail
            if out:
                parts.append(out)
                have += len(out)
            if have == min(step, total - got):
                yield parts[0] if len(parts) == 1 else b"".join(parts)
                got, parts, have = got + have, [], 0
        if got >= total or d.eof:
            break
    if parts:
        yield b"".join(parts)


def _after_header(idat: tuple[memoryview, ...]) -> Iterator[memoryview]:
    """The IDAT chunks' data after the stream's 2-byte zlib header."""
    skip = 2
    for chunk in idat:
        if skip >= len(chunk):
            skip -= len(chunk)
            continue
        yield chunk[skip:]
        skip = 0


# ---------------------------------------------------------------- the lines kept
class _Keeper:
    """The filtered lines to keep, chosen as the stream is inflated.

    A line asked for is kept with the lines above it that it depends on: back to the nearest
    line filtered None (0) or Sub (1), which depends on no line above it, or to the first line
    (whose line above is zeros, in any PNG).  Kept lines come out as runs each of which starts
    with such a line or follows on from the run before, so a PNG of just these lines unfilters
    each of them exactly as the whole file does.  Lines that may still be needed are held (as
    views of the inflated pieces) until a line asked for takes them or a None/Sub line makes
    them unnecessary: at most the lines since the last such line.
    """

    def __init__(self, want: list[int], stride: int):
        self.want, self.stride = want, stride
        self.next = 0             # the next line asked for, as its place in ``want``
        self.done = 0             # every line before this one is kept or never needed
        self.last_reset = 0       # the last line filtered None or Sub seen (0: the first line)
        self.held: list[tuple[int, memoryview]] = []   # (first line, its lines) not yet kept
        self.kept: list[memoryview] = []
        self.count = 0            # lines kept
        self.index: list[int] = []   # each line asked for, as its place among the kept lines

    @property
    def complete(self) -> bool:
        return self.next == len(self.want)

    def feed(self, first: int, piece: bytes) -> bool:
        """Lines ``first ..`` of the stream (whole lines); False for a filter type above 4
        (which libpng refuses)."""
        stride, want = self.stride, self.want
        k = len(piece) // stride
        filters = piece[::stride]          # each line's filter type, one byte a line
        if max(filters) > 4:
            return False
        lines = memoryview(piece)
        while self.next < len(want) and want[self.next] < first + k:
            y = want[self.next]
            self.next += 1
            reset = _last_reset(filters, y - first + 1)
            start = max(first + reset if reset >= 0 else self.last_reset, self.done)
            for h0, held in self.held:
                lo, hi = max(start, h0), min(y + 1, h0 + len(held) // stride)
                if lo < hi:
                    self._keep(held[(lo - h0) * stride:(hi - h0) * stride], hi - lo)
            lo = max(start, first)
            if lo <= y:
                self._keep(lines[(lo - first) * stride:(y + 1 - first) * stride], y + 1 - lo)
            self.held = []
            self.done = y + 1
            self.index.append(self.count - 1)
        reset = _last_reset(filters, k)
        if reset >= 0:
            self.last_reset = max(self.last_reset, first + reset)
        keep_from = max(self.last_reset, self.done)
        self.held = [(max(h0, keep_from), held[max(0, keep_from - h0) * stride:])
                     for h0, held in self.held if h0 + len(held) // stride > keep_from]
        if first + k > keep_from and not self.complete:
            self.held.append((max(first, keep_from), lines[max(0, keep_from - first) * stride:]))
        return True

    def _keep(self, lines: memoryview, n: int) -> None:
        self.kept.append(lines)
        self.count += n

    def filtered(self) -> bytes:
        return b"".join(self.kept)


def _last_reset(filters: bytes, end: int) -> int:
    """The last of the first ``end`` lines filtered None or Sub, as its place; -1 if none."""
    return max(filters.rfind(b"\x00", 0, end), filters.rfind(b"\x01", 0, end))


def _chunk(kind: bytes, body: bytes) -> bytes:
    return len(body).to_bytes(4, "big") + kind + body + zlib.crc32(body, zlib.crc32(kind)).to_bytes(4, "big")


def _sub_png(png: _Png, filtered: bytes) -> bytes:
    """A PNG of the kept lines: the same header but for its height, the same chunks before
    the image data, the lines as a stored (level-0) zlib stream."""
    lines = len(filtered) // png.stride
    ihdr = png.width.to_bytes(4, "big") + lines.to_bytes(4, "big") + png.ihdr_tail
    return b"".join((_SIGNATURE, _chunk(b"IHDR", ihdr), png.before,
                     _chunk(b"IDAT", zlib.compress(filtered, 0)), _chunk(b"IEND", b"")))
