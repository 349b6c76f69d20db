"""`testcard gui --pattern X --set k=v`'s start on the offscreen platform: the window shows the very
Spec the command built (its frame settings showing that spec's format, nothing rebuilt from
them), at the output screen's size where none was typed; `--transfer` stays in the format every
later spec is built in; a spec the screen's size refuses is one error line before any window."""

import pytest

from app import cli
from app.commands import gui
from app.preview import output as output_mod
from app.settings import Settings
from core.patterns import render
from tests.helpers.gui_start import start_of
from tests.helpers.screens import FakeScreen

pytestmark = pytest.mark.qt


@pytest.fixture
def opened(qtbot):
    windows = []

    def open_(start):
        win = gui.open_window(start)
        qtbot.addWidget(win)
        win.persist = False
        windows.append(win)
        return win

    yield open_
    for win in windows:
        win.close()


def test_the_window_starts_on_the_spec_the_command_built(opened, qtbot):
    start = start_of("--pattern", "bars", "--set", "level=50", "--set", "white=10", "--size", "96x54",
                     "--bit-depth", "8", "--limited", "--counter", "--counter-bits", "12")
    assert start.spec is not None
    win = opened(start)
    assert win.spec is start.spec and win.loop.spec is start.spec      # shown, not rebuilt
    assert win.session.format == start.format
    # the frame settings show that format, so the first edit starts from the same frame
    assert win.frame_settings.frame_format() == start.format
    assert win.frame_settings.frame_format().spec("bars", win.editor.values()) == start.spec
    win.show()
    qtbot.waitUntil(lambda: win.loop.index > 2, timeout=20000)
    assert win.loop.spec is start.spec
    assert (render(win.loop.spec, 5) == render(start.spec, 5)).all()


def test_without_a_size_the_spec_is_the_commands_at_the_output_screens_size(opened, monkeypatch):
    monkeypatch.setattr(output_mod, "qscreens", lambda: [FakeScreen("DP-1", 0, 0, 160, 90)])
    start = start_of("--pattern", "solid", "--set", "color=10%", stored=Settings(size=None, bit_depth=8))
    assert (start.spec.width, start.spec.height) == gui.PLACEHOLDER_SIZE   # checked before Qt knew
    win = opened(start)
    assert (win.spec.width, win.spec.height) == (160, 90) == win.frame_settings.frame_size()
    assert win.spec == start.spec.replace(width=160, height=90)
    assert win.frame_settings.size_setting() is None          # still the screen's: not a custom size


def test_stored_parameters_refused_are_logged_and_the_defaults_shown(opened):
    stored = Settings(size=[64, 36], bit_depth=8, pattern="bars", params={"bars": {"nope": 3}})
    start = start_of(stored=stored)
    assert start.spec == start.format.spec("bars") and len(start.notes) == 1
    win = opened(start)
    assert win.spec is start.spec
    assert any(line.startswith("stored settings for bars not usable") for line in win.log_dock.lines)


def test_transfer_is_in_the_format_every_spec_here_is_built_in(opened):
    start = start_of("--pattern", "solid", "--set", "color=203nits", "--transfer", "pq", "--limited",
                     "--bit-depth", "10")
    win = opened(start)
    assert win.spec is start.spec and win.spec.transfer == "pq"
    assert win.frame_settings.frame_format().transfer == "pq"
    win.choose_pattern("bars")                    # a pattern chosen in the window: the same transfer
    assert win.spec.pattern == "bars" and win.spec.transfer == "pq"
    assert win.status_texts()["signal"].startswith("PQ code values")


def test_a_spec_the_screens_size_refuses_is_one_line_before_any_window(monkeypatch, qtbot, capsys):
    monkeypatch.setattr(output_mod, "qscreens", lambda: [FakeScreen("DP-1", 0, 0, 16, 9)])
    made = []
    monkeypatch.setattr("app.window.MainWindow", lambda *a, **k: made.append(1))
    assert cli.main(["gui", "--pattern", "bars", "--counter", "--counter-bits", "16"]) == 2
    err = capsys.readouterr().err
    assert err == "testcard: error: a 16-bit counter does not fit a 16x9 frame (cells would be 0x0 px)\n"
    assert made == []


@pytest.mark.parametrize("screen, x, shown", [((1280, 720), 1500, "area"), ((3840, 2160), 3000, "pixels")])
def test_remembered_parameters_are_judged_at_the_output_screens_size(opened, monkeypatch, screen, x, shown):
    # a remembered pixel rectangle: judged at the screen's size, not the placeholder's; one that
    # does not fit there is the defaults and a note, never a start refused
    monkeypatch.setattr(output_mod, "qscreens", lambda: [FakeScreen("DP-1", 0, 0, *screen)])
    rect = {"geometry": "pixels", "x": x, "y": 0, "w": 300, "h": 300}
    stored = Settings(size=None, bit_depth=8, pattern="window", params={"window": rect})
    win = opened(start_of(stored=stored))
    assert (win.spec.width, win.spec.height) == screen
    assert win.spec.to_dict()["params"]["geometry"] == shown
    refused = [line for line in win.log_dock.lines if line.startswith("stored settings for window")]
    assert len(refused) == (shown == "area")
    if refused:
        assert f"{screen[0]}-pixel width" in refused[0]


def test_a_typed_transfer_never_locks_out_a_pattern_drawn_per_transfer(opened):
    win = opened(start_of("--pattern", "bars", "--transfer", "sdr"))
    win.choose_pattern("hdr_bars")
    assert win.spec.pattern == "hdr_bars" and win.spec.transfer == "pq"
    win = opened(start_of("--pattern", "bars", "--transfer", "pq", "--limited"))
    win.choose_pattern("hdr_bars")
    assert win.spec.pattern == "hdr_bars" and win.spec.transfer == "pq"
    values = dict(win.editor.values(), transfer="hlg")
    assert win.frame_settings.frame_format().chosen_spec("hdr_bars", values).transfer == "hlg"
