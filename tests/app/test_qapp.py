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
fmt = QSurfaceFormat.defaultFormat()
print(again is app, fmt.swapInterval(), fmt.redBufferSize(), app.applicationName(),
      app.desktopFileName(), app.windowIcon().isNull())
"""


def test_a_new_application_gets_the_surface_format_name_and_icon():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "1", "10", "testcard", "io.github.testcard.Testcard", "False"]


def test_an_existing_application_is_returned_and_named(qapp):
    from app.qapp import ensure_qapplication

    assert ensure_qapplication() is qapp
    assert qapp.applicationName() == "testcard" and not qapp.windowIcon().isNull()
