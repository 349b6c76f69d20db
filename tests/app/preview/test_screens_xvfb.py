"""Two X screens of one Xvfb: Qt calls both "screen" at (0, 0); testcard names them apart by
index, X screen and geometry, and the index counts from the display connection (``:N.1``
lists X screen 1 first), as ``--screen``'s help says."""

import os
import subprocess
import sys

import pytest

from tests.helpers.screens import xvfb_server

pytestmark = [pytest.mark.xvfb, pytest.mark.qt]

LIST = """
from app.qapp import ensure_qapplication
ensure_qapplication()
from app.preview import screen_records
for r in screen_records():
    print(r.title)
"""


def titles(display: str) -> list[str]:
    env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb")
    got = subprocess.run([sys.executable, "-c", LIST], env=env, capture_output=True, text=True, timeout=120)
    assert got.returncode == 0, got.stderr
    return got.stdout.splitlines()


def test_two_x_screens_have_distinct_names_with_their_x_screen_and_geometry():
    with xvfb_server("1920x1080", "1280x720") as display:
        assert titles(display) == [f"0: screen (X screen {display}.0, 1920x1080 at 0,0)",
                                   f"1: screen (X screen {display}.1, 1280x720 at 0,0)"]
        # connected to X screen 1, Qt lists it first: index 0 is then X screen 1
        assert titles(f"{display}.1") == [f"0: screen (X screen {display}.1, 1280x720 at 0,0)",
                                          f"1: screen (X screen {display}.0, 1920x1080 at 0,0)"]


def test_equal_x_screens_are_told_apart_by_x_screen():
    with xvfb_server("640x360", "640x360") as display:
        names = titles(display)
        assert len(set(names)) == 2 and f"X screen {display}.1" in names[1]
