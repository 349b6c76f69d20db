"""Screens for the output tests: fake QScreens, offscreen screen layouts, an Xvfb with several screens.

Nothing here imports Qt at import time, so the module loads in the headless run too.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess

import pytest


class FakeScreen:
    """What testcard reads of a ``QScreen`` (not one: a window cannot be put on it)."""

    def __init__(self, name, x, y, width, height, dpr=1.0, refresh=60.0, manufacturer="", model="",
                 serial=""):
        self._name, self._rect = name, (x, y, width, height)
        self._dpr, self._refresh = dpr, refresh
        self._maker = (manufacturer, model, serial)

    def name(self):
        return self._name

    def geometry(self):
        from PySide6.QtCore import QRect

        return QRect(*self._rect)

    def devicePixelRatio(self):  # noqa: N802 - QScreen's name
        return self._dpr

    def refreshRate(self):  # noqa: N802 - QScreen's name
        return self._refresh

    def manufacturer(self):
        return self._maker[0]

    def model(self):
        return self._maker[1]

    def serialNumber(self):  # noqa: N802 - QScreen's name
        return self._maker[2]


def offscreen_platform(tmp_path, screens: list[dict]) -> str:
    """``QT_QPA_PLATFORM`` for Qt's offscreen platform with these screens (name, x, y, width,
    height, dpr).  Screens of one name come out identical: the offscreen platform copies the
    first one's geometry, which is the case under test (nothing but the index tells them apart)."""
    cfg = tmp_path / "screens.json"
    cfg.write_text(json.dumps({"screens": [dict({"logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}, **s)
                                           for s in screens]}))
    return f"offscreen:configfile={cfg}"


@contextlib.contextmanager
def xvfb_server(*sizes: str):
    """An Xvfb with one X screen per size (``"1280x720"``): yields ``":N"``.

    Qt's xcb platform lists each X screen as a ``QScreen`` named "screen", all at (0, 0):
    same name, and the same geometry when the sizes are equal.  Xvfb picks a free display
    itself (``-displayfd``) and writes its number once it accepts connections.  Skips where
    Xvfb is missing, except under CI (CI=true), where that fails.
    """
    exe = shutil.which("Xvfb")
    if exe is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Xvfb is not installed; CI must run the Xvfb tests (install xvfb)")
        pytest.skip("Xvfb is not installed")
    # -noreset: the server never regenerates when its last client leaves, so a test's next
    # client cannot arrive mid-reset and find no display
    args = [exe, "-displayfd", None, "-nolisten", "tcp", "-noreset"]
    for i, size in enumerate(sizes):
        args += ["-screen", str(i), f"{size}x24"]
    r, w = os.pipe()
    args[2] = str(w)
    proc = subprocess.Popen(args, pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(w)
    try:
        with os.fdopen(r) as fh:
            number = fh.readline().strip()
        if not number:
            proc.kill()
            pytest.fail(f"Xvfb did not start: {proc.communicate(timeout=10)[1].decode(errors='replace')}")
        yield f":{number}"
        if proc.poll() is not None:     # it died under the tests: say so, with what it said
            pytest.fail(f"Xvfb :{number} exited with status {proc.returncode} during the tests: "
                        f"{proc.communicate(timeout=10)[1].decode(errors='replace')[-2000:]}")
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(timeout=10)
