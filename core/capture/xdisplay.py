"""Whether an X display answers: a connection setup sent to its server, nothing more.

``capture --list`` names an X11 screen grab only for a display whose server answers: a
``DISPLAY`` left over from a closed session, or a socket in the X11 socket folder whose server
is gone, is no capture source.  The check connects (the abstract socket, then the socket file,
or TCP port 6000 + N for a remote host), sends the 12-byte connection setup of the X protocol
(11.0, no authorisation) and reads the first byte of the reply: success, failure or a request
to authenticate all mean a server is there.  Nothing is drawn, no window opened; bounded by a
timeout.
"""

from __future__ import annotations

import os
import re
import socket
import struct

X11_SOCKETS = "/tmp/.X11-unix"     # where X servers put their sockets (the X11 convention)
TIMEOUT_S = 0.5
_DISPLAY = re.compile(r"(?P<host>[^:]*):(?P<n>\d+)(?:\.\d+)?")
_SETUP = b"l\0" + struct.pack("<HHHH", 11, 0, 0, 0) + b"\0\0"   # little-endian, X11.0, no auth


def display_answers(display: str, timeout: float = TIMEOUT_S, sockets: str | None = None) -> str | None:
    """None when the X server of ``display`` (``:0``, ``:1.0``, ``unix:0``, ``host:0``) answers
    a connection setup; else why not, in a few words.  ``sockets``: the X11 socket folder."""
    m = _DISPLAY.fullmatch(display.strip())
    if m is None:
        return f"{display!r} is not an X display name"
    host, n = m.group("host"), int(m.group("n"))
    targets: list[tuple[int, str | tuple[str, int]]]
    if host in ("", "unix"):
        path = os.path.join(sockets or X11_SOCKETS, f"X{n}")
        targets = [(socket.AF_UNIX, "\0" + path), (socket.AF_UNIX, path)]
    else:
        targets = [(socket.AF_INET, (host, 6000 + n))]
    why = "no X server socket"
    for family, address in targets:
        try:
            with socket.socket(family, socket.SOCK_STREAM) as s:
                s.settimeout(timeout)
                s.connect(address)
                s.sendall(_SETUP)
                first = s.recv(1)
        except (OSError, UnicodeError) as exc:
            said = exc.strerror if isinstance(exc, OSError) else None   # a UnicodeError has no strerror
            why = "it does not answer" if isinstance(exc, TimeoutError) else \
                f"no server answers ({said or type(exc).__name__})"
            continue
        if first[:1] in (b"\0", b"\1", b"\2"):
            return None
        why = "its socket closed without an X server's reply"
    return why


def local_displays(sockets: str | None = None) -> list[str]:
    """``:N`` for every socket in the X11 socket folder, in display order (answering or not)."""
    try:
        names = os.listdir(sockets or X11_SOCKETS)
    except OSError:
        return []
    found = sorted(int(m.group(1)) for m in (re.fullmatch(r"X(\d+)", n) for n in names) if m)
    return [f":{n}" for n in found]


def screen_grabs(environ=None, sockets: str | None = None, timeout: float = TIMEOUT_S) -> dict:
    """The X11 screen grabs to list: ``current`` (``x11grab:DISPLAY`` when ``DISPLAY`` is set and
    its server answers), ``current_dead`` (why not, when it is set and does not), ``others``
    (``x11grab::N`` for the other displays in the socket folder whose servers answer) and
    ``dead`` (how many there do not)."""
    env = os.environ if environ is None else environ
    display = env.get("DISPLAY", "").strip()
    out: dict = {"display": display or None, "current": None, "current_dead": None, "others": [], "dead": 0}
    if display:
        why = display_answers(display, timeout, sockets)
        out["current" if why is None else "current_dead"] = f"x11grab:{display}" if why is None else why
    here = _DISPLAY.fullmatch(display)
    mine = f":{here.group('n')}" if here and here.group("host") in ("", "unix") else None
    for d in local_displays(sockets):
        if d == mine:
            continue
        if display_answers(d, timeout, sockets) is None:
            out["others"].append(f"x11grab:{d}")
        else:
            out["dead"] += 1
    return out
