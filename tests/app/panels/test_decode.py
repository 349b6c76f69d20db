"""The Decode panel on the offscreen platform: the worker finishes, cancel stops it, export works."""

import csv
import itertools
import json
import threading

import numpy as np
import pytest

from core.capture import CapturedFrame
from core.imageio import read_frame, write_frame
from core.patterns import make_spec, render

pytestmark = pytest.mark.qt

SPEC = make_spec("counter", {"bits": 10, "layout": "robust"}, width=320, height=180, bit_depth=8,
                 dtype="uint8")


@pytest.fixture
def capture_folder(tmp_path):
    folder = tmp_path / "cap"
    folder.mkdir()
    for pos, idx in enumerate([100, 101, 101, 103, 104, 105]):
        write_frame(folder / f"f{pos}.png", render(SPEC, idx), 8)
    return folder


@pytest.fixture
def panel(qtbot):
    from app.panels import DecodePanel

    before = set(threading.enumerate())
    p = DecodePanel()
    qtbot.addWidget(p)
    p.resize(900, 500)
    p.show()
    yield p
    p.shutdown()
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not left, f"threads left running: {left}"


def endless_frames():
    """A capture that never ends: only cancelling stops the decode."""
    imgs = [render(SPEC, i) for i in range(8)]
    for pos in itertools.count():
        yield CapturedFrame(pos, pos / 60, imgs[pos % 8])


def test_no_argument_constructor_and_panel_hook(qtbot):
    from app.panels import decode as decode_panel

    p = decode_panel.create_panel(None)
    qtbot.addWidget(p)
    assert isinstance(p, decode_panel.DecodePanel) and decode_panel.PANEL_TITLE == "Decode"
    assert not p.cancel_button.isEnabled() and not p.export_button.isEnabled()


def test_decode_runs_off_the_gui_thread_and_shows_everything(qtbot, panel, capture_folder):
    threads = []
    panel.decode_started.connect(lambda _: threads.append(panel.worker.thread))
    with qtbot.waitSignal(panel.decode_finished, timeout=20000) as blocker:
        panel.start(str(capture_folder))
        assert panel.running and panel.cancel_button.isEnabled() and not panel.decode_button.isEnabled()
    report = blocker.args[0]
    assert threads and threads[0] is not threading.main_thread()
    assert not panel.running and panel.decode_button.isEnabled() and panel.export_button.isEnabled()
    s = report["summary"]
    assert s["dropped"] == [102] and s["repeated"] == 1 and s["layout"] == "robust"
    assert panel.progress.value() == panel.progress.maximum()
    assert "dropped: 1 (102)" in panel.summary_view.toPlainText()
    # plot: every decoded frame, and the drop and repeat marked
    xs, ys = panel.plot.ok_item.getData()
    assert list(xs) == [0, 1, 2, 3, 4, 5] and list(ys) == [100, 101, 101, 103, 104, 105]
    assert len(panel.plot.drop_item.getData()[0]) == 1 and len(panel.plot.repeat_item.getData()[0]) == 1
    # event table: one row per event
    kinds = [panel.table.item(r, 2).text() for r in range(panel.table.rowCount())]
    assert sorted(kinds) == ["drop", "repeat"]


def test_cancel_stops_the_worker_and_keeps_what_was_read(qtbot, panel):
    with qtbot.waitSignal(panel.decode_progressed, timeout=20000):
        panel.start("live", frames=endless_frames())
    with qtbot.waitSignal(panel.decode_cancelled, timeout=20000) as blocker:
        panel.cancel()
    report = blocker.args[0]
    assert report["cancelled"] is True and report["summary"]["frames"] > 0
    assert not panel.running and panel.decode_button.isEnabled()
    assert "Cancelled" in panel.status_label.text()
    assert all(f["status"] == "ok" for f in report["frames"])


def test_bad_input_is_reported_not_raised(qtbot, panel, tmp_path):
    with qtbot.waitSignal(panel.decode_failed, timeout=20000) as blocker:
        panel.start(str(tmp_path / "missing"))
    assert "does not exist" in blocker.args[0] and "Cannot decode" in panel.status_label.text()
    assert not panel.running
    panel.path_edit.setText("")
    panel.start()
    assert not panel.running and "Choose" in panel.status_label.text()


