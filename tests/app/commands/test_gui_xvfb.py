"""`testcard gui --screen 1 --fullscreen` under a real X server with two screens of one name,
checked with the window system's own tool (xwininfo), not with what Qt says about itself.

Xvfb with two X screens gives Qt two ``QScreen`` objects both named "screen" at (0, 0): only
the index tells them apart, which is the case that used to open on the first.
"""

import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.helpers import ROOT
from tests.helpers.screens import xvfb_server
from tests.helpers.xserver import tree, wait_for

pytestmark = [pytest.mark.qt, pytest.mark.xvfb]

# xwininfo -tree:  0x200018 "testcard output": ("__main__.py" "testcard")  1280x720+0+0  +0+0
WINDOW = re.compile(r'^\s*0x[0-9a-f]+ "(?P<title>[^"]*)": \([^)]*\)\s+(?P<w>\d+)x(?P<h>\d+)[+-]\d+[+-]\d+\s+'
                    r'(?P<x>[+-]\d+)(?P<y>[+-]\d+)', re.M)


def windows(display: str, screen: int) -> list[tuple[str, int, int, int, int]]:
    """(title, x, y, w, h) of every top-level window on one X screen, as the X server has them."""
    out = tree(display, screen)
    return [(m["title"], int(m["x"]), int(m["y"]), int(m["w"]), int(m["h"])) for m in WINDOW.finditer(out)]


def test_screen_1_fullscreen_lands_on_screen_1_and_names_it(tmp_path):
    if shutil.which("xwininfo") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("xwininfo is not installed; CI needs x11-utils for this test")
        pytest.skip("xwininfo is not installed (x11-utils)")
    with xvfb_server("1280x720", "1280x720") as display:
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT),
                   TESTCARD_CONFIG_DIR=str(tmp_path / "config"))
        env.pop("TESTCARD_PRESENTER", None)
        proc = subprocess.Popen([sys.executable, "-m", "app", "gui", "--screen", "1", "--fullscreen",
                                 "--pattern", "bars", "--bit-depth", "8"], cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            def output_on_1():
                found = [w for w in windows(display, 1) if w[0] == "testcard output"]
                return found if found and proc.poll() is None else None

            found = wait_for(output_on_1, 150, "the output window on screen 1")
            assert {w[1:] for w in found} == {(0, 0, 1280, 720)}          # screen 1's whole geometry
            on_0 = windows(display, 0)
            assert not [w for w in on_0 if w[0] == "testcard output"]
            assert [w for w in on_0 if w[0] == "testcard"]                 # the main window stays there
            # the banner: a smaller window centred on screen 1, gone a few seconds later
            def banners():
                return [w for w in windows(display, 1) if w[0] != "testcard output"
                        and 100 < w[3] < 1280 and 40 < w[4] < 720]

            banner = wait_for(banners, 30, "the banner on screen 1")
            _, x, y, w, h = banner[0]
            assert abs((x + w / 2) - 640) <= 1 and abs((y + h / 2) - 360) <= 1
            wait_for(lambda: not banners(), 30, "the banner to go")
            assert proc.poll() is None, proc.stderr.read()
        finally:
            proc.terminate()
            proc.wait(timeout=30)
