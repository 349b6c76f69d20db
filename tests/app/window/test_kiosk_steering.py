"""A running kiosk can be steered: PgDown/PgUp step its preset (and move a playback), Space
pauses, I says what is on screen, SIGUSR1/SIGUSR2 step without a keyboard; with the depth on
"auto" the frames follow the depth the output surface was granted."""

from __future__ import annotations

import os
import signal

import pytest
from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtTest import QTest

from app.window.kiosk import Kiosk, quit_on_signals
from core.patterns import FrameFormat, builtin_presets, make_spec

pytestmark = pytest.mark.qt

PRESET = "10 % windows 0-100 %"


def preset():
    return next(p for p in builtin_presets() if p.name == PRESET)


@pytest.fixture
def kiosk(qtbot):
    fmt = FrameFormat(64, 36, 8)
    k = Kiosk(make_spec("bars", {}, width=64, height=36, bit_depth=8), banner=False,
              presenter_kind="raster", frame_format=fmt)
    yield k
    k.close()


def press(kiosk, key):
    QTest.keyClick(kiosk.output.window, key)


def test_pgdown_and_pgup_step_the_preset_in_the_output(qtbot, kiosk):
    specs = preset().specs(64, 36, bit_depth=8)
    kiosk.start()
    assert kiosk.show_preset(preset())
    assert kiosk.loop.spec == specs[0]
    press(kiosk, Qt.Key.Key_PageDown)
    press(kiosk, Qt.Key.Key_PageDown)
    assert kiosk.position == 2 and kiosk.loop.spec == specs[2]
    press(kiosk, Qt.Key.Key_PageUp)
    assert kiosk.position == 1 and kiosk.loop.spec == specs[1]
    press(kiosk, Qt.Key.Key_PageUp)
    press(kiosk, Qt.Key.Key_PageUp)                    # wraps to the last entry
    assert kiosk.position == len(specs) - 1


def test_pgdown_moves_a_playback_and_space_pauses_it(qtbot, kiosk):
    kiosk.start()
    kiosk.show_preset(preset(), play=True)
    qtbot.waitUntil(lambda: kiosk.player.state == "playing", timeout=10_000)
    press(kiosk, Qt.Key.Key_PageDown)
    qtbot.waitUntil(lambda: kiosk.position == 1, timeout=10_000)
    press(kiosk, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: kiosk.player.paused, timeout=10_000)
    press(kiosk, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not kiosk.player.paused, timeout=10_000)


def test_space_pauses_the_frames_without_a_preset_and_i_says_what_is_shown(qtbot, kiosk, capsys):
    kiosk.start()
    notes = []
    kiosk.note.connect(notes.append)
    press(kiosk, Qt.Key.Key_Space)
    assert kiosk.loop.paused and notes[-1] == "paused"
    press(kiosk, Qt.Key.Key_PageDown)                  # nothing to step: said, not ignored
    assert "give --preset" in notes[-1]
    press(kiosk, Qt.Key.Key_I)
    out = capsys.readouterr().out
    assert out.startswith("testcard show: bars, 64x36 8-bit full") and "render path" in out


def test_sigusr1_and_sigusr2_step_the_preset(qtbot, kiosk):
    kiosk.show_preset(preset())
    kiosk.start()
    loop = QEventLoop()
    seen = []

    def stepped(_preset, position):
        seen.append(position)
        if len(seen) == 3:
            loop.quit()

    kiosk.entry_shown.connect(stepped)
    guard = QTimer()
    guard.setSingleShot(True)
    guard.timeout.connect(loop.quit)
    guard.start(10_000)
    with quit_on_signals(lambda _name: loop.quit(),
                         other={signal.SIGUSR1: kiosk.on_signal, signal.SIGUSR2: kiosk.on_signal}):
        for sig in (signal.SIGUSR1, signal.SIGUSR1, signal.SIGUSR2):
            QTimer.singleShot(0, lambda sig=sig: os.kill(os.getpid(), sig))
        loop.exec()
    guard.stop()
    assert seen == [1, 2, 1]


def test_auto_depth_follows_the_surface_and_carries_the_colours(qtbot):
    # a 10-bit frame on the raster surface (8 bits): on auto, the frames become 8-bit, the
    # colours carried by the depth rule; a depth the operator chose stays
    spec = make_spec("solid", {"color": [767, 512, 1023]}, width=64, height=36, bit_depth=10)
    for auto, want in ((True, (8, (191, 128, 255))), (False, (10, (767, 512, 1023)))):
        k = Kiosk(spec, banner=False, presenter_kind="raster", auto_depth=auto)
        try:
            k.start()
            qtbot.waitUntil(lambda k=k: k.loop.presented_count >= 3, timeout=10_000)
            shown = k.loop.spec
            assert (shown.bit_depth, shown.param_dict["color"]) == want
            assert k.format.bit_depth == want[0]
        finally:
            k.close()
