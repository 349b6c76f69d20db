"""The live race's Qt side on the offscreen platform: the main window's own loop presents each
candidate on its output (raster, timer-paced at the screen's 60 Hz), the race runs on a worker,
and the window is put back as it was."""

import threading

import pytest

from app.panels import LiveOutput, MeasurePanel
from core.decisions import DecisionCache, LiveOutputLost, fingerprint, parse_band

pytestmark = pytest.mark.qt

BAND = "checkerboard@64x36/rgb8"


def _panel(win) -> MeasurePanel:
    return next(p for p in win._panels if isinstance(p, MeasurePanel))


def _in_thread(fn):
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as exc:
            box["error"] = exc

    t = threading.Thread(target=run, name="testcard-test-present")
    t.start()
    return t, box


def test_the_output_presents_each_path_and_is_put_back(qtbot, main_window):
    loop = main_window.loop
    before = (loop.spec, loop.path, main_window.output.is_open)
    out = LiveOutput(main_window.session, screen=main_window.output_choice.identity)
    band = out.open(parse_band("counter@64x36/rgb10"), "cpu")
    assert band.name == "counter@64x36/rgb8"          # the 8-bit raster surface's format
    assert main_window.output.is_open and loop.spec.pattern == "counter"
    frames = out.present("torch-eager", 12)            # from the GUI thread: a nested loop
    assert len(frames) == 12 and loop.path == "torch-eager" and loop.path_source == "race"
    assert out.race is main_window.session.race and out.race.get(band, "cpu") == "torch-eager"
    assert frames.period_ms == pytest.approx(loop.period_ms) and frames.path[-1] == "torch-eager"
    assert (frames.present_s[1:] > frames.present_s[:-1]).all()
    # from a worker thread, as the panel's race calls it
    t, box = _in_thread(lambda: out.present("numpy", 5))
    qtbot.waitUntil(lambda: not t.is_alive(), timeout=20_000)
    assert set(box["value"].path[-3:]) == {"numpy"} and loop.path == "numpy"
    out.close()
    assert (loop.spec, loop.path, main_window.output.is_open) == before
    assert main_window.session.race.get(band, "cpu") is None


def test_abort_and_a_closed_output_end_the_waiting(qtbot, main_window):
    out = LiveOutput(main_window.session, screen=main_window.output_choice.identity)
    out.open(parse_band(BAND), "cpu")
    main_window.loop.stop()                 # nothing presents: the worker would wait for ever
    t, box = _in_thread(lambda: out.present("numpy", 5))
    qtbot.waitUntil(lambda: bool(out._waiting), timeout=5_000)
    out.abort()
    t.join(5)
    assert not t.is_alive() and isinstance(box["error"], LiveOutputLost)
    main_window.loop.start()
    out.close()

    out = LiveOutput(main_window.session, screen=main_window.output_choice.identity)
    out.open(parse_band(BAND), "cpu")
    main_window.leave_fullscreen()          # Esc on the output
    with pytest.raises(LiveOutputLost, match="the output window was closed"):
        out.present("numpy", 5)
    out.close()
    assert not main_window.output.is_open


def tiny_live(panel, rounds=2, frames=4):
    panel.set_band(BAND)
    panel.set_candidates({"numpy", "torch-eager"})
    panel.rounds_spin.setValue(rounds)
    panel.frames_spin.setValue(frames)
    panel.warmup_spin.setValue(1)
    panel.set_form("live")


def test_the_panel_races_live_and_saves_a_live_verdict(qtbot, main_window):
    panel = _panel(main_window)
    assert panel.form() == "render"         # offscreen: no display to race on by default
    tiny_live(panel)
    with qtbot.waitSignal(panel.race_finished, timeout=120_000) as finished:
        panel.start()
        assert main_window.output.is_open and not panel.form_combo.isEnabled()
    result = finished.args[0]
    assert result.form == "live" and result.band == BAND and result.winner in ("numpy", "torch-eager")
    assert not main_window.output.is_open and main_window.loop.path == "numpy"   # put back
    assert "p99 frame cost (ms)" in panel.table.headers() and "median render time (ms)" not in \
        panel.table.headers()
    assert panel.plot.axis_label() == "p99 frame cost (ms)"
    assert panel.table.cell(0, "late frames (of timed)").endswith("/8")      # of 2 rounds x 4 frames
    with qtbot.waitSignal(panel.decision_saved, timeout=30_000) as saved:
        panel.save_button.click()
    assert saved.args[0] == f"{fingerprint('cpu')}|{BAND}|live"
    assert DecisionCache().load()[saved.args[0]]["form"] == "live"


