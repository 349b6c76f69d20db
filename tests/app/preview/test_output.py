"""The output window on a chosen screen: screens told apart by identity, a screen that goes away,
and the banner that names the screen when the output goes fullscreen."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from app.preview import ScreenIdentity, ScreenRecord
from app.preview import output as output_mod
from tests.helpers import ROOT
from tests.helpers.gl_probe import image_rgb
from tests.helpers.screens import FakeScreen, offscreen_platform

pytestmark = pytest.mark.qt

# two monitors of one make on a bench: same name, told apart by geometry (no serial reported)
BENCH_A = FakeScreen("DP-1", 0, 0, 1920, 1080, model="U2720Q")
BENCH_B = FakeScreen("DP-1", 1920, 0, 2560, 1440, refresh=120.0, model="U2720Q")


def run_probe(tmp_path, screens, source):
    env = dict(os.environ, QT_QPA_PLATFORM=offscreen_platform(tmp_path, screens), PYTHONPATH=str(ROOT),
               TESTCARD_CONFIG_DIR=str(tmp_path / "config"))
    res = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=180)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


PROBE = """
import json
from app.qt_compat import guard_singleton_refcounts
guard_singleton_refcounts()
from PySide6.QtWidgets import QApplication
app = QApplication([])
from app.window import MainWindow
from app.settings import Settings
from app.preview import screen_records
win = MainWindow(settings=Settings(pattern="bars", bit_depth=8, size=[64, 36]), persist=False)
win.show()
labels = [a.text() for a in win.screen_group.actions()]
win.choose_output_screen(screen_records()[1])
native = win.frame_settings.native
win.act_fullscreen.trigger()
out = win.output.window
g = out.geometry()
print(json.dumps({"labels": labels, "native": list(native), "geometry": [g.x(), g.y(), g.width(), g.height()],
                  "screen": out.windowHandle().screen().name(), "fullscreen": out.isFullScreen(),
                  "cursor": int(out.cursor().shape().value), "loop_on_output": win.loop.presenter is out,
                  "banner": win.output.banner.text()}))
win.close()
"""


def test_output_goes_fullscreen_on_the_chosen_screen(tmp_path):
    out = run_probe(tmp_path, [{"name": "OffA", "x": 0, "y": 0, "width": 800, "height": 600},
                               {"name": "OffB", "x": 800, "y": 0, "width": 1920, "height": 1080, "dpr": 2}],
                    PROBE)
    assert out["labels"] == ["0: OffA \u2014 800x600 at (0, 0), 60.00 Hz, primary",
                             "1: OffB \u2014 1920x1080 at (800, 0), 60.00 Hz, scale 2 (3840x2160 pixels)"]
    assert out["native"] == [3840, 2160]                 # 1:1 pixels on the 200 % screen
    assert out["geometry"] == [800, 0, 1920, 1080] and out["screen"] == "OffB"
    assert out["fullscreen"] and out["loop_on_output"]
    assert out["cursor"] == 10                           # Qt.BlankCursor
    assert out["banner"].splitlines() == ["Screen 1: OffB", "1920x1080 at (800, 0), 60.00 Hz, scale 2 "
                                          "(3840x2160 pixels)", "Esc or F11 to leave"]


TWINS = """
import json
from app.qt_compat import guard_singleton_refcounts
guard_singleton_refcounts()
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication
app = QApplication([])
from app import settings as settings_mod
from app.window import MainWindow
qt = QGuiApplication.screens()
win = MainWindow(settings=settings_mod.Settings(pattern="bars", bit_depth=8, size=[64, 36]))
win.show()
def menu():
    win._rebuild_output_menu()
    return [a.text() for a in win.screen_group.actions()], [a.isChecked() for a in win.screen_group.actions()]
labels, ticked_before = menu()
win.screen_group.actions()[1].trigger()           # the Output menu's second entry
_, ticked_after = menu()
win.act_fullscreen.trigger()                      # F11
on = qt.index(win.output.window.windowHandle().screen())
banner = win.output.banner.text()
win.act_leave.trigger()
win.close()                                       # stores the choice
again = MainWindow(settings=settings_mod.load(), persist=False)
again._rebuild_output_menu()
ticked_again = [a.isChecked() for a in again.screen_group.actions()]
again.act_fullscreen.trigger()
on_again = qt.index(again.output.window.windowHandle().screen())
again.close()
print(json.dumps({"names": [s.name() for s in qt], "labels": labels, "before": ticked_before,
                  "after": ticked_after, "on": on, "banner": banner, "again": ticked_again,
                  "on_again": on_again}))
