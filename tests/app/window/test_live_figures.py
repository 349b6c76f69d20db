"""The window's live figures: the pacing said once in the log, with why."""

import pytest

pytestmark = pytest.mark.qt


def test_a_timer_paced_preview_is_logged_once_with_its_reason(qtbot, main_window):
    said = [line for line in main_window.log_dock.lines if "timer-paced at" in line]
    assert said == ["timer-paced at 60.00 Hz: the raster presenter has no vsync to wait for"]
    assert main_window.status_texts()["pacing"].startswith("timer-paced")
