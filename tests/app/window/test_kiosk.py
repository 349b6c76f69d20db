"""The kiosk: the output alone, fullscreen on the wanted screen with the cursor hidden; it keeps
presenting when that screen goes (a window on the primary) and goes back fullscreen when it
returns; Esc asks to quit; SIGTERM and SIGINT reach the event loop instead of killing it."""

from __future__ import annotations

import os
import signal

import pytest
from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtTest import QTest

from app.preview import output as output_mod
from app.window.kiosk import Kiosk, quit_on_signals
from core.decisions import cache_path, make_key
from core.decisions.schema import encode
from core.patterns import make_spec
from tests.helpers.decision_helpers import FP, entry
from tests.helpers.screens import FakeScreen

pytestmark = pytest.mark.qt


@pytest.fixture
def kiosk(qtbot):
    k = Kiosk(make_spec("bars", {}, width=64, height=36, bit_depth=8), banner=False,
              presenter_kind="raster")
    yield k
    k.close()


def presents(qtbot, kiosk, n=3):
    target = kiosk.loop.presented_count + n
    qtbot.waitUntil(lambda: kiosk.loop.presented_count >= target, timeout=10_000)


def test_the_output_is_fullscreen_with_a_hidden_cursor_and_presents(qtbot, kiosk):
    kiosk.start()
    w = kiosk.output.window
    assert kiosk.loop.presenter is w and kiosk.output.placement.fullscreen
    assert w.cursor().shape() == Qt.CursorShape.BlankCursor
    presents(qtbot, kiosk)


def test_the_render_path_is_the_decision_caches_from_the_first_frame(qtbot):
    cache_path().parent.mkdir(parents=True, exist_ok=True)
    cache_path().write_bytes(encode({make_key(FP, "bars@64x36/rgb8"): entry("torch-eager")}))
    k = Kiosk(make_spec("bars", {}, width=64, height=36, bit_depth=8), banner=False,
              presenter_kind="raster")
    try:
        k.start()
        assert (k.loop.path, k.loop.path_source) == ("torch-eager", "cache")
        presents(qtbot, k)
        assert k.loop.active_path == "torch-eager"
    finally:
        k.close()


def test_it_survives_its_screen_going_away_and_coming_back(qtbot, monkeypatch):
    primary = FakeScreen("eDP-1", 0, 0, 1280, 800)
    tv = FakeScreen("TV", 1280, 0, 640, 360, refresh=50.0)
    monkeypatch.setattr(output_mod, "qscreens", lambda: [primary, tv])
    wanted = output_mod.screen_records()[1].identity
    k = Kiosk(make_spec("bars", {}, width=64, height=36, bit_depth=8), wanted=wanted, banner=False,
              presenter_kind="raster")
    try:
        k.start()
        assert k.output.placement.fullscreen and k.output.placement.screen.name == "TV"
        presents(qtbot, k)
        monkeypatch.setattr(output_mod, "qscreens", lambda: [primary])
        k.output._on_screen_removed(tv)                       # as QGuiApplication.screenRemoved
        assert not k.output.placement.fullscreen and k.output.placement.screen.name == "eDP-1"
        presents(qtbot, k)                                    # still presenting meanwhile
        monkeypatch.setattr(output_mod, "qscreens", lambda: [primary, tv])
        k.output._on_screen_added(tv)
        assert k.output.placement.fullscreen and k.output.placement.screen.name == "TV"
        assert k.output.window.cursor().shape() == Qt.CursorShape.BlankCursor
        presents(qtbot, k)
    finally:
        k.close()


def test_esc_asks_to_quit(qtbot, kiosk):
    kiosk.start()
    with qtbot.waitSignal(kiosk.quit_requested, timeout=5000) as sig:
        QTest.keyClick(kiosk.output.window, Qt.Key.Key_Escape)
    assert sig.args == ["Esc"]


def test_a_preset_plays_on_the_kiosk(qtbot, kiosk):
    from core.patterns import builtin_presets

    preset = next(p for p in builtin_presets() if p.name == "10 % windows 0-100 %")
    specs = preset.specs(64, 36, bit_depth=8)
    kiosk.start()
    assert kiosk.show_preset(preset, play=True)
    qtbot.waitUntil(lambda: kiosk.player.state == "playing", timeout=10_000)
    qtbot.waitUntil(lambda: kiosk.loop.spec == specs[0], timeout=10_000)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signals_reach_the_event_loop_and_the_old_handlers_come_back(qtbot, sig):
    before = signal.getsignal(sig)
    got = []
    loop = QEventLoop()
    guard = QTimer()
    guard.setSingleShot(True)
    guard.timeout.connect(loop.quit)
    guard.start(10_000)

    def on_signal(name):
        got.append(name)
        loop.quit()

    with quit_on_signals(on_signal):
        QTimer.singleShot(0, lambda: os.kill(os.getpid(), sig))
        loop.exec()
    guard.stop()
    assert got == [sig.name]
    assert signal.getsignal(sig) is before
