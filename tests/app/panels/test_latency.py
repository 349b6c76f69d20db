"""The Latency panel against the main window's live output (offscreen), captured by a fake
screen with a known latency: Start shows the robust counter, the running view fills from the
worker's updates, the report recovers the latency, Stop and export work, nothing blocks."""

import json
import threading

import numpy as np
import pytest

from tests.helpers.live_sim import DelayedScreen

pytestmark = pytest.mark.qt

LATENCY_S = 0.040
CAPTURE_HZ = 120.0


@pytest.fixture
def window(qtbot):
    from app.settings import Settings
    from app.window import MainWindow

    before = set(threading.enumerate())
    win = MainWindow(settings=Settings(pattern="checkerboard", bit_depth=8, size=[320, 180]), persist=False)
    qtbot.addWidget(win)
    win.resize(1280, 720)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not left, f"threads left running after close: {left}"


def latency_panel(win):
    from app.panels import LatencyPanel

    panel = win.docks["latency"].widget().widget()
    assert isinstance(panel, LatencyPanel)
    return panel


def screen_for(win, seconds=30.0):
    screen = DelayedScreen(win.loop.spec, LATENCY_S, CAPTURE_HZ, seconds=seconds)
    win.loop.frame_presented.connect(screen.presented)
    # the counter is switched on by Start: the screen shows what is presented from then on
    win.spec_changed.connect(lambda spec: setattr(screen, "spec", spec))
    return screen


def test_start_shows_the_robust_counter_and_measures_the_latency(qtbot, window, tmp_path):
    panel = latency_panel(window)
    panel.seconds_spin.setValue(3)
    screen = screen_for(window)
    updates = []
    panel.latency_progressed.connect(updates.append)
    with qtbot.waitSignal(panel.latency_finished, timeout=60_000) as done:
        panel.start("screen", opener=lambda: screen)
        spec = window.current_spec()
        assert spec.pattern == "counter" and spec.param_dict["layout"] == "robust"
        assert panel.start_button.text() == "Stop" and not panel.source.isEnabled()
    r = done.args[0]
    # settled frames arrived while it ran, a few times a second, before the report
    assert updates and any(len(u.present_s) for u in updates)
    assert r["presented"] >= 10 and r["matched"] >= 0.5 * r["presented"]
    assert r["capture_drops"] == 0 and r["unmatched_captures"] == 0 and r["captures_unknown"] == 0
    # every other presented frame is accounted for: a display drop is a frame this screen showed
    # for less than a capture period (the loop presented the next one that soon: a real drop)
    status = [f["status"] for f in r["frames"]]
    assert set(status) <= {"matched", "dropped", "before_capture", "after_capture"}
    assert status.count("dropped") == r["display_drops"]
    assert all(screen.shown_for(i) < 1.0 / CAPTURE_HZ for i in r["dropped"]), r["dropped"]
    # a 40 ms display captured at 120 Hz: each sample 40 ms plus up to one capture period
    # (and the moment between the swap returning and the screen seeing the present)
    period_ms = 1000.0 / CAPTURE_HZ
    lat = r["latency_ms"]
    assert 1e3 * LATENCY_S - 1 <= lat["min"] and lat["median"] <= 1e3 * LATENCY_S + period_ms + 5
    # the view holds the whole run: one point per matched frame, the histogram over them
    xs, ys = panel.view.time_item.getData()
    assert len(ys) == r["matched"] and np.allclose(np.sort(ys), np.sort(
        [f["latency_ms"] for f in r["frames"] if f["latency_ms"] is not None]))
    edges, counts = panel.view.hist_item.getData()
    assert counts.sum() == r["matched"]
    assert panel.status_label.text().startswith(f"Latency {lat['median']:.2f} ms median")
    assert panel.export_button.isEnabled() and panel.start_button.text() == "Start"
    for name in ("latency.json", "latency.csv", "latency.png"):
        with qtbot.waitSignal(panel.report_exported, timeout=30_000):
            panel.export_to(str(tmp_path / name))
    assert json.loads((tmp_path / "latency.json").read_text())["matched"] == r["matched"]
    assert (tmp_path / "latency.csv").read_text().count("\n") == r["presented"] + 1


def test_stop_returns_what_was_measured(qtbot, window):
    panel = latency_panel(window)
    panel.seconds_spin.setValue(600)
    screen = screen_for(window)
    updates = []
    panel.latency_progressed.connect(updates.append)
    panel.start("screen", opener=lambda: screen)
    qtbot.waitUntil(lambda: any(u.presented > 30 for u in updates), timeout=60_000)
    with qtbot.waitSignal(panel.latency_finished, timeout=60_000) as done:
        panel.start_button.click()
    r = done.args[0]
    assert r["cancelled"] is True and r["matched"] > 0
    assert "(stopped early)" in panel.status_label.text()
    assert not panel.running and panel.recorder is not None and not panel.recorder.active


def test_a_source_that_cannot_open_is_one_sentence(qtbot, window):
    panel = latency_panel(window)
    with qtbot.waitSignal(panel.latency_failed, timeout=30_000) as failed:
        panel.start("v4l2:/dev/video-none")
    assert "v4l2:/dev/video-none" in failed.args[0]
    assert panel.status_label.text().startswith("Cannot measure:") and not panel.running
    with qtbot.waitSignal(panel.latency_failed, timeout=5_000) as failed:
        panel.start("")
    assert "choose the capture source" in failed.args[0]
