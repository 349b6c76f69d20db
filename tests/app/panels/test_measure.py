"""The Measure panel on the offscreen platform: a tiny race to the end, save, export,
import with its receipt, and a cancelled race that records nothing."""

import json
import threading

import pytest
from PySide6.QtCore import Qt

from app.panels import MeasurePanel, measure
from core.decisions import DecisionCache, cache_path, fingerprint

pytestmark = pytest.mark.qt

BAND = "animated@64x36/rgb10"


def _race_threads():
    return [t for t in threading.enumerate() if t.name in ("testcard-race", "testcard-decisions-io")]


@pytest.fixture
def panel(qtbot):
    p = MeasurePanel()
    qtbot.addWidget(p)
    yield p
    p.shutdown()
    assert _race_threads() == []


def tiny(panel, rounds=2, frames=3):
    panel.set_band(BAND)
    panel.set_candidates({"numpy", "torch-eager"})
    panel.rounds_spin.setValue(rounds)
    panel.frames_spin.setValue(frames)
    panel.warmup_spin.setValue(1)


def test_band_picker_and_candidates(panel):
    assert panel.band().name == "animated@1080p/rgb8"   # on its own: no live output to follow
    panel.set_band("counter@3840x2160/rgb16")
    assert panel.band().name == "counter@2160p/rgb16"
    panel.set_band(BAND)
    assert panel.band_label.text() == f"<b>{BAND}</b>"
    panel.custom_size.setText("64by36")
    assert panel.band() is None and not panel.start_button.isEnabled()
    assert "WxH" in panel.band_label.text()
    panel.custom_size.setText("64x36")
    assert panel.start_button.isEnabled()
    items = panel.candidate_items()
    assert list(items) == ["numpy", "torch-eager", "torch-compiled", "torch-cudagraphs"]
    cg = items["torch-cudagraphs"]
    assert not (cg.flags() & Qt.ItemIsEnabled)            # greyed out
    assert "CUDA" in cg.text() and "CUDA" in cg.toolTip()   # with its reason
    assert "torch-cudagraphs" not in panel.checked_paths()
    assert fingerprint("cpu") in panel.fingerprint_label.text()


def test_tiny_race_to_completion_then_save_export_import(panel, qtbot, tmp_path):
    tiny(panel)
    progress = []
    panel.race_progressed.connect(progress.append)
    with qtbot.waitSignal(panel.race_finished, timeout=120_000) as blocker:
        panel.start_button.click()
        assert panel.cancel_button.isEnabled() and not panel.start_button.isEnabled()
    result = blocker.args[0]
    assert result.band == BAND and result.winner in ("numpy", "torch-eager")
    assert progress and progress[-1].done <= progress[-1].total
    # live table and chart show the verdict
    assert panel.table.rowCount() == 2
    names = [panel.table.item(i, 0).text() for i in range(2)]
    assert f"{result.winner} (winner)" in names
    bars = panel.plot.bar_data()
    assert len(bars["x"]) == 2 and (bars["height"] > 0).all() and bars["winner_label"] == "winner"
    assert list(bars["height"]) == [result.candidates[n].median_ms for n in ("numpy", "torch-eager")]
    assert "Winner:" in panel.verdict_label.text()
    assert panel.progress_bar.value() == 1000
    # nothing recorded until Save
    assert not cache_path().exists()
    assert panel.save_button.isEnabled()
    with qtbot.waitSignal(panel.decision_saved, timeout=30_000) as saved:
        panel.save_button.click()
    assert saved.args[0] == f"{fingerprint('cpu')}|{BAND}"
    assert DecisionCache().load()[saved.args[0]]["winner"] == result.winner
    assert not panel.save_button.isEnabled()

    out = tmp_path / "ship.json"
    with qtbot.waitSignal(panel.decisions_exported, timeout=30_000) as exported:
        panel.export_to(str(out))
    assert exported.args == [str(out), 1]
    assert list(json.loads(out.read_text())["entries"]) == [saved.args[0]]

    DecisionCache().clear()
    with qtbot.waitSignal(panel.decisions_imported, timeout=30_000) as imported:
        panel.import_from(str(out))
    receipt = imported.args[0]
    assert (receipt.imported, receipt.kept_local, receipt.carried) == (1, 0, 0)
    assert "imported 1, kept local 0, carried for other devices 0" in panel.receipt_view.toPlainText()
    assert BAND in panel.receipt_view.toPlainText()

    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with qtbot.waitSignal(panel.file_failed, timeout=30_000) as failed:
        panel.import_from(str(bad))
    assert "refused" in failed.args[0] and "refused" in panel.receipt_view.toPlainText()


