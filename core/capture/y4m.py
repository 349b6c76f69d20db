"""A raw YUV4MPEG2 file's frames checked against its header before any is decoded.

FFmpeg's demuxer cuts a ``.y4m`` file into packets of the size the header's ``W``, ``H`` and
``C`` give, checking only that each begins with ``FRAME``.  A header that lies about the size
or the format makes the first packet span part of the next frame: decoded, its top shows one
frame's counter and its bottom the next's -- a torn frame that no display tore.  So before a
packet is decoded, :func:`frame_checks` walks the file the way the header says it is laid out
(a seek and a few bytes per frame): a frame whose bytes do not end where the next ``FRAME``
begins (or the file ends) is refused, never decoded, and the frames after it cannot be found
from the header.  Only regular files are walked (a FIFO's bytes are the reader's to take).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core.capture.header import y4m_size

MAX_FRAME_HEADER = 80     # FFmpeg's limit on a FRAME line
_DEPTH = re.compile(rb"(?:420|422|444)p(9|10|12|14|16)|mono(9|10|12|16)")


@dataclass(frozen=True)
class Y4mLayout:
    width: int
    height: int
    colour: str           # the header's C tag as FFmpeg matches it ("420jpeg" when absent)
    frame_bytes: int      # one frame's planes, as the header gives them
    data_start: int       # where the first FRAME line begins

    def describe(self) -> str:
        return f"{self.width}x{self.height} C{self.colour}: {self.frame_bytes:,} bytes a frame"


def frame_bytes(width: int, height: int, colour: bytes) -> int | None:
    """One frame's bytes for the header's C tag, matched by prefix in FFmpeg's order (None for a
    tag FFmpeg does not know)."""
    m = _DEPTH.match(colour)
    size = 2 if m else 1
    luma = width * height
    half_w, half_h = -(-width // 2), -(-height // 2)
    for prefix, planes in ((b"420", luma + 2 * half_w * half_h), (b"411", luma + 2 * -(-width // 4) * height),
                           (b"422", luma + 2 * half_w * height), (b"444alpha", 4 * luma),
                           (b"444", 3 * luma), (b"mono", luma)):
        if colour.startswith(prefix):
            return planes * size
    return None


def y4m_layout(path) -> Y4mLayout | None:
    """The layout a regular YUV4MPEG2 file's header gives (None for anything else, or a C tag
    FFmpeg would refuse itself); ``ValueError`` as :func:`core.capture.header.y4m_size`."""
    size = y4m_size(path)
    if size is None:
        return None
    with open(path, "rb") as fh:
        line = fh.readline(4096)
    colour = b"420jpeg"
    for token in line[len(b"YUV4MPEG2") + 1:].split(b" "):   # as y4m_size reads it
        if token[:1] == b"C":
            colour = token[1:].strip()
    n = frame_bytes(*size, colour)
    if n is None:
        return None
    return Y4mLayout(*size, colour.decode("ascii", "replace"), n, len(line))


def frame_checks(path, layout: Y4mLayout) -> Iterator[str | None]:
    """Per frame in file order: None when its bytes are as the header gives them, else why not
    (then the walk ends: the frames after it are not where the header puts them)."""
    p = Path(path)
    total = p.stat().st_size
    at, k = layout.data_start, 0
    with open(p, "rb") as fh:
        while at < total:
            fh.seek(at)
            head = fh.read(MAX_FRAME_HEADER)
            nl = head.find(b"\n")
            if not head.startswith(b"FRAME") or nl < 0:
                yield (f"frame {k} does not begin with a FRAME line where the header's "
                       f"{layout.describe()} puts it: the header does not describe the frames")
                return
            end = at + nl + 1 + layout.frame_bytes
            if end > total:
                yield (f"frame {k} is cut short: {total - at - nl - 1:,} of the {layout.frame_bytes:,} "
                       f"bytes the header's {layout.width}x{layout.height} C{layout.colour} gives")
                return
            if end < total:
                fh.seek(end)
                if fh.read(5) != b"FRAME":
                    yield (f"frame {k} is not the {layout.describe()} the header gives (the next "
                           "FRAME line is not where its bytes end): the header lies about the frame "
                           "size or format; not decoded")
                    return
            yield None
            at, k = end, k + 1

