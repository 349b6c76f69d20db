"""The main window on the offscreen platform (raster presenter, timer-paced)."""

import json

import numpy as np
import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QImage, QKeyEvent

from app.window import TimingDock
from core.engine import Engine
from core.timing import Timeline, counter_texts, frame_stats

pytestmark = pytest.mark.qt


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


def engine_frame(spec, index=0) -> np.ndarray:
    with Engine(spec, fmt="rgb8") as eng:
        return eng.render(index).data[..., :3].copy()


def wait_frames(qtbot, win, n=2):
    target = win.loop.presented_count + n
    qtbot.waitUntil(lambda: win.loop.presented_count >= target, timeout=5000)


def test_window_opens_presents_and_closes(qtbot, main_window):
    wait_frames(qtbot, main_window, 3)
    assert main_window.preview.kind == "raster"
    assert main_window.loop.running
    # the fixture closes it and fails if any thread outlives it


def test_choosing_a_pattern_and_a_parameter_changes_the_preview_to_the_engine_frame(qtbot, main_window):
    win = main_window
    win.act_one_to_one.trigger()
    assert win.preview.one_to_one
    win.catalog.select("bars")
    assert win.spec.pattern == "bars" and win.editor.pattern.name == "bars"
    wait_frames(qtbot, win)
    before = shown_frame(win)
    assert np.array_equal(before, engine_frame(win.spec))
    win.editor.editors["level"].setValue(100.0)
    assert win.spec.param_dict["level"] == 100.0
    wait_frames(qtbot, win)
    after = shown_frame(win)
    assert not np.array_equal(before, after)
    assert np.array_equal(after, engine_frame(win.spec))


def test_an_animated_frame_on_screen_is_the_engine_frame_for_its_index(qtbot, main_window):
    win = main_window
    win.set_one_to_one(True)
    win.choose_pattern("counter")
    win.editor.editors["bits"].setValue(4)
    win.set_paused(True)
    wait_frames(qtbot, win)
    index = win.loop.index
    assert np.array_equal(shown_frame(win), engine_frame(win.spec, index))
    win.act_forward.trigger()
    wait_frames(qtbot, win)
    assert win.loop.index == index + 1
    assert np.array_equal(shown_frame(win), engine_frame(win.spec, index + 1))


def test_a_refused_value_is_shown_and_the_frame_kept(qtbot, main_window):
    win = main_window
    win.frame_settings.bit_depth.setValue(4)
    assert win.spec.bit_depth == 4
    assert win.spec.param_dict["palette"] == ((15, 15, 15), (0, 0, 0))   # white stays white
    spec = win.spec
    win.frame_settings.range.setCurrentIndex(1)   # limited range needs 8 bits
    assert "limited range needs at least 8 bits" in win.editor.error.text()
    assert win.spec == spec
    wait_frames(qtbot, win)                        # and the loop keeps presenting


def test_editor_follows_the_registry(main_window):
    win = main_window
    win.choose_pattern("checkerboard")
    tile = win.editor.editors["tile"]
    assert (tile.minimum(), tile.maximum()) == (1, 8192)
    pal = win.editor.editors["palette"]
    assert pal.value() == ((255, 255, 255), (0, 0, 0))            # 8-bit white / black
    assert pal.rows[0].spins[0].maximum() == 255
    win.frame_settings.bit_depth.setValue(10)
    assert pal.value() == ((1023, 1023, 1023), (0, 0, 0))
    assert win.spec.param_dict["palette"] == ((1023, 1023, 1023), (0, 0, 0))
    assert pal.rows[0].swatch_colour().name() == "#ffffff"
    win.choose_pattern("window")
    assert win.editor.editors["background_mode"].currentText() == "fixed"
    win.choose_pattern("pluge")
    assert win.editor.editors["white_patch"].isChecked()


def test_catalog_search_filters_by_name_title_and_group(main_window):
    cat = main_window.catalog
    cat.search.setText("zone")
    assert cat.visible_patterns() == ["zone_plate"]
    cat.search.setText("gradients")
    assert set(cat.visible_patterns()) == {"ramp", "steps"}
    cat.search.setText("")
    assert len(cat.visible_patterns()) >= 11


def test_status_bar_names_path_source_device_size_and_pacing(qtbot, main_window):
    win = main_window
    wait_frames(qtbot, win, 3)
    win.figures.refresh()
    st = win.status_texts()
    assert st["path"].startswith("path numpy (default)")
    assert st["device"] == "cpu"
    assert st["size"].startswith("64x36 8-bit full")
    assert st["pacing"] == "timer-paced 60.00 Hz"
    assert st["fps"].endswith("fps") and st["fps"][0].isdigit()


