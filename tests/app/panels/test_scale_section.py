"""The Decode panel's scale section on the offscreen platform: Measure scale runs off the GUI
thread as the panel's job and shows h and v; bad input is one sentence; Stop stops it."""

import threading

import numpy as np
import pytest

from core.imageio import write_frame
from core.manifest import save_frame
from core.patterns import make_spec, render
from tests.helpers.scale_sim import Degrade, captured_plate

pytestmark = pytest.mark.qt


@pytest.fixture
def panel(qtbot):
    from app.panels import DecodePanel

    before = set(threading.enumerate())
    p = DecodePanel()
    qtbot.addWidget(p)
    p.resize(1280, 720)
    p.show()
    yield p
    p.shutdown()
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not left, f"threads left running: {left}"


@pytest.fixture
def manifest(tmp_path):
    spec = make_spec("zone_plate", {}, width=720, height=720)
    save_frame(tmp_path / "plate.png", spec, render(spec), 0)
    return str(tmp_path / "plate.png.json")


def _capture(path, sx, sy, seed=0):
    img, tx, ty = captured_plate(sx, sy, "area", Degrade(noise=0.01, gamma=2.2), seed=seed)
    write_frame(path, np.repeat(img[..., None], 3, axis=2), 8)
    return tx, ty


def test_measure_scale_shows_h_and_v_from_the_panels_fields(qtbot, panel, manifest, tmp_path):
    tx, ty = _capture(tmp_path / "cap.png", 0.5, 0.8)
    panel.path_edit.setText(str(tmp_path / "cap.png"))
    panel.manifest_edit.setText(manifest)
    threads = []
    with qtbot.waitSignal(panel.scale.scale_measured, timeout=30000) as blocker:
        panel.scale.button.click()
        threads.append(panel.worker.thread)
        assert panel.scale.button.text() == "Stop" and not panel.decode_button.isEnabled()
    assert threads[0] is not threading.main_thread()
    med = blocker.args[0]["median"]
    assert med["scale_x"] == pytest.approx(tx, abs=0.02) and med["scale_y"] == pytest.approx(ty, abs=0.02)
    text = panel.scale.result_label.text()
    assert f"h {med['scale_x']:.4f}" in text and f"v {med['scale_y']:.4f}" in text
    assert panel.scale.button.text() == "Measure scale" and panel.decode_button.isEnabled()
    assert not panel.running
    # usable at 1280x720: the section is on screen with the rest of the panel
    assert panel.scale.isVisible() and panel.scale.geometry().bottom() < panel.height()


def test_no_plate_and_no_manifest_are_one_sentence(qtbot, panel, manifest, tmp_path):
    write_frame(tmp_path / "grey.png", np.full((200, 300, 3), 128, np.uint8), 8)
    with qtbot.waitSignal(panel.scale.scale_failed, timeout=30000) as blocker:
        panel.scale.start(str(tmp_path / "grey.png"), manifest)
    assert "zone plate" in blocker.args[0] and "\n" not in blocker.args[0]
    assert "cannot measure" in panel.scale.result_label.text()
    with qtbot.waitSignal(panel.scale.scale_failed, timeout=30000) as blocker:
        panel.scale.start(str(tmp_path / "grey.png"), None)
    assert "no manifest" in blocker.args[0] and "Error" not in blocker.args[0]
    panel.path_edit.setText("")
    panel.scale.start()
    assert "choose a captured image" in panel.scale.result_label.text() and not panel.running


def test_stop_ends_a_long_measurement_with_the_frames_so_far(qtbot, panel, manifest, tmp_path):
    folder = tmp_path / "cap"
    folder.mkdir()
    for i in range(40):
        _capture(folder / f"f{i:02d}.png", 0.6, 0.6, seed=i)
    with qtbot.waitSignal(panel.scale.running_changed, timeout=5000):
        panel.scale.start(str(folder), manifest)
    qtbot.waitUntil(lambda: "frame" in panel.scale.result_label.text()
                    or not panel.scale.measuring, timeout=30000)
    with qtbot.waitSignal(panel.scale.scale_measured, timeout=30000) as blocker:
        panel.scale.button.click()     # Stop
    report = blocker.args[0]
    assert report["cancelled"] and 0 < len(report["frames"]) < 40
    assert "stopped early" in panel.scale.result_label.text()


def test_a_decode_running_disables_the_section(qtbot, panel):
    assert panel.scale.isEnabled()
    panel._set_running(True)
    assert not panel.scale.isEnabled()
    panel._set_running(False)
    assert panel.scale.isEnabled()
