"""Whether the display Qt is about to open answers, asked before the QApplication exists.

Qt's xcb and wayland platform plugins abort the interpreter (SIGABRT, a core dump and a
multi-line message) when their display cannot be opened: a ``DISPLAY`` naming an X server
that has gone, a Wayland socket left behind.  :func:`display_refusal` asks first, the way
the plugin will look: the platform from ``-platform`` or ``QT_QPA_PLATFORM`` (a
``;``-separated list is tried in order, as Qt does), else Qt's default (wayland then xcb
in a Wayland session, xcb otherwise).  xcb: the X server of ``-display`` or ``DISPLAY`` is
sent a connection setup (:func:`core.capture.xdisplay.display_answers`); wayland: the
compositor's socket (``WAYLAND_DISPLAY`` under ``XDG_RUNTIME_DIR``) is connected to.
Other platforms (offscreen, minimal, eglfs, vnc ...) are not asked.  Never starts Qt, and
imports nothing heavy until asked.
"""

from __future__ import annotations

import os
import socket
import sys

TIMEOUT_S = 2.0          # a display over TCP may be slow to answer; one that never does would hang Qt too
WAY_ON = "start one, or set QT_QPA_PLATFORM=offscreen"


def _platforms(env, argv) -> list[str]:
    args = list(argv or [])
    if "-platform" in args[:-1]:
        text = args[args.index("-platform") + 1]
    else:
        text = env.get("QT_QPA_PLATFORM", "")
    names = [p.split(":", 1)[0].strip().lower() for p in text.split(";") if p.strip()]
    if names:
        return names
    if env.get("XDG_SESSION_TYPE") == "wayland" and env.get("WAYLAND_DISPLAY"):
        return ["wayland", "xcb"]
    return ["xcb"]


def _x_refusal(env, argv) -> str | None:
    from core.capture import display_answers

    args = list(argv or [])
    display = args[args.index("-display") + 1] if "-display" in args[:-1] else env.get("DISPLAY", "")
    display = display.strip()
    if not display:
        return f"cannot open an X display: DISPLAY is not set ({WAY_ON})"
    why = display_answers(display, timeout=TIMEOUT_S)
    if why is None:
        return None
    if why.startswith("no server answers") or why == "no X server socket":
        why = "no X server answers"
    elif why == "it does not answer":
        why = f"its X server does not answer within {TIMEOUT_S:g} s"
    return f"cannot open display {display!r}: {why} ({WAY_ON})"


def _wayland_refusal(env) -> str | None:
    name = env.get("WAYLAND_DISPLAY", "").strip() or "wayland-0"
    runtime = env.get("XDG_RUNTIME_DIR", "").strip()
    if not os.path.isabs(name):
        if not runtime:
            return f"cannot open Wayland display {name!r}: XDG_RUNTIME_DIR is not set ({WAY_ON})"
        name = os.path.join(runtime, name)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(TIMEOUT_S)
            s.connect(name)
    except OSError as exc:
        return (f"cannot open Wayland display {name!r}: no compositor answers "
                f"({exc.strerror or type(exc).__name__}; {WAY_ON})")
    return None


def display_refusal(environ=None, argv=None, platform: str | None = None) -> str | None:
    """None when the display Qt will open answers (or Qt opens none: offscreen, Windows,
    macOS); else one sentence: ``cannot open display ':99': no X server answers (start one,
    or set QT_QPA_PLATFORM=offscreen)``.  Of a ``;`` list the first refusal is said when no
    platform answers."""
    env = os.environ if environ is None else environ
    if (sys.platform if platform is None else platform).startswith(("win", "darwin", "cygwin")):
        return None
    first = None
    for name in _platforms(env, argv):
        if name == "xcb":
            why = _x_refusal(env, argv)
        elif name.startswith("wayland"):
            why = _wayland_refusal(env)
        else:
            return None
        if why is None:
            return None
        first = first or why
    return first