def test_pause_and_step_shortcuts(qtbot, main_window):
    win = main_window
    assert not win.act_forward.isEnabled()
    win.act_pause.trigger()
    assert win.loop.paused and win.act_forward.isEnabled()
    i = win.loop.index
    wait_frames(qtbot, win, 3)
    assert win.loop.index == i
    win.act_back.trigger()
    assert win.loop.index == max(0, i - 1)
    # keys pressed in a GL window come through the same actions
    win._on_presenter_key(QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Space, Qt.KeyboardModifier.NoModifier))
    assert not win.loop.paused


def test_save_current_frame_writes_image_and_sidecar(qtbot, main_window, tmp_path):
    from core.imageio import read_frame
    from core.patterns import render

    win = main_window
    win.choose_pattern("counter")
    win.set_paused(True)
    index = win.loop.index
    out = tmp_path / "frame.png"
    win.save_frame_to(str(out))
    qtbot.waitUntil(lambda: win.worker.busy == 0 and out.with_name("frame.png.json").exists(), timeout=5000)
    side = json.loads(out.with_name("frame.png.json").read_text())
    assert side["pattern"] == "counter" and side["frame"] == index and side["bit_depth"] == 8
    frame = read_frame(out)
    assert np.array_equal(frame, render(win.spec, index))
    assert "saved frame" in win.log_dock.lines[-1]


def test_save_refusal_is_reported_not_raised(qtbot, main_window, tmp_path):
    win = main_window
    win.save_frame_to(str(tmp_path / "missing" / "frame.png"))
    qtbot.waitUntil(lambda: win.worker.busy == 0, timeout=5000)
    assert "could not save" in win.log_dock.lines[-1]


def test_render_errors_reach_the_log_and_the_loop_keeps_running(qtbot, main_window):
    from core.engine import RenderedFrame

    win = main_window
    real = win.loop.engine.render
    win.loop.engine.render = lambda i, out=None, lines=None: RenderedFrame(
        i, real(i, out=out).data, "numpy", 0.0, 0.0, error=f"frame {i}: boom")
    win.loop.step(1)        # a static frame is rendered again only when something changes
    wait_frames(qtbot, win, 3)
    assert any("render error: frame" in line and "boom" in line for line in win.log_dock.lines)
    win.loop.engine.render = real
    n = win.loop.presented_count
    wait_frames(qtbot, win, 3)
    assert win.loop.presented_count > n


def test_timing_dock_counters_equal_core_statistics(qtbot):
    period = 1000.0 / 60.0
    tl = Timeline()
    t = 0.0
    intervals = [period] * 50 + [40.0] + [period] * 20 + [70.0] + [period] * 30
    for i, iv in enumerate([0.0] + intervals):
        t += iv / 1e3
        tl.append(i, t, 2.0 + (i % 5), 0.1, 0.4, 1.0, "numpy", warmup=i < 2)
    dock = TimingDock()
    qtbot.addWidget(dock)
    stats = dock.update_from(tl, period)
    snap = tl.snapshot()
    core = frame_stats(snap.present_s, period, render_ms=snap.render_ms, transfer_ms=snap.transfer_ms,
                       warmup=2)
    assert stats == core
    assert dock.texts() == counter_texts(core)
    # the figures themselves: 40 ms misses one vsync, 70 ms three
    assert dock.texts()["late"] == "2" and dock.texts()["missed_vsyncs"] == "4"
    assert dock.texts()["frames"] == str(len(intervals) + 1 - 2)
    x, y = dock.interval_item.getData()
    assert x.dtype == np.float64 and len(x) == len(tl) and x[-1] == 0.0
    assert np.nanmax(y) == pytest.approx(70.0)


def test_live_timing_dock_matches_core_on_the_loop_timeline(qtbot, main_window):
    win = main_window
    wait_frames(qtbot, win, 8)
    win.loop.stop()
    stats = win.timing.update_from(win.loop.timeline, win.loop.period_ms)
    snap = win.loop.timeline.snapshot()
    assert stats == frame_stats(snap.present_s, win.loop.period_ms, render_ms=snap.render_ms,
                                transfer_ms=snap.transfer_ms, warmup=snap.leading_warmup)
    assert win.timing.texts()["frames"] == str(len(snap) - snap.leading_warmup)


def test_timeline_export_and_reset(qtbot, main_window, tmp_path):
    win = main_window
    wait_frames(qtbot, win, 4)
    out = tmp_path / "t.csv"
    win.export_timeline_to(str(out))
    qtbot.waitUntil(lambda: win.worker.busy == 0, timeout=5000)
    lines = out.read_text().splitlines()
    assert lines[0].startswith("frame,index,present_s") and len(lines) >= 5
    win.reset_timing()
    assert len(win.loop.timeline) <= 1


