"""`testcard serve` under a real X server, acknowledgements checked against the X server's own
pixels, as a hostile probe checked them: on every OK, another X client reads the screen, and the
patch must be there already (raster presenter and GL presenter alike); with the output window
unmapped, no patch is ever acknowledged."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import signal
import socket
import subprocess
import sys

import pytest

from core.remote import senders
from tests.helpers import ROOT
from tests.helpers.screens import xvfb_server
from tests.helpers.xserver import need_xwininfo

pytestmark = [pytest.mark.qt, pytest.mark.xvfb, pytest.mark.slow]

LISTEN = re.compile(r"^testcard serve: PGenerator server \(HCFR\) listening on 127\.0\.0\.1:(?P<port>\d+)$")
W, H = 320, 180
OK, ERR = b"OK\x02\r", b"ERR\x02\r"
COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (0, 255, 255), (255, 0, 255),
           (128, 64, 32), (32, 64, 128)]


class XScreen:
    """Another X client: reads pixels of the root window (``XGetImage``), unmaps windows."""

    def __init__(self, display: str):
        x = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
        x.XOpenDisplay.restype = ctypes.c_void_p
        x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        x.XDefaultRootWindow.restype = ctypes.c_ulong
        x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        x.XGetImage.restype = ctypes.c_void_p
        x.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int,
                                ctypes.c_uint, ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]
        x.XGetPixel.restype = ctypes.c_ulong
        x.XGetPixel.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        x.XDestroyImage.argtypes = [ctypes.c_void_p]
        x.XUnmapWindow.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
        x.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
        x.XCloseDisplay.argtypes = [ctypes.c_void_p]
        self.x = x
        self.dpy = x.XOpenDisplay(display.encode())
        assert self.dpy, f"cannot open {display}"
        self.root = x.XDefaultRootWindow(self.dpy)

    def pixel(self, px: int, py: int) -> tuple[int, int, int]:
        img = self.x.XGetImage(self.dpy, self.root, px, py, 1, 1, 0xFFFFFFFF, 2)   # ZPixmap
        value = self.x.XGetPixel(img, 0, 0)
        self.x.XDestroyImage(img)
        return (value >> 16) & 255, (value >> 8) & 255, value & 255

    def unmap(self, window: int) -> None:
        self.x.XUnmapWindow(self.dpy, window)
        self.x.XSync(self.dpy, 0)

    def close(self) -> None:
        self.x.XCloseDisplay(self.dpy)


def window_id(display: str, title: str) -> int:
    out = subprocess.run(["xwininfo", "-display", display, "-name", title], capture_output=True,
                         text=True, timeout=30, check=True).stdout
    return int(re.search(r"Window id: (0x[0-9a-f]+)", out).group(1), 16)


def start_serve(display: str, tmp_path, presenter: str | None, *extra: str):
    env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT),
               TESTCARD_CONFIG_DIR=str(tmp_path / "config"))
    env.pop("TESTCARD_PRESENTER", None)
    if presenter:
        env["TESTCARD_PRESENTER"] = presenter
    proc = subprocess.Popen([sys.executable, "-m", "app", "serve", "--pgenerator", "127.0.0.1:0",
                             "--bit-depth", "8", *extra], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    while True:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        m = LISTEN.match(line.strip())
        if m:
            port = int(m["port"])
        if line.startswith("testcard serve: output"):
            return proc, port


def stop_serve(proc) -> tuple[int, str]:
    try:
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return rc, proc.communicate()[1]


def ask(sock, wire: bytes) -> bytes:
    sock.sendall(wire)
    data = b""
    while not data.endswith(b"\x02\r"):
        chunk = sock.recv(64)
        if not chunk:
            break
        data += chunk
    return data


@pytest.mark.parametrize("presenter", ["raster", None])
def test_every_ok_finds_its_patch_in_the_x_servers_pixels(tmp_path, presenter):
    need_xwininfo()
    with xvfb_server(f"{W}x{H}") as display:
        proc, port = start_serve(display, tmp_path, presenter)
        screen = XScreen(display)
        early = []
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
                size = ask(s, senders.pgenerator_request("CMD:GET_RESOLUTION"))
                assert size == f"OK:{W}x{H}\x02\r".encode()
                for i in range(48):
                    colour = COLOURS[i % len(COLOURS)]
                    assert ask(s, senders.hcfr_rectangle(100, W, H, colour)) == OK
                    seen = screen.pixel(W // 2, H // 2)   # read only after the OK arrived
                    if seen != colour:
                        early.append((i, colour, seen))
        finally:
            screen.close()
            rc, err = stop_serve(proc)
    assert rc == 0, err
    assert not early, f"OK before the X server showed the patch: {early[:5]}"


def test_an_unmapped_output_never_acknowledges(tmp_path):
    need_xwininfo()
    with xvfb_server(f"{W}x{H}") as display:
        proc, port = start_serve(display, tmp_path, "raster", "--ack-timeout", "1")
        screen = XScreen(display)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
                assert ask(s, senders.hcfr_rectangle(100, W, H, (0, 255, 0))) == OK
                screen.unmap(window_id(display, "testcard output"))
                replies = [ask(s, senders.hcfr_rectangle(100, W, H, (255, 0, 255))) for _ in range(2)]
                shown = screen.pixel(W // 2, H // 2)
        finally:
            screen.close()
            rc, err = stop_serve(proc)
    assert replies == [ERR, ERR]                       # after the timeout: never OK
    assert shown != (255, 0, 255)
    assert rc == 0, err
