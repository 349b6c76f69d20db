"""The main window on a fresh box under a real X server, at 1280x720 and 1920x1080: shown
before torch or OpenCV is imported; the Measure dock brought to the front has its Start button
and its chart in view without scrolling, and says before Start that a live race takes over the
output screen; after the output went fullscreen and back the view toggles are all still in the
menu bar's corner (tests/helpers/window_at_start.py looks from inside the window)."""

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import ROOT
from tests.helpers.screens import xvfb_server

pytestmark = [pytest.mark.qt, pytest.mark.xvfb]


def _inside(rect, viewport, min_height=None) -> bool:
    x, y, w, h = rect
    vw, vh = viewport
    shown = min(y + h, vh) - max(y, 0)
    return x >= 0 and x + w <= vw and y >= 0 and shown >= (h if min_height is None else min_height)


@pytest.mark.parametrize("size", ["1280x720", "1920x1080"])
def test_a_fresh_window_at_the_default_size(tmp_path, size):
    with xvfb_server(size) as display:
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT),
                   TESTCARD_CONFIG_DIR=str(tmp_path / "config"), TESTCARD_CACHE_DIR=str(tmp_path / "cache"))
        env.pop("TESTCARD_PRESENTER", None)
        proc = subprocess.run([sys.executable, "-m", "tests.helpers.window_at_start"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not out["torch_at_show"] and not out["cv2_at_show"]
    m = out["measure"]
    assert _inside(m["start"], m["viewport"]), m           # Start, whole, without scrolling
    assert _inside(m["chart"], m["viewport"], min_height=150), m
    assert m["form"] == "live" and "takes over the output screen" in m["live_note"]
    assert out["toggles"] == {"1:1": True, "Pause": True, "Fullscreen": True}
    assert not out["overflow_arrow"]
    assert "root_visual" not in proc.stdout + proc.stderr
