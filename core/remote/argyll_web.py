"""ArgyllCMS's web display (``dispwin -dweb[:PORT]``): the client side, as a browser runs it.

Argyll is the HTTP server (port 8080 unless given).  The client polls ``GET /ajax/messages?...``;
the answer carries the colour and the server closes the connection: no Content-Length, and in
ArgyllCMS's own ``webwin.c`` no status line either, just ``mg_printf(conn, "\\r\\n#%02X%02X%02X",
(int)(r * 255.0 + 0.5), ...)`` (its ``webdisp.js`` strips the leading CR LF).  A server that
does send ``HTTP/1.1 200 OK`` and headers is read too, and so is DisplayCAL's re-implementation
(``webwin.py``), whose body is ``#RRGGBB|#RRGGBB|x|y|w|h`` (patch, background, geometry).

The protocol's acknowledgement is the next poll: Argyll counts polls and moves on to measuring
only when one arrives after it set the colour, so the transport polls again only once the
patch is on screen.  The first poll blocks until the first patch.  Values are 8-bit; with
``dispwin -E`` they are video levels (16..235), which the command line says, not the wire.
"""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

from core.remote.patch import FULL_SCREEN, RemoteError, RemotePatch, clip_rect

DEFAULT_PORT = 8080
MAX_RESPONSE = 65536
_HEX = re.compile(r"#([0-9A-Fa-f]{2})([0-9A-Fa-f]{2})([0-9A-Fa-f]{2})")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")


def parse_url(url: str) -> tuple[str, int]:
    """``http://HOST[:PORT][/]`` (or ``HOST[:PORT]``) to ``(host, port)``; ``ValueError``
    naming the option otherwise."""
    text = url.strip() if isinstance(url, str) else ""
    if len(text) > 300 or not text:
        raise ValueError(f"--argyll-web: expected a URL such as http://127.0.0.1:8080, got {url!r:.60}")
    if "://" not in text:
        text = "http://" + text
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise ValueError(f"--argyll-web: cannot read {url!r:.60} as http://HOST:PORT") from None
    if parts.scheme != "http":
        raise ValueError(f"--argyll-web: only http:// is served by dispwin, got {parts.scheme}://")
    if not parts.hostname:
        raise ValueError(f"--argyll-web: {url!r:.60} names no host")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"--argyll-web: give the display's address only, not {parts.path!r:.40}")
    return parts.hostname, port or DEFAULT_PORT


def poll_request(n: int, host: str, port: int) -> bytes:
    """The ``n``-th poll, one request per connection."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return (f"GET /ajax/messages?{int(n)} HTTP/1.1\r\nHost: {host}:{int(port)}\r\n"
            "Accept: text/plain\r\nConnection: close\r\n\r\n").encode("ascii")


def response_body(data: bytes) -> str:
    """The body of a poll's answer: after the headers when there is a status line (which must
    be 200), else the whole answer (ArgyllCMS's bare ``\\r\\n#RRGGBB``)."""
    if len(data) > MAX_RESPONSE:
        raise RemoteError(f"argyll-web: the answer has {len(data)} bytes, over {MAX_RESPONSE}")
    if data.startswith(b"HTTP/"):
        head, sep, body = data.partition(b"\r\n\r\n")
        if not sep:
            head, sep, body = data.partition(b"\n\n")
        status = head.split(b"\r\n", 1)[0].split(b"\n", 1)[0].decode("latin-1")
        fields = status.split(None, 2)
        if len(fields) < 2 or fields[1] != "200":
            raise RemoteError(f"argyll-web: the display answered {status[:60]!r}, not 200 OK")
        data = body
    try:
        return data.decode("ascii").strip()
    except UnicodeDecodeError:
        raise RemoteError("argyll-web: the answer is not ASCII text") from None


def _hex(text: str, what: str) -> tuple[int, int, int]:
    m = _HEX.fullmatch(text.strip())
    if not m:
        raise RemoteError(f"argyll-web: {what}: expected #RRGGBB, got {text[:40]!r}")
    return tuple(int(g, 16) for g in m.groups())  # type: ignore[return-value]


def parse_body(body: str, *, video_levels: bool = False,
               received_s: float | None = None) -> RemotePatch:
    """``#RRGGBB`` (a full-screen colour) or ``#RRGGBB|#RRGGBB|x|y|w|h`` to a patch."""
    fields = body.strip().split("|")
    if len(fields) == 1:
        color = _hex(fields[0], "colour")
        background, rect = color, FULL_SCREEN
    elif len(fields) == 6:
        color = _hex(fields[0], "colour")
        background = _hex(fields[1], "background")
        numbers = []
        for name, f in zip(("x", "y", "w", "h"), fields[2:], strict=True):
            f = f.strip().replace(",", ".")
            if not _NUMBER.fullmatch(f) or len(f) > 32:
                raise RemoteError(f"argyll-web: geometry {name}: cannot read {f[:40]!r} as a number")
            numbers.append(float(f))
        x, y, w, h = numbers   # the four fields read above
        rect = clip_rect(x, y, w, h, "argyll-web: geometry")
    else:
        raise RemoteError(f"argyll-web: expected #RRGGBB, got {body[:40]!r}")
    return RemotePatch(color=color, background=background, bits=8, rect=rect,
                       video_levels=video_levels, source="argyll-web",
                       received_s=time.monotonic() if received_s is None else received_s,
                       raw=body)


def parse_response(data: bytes, *, video_levels: bool = False,
                   received_s: float | None = None) -> RemotePatch:
    """A whole answer (read until the server closed) to a patch; :class:`RemoteError` else."""
    return parse_body(response_body(data), video_levels=video_levels, received_s=received_s)