def test_cancel_records_nothing(panel, qtbot):
    tiny(panel, rounds=500, frames=50)
    seen = []

    def on_progress(p):
        seen.append(p.phase)
        if p.phase == "round" and panel.cancel_button.isEnabled():
            panel.cancel_button.click()

    panel.race_progressed.connect(on_progress)
    with qtbot.waitSignal(panel.race_cancelled, timeout=120_000) as cancelled:
        panel.start()
    assert "nothing recorded" in cancelled.args[0]
    assert "round" in seen
    assert panel.result is None and not panel.save_button.isEnabled()
    assert panel.start_button.isEnabled() and not panel.running
    assert not cache_path().exists()
    assert _race_threads() == []


def test_shutdown_mid_race_leaves_no_thread(qtbot):
    p = measure.create_panel(None)
    qtbot.addWidget(p)
    tiny(p, rounds=500, frames=50)
    with qtbot.waitSignal(p.race_progressed, timeout=60_000):
        p.start()
    p.shutdown()
    assert _race_threads() == [] and not cache_path().exists()


def test_main_window_docks_the_panel(main_window):
    from PySide6.QtWidgets import QDockWidget, QScrollArea

    docks = [d for d in main_window.findChildren(QDockWidget)   # the panel sits in a scroll area
             if isinstance(d.widget(), QScrollArea) and isinstance(d.widget().widget(), MeasurePanel)]
    assert len(docks) == 1 and docks[0].windowTitle() == "Measure"


def _measure_panel(win) -> MeasurePanel:
    return next(p for p in win._panels if isinstance(p, MeasurePanel))


def test_the_default_band_is_the_live_outputs_band(main_window):
    panel = _measure_panel(main_window)
    live = main_window.live_band()
    # the pattern on screen, its frame size, the display format of the surface presenting it
    assert live.name == "checkerboard@64x36/rgb8"
    assert (live.family, live.width, live.height, live.fmt) == (
        main_window.spec.pattern, main_window.spec.width, main_window.spec.height, main_window.loop.fmt)
    assert panel.band() == live
    assert "the live output's" in panel.band_label.text()
    assert panel.device_combo.currentText() == main_window.loop.device
    combo = panel.device_combo
    assert [combo.itemText(i) for i in range(combo.count())] == main_window.devices


def test_the_picker_follows_the_live_band_until_a_band_is_picked_by_hand(qtbot, main_window):
    panel = _measure_panel(main_window)
    main_window.choose_pattern("bars")
    assert panel.band().name == "bars@64x36/rgb8" == main_window.live_band().name
    panel.set_band("counter@2160p/rgb10")          # by hand: the live output no longer moves it
    main_window.choose_pattern("ramp")
    assert panel.band().name == "counter@2160p/rgb10"
    assert panel.picker.live_button.isEnabled()
    panel.picker.live_button.click()
    assert panel.band().name == "ramp@64x36/rgb8"
    main_window.choose_pattern("checkerboard")
    assert panel.band().name == "checkerboard@64x36/rgb8"


def test_a_saved_verdict_takes_effect_on_the_live_output_at_once(qtbot, main_window):
    panel = _measure_panel(main_window)
    assert main_window.loop.engine.path == "numpy" and main_window.loop.path_source == "default"
    panel.set_candidates({"torch-eager"})        # the only candidate: it wins, unlike the default
    panel.rounds_spin.setValue(1)
    panel.frames_spin.setValue(2)
    panel.warmup_spin.setValue(1)
    with qtbot.waitSignal(panel.race_finished, timeout=120_000) as finished:
        panel.start()
    result = finished.args[0]
    assert result.band == main_window.live_band().name and result.winner == "torch-eager"
    with qtbot.waitSignal(panel.decisions_changed, timeout=30_000):
        panel.save_button.click()
    assert main_window.loop.engine.path == "torch-eager"
    assert main_window.loop.path_source == "cache"
    assert "torch-eager" in panel.picker.live_label.text()
    assert "torch-eager" in main_window.status_texts()["path"]


