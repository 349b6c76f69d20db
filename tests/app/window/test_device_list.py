"""The render devices are listed after the first frame, off the GUI thread: the window starts
with the cpu, then the list torch (where a GPU driver is present) completes reaches the frame
settings and the Measure panel."""

import pytest

from app.window import main_window as main_window_mod

pytestmark = pytest.mark.qt


def test_the_window_starts_on_the_cpu_and_completes_the_list_after_a_frame(qtbot, small_settings,
                                                                           monkeypatch):
    monkeypatch.setattr(main_window_mod, "available_devices", lambda: ["cpu", "cuda:0"])
    from app.panels import MeasurePanel
    from app.window import MainWindow

    win = MainWindow(settings=small_settings, persist=False)
    qtbot.addWidget(win)
    assert win.devices == ["cpu"]
    with qtbot.waitSignal(win.devices_listed, timeout=20000) as listed:
        win.show()
    assert listed.args == [["cpu", "cuda:0"]] and win.devices == ["cpu", "cuda:0"]
    combo = win.frame_settings.device
    assert [combo.itemText(i) for i in range(combo.count())] == ["cpu", "cuda:0"]
    assert win.loop.device == "cpu"          # the stored device (cpu) stays chosen
    panel = next(p for p in win._panels if isinstance(p, MeasurePanel))
    assert [panel.device_combo.itemText(i) for i in range(panel.device_combo.count())] == ["cpu", "cuda:0"]
    win.close()


def test_a_stored_device_this_box_lacks_is_said_once_listed(qtbot, small_settings, monkeypatch):
    monkeypatch.setattr(main_window_mod, "available_devices", lambda: ["cpu"])
    from app.window import MainWindow

    small_settings.device = "cuda:3"
    win = MainWindow(settings=small_settings, persist=False)
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.devices_listed, timeout=20000):
        win.show()
    assert any("device cuda:3 is not on this box" in line for line in win.log_dock.lines)
    assert win.loop.device == "cpu"
    win.close()
