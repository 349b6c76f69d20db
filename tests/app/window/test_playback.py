"""Presets on the live window: the counter overlay stays, and a played preset keeps its dwells.

The playback tests stop the frame loop (a frame limit) and then drive its ``frame_presented``
signal themselves with fake present timestamps in the loop's timeline, the way a real present
arrives: the schedule sees only those, so each entry's time on screen is exact, with no sleeps.
"""

import threading

import numpy as np
import pytest
from PySide6.QtGui import QImage

from core.decode import decode_counter
from core.engine import Engine
from core.patterns import PlaybackLog, get_preset, parse_preset

pytestmark = pytest.mark.qt

T = 1 / 64          # a refresh period binary floats hold exactly


def image_rgb(img: QImage) -> np.ndarray:
    img = img.convertToFormat(QImage.Format.Format_RGBX8888)
    h, w = img.height(), img.width()
    buf = np.frombuffer(img.constBits(), np.uint8, count=img.sizeInBytes()).reshape(h, img.bytesPerLine())
    return buf[:, :w * 4].reshape(h, w, 4)[..., :3].copy()


def shown_frame(win) -> np.ndarray:
    """The frame as the preview shows it at 1:1 (centred in the widget)."""
    img = image_rgb(win.preview.grab_image())
    s = win.spec
    h, w = img.shape[:2]
    y, x = (h - s.height) // 2, (w - s.width) // 2
    return img[y:y + s.height, x:x + s.width]


def wait_frames(qtbot, win, n=2):
    target = win.loop.presented_count + n
    qtbot.waitUntil(lambda: win.loop.presented_count >= target, timeout=5000)


def runs(seq):
    """[(value, count)] of consecutive equal values."""
    out = []
    for v in seq:
        if out and out[-1][0] == v:
            out[-1][1] += 1
        else:
            out.append([v, 1])
    return [tuple(x) for x in out]


def tick_counter(win, bits=12):
    win.frame_settings.counter_bits.setValue(bits)
    win.frame_settings.counter.setChecked(True)


@pytest.fixture
def quiet_window(qtbot, small_settings):
    """A shown window whose frame loop has stopped (frame limit), so only the test presents."""
    from app.window import MainWindow

    before = set(threading.enumerate())
    win = MainWindow(settings=small_settings, frame_limit=2, persist=False)
    qtbot.addWidget(win)
    win.resize(900, 600)
    with qtbot.waitSignal(win.loop.finished, timeout=5000):
        win.show()
    win.loop.set_refresh(1 / T)
    yield win
    win.close()
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not left, f"threads left running after close: {left}"


class FakePresents:
    """Presents frames at t = k * T through the loop's timeline and signal; records, for each
    frame, the spec the loop was asked to render for it."""

    def __init__(self, win, start_frame=100):
        self.win, self.frame = win, start_frame
        self.specs: list = []

    def present(self, n=1):
        loop = self.win.loop
        for _ in range(n):
            self.specs.append(loop.spec)             # what this frame showed
            loop.timeline.append(self.frame, self.frame * T, 0.0, 0.0, 0.0, 0.0, "numpy")
            loop.frame_presented.emit(self.frame)
            self.frame += 1


def three_entries(win, **over):
    doc = {"schema": 1, "name": "three", "dwell_s": 0.25,
           "entries": [{"pattern": "solid", "name": "black", "params": {"color": "0%"}, "dwell_s": 0.5},
                       {"pattern": "solid", "name": "grey", "params": {"color": "50%"}},
                       {"pattern": "checkerboard", "params": {"tile": 4}, "dwell_s": 1.0}]}
    doc.update(over)
    preset = parse_preset(doc, "three.json")
    win.presets.append(preset)
    return preset


# ------------------------------------------------------------------ the counter bug
def test_a_preset_chosen_with_the_counter_ticked_keeps_it_and_the_screen_decodes_to_its_index(
        qtbot, main_window):
    win = main_window
    win.set_one_to_one(True)
    tick_counter(win, 12)
    assert win.spec.counter_bits == 12
    assert win.choose_preset("ANSI contrast")
    assert win.spec.pattern == "checkerboard" and win.spec.counter_bits == 12
    assert win.frame_settings.counter.isChecked()
    win.set_paused(True)
    wait_frames(qtbot, win, 3)
    index = win.loop.index
    frame = shown_frame(win)
    assert decode_counter(frame, win.spec.counter_geometry(), 8) == index
    win.act_forward.trigger()
    wait_frames(qtbot, win, 3)
    assert decode_counter(shown_frame(win), win.spec.counter_geometry(), 8) == index + 1


