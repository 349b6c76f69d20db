"""`testcard gui --frames N` on the offscreen platform: it runs N frames, closes, and names its docks."""

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.commands.gui import run_gui

pytestmark = pytest.mark.qt


def test_frames_mode_prints_the_dock_titles_when_the_window_closes(qtbot, capsys):
    guard = QTimer()   # a window that never closed would hang the suite: stop the loop instead
    guard.setSingleShot(True)
    guard.timeout.connect(QApplication.quit)
    guard.start(120_000)
    try:
        rc = run_gui(pattern="checkerboard", frames=3)
    finally:
        guard.stop()
    assert rc == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("docks:")]
    assert lines == ["docks: Patterns, Parameters, Frame timing, Log, Decode, Measure"]
