"""The Decode dock's Live section on the offscreen platform, fed by fake live sources: batches
reach the plot and the running summary, the report is the panel's, Stop returns the partial
report, a refused source is one sentence, and no thread outlives the panel."""

import threading

import pytest

from tests.helpers.live_sim import FakeSource, counter_plane, counter_spec

pytestmark = pytest.mark.qt

SPEC = counter_spec(320, 180, bits=10)
SHOWN = [*range(200, 240), *range(241, 280)]        # index 240 never reached the screen


@pytest.fixture
def panel(qtbot):
    from app.panels import DecodePanel

    before = set(threading.enumerate())
    p = DecodePanel(list_sources=lambda: [("USB capture (v4l2:/dev/video4)", "v4l2:/dev/video4"),
                                          ("this X screen", "x11grab::9")])
    qtbot.addWidget(p)
    p.resize(1000, 640)
    p.show()
    qtbot.waitUntil(lambda: p.live.source.combo.count() == 2)
    yield p
    p.shutdown()
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not left, f"threads left running: {left}"


def test_sources_listed_off_the_gui_thread_and_chosen_by_spec(panel):
    box = panel.live.source
    box.combo.setCurrentIndex(1)
    assert box.spec() == "x11grab::9"          # the entry's spec, not its label
    box.set_spec("file:capture.mkv")
    assert box.spec() == "file:capture.mkv"    # typed: as typed


def test_a_live_source_is_decoded_into_the_plot_summary_and_report(qtbot, panel):
    frames = [counter_plane(SPEC, i) for i in SHOWN]
    panel.display_fps_spin.setValue(60)
    with qtbot.waitSignal(panel.decode_finished, timeout=30_000) as done:
        panel.live.start("fake", opener=lambda: FakeSource(frames, 60.0))
        assert panel.live.start_button.text() == "Stop" and panel.cancel_button.isEnabled()
        assert not panel.decode_button.isEnabled() and not panel.scale.isEnabled()
    report = done.args[0]
    assert report["live"] is True and report["cancelled"] is False
    s = report["summary"]
    assert s["frames"] == len(SHOWN) and s["dropped"] == [240] and s["capture_drops"] == 0
    assert panel.report is report and panel.export_button.isEnabled()
    assert len(panel.plot.ok_item.data) == len(SHOWN) and len(panel.plot.drop_item.data) == 1
    assert panel.live.summary_label.text().startswith(f"Live: {len(SHOWN)} frames")
    assert panel.live.start_button.text() == "Start live" and panel.decode_button.isEnabled()


def test_stop_returns_the_partial_report_and_capture_drops_stay_apart(qtbot, panel):
    frames = [counter_plane(SPEC, i) for i in range(64)]
    source = FakeSource(frames, 60.0, endless=True, lost={100: 2})
    summaries = []
    panel.live.live_progressed.connect(summaries.append)
    panel.live.start("fake", opener=lambda: source)
    qtbot.waitUntil(lambda: bool(summaries) and summaries[-1]["frames"] > 150, timeout=30_000)
    assert len(panel.plot.ok_item.data) > 0                       # the plot grows while it runs
    with qtbot.waitSignal(panel.decode_cancelled, timeout=30_000) as stopped:
        panel.live.start_button.click()
    report = stopped.args[0]
    assert report["cancelled"] is True and report["summary"]["frames"] >= summaries[-1]["frames"]
    assert report["summary"]["capture_drops"] == 2                # the source's two, not the display's
    assert source.closed and not panel.running
    assert panel.live.start_button.text() == "Start live"


def test_a_refused_source_is_one_sentence_and_nothing_runs(qtbot, panel):
    with qtbot.waitSignal(panel.live.live_failed, timeout=30_000) as failed:
        panel.live.start("not-a-source")
    assert "unknown capture source 'not-a-source'" in failed.args[0]
    assert panel.live.summary_label.text().startswith("Live: cannot decode: unknown capture source")
    assert not panel.running and panel.decode_button.isEnabled()
    panel.live.seconds_spin.setValue(0)
    panel.live.source.set_spec("")
    panel.live.start()
    assert panel.live.summary_label.text() == "Live: choose a capture source first." and not panel.running