def test_stepping_a_preset_keeps_the_counter_and_the_counter_pattern_needs_no_overlay(qtbot, main_window):
    win = main_window
    tick_counter(win, 8)
    win.choose_preset("near-black steps")
    for _ in range(3):
        assert win.spec.counter_bits == 8
        win.act_preset_next.trigger()
    assert win.choose_preset("frame counter")
    assert win.spec.pattern == "counter" and win.spec.counter_bits is None


# ------------------------------------------------------------------ playback
def test_a_played_preset_shows_each_entry_for_its_dwell_and_logs_it_in_order(qtbot, quiet_window):
    win = quiet_window
    preset = three_entries(win)
    fake = FakePresents(win)
    win.play_preset("Three")                    # case-insensitive, as the CLI's --preset is
    assert win.player.active and win.act_play_stop.isEnabled()
    assert win.status_texts()["playback"] == "Playing preset three: entry 1/3, 0.5 s left"
    fake.present(1)                            # the first entry is asked for at this present
    assert win.spec == preset.entries[0].spec(64, 36, bit_depth=8)
    fake.present(40)
    assert win.status_texts()["playback"].startswith("Playing preset three: entry 2/3, ")
    fake.present(100)
    assert win.player.playback.finished and not win.act_play_stop.isEnabled()
    assert win.status_texts()["playback"] == "Played preset three: 3 entries shown"
    log = list(win.player.log)
    win.choose_preset("PLUGE")                  # after the end, that line goes with the next choice
    assert win.status_texts()["playback"] == "" and win.player.playback.finished

    # frame 100 asked for entry 1 and still showed the old frame; the last entry stays up
    expected = [e.spec(64, 36, bit_depth=8) for e in preset.entries]
    shown = [expected.index(s) if s in expected else None for s in fake.specs]
    assert runs(shown) == [(None, 1), (0, 32), (1, 16), (2, 64 + 28)]

    assert [(r.entry, r.name, r.pattern) for r in log] == [(1, "black", "solid"), (2, "grey", "solid"),
                                                          (3, "checkerboard", "checkerboard")]
    assert [r.frame for r in log] == [101, 133, 149]
    assert [r.left_frame for r in log] == [133, 149, 213]
    assert [r.shown_s for r in log] == [101 * T, 133 * T, 149 * T]
    assert [r.on_screen_s for r in log] == preset.dwells() == [0.5, 0.25, 1.0]


def test_every_played_entry_keeps_the_counter_and_its_frames_decode(qtbot, quiet_window):
    win = quiet_window
    tick_counter(win, 12)
    preset = three_entries(win)
    fake = FakePresents(win)
    win.play_preset(preset.name)
    fake.present(130)
    played = [s for s in dict.fromkeys(fake.specs[1:])]
    assert len(played) == 3 and all(s.counter_bits == 12 for s in played)
    for spec in played:
        with Engine(spec, fmt="rgb8") as eng:
            for index in (101, 150):
                assert decode_counter(eng.render(index).data[..., :3], spec.counter_geometry(), 8) == index


def test_pause_next_previous_and_stop_from_the_presets_menu(qtbot, quiet_window):
    win = quiet_window
    three_entries(win)
    fake = FakePresents(win)
    win.play_preset("three")
    fake.present(11)                            # entry 1 up for 10 frames
    win.act_play_pause.trigger()
    fake.present(200)
    assert win.player.paused and win.act_play_pause.isChecked()
    assert win.status_texts()["playback"] == f"Paused preset three: entry 1/3, {0.5 - 10 * T:.1f} s left"
    assert len(win.player.log) == 0
    win.act_play_pause.trigger()                # resume
    win.act_play_next.trigger()
    fake.present(2)
    assert win.player.playback.position == 1 and not win.player.paused
    win.act_preset_next.trigger()               # PgDown while playing moves the playback
    fake.present(2)
    assert win.player.playback.position == 2
    win.act_play_prev.trigger()
    fake.present(2)
    assert win.player.playback.position == 1
    win.act_play_stop.trigger()
    assert win.player.state == "stopped" and win.status_texts()["playback"] == ""
    assert not win.status_bar.st_play.isVisible()
    log = list(win.player.log)
    assert [(r.entry, r.left_by) for r in log] == [(1, "next"), (2, "next"), (3, "previous"), (2, "stop")]
    assert log[0].paused_s == 200 * T
    assert log[-1].left_frame == fake.frame - 1
    assert win.act_play_export.isEnabled() and not win.act_play_next.isEnabled()
    spec = win.spec
    fake.present(200)                           # stopped: nothing changes any more
    assert win.spec == spec


