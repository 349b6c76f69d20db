"""The output window on a chosen screen: two offscreen screens, and a screen that goes away."""

import json
import os
import subprocess
import sys

import pytest

from app.preview import ScreenRecord
from app.preview import output as output_mod
from tests.helpers import ROOT

pytestmark = pytest.mark.qt


TWO_SCREENS = {"screens": [
    {"name": "OffA", "x": 0, "y": 0, "width": 800, "height": 600, "logicalDpi": 96, "logicalBaseDpi": 96,
     "dpr": 1},
    {"name": "OffB", "x": 800, "y": 0, "width": 1920, "height": 1080, "logicalDpi": 96,
     "logicalBaseDpi": 96, "dpr": 2},
]}

PROBE = """
import json
from app.qt_compat import guard_singleton_refcounts
guard_singleton_refcounts()
from PySide6.QtWidgets import QApplication
app = QApplication([])
from app.window import MainWindow
from app.settings import Settings
win = MainWindow(settings=Settings(pattern="bars", bit_depth=8, size=[64, 36]), persist=False)
win.show()
labels = [a.text() for a in win.screen_group.actions()]
win.choose_output_screen("OffB")
native = win.frame_settings.native
win.act_fullscreen.trigger()
out = win.output.window
g = out.geometry()
print(json.dumps({"labels": labels, "native": list(native), "geometry": [g.x(), g.y(), g.width(), g.height()],
                  "screen": out.windowHandle().screen().name(), "fullscreen": out.isFullScreen(),
                  "cursor": int(out.cursor().shape().value), "loop_on_output": win.loop.presenter is out}))
win.close()
"""


def test_output_goes_fullscreen_on_the_chosen_screen(tmp_path):
    cfg = tmp_path / "screens.json"
    cfg.write_text(json.dumps(TWO_SCREENS))
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={cfg}", PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["labels"] == ["OffA \u2014 800x600 @ 60.00 Hz", "OffB \u2014 3840x2160 @ 60.00 Hz, scale 2"]
    assert out["native"] == [3840, 2160]                 # 1:1 pixels on the 200 % screen
    assert out["geometry"] == [800, 0, 1920, 1080] and out["screen"] == "OffB"
    assert out["fullscreen"] and out["loop_on_output"]
    assert out["cursor"] == 10                           # Qt.BlankCursor


class FakeScreen:
    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name


def test_removing_the_output_screen_falls_back_to_a_window_on_the_primary(qtbot, main_window,
                                                                           monkeypatch):
    win = main_window
    primary = output_mod.screen_records()[0]
    tv = ScreenRecord("TV", primary.x + primary.width, 0, 640, 360, refresh_hz=50.0)
    screens = [primary, tv]
    monkeypatch.setattr(output_mod, "screen_records", lambda exclude=None: [
        s for s in screens if exclude is None or s.name != exclude.name()])
    notes = []
    win.output.note.connect(notes.append)
    win.output.open("TV")
    assert win.output.placement.fullscreen and win.output.placement.screen == "TV"
    tv_gone = FakeScreen("TV")
    win.output._on_screen_removed(tv_gone)
    p = win.output.placement
    assert not p.fullscreen and p.screen == primary.name
    assert any("'TV' is not connected" in n for n in notes)
    assert win.output.window is not None and win.loop.presenter is win.output.window
    win.output.close()
    assert win.loop.presenter is win.preview


def test_screens_added_later_appear_in_the_output_menu(main_window, monkeypatch):
    win = main_window
    primary = output_mod.screen_records()[0]
    later = ScreenRecord("Projector", 5000, 0, 1280, 720, refresh_hz=24.0)
    monkeypatch.setattr("app.window.menus.screen_records", lambda exclude=None: [primary, later])
    win.output._on_screen_added(FakeScreen("Projector"))
    assert [a.data() for a in win.screen_group.actions()] == [primary.name, "Projector"]
    assert "1280x720 @ 24.00 Hz" in win.screen_group.actions()[1].text()


def test_rebuilding_the_output_menu_does_not_pile_up_actions(main_window):
    from PySide6.QtGui import QAction

    win = main_window
    win._rebuild_output_menu()
    n = len(win.findChildren(QAction))
    for _ in range(5):
        win._rebuild_output_menu()
    assert len(win.findChildren(QAction)) == n
