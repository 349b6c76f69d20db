"""Kiosk mode under a real X server with two screens of one name: `testcard show --screen 1` and
`testcard serve --screen 1` land fullscreen on screen 1 (as xwininfo sees it), a screenshot of
that screen after a remote patch shows the patch's code values where it asked for them, and
SIGTERM ends each cleanly."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys

import pytest

from core.remote import patch_rect_px, pgenerator, senders
from tests.helpers import ROOT
from tests.helpers.screens import xvfb_server
from tests.helpers.xserver import grab_screen, need_xwininfo, wait_for, windows

pytestmark = [pytest.mark.qt, pytest.mark.xvfb, pytest.mark.slow]

SIZE = "640x360"
W, H = 640, 360


def start(display, tmp_path, *args):
    env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT),
               TESTCARD_CONFIG_DIR=str(tmp_path / "config"))
    env.pop("TESTCARD_PRESENTER", None)
    return subprocess.Popen([sys.executable, "-m", "app", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def output_on(display, proc, screen):
    def found():
        got = [w for w in windows(display, screen) if w[0] == "testcard output"]
        return got if got and proc.poll() is None else None

    return wait_for(found, 150, f"the output window on screen {screen}")


def end_with_sigterm(proc) -> tuple[int, str, str]:
    proc.send_signal(signal.SIGTERM)
    try:
        rc = proc.wait(timeout=30)       # generous: "within a second" is the design, not a test
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out, err = proc.communicate()
    return rc, out, err


def test_show_lands_fullscreen_on_screen_1_and_sigterm_ends_it(tmp_path):
    need_xwininfo()
    with xvfb_server(SIZE, SIZE) as display:
        proc = start(display, tmp_path, "show", "bars", "--screen", "1", "--no-banner")
        try:
            found = output_on(display, proc, 1)
            assert {w[1:] for w in found} == {(0, 0, W, H)}           # screen 1's whole geometry
            # no control window (Qt's 1x1 client-leader window is not one)
            assert not [w for w in windows(display, 0) if w[0].startswith("testcard") and w[3] * w[4] > 1]
        finally:
            rc, out, err = end_with_sigterm(proc)
    assert rc == 0, err
    assert out.strip().splitlines()[-1] == "testcard show: ended (SIGTERM)"


def test_serve_shows_a_remote_patch_on_screen_1_with_its_exact_code_values(tmp_path):
    need_xwininfo()
    with xvfb_server(SIZE, SIZE) as display:
        proc = start(display, tmp_path, "serve", "--pgenerator", "127.0.0.1:0", "--screen", "1",
                     "--bit-depth", "8")
        try:
            port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", proc.stdout.readline())[1])
            found = output_on(display, proc, 1)
            assert {w[1:] for w in found} == {(0, 0, W, H)}
            with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
                s.sendall(senders.hcfr_rectangle(25, W, H, (12, 200, 77), (30, 40, 50), bits=8))
                assert s.recv(16) == b"OK\x02\r"                   # sent once it was on screen
            (text,) = pgenerator.PGeneratorFramer().feed(
                senders.hcfr_rectangle(25, W, H, (12, 200, 77), (30, 40, 50), bits=8))
            rect = pgenerator.respond(text, resolution=(W, H), received_s=0.0).patch.rect
            x, y, pw, ph = patch_rect_px(rect, W, H)
            shot = grab_screen(display, 1)
            assert shot.shape == (H, W, 3)
            assert (shot[y:y + ph, x:x + pw] == (12, 200, 77)).all()       # the patch, every pixel
            outside = shot.copy()
            outside[y:y + ph, x:x + pw] = (30, 40, 50)
            assert (outside == (30, 40, 50)).all()                         # the background around it
        finally:
            rc, out, err = end_with_sigterm(proc)
    assert rc == 0, err
    assert out.strip().splitlines()[-1] == "testcard serve: ended (SIGTERM); 1 patches shown"