def test_a_looped_preset_goes_round_until_stopped(qtbot, quiet_window):
    win = quiet_window
    three_entries(win, dwell_s=0.25, entries=[{"pattern": "solid", "params": {"color": "0%"}},
                                              {"pattern": "solid", "params": {"color": "100%"}}])
    fake = FakePresents(win)
    win.play_preset("three", loop=True)
    assert win.act_play_loop.isChecked()
    fake.present(16 * 4 + 2)
    assert [(r.entry, r.lap) for r in win.player.log] == [(1, 1), (2, 1), (1, 2), (2, 2)]
    assert "lap 3" in win.status_texts()["playback"]
    win.act_play_loop.trigger()                 # unticked: this lap is the last
    fake.present(40)
    assert win.player.playback.finished and len(win.player.log) == 6


def test_the_play_log_exports_as_csv_and_reads_back(qtbot, quiet_window, tmp_path):
    win = quiet_window
    three_entries(win)
    fake = FakePresents(win)
    win.play_preset("three")
    fake.present(60)
    path = tmp_path / "play.csv"
    win.export_play_log_to(str(path))
    qtbot.waitUntil(lambda: not win.worker.busy, timeout=5000)
    assert PlaybackLog.read_csv(path).records == win.player.log.records
    assert len(win.player.log) == 2
    assert f"wrote 2 play-log entries to {path}" in win.statusBar().currentMessage()
    win.export_play_log_to(str(tmp_path / "absent" / "play.csv"))
    qtbot.waitUntil(lambda: not win.worker.busy, timeout=5000)
    assert "folder does not exist" in win.statusBar().currentMessage()


def test_playing_refuses_an_unknown_preset_and_one_that_cannot_be_shown(qtbot, quiet_window):
    win = quiet_window
    win.play_preset("no such preset")
    assert not win.player.active
    assert "no preset named 'no such preset': expected one of" in win.statusBar().currentMessage()
    win.frame_settings.set_values(8, False, [16, 9], True, 16)   # a 16-bit counter cannot fit 16x9
    win.play_preset("ANSI contrast")
    assert not win.player.active
    assert "cannot play 'ANSI contrast'" in win.statusBar().currentMessage()
    win.play_current_preset()
    assert not win.player.active


def test_play_runs_the_chosen_preset_and_the_shortcuts_do_not_clash(qtbot, quiet_window):
    win = quiet_window
    win.choose_preset("ANSI contrast inverse")
    win.act_play.trigger()
    assert win.player.active and win.player.preset.name == "ANSI contrast inverse"
    shortcuts = [s.toString() for a in win.actions() for s in a.shortcuts()]
    assert len(shortcuts) == len(set(shortcuts))
    for act in (win.act_play, win.act_play_pause, win.act_play_next, win.act_play_prev, win.act_play_stop,
                win.act_play_loop):
        assert act.shortcut().toString()


def test_a_real_loop_plays_a_preset_to_the_end_on_its_own_presents(qtbot, main_window):
    win = main_window
    three_entries(win, dwell_s=0.05, entries=[{"pattern": "solid", "params": {"color": "0%"}},
                                              {"pattern": "solid", "params": {"color": "50%"}}])
    win.play_preset("three")
    qtbot.waitUntil(lambda: win.player.playback.finished, timeout=10000)
    log = list(win.player.log)
    assert [r.entry for r in log] == [1, 2]
    assert log[0].left_frame == log[1].frame and log[0].frame < log[1].frame < log[1].left_frame
    assert log[0].left_s == log[1].shown_s
    stamps = dict(zip(win.loop.timeline.column("index").tolist(),
                      win.loop.timeline.column("present_s").tolist(), strict=True))
    assert all(stamps[r.frame] == r.shown_s for r in log)   # the loop's own present timestamps


def test_the_meter_preset_is_in_the_menu_and_plays(quiet_window):
    win = quiet_window
    assert "meter greyscale 10 steps" in [p.name for p in win.presets]
    fake = FakePresents(win)
    win.play_preset("meter greyscale 10 steps")
    fake.present(2)
    assert win.spec == get_preset("meter greyscale 10 steps").entries[0].spec(64, 36, bit_depth=8)
    assert win.status_texts()["playback"].startswith("Playing preset meter greyscale 10 steps: entry 1/11")


def test_choosing_a_preset_by_hand_ends_the_playback(quiet_window):
    win = quiet_window
    three_entries(win)
    fake = FakePresents(win)
    win.play_preset("three")
    fake.present(5)
    assert win.choose_preset("PLUGE")
    assert win.player.state == "stopped" and win.spec.pattern == "pluge"
    fake.present(100)
    assert win.spec.pattern == "pluge"
    assert [r.left_by for r in win.player.log] == ["stop"]