def test_the_chart_shows_fixed_empty_axes_before_a_race_and_ms_once(panel):
    chart = panel.plot
    (x0, x1), (y0, y1) = chart.viewRange()
    assert (x0, x1) == pytest.approx((-0.6, 0.6)) and (y0, y1) == pytest.approx((0.0, chart.EMPTY_MS))
    assert chart.getAxis("bottom")._tickLevels == [[]]       # no candidate ticks yet
    left = chart.getAxis("left")
    assert left.labelString().count("ms") == 1 and "mms" not in left.labelString()
    from core.decisions import RaceRow

    chart.show_rows([RaceRow("numpy", "ok", 0.004, 0.001, winner=True)], "render")
    assert "mms" not in left.labelString() and left.labelString().count("ms") == 1
    assert left.autoSIPrefixScale == 1.0
    assert chart.viewRange()[1] == pytest.approx([0.0, 0.005 * 1.15])


def test_the_band_follows_the_live_output_at_once(qtbot, main_window):
    # what the panel shows, and what Start races, is the output's band as soon as it changes:
    # read after the loop has the new frame, never the one before
    panel = _measure_panel(main_window)
    for pattern in ("window", "solid", "counter", "bars"):
        main_window.choose_pattern(pattern)
        want = f"{pattern}@64x36/rgb8"
        assert main_window.live_band().name == want
        assert panel.band().name == want and panel.picker.live_band.name == want
        assert panel.band_label.text() == f"<b>{want}</b> (the live output's)"
        assert panel.picker.live_label.text().startswith(want)
        assert panel.request().band.name == want
    # a new frame size (as a screen of another native size brings) is followed the same way
    main_window.frame_settings.set_values(8, False, [48, 32], False, 16, chosen=True)
    main_window.apply_edits()
    assert main_window.spec.width == 48
    assert panel.band().name == "bars@48x32/rgb8" == panel.request().band.name
    assert panel.band_label.text() == "<b>bars@48x32/rgb8</b> (the live output's)"


def _live_verdict():
    """A live verdict whose ranked figure (median of round p99 costs) and pooled p99 differ."""
    from core.decisions import CandidateResult, RaceResult, RaceSettings, decide_live, half_iqr

    settings = RaceSettings(rounds=3, frames=50, warmup=5)
    cands = {}
    for name, rounds, pooled in (("numpy", [7.9, 8.1, 8.0], 12.5),
                                 ("torch-eager", [3.79412, 3.7, 3.9], 9.21)):
        c = CandidateResult(name, round_ms=rounds, round_late=[0, 0, 0], compile_s=0.0)
        c.median_ms, c.spread_ms = sorted(rounds)[1], half_iqr(rounds)
        c.late, c.timed_frames, c.interval_p99_ms, c.cost_p99_ms = 0, 150, 16.7, pooled
        cands[name] = c
    winner, why = decide_live(cands, settings.margin)
    return RaceResult("window@64x36/rgb8", "cpu", winner, why, cands, settings, form="live",
                      period_ms=1000 / 60)


def test_one_verdict_shows_one_number_under_one_name_in_every_view(panel, capsys):
    from app.cli import main
    from core.decisions import record_result

    result = _live_verdict()
    assert result.winner == "torch-eager"
    record_result(result)
    # the panel's table and chart
    panel.show_result(result)
    row = [panel.table.item(i, 0).text() for i in range(panel.table.rowCount())].index(
        "torch-eager (winner)")
    assert panel.table.cell(row, "p99 frame cost (ms)") == "3.794"
    assert panel.plot.axis_label() == "p99 frame cost (ms)"
    assert list(panel.plot.bar_data()["height"]) == [8.0, 3.79412]
    ratio = panel.table.cell(row, "vs default (x)")
    assert f"torch-eager/numpy p99 frame cost {ratio} +/- " in panel.verdict_label.text()
    # decisions which: the same number under the same name, not the pooled p99 (9.21 ms)
    assert main(["decisions", "which", "window@64x36/rgb8"]) == 0
    which = capsys.readouterr().out
    assert "torch-eager: p99 frame cost 3.794 ms" in which and "9.21" not in which
    # decisions show: the row names its figure, the winner's column holds that number
    assert main(["decisions", "show"]) == 0
    shown = capsys.readouterr()
    head, _rule, line = shown.out.splitlines()[:3]
    assert line[head.index("figure"):].startswith("p99 frame cost (ms)")
    assert line[head.index("torch-eager"):].split()[0] == "3.794"
    assert line[head.index("numpy"):].split()[0] == "8.000"
    assert "live rows: per-path figures are the p99 frame cost in ms" in shown.err
