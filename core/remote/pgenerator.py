"""PGenerator's classic text protocol (HCFR's Raspberry Pi generator, DeviceControl).

testcard is the server (PGenerator listens on TCP 85; make the port configurable, it is
privileged).  A request is ASCII ending in 0x02 0x0D; so is each reply: ``OK``,
``OK:<value>``, ``ERR`` or ``ALIVE`` (PGenerator+'s ``daemon.pm``, ``$end_cmd_string="\\cB\\r"``).

* ``IS_ALIVE`` -> ``ALIVE``; ``CMD:GET_RESOLUTION`` -> ``OK:1920x1080``; ``CMD:GET_GPU_MEMORY``
  -> ``OK:192``; ``CMD:GET_PGENERATOR_VERSION`` -> ``OK:<version>`` (HCFR checks for ``OK``);
  ``QUIT`` closes; anything else -> ``ERR``.
* ``RGB=RECTANGLE;DIM;RES;R,G,B;BG;POS[;TEXT]``: DIM = width,height in output pixels, RES
  ignored, R,G,B 8-bit (``RECTANGLE10bit``: 0..1023), BG the background (empty or negative:
  black), POS = x,y[,dx,dy] in pixels with -1 centring on that axis and dx, dy added after
  (PGenerator+'s ``pattern.pm`` ``get_position``: ``x = (W - w) / 2`` for -1, then
  ``int(x + dx)``).  HCFR sends, from ``GDIGenerator.cpp`` ``DisplayRGBColorrPI``::

      RGB=RECTANGLE;%d,%d;100;%d,%d,%d;%d,%d,%d;-1,-1,%d,%d

  with the window sqrt(p) * W by sqrt(p) * H (W x H from ``GET_RESOLUTION``).  The ``OK`` for a
  patch is sent by the transport once the patch is on screen.
* ``RGB=TEXT;...`` (HCFR's "Initializing PGenerator" banner) and
  ``TESTTEMPLATE:PatternDynamic:...`` (HCFR's end of run) are answered ``OK`` and change
  nothing.
* UDP discovery: a datagram containing ``Who is a PGenerator`` is answered
  ``I am a PGenerator <name>`` (PGenerator+'s ``discovery.pm``, port 1977).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from core.remote.framing import Framer
from core.remote.patch import RemoteError, RemotePatch, check_codes, clip_rect, wire_number

DEFAULT_PORT = 85
DISCOVERY_PORT = 1977
END = b"\x02\r"
MAX_REQUEST = 4096           # bytes before the terminator
GPU_MEMORY = "192"
DISCOVERY_ASK = b"Who is a PGenerator"
DISCOVERY_REPLY = "I am a PGenerator"
MAX_NAME = 24


@dataclass(frozen=True)
class Answer:
    """What to do with one request: ``reply`` (without the terminator) is sent at once, or for
    a ``patch`` once it is presented; ``close`` ends the connection after the reply (if any);
    ``note`` is a log line for a refusal or an ignored command."""

    reply: str | None
    patch: RemotePatch | None = None
    close: bool = False
    note: str | None = None


class PGeneratorFramer(Framer):
    """Splits a byte stream at 0x02 0x0D: ``feed(data)`` returns the complete requests as text
    or as a :class:`RemoteError` (not ASCII).  A request over 4 KiB sets :attr:`broken` (the
    connection is answered ``ERR`` and closed)."""

    name = "pgenerator"
    max_bytes = MAX_REQUEST
    strip = "\r\n"

    def cut(self, buf: bytearray) -> tuple[int, int, int] | None:
        end = buf.find(END)
        return None if end < 0 else (0, end, end + len(END))


def frame_request(text: str) -> bytes:
    """A request (or reply) as it goes on the wire."""
    return text.encode("ascii") + END


def _ints(text: str, count: int | tuple[int, ...], what: str) -> list[int]:
    """Comma-separated integers (:func:`~core.remote.patch.wire_number`): code values and pixel
    values alike; HCFR writes every one with ``%d``."""
    parts = [p.strip() for p in text.split(",")]
    counts = (count,) if isinstance(count, int) else count
    if len(parts) not in counts:
        want = " or ".join(map(str, counts))
        raise RemoteError(f"pgenerator: {what}: expected {want} comma-separated numbers, "
                          f"got {text[:40]!r}")
    out = []
    for p in parts:
        out.append(int(wire_number(p, f"pgenerator: {what}", integer=True)))
    return out


def _rectangle(draw: str, fields: list[str], resolution: tuple[int, int], *, video_levels: bool,
               received_s: float, raw: str) -> RemotePatch:
    bits = 10 if draw == "RECTANGLE10bit" else 8
    if len(fields) < 6:
        raise RemoteError("pgenerator: RGB=RECTANGLE needs DIM;RES;R,G,B;BG;POS")
    dim, _res, rgb, bg, pos = fields[1:6]
    w, h = _ints(dim, 2, "DIM")
    if w <= 0 or h <= 0:
        raise RemoteError(f"pgenerator: DIM {w},{h} is not a patch (both must be above 0)")
    color = check_codes(_ints(rgb, 3, "R,G,B"), bits, "pgenerator: colour")
    background = (0, 0, 0)
    if bg.strip():
        values = _ints(bg, 3, "BG")
        if all(v >= 0 for v in values):  # -1,-1,-1: "leave the background", drawn black here
            background = check_codes(values, bits, "pgenerator: background")
    width, height = resolution
    x, y, dx, dy = -1, -1, 0, 0
    if pos.strip():
        values = _ints(pos, (2, 4), "POS")
        x, y = values[:2]
        if len(values) == 4:
            dx, dy = values[2:]
    if w >= width:
        dx = 0
    if h >= height:
        dy = 0
    px = int((width - w) / 2 + dx) if x == -1 else x + dx
    py = int((height - h) / 2 + dy) if y == -1 else y + dy
    rect = clip_rect(px / width, py / height, w / width, h / height, "pgenerator: geometry")
    return RemotePatch(color=color, background=background, bits=bits, rect=rect,
                       video_levels=video_levels, source="pgenerator", received_s=received_s,
                       raw=raw)


def respond(request: str, *, resolution: tuple[int, int], version: str = "testcard",
            video_levels: bool = False, received_s: float | None = None) -> Answer:
    """What PGenerator answers to one request (text without the terminator).

    Never raises: a malformed or out-of-range patch, or an unknown command, is ``ERR`` with
    the reason in ``note``.
    """
    text = request.strip()
    if text == "QUIT":
        return Answer(None, close=True)
    if text == "IS_ALIVE":
        return Answer("ALIVE")
    if text.startswith("CMD:"):
        cmd = text[4:]
        if cmd == "GET_RESOLUTION":
            return Answer(f"OK:{resolution[0]}x{resolution[1]}")
        if cmd == "GET_GPU_MEMORY":
            return Answer(f"OK:{GPU_MEMORY}")
        if cmd == "GET_PGENERATOR_VERSION":
            return Answer(f"OK:{version}")
        return Answer("ERR", note=f"unknown command {text[:60]!r}")
    if text.startswith("TESTTEMPLATE:PatternDynamic:"):
        return Answer("OK", note=f"ignored {text[:60]!r} (HCFR's end of run)")
    if text.startswith("RGB="):
        fields = text[4:].split(";")
        draw = fields[0].strip()
        if draw == "TEXT":
            return Answer("OK", note="ignored a text overlay (RGB=TEXT)")
        if draw not in ("RECTANGLE", "RECTANGLE10bit"):
            return Answer("ERR", note=f"unsupported drawing {draw[:30]!r} (RECTANGLE or "
                                      "RECTANGLE10bit)")
        try:
            patch = _rectangle(draw, fields, resolution, video_levels=video_levels,
                               received_s=time.monotonic() if received_s is None else received_s,
                               raw=text)
        except RemoteError as e:
            return Answer("ERR", note=str(e))
        return Answer("OK", patch=patch)
    return Answer("ERR", note=f"unknown command {text[:60]!r}")


def discovery_reply(datagram: bytes, name: str) -> bytes | None:
    """The answer to a discovery datagram, or ``None`` when it is not a discovery request.
    The name is cut to 24 printable ASCII characters."""
    if DISCOVERY_ASK not in datagram[:1024]:
        return None
    clean = "".join(c for c in name if 32 <= ord(c) < 127)[:MAX_NAME] or "testcard"
    return f"{DISCOVERY_REPLY} {clean}".encode("ascii")
