"""What reaches the screen: a BT.2100 surface is requested under pq/hlg, and HDR is claimed only
where it was granted on a platform that signals it (never on X11, Xvfb or offscreen)."""

import subprocess
import sys

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.qt


@pytest.mark.parametrize("transfer, granted, platform, qt, tagged, words", [
    ("sdr", None, "xcb", "6.11.3", False, "SDR signal"),
    ("pq", None, "xcb", "6.11.3", False,
     "PQ code values on an SDR signal: the display will not switch to HDR (this platform has no HDR"),
    ("pq", "pq", "xcb", "6.11.3", False, "PQ code values on an SDR signal"),   # a format echoing the ask
    ("hlg", "hlg", "offscreen", "6.11.3", False, "HLG code values on an SDR signal"),
    ("pq", "pq", "wayland", "6.9.1", False, "(Qt 6.9.1 does not tag Wayland surfaces)"),
    ("pq", None, "wayland", "6.10.0", False, "(the surface was not granted BT.2100 PQ)"),
    ("pq", "pq", "wayland", "6.10.0", True, "PQ signal: the surface is tagged BT.2100 PQ (granted)"),
    ("hlg", "pq", "wayland-egl", "6.11.0", True, "HLG code values on a surface tagged BT.2100 PQ"),
    ("sdr", "hlg", "wayland", "6.11.0", True, "SDR code values on a surface tagged BT.2100 HLG"),
])
def test_signal_text_claims_hdr_only_where_granted(transfer, granted, platform, qt, tagged, words):
    from app.qapp import signal_text

    got_tagged, sentence = signal_text(transfer, granted, platform, qt)
    assert got_tagged is tagged and words in sentence


PROBE = """
from app.qapp import ensure_qapplication, granted_transfer, surface_signal
from PySide6.QtGui import QSurfaceFormat, QWindow
app = ensure_qapplication(transfer="pq")
fmt = QSurfaceFormat.defaultFormat()
w = QWindow()
print(fmt.colorSpace().transferFunction().name, granted_transfer(w), surface_signal("pq", w)[0],
      granted_transfer(None))
"""


def test_the_default_format_asks_for_bt2100_pq_and_offscreen_is_not_claimed_hdr():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["St2084", "pq", "False", "None"]


def test_the_status_bar_says_plainly_what_reaches_the_screen(qtbot):
    from app.window.status_bar import StatusBar

    bar = StatusBar()
    qtbot.addWidget(bar)
    bar.show_signal("pq", None)
    assert bar.st_signal.text() == "PQ code values on an SDR signal"
    assert "the display will not switch to HDR" in bar.texts()["signal"]
    assert "d33" in bar.st_signal.styleSheet()
    bar.show_signal("sdr", None)
    assert bar.st_signal.text() == "SDR signal" and bar.st_signal.styleSheet() == ""
