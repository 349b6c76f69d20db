"""`testcard gui` on the offscreen platform: the options reach the window, --screen picks among
same-named screens, --fullscreen opens there, and with no display at all it says what to do."""

import os
import subprocess
import sys

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.commands import gui
from app.preview import output as output_mod
from core.patterns import builtin_presets
from tests.helpers import ROOT
from tests.helpers.gui_start import start_of
from tests.helpers.screens import FakeScreen

pytestmark = pytest.mark.qt

SAME_NAME = [FakeScreen("DP-1", 0, 0, 1920, 1080), FakeScreen("DP-1", 1920, 0, 1280, 720, refresh=50.0)]


@pytest.fixture
def opened(qtbot):
    """Open windows the way `testcard gui` does; each is closed afterwards."""
    windows = []

    def open_(*argv, stored=None):
        win = gui.open_window(start_of(*argv, stored=stored))
        qtbot.addWidget(win)
        win.persist = False
        windows.append(win)
        return win

    yield open_
    for win in windows:
        win.close()


def run_guarded(start):
    guard = QTimer()   # a window that never closed would hang the suite: stop the loop instead
    guard.setSingleShot(True)
    guard.timeout.connect(QApplication.quit)
    guard.start(120_000)
    try:
        return gui.run_gui(start)
    finally:
        guard.stop()


def test_frames_mode_prints_the_dock_titles_when_the_window_closes(qtbot, capsys):
    assert run_guarded(start_of("--pattern", "checkerboard", "--frames", "3")) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("docks:")]
    assert lines == ["docks: Patterns, Parameters, Frame timing, Log, Decode, Measure, Latency, Remote"]


def test_pattern_and_values_reach_the_window(opened):
    win = opened("--pattern", "bars", "--set", "level=50", "--size", "96x54", "--bit-depth", "8",
                 "--counter", "--no-banner")
    spec = win.spec
    assert (spec.pattern, spec.param_dict["level"], spec.width, spec.height) == ("bars", 50.0, 96, 54)
    assert spec.bit_depth == 8 and spec.counter_bits == 16
    assert not win.act_banner.isChecked() and not win.output.banner_enabled


def test_screen_picks_the_second_of_two_same_named_screens(opened, monkeypatch):
    monkeypatch.setattr(output_mod, "qscreens", lambda: list(SAME_NAME))
    win = opened("--screen", "1")
    assert win.output_record().geometry == (1920, 0, 1280, 720)
    assert win.frame_settings.native == (1280, 720)
    win._rebuild_output_menu()
    assert [a.isChecked() for a in win.screen_group.actions()] == [False, True]


def test_a_screen_that_is_not_there_or_ambiguous_is_refused_before_the_window(monkeypatch):
    monkeypatch.setattr(output_mod, "qscreens", lambda: list(SAME_NAME))
    made = []
    monkeypatch.setattr("app.window.MainWindow", lambda *a, **k: made.append(1))
    with pytest.raises(ValueError, match=r"--screen 'DP-1' names 2 screens \(0, 1\); give the index: "
                                         r"0: DP-1 \u2014 1920x1080 at \(0, 0\), 60.00 Hz; 1: DP-1"):
        gui.open_window(start_of("--screen", "DP-1"))
    with pytest.raises(ValueError, match="--screen 2: there is no screen 2; connected: 0: DP-1"):
        gui.open_window(start_of("--screen", "2"))
    assert made == []


def test_preset_shows_its_first_entry_and_play_plays_it(opened):
    preset = builtin_presets()[0]
    win = opened("--preset", preset.name)
    assert win.preset.name == preset.name
    assert win.preset_pos == 0 and win.spec.pattern == preset.entries[0].pattern
    assert not win.player.active
    played = opened("--preset", preset.name, "--play")
    assert played.player.active and played.preset.name == preset.name
    played.player.stop()


def test_fullscreen_opens_the_output_on_the_chosen_screen_at_start(qtbot, monkeypatch):
    monkeypatch.setattr(output_mod, "qscreens", lambda: list(SAME_NAME))
    placed = []
    real_open = gui.open_window

    def spy(start):
        win = real_open(start)
        win.persist = False
        win.output.placed.connect(placed.append)
        return win

    monkeypatch.setattr(gui, "open_window", spy)
    assert run_guarded(start_of("--screen", "1", "--fullscreen", "--frames", "5")) == 0
    assert placed and all(p.screen.index == 1 and p.fullscreen for p in placed)
    assert (placed[0].x, placed[0].y, placed[0].width, placed[0].height) == (1920, 0, 1280, 720)


def test_no_display_at_all_is_one_line_naming_the_ways_on(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(PYTHONPATH=str(ROOT), TESTCARD_CONFIG_DIR=str(tmp_path / "config"))
    for argv in ([], ["gui", "--pattern", "bars"], ["bench", "preview", "--frames", "5"]):
        res = subprocess.run([sys.executable, "-m", "app", *argv], capture_output=True, text=True, cwd=ROOT,
                             env=env, timeout=120)
        assert res.returncode == 2, (argv, res.stderr)
        assert res.stdout == ""
        line, = res.stderr.splitlines()
        assert line.startswith("testcard: error: no display to open a window on"), line
        for way in ("xvfb-run", "QT_QPA_PLATFORM=offscreen", "testcard render", "decode", "measure"):
            assert way in line


def test_display_problem_is_none_where_anything_names_a_display():
    from app.qapp import display_problem

    assert display_problem({}, "linux") is not None
    assert display_problem({"DISPLAY": ""}, "linux") is not None
    for env in ({"DISPLAY": ":0"}, {"WAYLAND_DISPLAY": "wayland-0"}, {"QT_QPA_PLATFORM": "offscreen"}):
        assert display_problem(env, "linux") is None
    assert display_problem({}, "linux", argv=["testcard", "-platform", "offscreen"]) is None
    assert display_problem({}, "win32") is None and display_problem({}, "darwin") is None
