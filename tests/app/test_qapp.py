"""The one QApplication: created once with the surface format, named, with its icon."""

import subprocess
import sys

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.qt

PROBE = """
from app.qapp import ensure_qapplication
from PySide6.QtGui import QSurfaceFormat
app = ensure_qapplication()
again = ensure_qapplication()
import os
fmt = QSurfaceFormat.defaultFormat()
print(again is app, fmt.swapInterval(), fmt.redBufferSize(), app.applicationName(),
      app.desktopFileName(), app.windowIcon().isNull(), os.environ.get("QT_QPA_UPDATE_IDLE_TIME"))
"""


def probe(**env):
    import os

    environ = {k: v for k, v in os.environ.items() if k != "QT_QPA_UPDATE_IDLE_TIME"}
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT,
                         timeout=120, env={**environ, **env})
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_a_new_application_gets_the_surface_format_name_and_icon():
    # and presents without Qt's 5 ms idle wait before each update request
    assert probe() == ["True", "1", "10", "testcard", "io.github.testcard.Testcard", "False", "0"]


def test_a_users_own_update_idle_time_is_kept():
    assert probe(QT_QPA_UPDATE_IDLE_TIME="7")[-1] == "7"


def test_an_existing_application_is_returned_and_named(qapp):
    from app.qapp import ensure_qapplication

    assert ensure_qapplication() is qapp
    assert qapp.applicationName() == "testcard" and not qapp.windowIcon().isNull()
