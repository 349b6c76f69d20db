"""Looking at a real X server from outside the process under test: its windows (xwininfo) and
its pixels (a screenshot of one X screen's root window), for the kiosk tests under Xvfb.

Nothing here imports Qt at import time.  The screenshot runs a separate Python on the xcb
platform and reads the root window with ``QScreen.grabWindow(0)`` (the X server's own
pixels, ``XGetImage`` of the root, as ``import -window root`` reads them), so it needs nothing
beyond what testcard's tests already install.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

# xwininfo -tree:  0x200018 "testcard output": ("__main__.py" "testcard")  1280x720+0+0  +0+0
WINDOW = re.compile(r'^\s*0x[0-9a-f]+ "(?P<title>[^"]*)": \([^)]*\)\s+(?P<w>\d+)x(?P<h>\d+)[+-]\d+[+-]\d+\s+'
                    r'(?P<x>[+-]\d+)(?P<y>[+-]\d+)', re.M)

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


def windows(display: str, screen: int) -> list[tuple[str, int, int, int, int]]:
    """(title, x, y, w, h) of every top-level window on one X screen, as the X server has them."""
    out = subprocess.run(["xwininfo", "-display", f"{display}.{screen}", "-root", "-tree"],
                         capture_output=True, text=True, timeout=30, check=True).stdout
    return [(m["title"], int(m["x"]), int(m["y"]), int(m["w"]), int(m["h"])) for m in WINDOW.finditer(out)]


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