def test_record_button_streams_every_frame_until_stopped(qtbot, main_window, tmp_path, monkeypatch):
    win = main_window
    out = tmp_path / "record.csv"
    monkeypatch.setattr(win.dialogs, "save_file", lambda *a, **k: str(out))
    win.timing.record_button.click()           # start: the dialog answers with ``out``
    start = win.loop.presented_count
    wait_frames(qtbot, win, 6)
    assert not out.exists()                    # put in place whole only when the record stops
    win.timing.record_button.click()           # stop
    stop = win.loop.presented_count
    qtbot.waitUntil(lambda: win.worker.busy == 0 and out.exists(), timeout=5000)
    rows = out.read_text().splitlines()
    assert rows[0].startswith("frame,index,present_s")
    assert stop - start - 1 <= len(rows) - 1 <= stop - start + 1 and len(rows) - 1 >= 5
    assert any(m.startswith(f"recorded {len(rows) - 1} frames to") for m in win.log_dock.lines)


def test_settings_persist_between_runs(qtbot):
    from app import settings as S
    from app.window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    win.frame_settings.set_size_setting([96, 54])
    win.choose_pattern("ramp")
    win.frame_settings.bit_depth.setValue(12)
    win.editor.editors["scroll"].setValue(3)
    win.act_one_to_one.setChecked(True)
    win.close()
    stored = S.load()
    assert stored.pattern == "ramp" and stored.bit_depth == 12 and stored.size == [96, 54]
    assert stored.params["ramp"]["scroll"] == 3 and stored.one_to_one
    again = MainWindow()
    qtbot.addWidget(again)
    assert again.spec.pattern == "ramp" and again.spec.bit_depth == 12
    assert (again.spec.width, again.spec.height) == (96, 54)
    assert again.spec.param_dict["scroll"] == 3 and again.preview.one_to_one
    again.close()


def test_output_window_takes_over_the_loop_and_esc_returns(qtbot, main_window):
    win = main_window
    win.act_fullscreen.trigger()
    out = win.output.window
    assert out is not None and win.loop.presenter is out and win.loop.mirror is win.preview
    assert out.one_to_one
    screen = win.output_choice.qscreen().geometry()
    assert out.geometry() == screen
    n = win.loop.presented_count
    qtbot.waitUntil(lambda: win.loop.presented_count > n + 2, timeout=5000)
    win.act_leave.trigger()
    assert win.output.window is None and win.loop.presenter is win.preview
    assert not win.act_fullscreen.isChecked()


def test_panels_are_added_and_a_failing_one_is_logged(qtbot, main_window):
    import types

    from app.panels import load_panels

    def module(name, source):
        mod = types.ModuleType(name)
        exec(source, mod.__dict__)
        return mod

    good = module("good_panel", "from PySide6.QtWidgets import QLabel\nPANEL_TITLE = 'Good'\n"
                  "PANEL_AREA = 'bottom'\ndef create_panel(win):\n"
                  "    return QLabel(win.current_spec().pattern)\n")
    bad = module("bad_panel", "PANEL_TITLE = 'Bad'\nPANEL_AREA = 'right'\n"
                 "def create_panel(win):\n    raise RuntimeError('nope')\n")
    added = load_panels(main_window, [good, bad])
    assert added == ["Good"]
    # a panel's dock holds it in a scroll area, so a tall panel scrolls instead of being cut off
    assert main_window.docks["good"].widget().widget().text() == main_window.spec.pattern
    assert any("bad_panel could not be loaded" in line for line in main_window.log_dock.lines)


def test_builtin_panels_are_static_imports():
    from app import panels
    from app.panels import decode, latency, measure, remote

    assert panels.BUILTIN_PANELS == (decode, measure, latency, remote)
    assert [m.PANEL_TITLE for m in panels.BUILTIN_PANELS] == ["Decode", "Measure", "Latency", "Remote"]


def test_status_bar_says_when_the_environment_pinned_the_path(qtbot, monkeypatch, small_settings):
    from app.window import MainWindow

    monkeypatch.setenv("TESTCARD_RENDER_PATH", "torch-eager")
    win = MainWindow(settings=small_settings, persist=False)
    qtbot.addWidget(win)
    win.show()
    try:
        assert win.loop.path == "torch-eager" and win.loop.path_source == "pin"
        assert win.status_texts()["path"].startswith("path torch-eager (pin)")
        assert "TESTCARD_RENDER_PATH" in win.status_bar.st_path.toolTip()
        wait_frames(qtbot, win, 2)
        assert win.loop.timeline.snapshot().path[-1] == "torch-eager"
    finally:
        win.close()


