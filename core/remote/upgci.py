"""The Calman-style pattern-generator protocol ("UPGCI"), TCP 2100.

testcard is the server.  A request is 0x02 + ``TYPE:payload`` + 0x03 (or a bare ``TYPE``);
every command is answered with the single byte ACK 0x06, except the queries ``SN``, ``CAP``,
``FIRMWARE``, ``STATUS`` and ``GET_SETTINGS``, which are answered with their payload + 0x03
(PGenerator+'s ``daemon.pm``: ``send_key_to_client`` sends ``$ack_cmd_string="\\x06"`` to a
Calman connection, ``send_calman_payload_to_client`` the payload and ``\\x03``).  ``TERM``,
``QUIT`` and ``SHUTDOWN`` are acknowledged, then the connection is closed.  The handshake is
``INIT:1.2`` or ``INIT:2.0``.

Patches carry 10-bit values zero-padded to four digits (PGenerator+'s ``variables.pm`` holds
``"\\x02RGB_S:0940,0940,0940,018"``):

* ``RGB_S:R,G,B,SIZE``: a centred window of SIZE % of the screen's area (sqrt(p) * W by
  sqrt(p) * H) over the current background;
* ``RGB_B:R,G,B,BG``: BG is one grey level for the background; the window keeps its size;
* ``RGB_A:R,G,B,bgR,bgG,bgB,SIZE``: both, explicitly.

The window size and background carry over from one patch to the next (:class:`UpgciSession`;
``10_SIZE:N`` sets the size too).  SIZE 0 keeps the current size, as PGenerator+ does; over 100
is refused.

This protocol has no error reply: every command is answered 0x06 (PGenerator+ acknowledges
even what it does not handle; no implementation found sends a NAK 0x15, so none is sent
here).  An ACK tells the calibration software that its command took effect, so it is sent only
for what did: a patch once presented, a setting that was applied.  A malformed patch, a patch
not presented, and any command this generator does not implement (display-mode settings such
as ``CONF_HDR`` or ``DSMD``, ``SPECIALTY`` patterns: acknowledging one would have the software
measure the previous patch, or a signal other than the one it asked for) close the connection
with the reason in the log.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from core.remote.framing import Framer
from core.remote.patch import RemoteError, RemotePatch, check_codes, window_rect, wire_number

DEFAULT_PORT = 2100
STX, ETX, ACK = b"\x02", b"\x03", b"\x06"
MAX_REQUEST = 1024
BITS = 10
CLOSING = ("TERM", "QUIT", "SHUTDOWN")
CAPABILITIES = "RGB_S,RGB_B,RGB_A,10_SIZE"


@dataclass
class UpgciSession:
    """What carries over between commands on one connection."""

    window_percent: int = 10
    background: tuple[int, int, int] = (0, 0, 0)
    version: str | None = None          # from INIT
    resolution: tuple[int, int] = (1920, 1080)
    refresh_hz: int = 60
    video_levels: bool = False
    serial: str = "testcard"
    firmware: str = "testcard"


@dataclass(frozen=True)
class UpgciAnswer:
    """``reply`` bytes (sent at once, or for a ``patch`` once presented), ``close`` after it,
    ``note`` a log line."""

    reply: bytes | None
    patch: RemotePatch | None = None
    close: bool = False
    note: str | None = None


class UpgciFramer(Framer):
    """Splits a byte stream into requests between 0x02 and 0x03 (bytes before 0x02 are
    skipped); a request over 1 KiB sets :attr:`broken`."""

    name = "upgci"
    max_bytes = MAX_REQUEST

    def cut(self, buf: bytearray) -> tuple[int, int, int] | None:
        start = buf.find(STX)
        if start < 0:
            buf.clear()
            return None
        end = buf.find(ETX, start + 1)
        if end < 0:
            del buf[:start]
            return None
        return start + 1, end, end + 1


def frame_request(text: str) -> bytes:
    """A request as Calman puts it on the wire: 0x02 + text + 0x03."""
    return STX + text.encode("ascii") + ETX


def _values(payload: str, counts: tuple[int, ...], what: str) -> list[int]:
    parts = [p.strip() for p in payload.split(",")]
    if len(parts) not in counts:
        want = " or ".join(map(str, counts))
        raise RemoteError(f"upgci: {what} needs {want} comma-separated values, got {len(parts)}")
    out = []
    for p in parts:
        out.append(int(wire_number(p, f"upgci: {what}", integer=True)))
    return out


def _size(value: int, session: UpgciSession, what: str) -> int:
    if not 0 <= value <= 100:
        raise RemoteError(f"upgci: {what} window size {value} % is outside 0..100 %")
    return value or session.window_percent


def _patch(kind: str, payload: str, session: UpgciSession, received_s: float, raw: str) -> RemotePatch:
    if kind == "RGB_S":
        r, g, b, size = _values(payload, (4,), kind)
        percent, background = _size(size, session, kind), session.background
    elif kind == "RGB_B":
        r, g, b, grey = _values(payload, (4,), kind)
        percent = session.window_percent
        background = check_codes((grey,) * 3, BITS, "upgci: RGB_B background")
    else:  # RGB_A
        r, g, b, br, bg, bb, size = _values(payload, (7,), kind)
        percent = _size(size, session, kind)
        background = check_codes((br, bg, bb), BITS, "upgci: RGB_A background")
    color = check_codes((r, g, b), BITS, f"upgci: {kind} colour")
    patch = RemotePatch(color=color, background=background, bits=BITS,
                        rect=window_rect(percent, f"upgci: {kind} window size"),
                        video_levels=session.video_levels, source="upgci",
                        received_s=received_s, raw=raw)
    session.window_percent, session.background = percent, background
    return patch


def _settings(session: UpgciSession) -> str:
    w, h = session.resolution
    rng = "Limited" if session.video_levels else "Full"
    return (f"Resolution={w}x{h},Refresh={session.refresh_hz},1_FORMAT=RGB {BITS}-bit,"
            f"Range={rng},Bits={BITS},Dolby=Off")


def respond(request: str, session: UpgciSession, *, received_s: float | None = None) -> UpgciAnswer:
    """The answer to one request (the text between 0x02 and 0x03).  Never raises."""
    text = request.strip()
    kind, _, payload = text.partition(":")
    kind = kind.strip()
    if kind in CLOSING:
        return UpgciAnswer(ACK, close=True)
    queries = {"SN": session.serial, "CAP": CAPABILITIES, "FIRMWARE": session.firmware,
               "STATUS": "STATUS," + CAPABILITIES, "GET_SETTINGS": _settings(session)}
    if kind in queries:
        return UpgciAnswer(queries[kind].encode("ascii", "replace") + ETX)
    if kind == "INIT":
        session.version = payload.strip()[:16]
        note = None if session.version in ("1.2", "2.0") else \
            f"INIT with version {session.version!r}; answered as 2.0"
        return UpgciAnswer(ACK, note=note)
    if kind in ("RGB_S", "RGB_B", "RGB_A"):
        try:
            patch = _patch(kind, payload, session,
                           time.monotonic() if received_s is None else received_s, text)
        except RemoteError as e:
            return UpgciAnswer(None, close=True, note=f"{e}; closing (this protocol has no error reply)")
        return UpgciAnswer(ACK, patch=patch)
    if kind == "10_SIZE":
        try:
            (size,) = _values(payload, (1,), kind)
            session.window_percent = _size(size, session, kind)
        except RemoteError as e:
            return UpgciAnswer(ACK, note=f"{e}; the window size is kept")
        return UpgciAnswer(ACK)
    if kind in ("IS_ALIVE", "ISALIVE", "UPDATE", "ENABLE PATTERNS", "DISABLE PATTERNS"):
        return UpgciAnswer(ACK)
    return UpgciAnswer(None, close=True, note=f"upgci: {text[:60]!r} is not a command this generator "
                                               "implements; closing (this protocol has no error reply)")