def test_export_json_csv_png(qtbot, panel, capture_folder, tmp_path):
    with qtbot.waitSignal(panel.decode_finished, timeout=20000):
        panel.start(str(capture_folder))
    for name in ("r.json", "r.csv", "r.png"):
        with qtbot.waitSignal(panel.report_exported, timeout=20000):
            panel.export_to(str(tmp_path / name))
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["summary"]["dropped"] == [102]
    assert len(list(csv.DictReader((tmp_path / "r.csv").open()))) == 6
    assert read_frame(tmp_path / "r.png").shape[2] == 3
    with qtbot.waitSignal(panel.export_failed, timeout=20000) as blocker:
        panel.export_to(str(tmp_path / "r.txt"))
    assert ".json, .csv or .png" in blocker.args[0]


def test_controls_build_the_request(panel, tmp_path):
    panel.path_edit.setText(str(tmp_path))
    panel.manifest_edit.setText("m.json")
    panel.bits_spin.setValue(12)
    panel.fps_spin.setValue(120)
    r = panel.request()
    assert (r.path, r.manifest, r.bits, r.capture_fps) == (str(tmp_path), "m.json", 12, 120.0)
    panel.bits_spin.setValue(0)
    panel.fps_spin.setValue(0)
    assert panel.request().bits is None and panel.request().capture_fps is None


def test_shutdown_with_a_decode_running(qtbot, panel):
    with qtbot.waitSignal(panel.decode_progressed, timeout=20000):
        panel.start("live", frames=endless_frames())
    panel.shutdown()
    assert not panel.running
    assert np.isfinite(panel.plot.ok_item.getData()[0]).all()


def test_main_window_docks_the_panel_and_stops_it_on_close(qtbot, main_window):
    from PySide6.QtWidgets import QDockWidget, QScrollArea

    from app.panels import DecodePanel

    # the dock holds the panel in a scroll area (a tall panel scrolls, never cut off)
    docks = [d for d in main_window.findChildren(QDockWidget)
             if isinstance(d.widget(), QScrollArea) and isinstance(d.widget().widget(), DecodePanel)]
    assert len(docks) == 1 and docks[0].windowTitle() == "Decode"
    panel = docks[0].widget().widget()
    with qtbot.waitSignal(panel.decode_progressed, timeout=20000):
        panel.start("live", frames=endless_frames())
    # the main_window fixture closes the window and fails if the decode thread is left running


def test_a_capture_nothing_decodes_shows_could_not_verify_not_a_pass(qtbot, panel, tmp_path):
    compat = make_spec("counter", {"bits": 16, "layout": "compat"}, width=320, height=180, bit_depth=8,
                       dtype="uint8")
    folder = tmp_path / "still"
    folder.mkdir()
    for pos in range(30):   # thirty copies of one frame, no sidecar: the bit count never settles
        write_frame(folder / f"f{pos:03d}.png", render(compat, 1234), 8)
    with qtbot.waitSignal(panel.decode_finished, timeout=20000) as blocker:
        panel.start(str(folder))
    report = blocker.args[0]
    assert report["verified"] is False
    assert panel.verdict_label.isVisible()
    assert panel.verdict_label.text().startswith("Could not verify: no frame decoded (30 undecodable of 30)")
    assert "Verified" not in panel.verdict_label.text()
    status = panel.status_label.text()
    assert "drops unknown, repeats unknown" in status and "0 dropped" not in status
    text = panel.summary_view.toPlainText()
    assert "dropped: unknown" in text and "captures per displayed frame: unknown" in text
    assert "display ~" not in text


def test_a_clean_capture_shows_verified(qtbot, panel, tmp_path):
    folder = tmp_path / "clean"
    folder.mkdir()
    for pos, idx in enumerate(range(200, 206)):
        write_frame(folder / f"f{pos}.png", render(SPEC, idx), 8)
    with qtbot.waitSignal(panel.decode_finished, timeout=20000):
        panel.start(str(folder))
    assert panel.verdict_label.text() == "Verified: no frame dropped and no freeze across 6 decoded frames"
    # a drop after it: failed, and the verdict line follows the new report
    (folder / "f5.png").unlink()
    write_frame(folder / "f5.png", render(SPEC, 207), 8)
    with qtbot.waitSignal(panel.decode_finished, timeout=20000):
        panel.start(str(folder))
    assert panel.verdict_label.text() == "Failed: 2 frames dropped"   # 205 and 206