def test_live_refresh_computes_statistics_off_the_gui_thread(qtbot, main_window):
    import threading

    import app.window.live_figures as lf

    win = main_window
    figures = win.figures
    wait_frames(qtbot, win, 5)
    win.loop.stop()
    figures.timer.stop()   # nor may the idle refresh start one in between
    # a refresh the last presents started may still be computing: it would make this one skip
    qtbot.waitUntil(lambda: figures.stats_worker.busy == 0, timeout=5000)
    threads = []
    real = lf.timing_view

    def spy(*args):
        threads.append(threading.current_thread())
        return real(*args)

    lf.timing_view = spy
    try:
        figures.refresh()
        qtbot.waitUntil(lambda: figures.stats_worker.busy == 0, timeout=5000)
    finally:
        lf.timing_view = real
    assert threads and threads[0] is not threading.main_thread()
    # the view is shown a piece per present; the loop is stopped, so all of it now
    qtbot.waitUntil(lambda: bool(win.timing._queued), timeout=5000)
    win.timing.flush()
    snap = win.loop.timeline.snapshot()
    assert win.timing.last_stats == frame_stats(snap.present_s, win.loop.period_ms, render_ms=snap.render_ms,
                                                transfer_ms=snap.transfer_ms, warmup=snap.leading_warmup)
    assert win.timing.texts()["frames"] == str(len(snap) - snap.leading_warmup)


def test_device_choice_is_listed_persisted_and_refused_when_absent(qtbot, monkeypatch):
    from app import settings as S
    from app.window import MainWindow

    S.save(S.Settings(size=[64, 36], bit_depth=8, device="cuda:7"))
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.loop.device == "cpu"                       # not on this box: cpu, and said so
    with qtbot.waitSignal(win.devices_listed, timeout=20000):   # listed after the first frame
        win.show()
    assert any("cuda:7 is not on this box" in line for line in win.log_dock.lines)
    combo = win.frame_settings.device
    assert combo.itemText(0) == "cpu" and win.status_texts()["device"] == "cpu"
    # a device the engine refuses keeps the loop where it was
    combo.addItem("cuda:7")
    combo.setCurrentText("cuda:7")
    assert win.loop.device == "cpu" and combo.currentText() == "cpu"
    assert "cannot render on cuda:7" in win.log_dock.lines[-1]
    win.close()
    # the user changed nothing: the replaced device is reported, not saved back over theirs
    assert S.load().device == "cuda:7"


def test_presets_menu_steps_through_a_pattern_set(qtbot, main_window):
    from core.patterns import get_preset

    win = main_window
    preset = get_preset("ANSI contrast")
    assert win.choose_preset("ANSI contrast")
    assert win.spec.pattern == preset.entries[0].pattern
    assert win.spec.param_dict["columns"] == 4 and win.spec.param_dict["rows"] == 4
    names = [p.name for p in win.presets]
    assert "near-black steps" in names and "counter over checkerboard" in names
    multi = next(p for p in win.presets if len(p.entries) > 2)
    win.choose_preset(multi.name)
    first = win.spec
    win.act_preset_next.trigger()
    assert win.preset_pos == 1 and win.spec != first
    win.act_preset_prev.trigger()
    assert win.preset_pos == 0 and win.spec == first
    assert not win.choose_preset("no such preset")


def test_a_pattern_that_does_not_fit_the_output_says_so_and_keeps_the_frame(main_window):
    # the scale chart needs 1280x720; this output is 64x36
    win = main_window
    before = win.current_spec()
    win.choose_pattern("scale_chart")
    assert win.current_spec() == before
    assert "1280x720" in win.editor.error.text()
    assert win.editor.editors["fg"].value() == (255, 255, 255)   # the defaults, as code values


def test_each_present_is_followed_by_one_piece_of_the_live_refresh(qtbot, main_window):
    win = main_window
    figures = win.figures
    wait_frames(qtbot, win, 3)
    win.loop.stop()
    figures.timer.stop()
    qtbot.waitUntil(lambda: figures.stats_worker.busy == 0, timeout=5000)
    win.timing.flush()
    ran = []
    real_apl, real_submit = figures.show_apl, figures.submit_statistics
    figures.show_apl = lambda: ran.append("apl") or real_apl()
    figures.submit_statistics = lambda: ran.append("statistics") or real_submit()
    win.spec = win.spec.replace(counter_bits=8)   # animated: the APL readout refreshes too
    figures.refresh(split=True)                   # the status bar now, the rest queued
    assert ran == []
    figures.after_present(0)
    assert ran == ["apl"]
    figures.after_present(1)
    assert ran == ["apl", "statistics"]
    qtbot.waitUntil(lambda: len(win.timing._queued) == 3, timeout=5000)   # the view's pieces
    for left in (2, 1, 0):
        figures.after_present(2)
        assert len(win.timing._queued) == left
    assert win.timing.last_stats is not None
