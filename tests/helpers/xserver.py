"""Looking at a real X server from outside the process under test: its windows (xwininfo) and
its pixels (a screenshot of one X screen's root window), for the kiosk tests under Xvfb; and
acting on its windows as a user and a window manager would: a key pressed in one
(:func:`press_key`), the close button of one (:func:`close_window`).

Nothing here imports Qt at import time.  The screenshot runs a separate Python on the xcb
platform and reads the root window with ``QScreen.grabWindow(0)`` (the X server's own
pixels, ``XGetImage`` of the root, as ``import -window root`` reads them), so it needs nothing
beyond what testcard's tests already install.  Keys and closes are X events sent with Xlib
through ctypes (libX11, which Mesa's GLX already needs): no xdotool, no window manager.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

# xwininfo -tree:  0x200018 "testcard output": ("__main__.py" "testcard")  1280x720+0+0  +0+0
WINDOW = re.compile(r'^(?P<indent> *)(?P<id>0x[0-9a-f]+) "(?P<title>[^"]*)": \([^)]*\)\s+'
                    r'(?P<w>\d+)x(?P<h>\d+)[+-]\d+[+-]\d+\s+(?P<x>[+-]\d+)(?P<y>[+-]\d+)', re.M)

_GRAB = """
import sys
import numpy as np
from PySide6.QtGui import QGuiApplication, QImage
app = QGuiApplication(sys.argv[:1])
img = app.screens()[int(sys.argv[1])].grabWindow(0).toImage().convertToFormat(QImage.Format.Format_RGB888)
w, h = img.width(), img.height()
rows = np.frombuffer(img.constBits(), np.uint8, count=img.sizeInBytes()).reshape(h, img.bytesPerLine())
sys.stdout.buffer.write(f"{w} {h}\\n".encode() + rows[:, :w * 3].tobytes())
"""


def need_xwininfo() -> None:
    if shutil.which("xwininfo") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("xwininfo is not installed; CI needs x11-utils for this test")
        pytest.skip("xwininfo is not installed (x11-utils)")


# xwininfo walks the tree one request per window: a window destroyed between the listing and
# its own request (a starting Qt app makes and drops windows; a leaving one's go) fails the walk
GONE_MIDWALK = re.compile(r"X Error: (3: Bad Window|9: Bad Drawable)")


def tree(display: str, screen: int, *, tries: int = 20) -> str:
    """``xwininfo -root -tree`` of one X screen, walked again (up to ``tries`` times) when a
    window went while it was being walked; any other failure fails the test with its message."""
    args = ["xwininfo", "-display", f"{display}.{screen}", "-root", "-tree"]
    for _ in range(tries):
        got = subprocess.run(args, capture_output=True, text=True, timeout=30)
        if got.returncode == 0:
            return got.stdout
        if not GONE_MIDWALK.search(got.stderr):
            break
        time.sleep(0.05)
    pytest.fail(f"{' '.join(args)} exited {got.returncode}: {got.stderr.strip()}")


def _top_level(display: str, screen: int) -> list[re.Match]:
    """The root window's children in ``xwininfo -tree`` (the tree indents their own children
    further: a GL preview inside the main window is one, titled as the app is)."""
    found = list(WINDOW.finditer(tree(display, screen)))
    indent = min((len(m["indent"]) for m in found), default=0)
    return [m for m in found if len(m["indent"]) == indent]


def windows(display: str, screen: int) -> list[tuple[str, int, int, int, int]]:
    """(title, x, y, w, h) of every top-level window on one X screen, as the X server has them."""
    return [(m["title"], int(m["x"]), int(m["y"]), int(m["w"]), int(m["h"]))
            for m in _top_level(display, screen)]


def window_ids(display: str, screen: int, title: str) -> list[int]:
    """The X ids of the top-level windows titled ``title`` on one X screen that are on screen
    (mapped: the tree lists the unmapped ones too)."""
    return [wid for wid in (int(m["id"], 16) for m in _top_level(display, screen) if m["title"] == title)
            if _viewable(display, screen, wid)]


def _viewable(display: str, screen: int, window: int) -> bool:
    got = subprocess.run(["xwininfo", "-display", f"{display}.{screen}", "-id", hex(window)],
                         capture_output=True, text=True, timeout=30)
    return got.returncode == 0 and "Map State: IsViewable" in got.stdout   # gone meanwhile: not


def wait_for(condition, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)   # polling another process's windows; nothing here to wait on a signal of
    pytest.fail(f"timed out after {timeout_s:.0f} s waiting for {what}")


def grab_screen(display: str, screen: int, env: dict | None = None) -> np.ndarray:
    """The pixels of X screen ``screen`` of ``display`` as ``(H, W, 3)`` uint8."""
    env = dict(env or os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb")
    out = subprocess.run([sys.executable, "-c", _GRAB, str(screen)], env=env, capture_output=True,
                         timeout=60, check=True).stdout
    head, _, body = out.partition(b"\n")
    w, h = map(int, head.split())
    return np.frombuffer(body, np.uint8).reshape(h, w, 3)


# ---------------------------------------------------------------- X events, as a user and a WM send them
KEY_PRESS, KEY_RELEASE, CLIENT_MESSAGE = 2, 3, 33
KEY_PRESS_MASK, KEY_RELEASE_MASK = 1, 2
XK_ESCAPE = 0xFF1B


class _XClientMessage(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", ctypes.c_ulong),
                ("message_type", ctypes.c_ulong), ("format", ctypes.c_int), ("data", ctypes.c_long * 5)]


class _XKey(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", ctypes.c_ulong), ("root", ctypes.c_ulong),
                ("subwindow", ctypes.c_ulong), ("time", ctypes.c_ulong), ("x", ctypes.c_int),
                ("y", ctypes.c_int), ("x_root", ctypes.c_int), ("y_root", ctypes.c_int),
                ("state", ctypes.c_uint), ("keycode", ctypes.c_uint), ("same_screen", ctypes.c_int)]


class _XEvent(ctypes.Union):
    _fields_ = [("client", _XClientMessage), ("key", _XKey), ("pad", ctypes.c_long * 24)]


def _xlib():
    name = ctypes.util.find_library("X11") or "libX11.so.6"
    try:
        x = ctypes.CDLL(name)
    except OSError:
        pytest.fail("libX11 is not installed; the Xvfb tests need it (Mesa's GLX does too)")
    x.XOpenDisplay.restype, x.XOpenDisplay.argtypes = ctypes.c_void_p, [ctypes.c_char_p]
    x.XInternAtom.restype = ctypes.c_ulong
    x.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long,
                             ctypes.POINTER(_XEvent)]
    x.XKeysymToKeycode.restype = ctypes.c_ubyte
    x.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
    x.XRootWindow.restype, x.XRootWindow.argtypes = ctypes.c_ulong, [ctypes.c_void_p, ctypes.c_int]
    x.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
    x.XCloseDisplay.argtypes = [ctypes.c_void_p]
    return x


def _send(display: str, screen: int, build) -> None:
    x = _xlib()
    dpy = x.XOpenDisplay(f"{display}.{screen}".encode())
    if not dpy:
        pytest.fail(f"cannot open X display {display}.{screen}")
    try:
        for window, mask, event in build(x, dpy):
            if not x.XSendEvent(dpy, window, 0, mask, ctypes.byref(event)):
                pytest.fail(f"XSendEvent to window {window:#x} failed")
        x.XSync(dpy, 0)
    finally:
        x.XCloseDisplay(dpy)


def close_window(display: str, screen: int, window: int) -> None:
    """Ask ``window`` to close as a window manager's close button does: a ``WM_PROTOCOLS``
    client message carrying ``WM_DELETE_WINDOW``."""
    def build(x, dpy):
        ev = _XEvent()
        ev.client.type, ev.client.window, ev.client.format = CLIENT_MESSAGE, window, 32
        ev.client.message_type = x.XInternAtom(dpy, b"WM_PROTOCOLS", 0)
        ev.client.data[0] = x.XInternAtom(dpy, b"WM_DELETE_WINDOW", 0)
        yield window, 0, ev        # no mask: to the client that made the window

    _send(display, screen, build)


def press_key(display: str, screen: int, window: int, keysym: int = XK_ESCAPE) -> None:
    """Press and release a key (``keysym``, default Esc) in ``window``."""
    def build(x, dpy):
        for kind, mask in ((KEY_PRESS, KEY_PRESS_MASK), (KEY_RELEASE, KEY_RELEASE_MASK)):
            ev = _XEvent()
            ev.key.type, ev.key.window, ev.key.root = kind, window, x.XRootWindow(dpy, screen)
            ev.key.keycode, ev.key.same_screen = x.XKeysymToKeycode(dpy, keysym), 1
            yield window, mask, ev

    _send(display, screen, build)