"""


def test_twin_screens_are_listed_chosen_opened_and_remembered_distinctly(tmp_path):
    # the offscreen platform gives both screens one name and one geometry: only the index differs
    out = run_probe(tmp_path, [{"name": "Twin", "x": 0, "y": 0, "width": 800, "height": 600},
                               {"name": "Twin", "x": 800, "y": 0, "width": 800, "height": 600}], TWINS)
    assert out["names"] == ["Twin", "Twin"]
    assert out["labels"] == ["0: Twin \u2014 800x600 at (0, 0), 60.00 Hz, primary",
                             "1: Twin \u2014 800x600 at (0, 0), 60.00 Hz"]
    assert out["before"] == [True, False]                # one tick, not two
    assert out["after"] == [False, True]                 # choosing the second does something
    assert out["on"] == 1 and out["banner"].startswith("Screen 1: Twin\n")   # F11 opens there
    assert out["again"] == [False, True] and out["on_again"] == 1             # and next time too


def fake_screens(monkeypatch, *screens):
    monkeypatch.setattr(output_mod, "qscreens", lambda: list(screens))


def test_same_named_screens_are_listed_chosen_and_opened_distinctly(main_window, monkeypatch):
    win = main_window
    fake_screens(monkeypatch, BENCH_A, BENCH_B)
    win._rebuild_output_menu()
    acts = win.screen_group.actions()
    assert [a.text() for a in acts] == ["0: DP-1 (U2720Q) \u2014 1920x1080 at (0, 0), 60.00 Hz",
                                        "1: DP-1 (U2720Q) \u2014 2560x1440 at (1920, 0), 120.00 Hz"]
    assert [a.isChecked() for a in acts] == [True, False]
    acts[1].trigger()
    win._rebuild_output_menu()
    assert [a.isChecked() for a in win.screen_group.actions()] == [False, True]
    assert win.settings.output_screen_id["geometry"] == [1920, 0, 2560, 1440]
    assert win.frame_settings.native == (2560, 1440)
    placed = []
    win.output.placed.connect(placed.append)
    win.act_fullscreen.trigger()
    p = placed[-1]
    assert (p.screen.index, p.x, p.y, p.width, p.height, p.fullscreen) == (1, 1920, 0, 2560, 1440, True)
    assert win.output.banner.text().startswith("Screen 1: DP-1 (U2720Q)\n2560x1440 at (1920, 0), 120.00 Hz")
    win.act_leave.trigger()
    assert win.output.banner is None and not win.output.is_open


def test_the_choice_persists_by_identity_and_falls_back_when_the_screen_is_gone(qtbot, monkeypatch,
                                                                                  small_settings):
    from app import settings as settings_mod
    from app.window import MainWindow

    fake_screens(monkeypatch, BENCH_A, BENCH_B)
    win = MainWindow(settings=small_settings)
    qtbot.addWidget(win)
    win.choose_output_screen(output_mod.screen_records()[1])
    win.close()
    stored = settings_mod.load()
    assert ScreenIdentity.from_dict(stored.output_screen_id) == output_mod.screen_records()[1].identity

    fake_screens(monkeypatch, BENCH_B, BENCH_A)           # listed the other way round next time
    again = MainWindow(settings=stored, persist=False)
    qtbot.addWidget(again)
    assert again.output_record().geometry == (1920, 0, 2560, 1440)
    again._rebuild_output_menu()
    assert [a.isChecked() for a in again.screen_group.actions()] == [True, False]
    again.close()

    fake_screens(monkeypatch, BENCH_A)                    # that monitor unplugged
    third = MainWindow(settings=settings_mod.load(), persist=False)
    qtbot.addWidget(third)
    assert third.output_record().geometry == (0, 0, 1920, 1080)
    assert ("screen 1 'DP-1' 2560x1440 at (1920, 0) is not connected; using screen 0: DP-1 (U2720Q) "
            "(same name)") in third.log_dock.lines
    third.close()


def test_removing_the_output_screen_falls_back_to_a_window_on_the_primary(qtbot, main_window,
                                                                           monkeypatch):
    win = main_window
    primary = FakeScreen("eDP-1", 0, 0, 1280, 800)
    tv = FakeScreen("TV", 1280, 0, 640, 360, refresh=50.0)
    fake_screens(monkeypatch, primary, tv)
    notes = []
    win.output.note.connect(notes.append)
    win.output.open(output_mod.screen_records()[1].identity)
    assert win.output.placement.fullscreen and win.output.placement.screen.name == "TV"
    fake_screens(monkeypatch, primary)
    win.output._on_screen_removed(tv)
    p = win.output.placement
    assert not p.fullscreen and p.screen.name == "eDP-1"
    assert ("screen 1 'TV' 640x360 at (1280, 0) is not connected; using the primary screen 0: eDP-1; "
            "the output is a window there") in notes
    assert win.output.banner is None                      # a window, not fullscreen: no banner
    assert win.output.window is not None and win.loop.presenter is win.output.window
    win.output.close()
    assert win.loop.presenter is win.preview


def test_screens_added_later_appear_in_the_output_menu(main_window, monkeypatch):
    win = main_window
    primary = FakeScreen("eDP-1", 0, 0, 1280, 800)
    later = FakeScreen("Projector", 5000, 0, 1280, 720, refresh=24.0)
    fake_screens(monkeypatch, primary, later)
    win.output._on_screen_added(later)
    assert [a.data() for a in win.screen_group.actions()] == [0, 1]
    assert win.screen_group.actions()[1].text() == "1: Projector \u2014 1280x720 at (5000, 0), 24.00 Hz"


def test_rebuilding_the_output_menu_does_not_pile_up_actions(main_window):
    from PySide6.QtGui import QAction

    win = main_window
    win._rebuild_output_menu()
    n = len(win.findChildren(QAction))
    for _ in range(5):
        win._rebuild_output_menu()
    assert len(win.findChildren(QAction)) == n


@pytest.fixture
def screen_sized_window(qtbot):
    """A window whose frame is the output screen's native size (so the output shows it whole)."""
    from app.settings import Settings
    from app.window import MainWindow

    win = MainWindow(settings=Settings(pattern="bars", bit_depth=8, size=None), persist=False)
    qtbot.addWidget(win)
    win.show()
    yield win
    win.close()


