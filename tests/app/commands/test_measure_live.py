"""`testcard measure --form live|render`: which form runs where, what a live race refuses, the
race on the one worker (its progress on the GUI thread, quitting it stops the race), and (under
Xvfb, a real X server with GL) a live race end to end, recorded and looked up, and Ctrl-C."""

import json
import os
import re
import select
import signal
import subprocess
import sys
import threading

import pytest

from app.cli import main
from app.commands.measure_live import live_display_problem, race_on_worker
from core.decisions import (
    DecisionCache,
    RaceCancelled,
    RaceRequest,
    RaceSettings,
    cache_path,
    fingerprint,
    parse_band,
)
from tests.helpers import ROOT
from tests.helpers.screens import xvfb_server

SMALL = ["--band", "animated@64x36/rgb10", "--candidates", "numpy,torch-eager", "--rounds", "2",
         "--frames", "3", "--warmup", "1"]


@pytest.mark.parametrize("env,platform,why", [
    ({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}, "linux", "QT_QPA_PLATFORM=offscreen has no screen"),
    ({}, "linux", "DISPLAY and WAYLAND_DISPLAY are not set"),
    ({"DISPLAY": ":0"}, "linux", None),
    ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", None),
    ({"QT_QPA_PLATFORM": "xcb"}, "linux", None),
    ({}, "darwin", None),
    ({"QT_QPA_PLATFORM": "minimal"}, "win32", "QT_QPA_PLATFORM=minimal"),
])
def test_where_a_live_race_can_present(env, platform, why):
    got = live_display_problem(env, platform)
    assert (got is None) if why is None else (why in got)


