"""The custom size spin boxes, greyed while a listed size is in force, show that size (the
output screen's native one by default), never a stale 1920x1080; "custom" starts from it."""

import pytest

from app.window.param_editor import FrameSettings

pytestmark = pytest.mark.qt


def _spins(fs):
    return fs.custom_w.value(), fs.custom_h.value(), fs.custom_box.isEnabled()


def test_greyed_spins_show_the_size_in_force(qtbot):
    fs = FrameSettings()
    qtbot.addWidget(fs)
    fs.set_native((1280, 720))
    assert fs.size.currentData() is None and _spins(fs) == (1280, 720, False)
    with qtbot.assertNotEmitted(fs.changed):
        fs.set_native((2560, 1440))            # another output screen: its size, no rebuild asked
    assert _spins(fs) == (2560, 1440, False)
    fs.size.setCurrentIndex(fs.size.findText("3840x2160"))
    assert _spins(fs) == (3840, 2160, False) and fs.frame_size() == (3840, 2160)
    fs.size.setCurrentIndex(fs.size.findData("custom"))      # custom starts from what was shown
    assert _spins(fs) == (3840, 2160, True)
    fs.custom_w.setValue(800)
    fs.custom_h.setValue(600)
    assert fs.frame_size() == (800, 600) and fs.size_setting() == [800, 600]


def test_a_stored_custom_size_is_shown_and_a_stored_listed_one_too(qtbot):
    fs = FrameSettings()
    qtbot.addWidget(fs)
    fs.set_size_setting([1000, 500])
    assert _spins(fs) == (1000, 500, True)
    fs.set_size_setting([1280, 720])
    assert _spins(fs) == (1280, 720, False) and fs.size.currentText() == "1280x720"
    fs.set_native((1920, 1200))
    fs.set_size_setting(None)
    assert _spins(fs) == (1920, 1200, False)