def test_cancelling_a_live_race_records_nothing_and_puts_the_output_back(qtbot, main_window):
    panel = _panel(main_window)
    tiny_live(panel, rounds=500, frames=50)

    def on_progress(p):
        if p.phase == "round" and panel.cancel_button.isEnabled():
            panel.cancel_button.click()

    panel.race_progressed.connect(on_progress)
    with qtbot.waitSignal(panel.race_cancelled, timeout=120_000) as cancelled:
        panel.start()
    assert "nothing recorded" in cancelled.args[0]
    assert not main_window.output.is_open and panel.live is None
    assert main_window.session.race.get(parse_band(BAND), "cpu") is None
    assert DecisionCache().load() == {}


def test_a_panel_without_an_output_offers_only_the_render_form(qtbot):
    panel = MeasurePanel()
    qtbot.addWidget(panel)
    assert panel.form() == "render"
    assert not panel.form_combo.model().item(0).isEnabled()     # "live" is greyed out
    panel.set_form("live")
    panel.start()
    assert "Cannot race live: live races need the main window's output" in panel.status_label.text()
    assert not panel.running
    panel.shutdown()


@pytest.fixture(scope="module")
def compile_pools():
    """torch.compile's worker threads are the process's from its first compile on: started here,
    before the window whose test counts the threads it leaves (skipped where nothing compiles)."""
    from core.engine import Engine, path_problem
    from core.patterns import make_spec

    why = path_problem("torch-compiled", "cpu")
    if why:
        pytest.skip(f"torch-compiled cannot run here: {why}")
    with Engine(make_spec("solid", {}, width=16, height=8, bit_depth=8), path="torch-compiled", fmt="rgb8",
                background_compile=False, reuse_static=False) as engine:
        assert not engine.render(0).error


@pytest.mark.parametrize("pattern", ["window", "solid", "counter"])
def test_a_live_race_finishes_on_a_still_band_as_on_an_animated_one(compile_pools, qtbot, main_window,
                                                                      monkeypatch, pattern):
    # the output shows the pattern as the operator left it (still frames reused from the
    # render cache); the race must still render every frame it times, and switch to the
    # compiled path, which a frame presented again from that cache never does
    presented = []
    real_present = LiveOutput.present

    def present(self, path, count):
        frames = real_present(self, path, count)
        presented.append((path, frames))
        return frames

    monkeypatch.setattr(LiveOutput, "present", present)
    main_window.choose_pattern(pattern)
    loop = main_window.loop
    assert loop.reuse_static
    band = f"{pattern}@64x36/rgb8"
    panel = _panel(main_window)
    assert panel.band().name == band
    panel.set_candidates({"numpy", "torch-compiled"})
    panel.rounds_spin.setValue(2)
    panel.frames_spin.setValue(3)
    panel.warmup_spin.setValue(1)
    panel.set_form("live")
    with qtbot.waitSignal(panel.race_finished, timeout=300_000) as finished:
        panel.start()
    result = finished.args[0]
    assert result.form == "live" and result.band == band
    for name in ("numpy", "torch-compiled"):
        c = result.candidates[name]
        assert c.status == "ok", c.reason
        assert c.timed_frames == 2 * 3 and len(c.round_ms) == 2
    # every frame a round timed was rendered for its present, on the path under test, in full
    for path, frames in presented:
        timed = [i for i in range(len(frames)) if frames.path[i] == path and not frames.warmup[i]]
        assert all(frames.render_ms[i] > 0 for i in timed), (path, frames.render_ms)
    assert {p for p, f in presented if f.serving(p)} == {"numpy", "torch-compiled"}
    # and the output is put back as it was: the still frame reused again
    assert loop.reuse_static and not main_window.output.is_open and loop.path == "numpy"
    assert panel.plot.axis_label() == "p99 frame cost (ms)"