def test_banner_is_over_the_output_and_the_frame_is_exact_once_it_is_gone(qtbot, screen_sized_window):
    from core.engine import Engine

    win = screen_sized_window
    win.output.banner_ms = 2500      # long enough to grab it on a busy machine; waited out below
    with qtbot.waitSignal(win.output.banner_shown, timeout=5000) as shown:
        win.act_fullscreen.trigger()
    out, banner = win.output.window, win.output.banner
    rec = win.output.placement.screen
    assert shown.args[0] == f"Screen 0: {rec.name}\n{rec.mode}\nEsc or F11 to leave"
    assert banner.parent() is out and banner.isVisible()
    with Engine(win.spec, fmt="rgb8") as eng:
        want = eng.render(0).data[..., :3]
    assert want.shape[:2] == (rec.height, rec.width)      # the frame fills the output
    n = win.loop.presented_count
    qtbot.waitUntil(lambda: win.loop.presented_count > n + 1, timeout=5000)
    during = image_rgb(out.grab_image())
    g = banner.geometry()
    inside = np.zeros(want.shape[:2], bool)
    inside[g.y():g.y() + g.height(), g.x():g.x() + g.width()] = True
    assert win.output.banner is banner, "the banner went before it could be grabbed"
    assert np.array_equal(during[~inside], want[~inside])            # the frame around it
    assert not np.array_equal(during[inside], want[inside])          # the banner over it
    with qtbot.waitSignal(win.output.banner_hidden, timeout=10000):
        pass
    n = win.loop.presented_count
    qtbot.waitUntil(lambda: win.loop.presented_count > n + 1, timeout=5000)
    assert np.array_equal(image_rgb(out.grab_image()), want)        # exact again, every pixel
    win.act_leave.trigger()


def test_banner_can_be_turned_off_and_that_is_remembered(qtbot, main_window):
    from app import settings as settings_mod
    from app.window import MainWindow

    win = main_window
    assert win.act_banner.isChecked()
    win.act_banner.trigger()
    win.act_fullscreen.trigger()
    assert win.output.is_open and win.output.banner is None
    win.act_leave.trigger()
    win.close()
    stored = settings_mod.load()
    assert stored.output_banner is False
    again = MainWindow(settings=stored, persist=False)
    qtbot.addWidget(again)
    assert not again.act_banner.isChecked() and not again.output.banner_enabled
    again.close()


def test_screen_records_carry_index_and_maker(monkeypatch):
    fake_screens(monkeypatch, FakeScreen("A", 0, 0, 10, 10),
                 FakeScreen("A", 10, 0, 10, 10, manufacturer="Eizo", model="CG319X", serial="77"))
    recs = output_mod.screen_records()
    assert recs[1] == ScreenRecord("A", 10, 0, 10, 10, index=1, manufacturer="Eizo", model="CG319X",
                                   serial="77", unnamed=True)      # "A" twice: the geometry tells them apart
    assert [r.title for r in recs] == ["0: A (10x10 at 0,0)", "1: A (Eizo CG319X, SN 77, 10x10 at 10,0)"]
    assert [r.index for r in output_mod.screen_records(exclude=output_mod.qscreens()[0])] == [1]