def test_the_default_form_here_is_render_and_it_is_said(capsys):
    # the tests run on the offscreen platform: no screen, so the isolated race
    assert main(["measure", *SMALL, "--json", "--no-record"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["form"] == "render" and "period_ms" not in data[0]
    assert "late" not in data[0]["candidates"]["numpy"]


def test_a_live_race_without_a_display_is_refused_and_records_nothing(capsys):
    assert main(["measure", *SMALL, "--form", "live"]) == 2
    err = capsys.readouterr().err
    assert ("--form live needs a display: QT_QPA_PLATFORM=offscreen has no screen to present on; "
            "race with --form render") in err
    assert "Traceback" not in err and not cache_path().exists()


def test_screen_is_only_for_a_live_race(capsys):
    assert main(["measure", *SMALL, "--form", "render", "--screen", "1"]) == 2
    assert "--screen is where a live race presents; it needs --form live" in capsys.readouterr().err


def small_request():
    return RaceRequest(parse_band("animated@64x36/rgb10"), "cpu", ("numpy",),
                       RaceSettings(rounds=2, frames=3, warmup=1))


@pytest.mark.qt
def test_the_race_runs_on_the_one_worker_and_its_progress_arrives_on_the_gui_thread(qapp):
    from app.workers import GeneratorWorker

    request, ran_on, progress_on = small_request(), [], []

    def steps(cancel):
        ran_on.append(threading.current_thread())
        return (yield from request.steps(cancel))

    worker = GeneratorWorker(steps, name="testcard-race")
    result = race_on_worker(worker, lambda p: progress_on.append((threading.current_thread(), p.phase)))
    assert ran_on == [worker.thread] and worker.thread.name == "testcard-race"
    assert worker.thread is not threading.main_thread() and not worker.is_running
    assert progress_on and {t for t, _ in progress_on} == {threading.main_thread()}
    assert progress_on[-1][1] == "done"
    assert result.band == request.band.name and result.winner == "numpy"


@pytest.mark.qt
def test_quitting_the_worker_stops_the_race_and_is_keyboard_interrupt(qapp):
    from app.workers import GeneratorWorker

    request, raised, phases = small_request(), [], []

    def steps(cancel):
        gen = request.steps(cancel)
        yield next(gen)
        cancel.wait(30)          # the GUI thread quits the worker on this first step
        try:
            return (yield from gen)
        except BaseException as exc:
            raised.append(exc)
            raise

    worker = GeneratorWorker(steps, name="testcard-race")

    def progressed(p):
        phases.append(p.phase)
        worker.quit()

    with pytest.raises(KeyboardInterrupt):
        race_on_worker(worker, progressed)
    assert [type(e) for e in raised] == [RaceCancelled]
    assert "done" not in phases and not worker.is_running


@pytest.mark.qt
def test_a_race_that_fails_raises_its_own_error(qapp):
    from app.workers import GeneratorWorker

    def steps(cancel):
        yield "opened"
        raise ValueError("the numpy reference failed")

    seen = []
    worker = GeneratorWorker(steps, name="testcard-race")
    with pytest.raises(ValueError, match="the numpy reference failed"):
        race_on_worker(worker, seen.append)
    assert seen == ["opened"] and not worker.is_running


@pytest.mark.qt
def test_a_live_race_races_on_an_output_session_and_builds_no_main_window(qapp, monkeypatch, capsys):
    # the offscreen platform's raster output stands in for a display: what is checked is what
    # the race is built on, not the figures
    import app.commands.measure_live as measure_live
    from app.panels import LiveOutput
    from app.window import MainWindow

    built, opened = [], []

    def no_window(self, *args, **kwargs):
        built.append(args)
        raise AssertionError("measure --form live built a MainWindow")

    real_open = LiveOutput.open

    def open_(self, band, device):
        raced = real_open(self, band, device)
        opened.append((type(self.session).__name__, self.session.is_open,
                       [type(w).__name__ for w in qapp.topLevelWidgets() if w.isVisible()]))
        return raced

    monkeypatch.setattr(measure_live, "live_display_problem", lambda: None)
    monkeypatch.setattr(MainWindow, "__init__", no_window)
    monkeypatch.setattr(LiveOutput, "open", open_)
    monkeypatch.setenv("TESTCARD_PRESENTER", "raster")
    assert main(["measure", "--band", "animated@64x36/rgb8", "--candidates", "numpy", "--rounds", "2",
                 "--frames", "3", "--warmup", "1", "--form", "live", "--json", "--no-record"]) == 0
    (data,) = json.loads(capsys.readouterr().out)
    assert data["form"] == "live" and data["candidates"]["numpy"]["status"] == "ok"
    assert built == []
    ((session, is_open, shown),) = opened
    assert session == "OutputSession" and is_open and "MainWindow" not in shown
    assert not [w for w in qapp.topLevelWidgets() if w.isVisible()]    # the session closed its output


@pytest.mark.qt
@pytest.mark.xvfb
def test_a_live_race_under_xvfb_is_recorded_as_live_and_outranks_the_render_one(tmp_path, capsys):
    with xvfb_server("640x480", "640x480") as display:
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
        env.pop("TESTCARD_PRESENTER", None)
        proc = subprocess.run([sys.executable, "-m", "app", "measure", *SMALL, "--form", "live",
                               "--screen", "1", "--json"], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    (data,) = json.loads(proc.stdout)
    # an 8-bit Xvfb surface: the band is raced, and recorded, in the format it shows
    assert data["form"] == "live" and data["band"] == "animated@64x36/rgb8" and data["recorded"]
    assert data["period_ms"] == pytest.approx(1000 / 60, rel=0.01)
    for name in ("numpy", "torch-eager"):
        c = data["candidates"][name]
        assert c["status"] == "ok" and 0 <= c["late"] <= 2 * 3
        assert c["interval_p99_ms"] > 0 and c["cost_p99_ms"] > 0
    assert "measure: live on screen 1" in proc.stderr and "opengl presenter" in proc.stderr
    key = f"{fingerprint('cpu')}|animated@64x36/rgb8|live"
    assert DecisionCache().load()[key]["winner"] == data["winner"]
    # a render verdict for the same band is kept beside it; the live one is what a lookup takes
    assert main(["measure", "--band", "animated@64x36/rgb8", *SMALL[2:], "--form", "render"]) == 0
    capsys.readouterr()
    assert main(["decisions", "which", "animated@64x36/rgb8"]) == 0
    out = capsys.readouterr().out
    assert f": {data['winner']}\n" in out and "source: cache (live race)" in out
    assert "form: live at 60.00 Hz" in out
    assert main(["decisions", "show"]) == 0
    shown = capsys.readouterr().out
    assert shown.count("animated@64x36/rgb8") == 2 and " live " in shown and " render " in shown


@pytest.mark.qt
@pytest.mark.xvfb
def test_a_live_race_under_xvfb_finishes_on_still_and_animated_bands_with_the_compiled_path():
    from core.engine import path_problem

    why = path_problem("torch-compiled", "cpu")
    if why:
        pytest.skip(f"torch-compiled cannot run here: {why}")
    bands = ["window@64x36/rgb8", "solid@64x36/rgb8", "counter@64x36/rgb8"]
    with xvfb_server("640x480") as display:
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
        env.pop("TESTCARD_PRESENTER", None)
        proc = subprocess.run([sys.executable, "-m", "app", "measure",
                               *(a for b in bands for a in ("--band", b)),
                               "--candidates", "numpy,torch-compiled", "--rounds", "2", "--frames", "3",
                               "--warmup", "1", "--form", "live", "--json", "--no-record"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [d["band"] for d in data] == bands and all(d["form"] == "live" for d in data)
    for d in data:
        for name in ("numpy", "torch-compiled"):
            c = d["candidates"][name]
            assert c["status"] == "ok", (d["band"], name, c["reason"])
            # every timed frame rendered: a still frame presented again would cost no render
            assert c["cost_p99_ms"] > 0 and c["median_ms"] > 0


@pytest.mark.qt
@pytest.mark.xvfb
def test_ctrl_c_during_a_live_race_under_xvfb_exits_130_and_records_nothing():
    # stderr on a terminal, so the race's progress bar shows it is under way before the signal
    leader, follower = os.openpty()
    argv = ["--band", "animated@64x36/rgb10", "--candidates", "numpy", "--rounds", "100",
            "--frames", "30", "--warmup", "1", "--form", "live", "--json"]
    with xvfb_server("640x480") as display:
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
        env.pop("TESTCARD_PRESENTER", None)
        proc = subprocess.Popen([sys.executable, "-m", "app", "measure", *argv], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=follower, text=True)
        os.close(follower)
        err = ""
        try:
            while not re.search(r"racing animated.*\] [1-9][0-9]*/", err, re.S):   # frames raced
                ready, _, _ = select.select([leader], [], [], 120)
                assert ready, f"no progress from the live race: {err!r}"
                try:
                    chunk = os.read(leader, 4096).decode(errors="replace")
                except OSError:
                    chunk = ""
                assert chunk, f"the live race ended before the signal: {err!r}"
                err += chunk
            proc.send_signal(signal.SIGINT)
            out, _ = proc.communicate(timeout=120)
            while select.select([leader], [], [], 0)[0]:
                try:
                    chunk = os.read(leader, 4096).decode(errors="replace")
                except OSError:
                    break
                if not chunk:
                    break
                err += chunk
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            os.close(leader)
    assert proc.returncode == 130, err
    assert out == "" and "Traceback" not in err
    assert err.endswith("\n"), f"the progress line was left open: {err[-80:]!r}"
    assert not cache_path().exists()
