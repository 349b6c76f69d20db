"""A frame whose depth is not the surface's, in the main window on the offscreen platform (raster
presenter, an 8-bit surface): the preview shows the one rule's codes, the codes ``testcard
render`` gives at the surface's depth, and the status bar names the rule."""

import numpy as np
import pytest
from PySide6.QtGui import QImage

from core.patterns import make_spec, render

pytestmark = pytest.mark.qt


def shown_frame(win) -> np.ndarray:
    img = win.preview.grab_image().convertToFormat(QImage.Format.Format_RGBX8888)
    h, w = img.height(), img.width()
    buf = np.frombuffer(img.constBits(), np.uint8, count=img.sizeInBytes()).reshape(h, img.bytesPerLine())
    rgb = buf[:, :w * 4].reshape(h, w, 4)[..., :3]
    s = win.spec
    y, x = (h - s.height) // 2, (w - s.width) // 2
    return rgb[y:y + s.height, x:x + s.width].copy()


@pytest.fixture
def window(qtbot):
    from app.settings import Settings
    from app.window import MainWindow

    wins = []

    def open_(spec):
        win = MainWindow(spec=spec, settings=Settings(), persist=False)
        qtbot.addWidget(win)
        win.resize(900, 600)
        win.set_one_to_one(True)
        win.show()
        qtbot.waitExposed(win)
        target = win.loop.presented_count + 2
        qtbot.waitUntil(lambda: win.loop.presented_count >= target, timeout=5000)
        wins.append(win)
        return win

    yield open_
    for win in wins:
        win.close()


def test_ten_bit_bars_on_an_eight_bit_surface_show_the_rules_codes(window):
    spec = make_spec("bars", {"level": 75.0}, width=64, height=36, bit_depth=10)
    assert int(render(spec, 0)[0, 0, 0]) == 767
    win = window(spec)
    assert win.preview.surface_bits == 8 and win.loop.fmt == "rgb8"
    shown = shown_frame(win)
    assert int(shown[0, 0, 0]) == 191            # round(767 * 255 / 1023); by shift it was 192
    # the same codes `testcard render --bit-depth 8` gives for the same bars
    eight = make_spec("bars", {"level": 75.0}, width=64, height=36, bit_depth=8)
    np.testing.assert_array_equal(shown, render(eight, 0).astype(np.uint8))
    assert win.status_texts()["notice"] == \
        "10-bit frame on an 8-bit surface: codes scaled by round(v*255/1023)"


@pytest.mark.parametrize("bits, notice", [
    (4, "4-bit frame on an 8-bit surface: codes scaled by round(v*255/15)"),
    (1, "1-bit frame on an 8-bit surface: codes scaled by round(v*255/1)"),
])
def test_white_below_eight_bits_stays_white_and_the_rule_is_named(window, bits, notice):
    spec = make_spec("solid", {"color": "white"}, width=32, height=18, bit_depth=bits)
    win = window(spec)
    assert np.all(shown_frame(win) == 255)        # by shift it was 240 (4 bits) and 128 (1 bit)
    assert win.status_texts()["notice"] == notice


def test_no_rule_is_named_when_the_depths_are_the_same(window):
    win = window(make_spec("bars", {}, width=64, height=36, bit_depth=8))
    assert win.status_texts()["notice"] == ""
    assert int(shown_frame(win)[0, 0, 0]) == 191


def test_the_notice_is_shown_whole_where_there_is_room_and_elided_where_there_is_not(window, qtbot):
    from PySide6.QtWidgets import QLabel

    win = window(make_spec("bars", {}, width=64, height=36, bit_depth=10))
    label = win.status_bar.st_notice
    whole = label.text()
    win.resize(1800, 600)
    qtbot.waitUntil(lambda: label.width() >= label.sizeHint().width(), timeout=5000)
    assert label.isVisible() and QLabel.text(label) == whole         # shown, not elided
    assert label.minimumSizeHint().width() <= label.MIN_WIDTH < label.sizeHint().width()
    win.resize(900, 600)
    qtbot.waitUntil(lambda: label.width() < label.sizeHint().width(), timeout=5000)
    shown = QLabel.text(label)
    assert shown.endswith("\u2026") and whole.startswith(shown[:-1])   # elided, never widening
    assert win.width() == 900 and label.text() == whole and label.toolTip() == whole
