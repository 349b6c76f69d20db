"""`testcard latency` without a display: what it refuses before any window opens, the offline
join of an exported present log with a recorded capture, the capture test hook, the report text.
The live run is tested under Xvfb (test_latency_xvfb.py)."""

import json

import numpy as np
import pytest

from app.cli import main
from app.commands import latency as cmd
from core.decode.latency_clock import KEEP_CLOCK_FLAGS
from core.timing import Timeline
from core.timing.clocks import ClockPair
from tests.helpers.latency_sim import Run
from tests.helpers.live_sim import counter_plane, counter_spec
from tests.helpers.live_sources import write_gray_video

SPEC = counter_spec(320, 180)
MS = 0.5 + 1e-6          # a Matroska file keeps its timestamps in whole milliseconds
WALL_S = 1.7e9           # the wall clock, ahead of the monotonic clock by this


def run_cli(capsys, *argv):
    rc = main(["latency", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("argv, message", [
    ((), "give --source SOURCE (live), or --timeline"),
    (("--source", "x11grab::0", "--timeline", "p.csv", "--capture", "c.mkv"), "not both"),
    (("--timeline", "p.csv"), "offline needs both"),
    (("--source", "nonsense-source"), "unknown capture source"),
    (("--source", "x11grab::0", "--seconds", "0"), "--seconds must be above 0"),
    (("--source", "x11grab::0", "--seconds", "nan"), "--seconds must be above 0"),
    (("--source", "x11grab::0", "--bits", "40"), "--bits must be 1..31"),
    (("--source", "x11grab::0", "--capture-fps", "-5"), "--capture-fps must be above 0"),
    (("--source", "x11grab::0", "--screen", " "), "--screen takes"),
    (("--source", "x11grab::0", "--offset-ms", "inf"), "--offset-ms must be at least -10000 ms"),
    (("--source", "x11grab::0", "--plot", "latency.jpg"), "--plot writes a PNG"),
    (("--source", "x11grab::0", "--histogram", "h.txt"), "--histogram writes a PNG"),
])
def test_bad_input_is_one_line_naming_the_option_before_any_window(capsys, tmp_path, monkeypatch, argv,
                                                                   message):
    monkeypatch.chdir(tmp_path)
    rc, out, err = run_cli(capsys, *argv)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("testcard: error:") and message in err, err


def test_a_source_that_cannot_be_opened_is_one_line_before_any_window(capsys, tmp_path, monkeypatch):
    from tests.app.test_display_check import dead_display

    monkeypatch.chdir(tmp_path)
    display = dead_display()
    for source, message in ((f"x11grab:{display}", f"cannot open display '{display}': no X server answers"),
                            ("file:missing.mkv", "file:missing.mkv: no such file"),
                            ("v4l2:/dev/video-none", "v4l2:/dev/video-none: no such device")):
        rc, out, err = run_cli(capsys, "--source", source)
        assert rc == 2 and out == "" and err.count("\n") == 1 and message in err, err


@pytest.mark.qt
def test_a_source_refused_once_opened_is_exit_2_not_a_bug(tmp_path):
    """A file that exists but is no video is refused by the source once the output is up:
    bad input (exit 2), never "a bug in testcard" (exit 70)."""
    import os
    import subprocess
    import sys

    (tmp_path / "notes.mkv").write_text("not a video\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    got = subprocess.run([sys.executable, "-m", "app", "latency", "--source", "notes.mkv", "--seconds", "1"],
                         env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert got.returncode == 2, got.stderr
    assert got.stderr.startswith("testcard: error: notes.mkv: cannot open video") and "bug" not in got.stderr
    assert got.stderr.count("\n") == 1


def test_an_output_that_is_an_input_is_refused(capsys, tmp_path):
    present = tmp_path / "present.csv"
    present.write_text("index,present_s\n0,1.0\n")
    rc, _out, err = run_cli(capsys, "--timeline", str(present), "--capture", str(tmp_path / "c.mkv"),
                            "--csv", str(present))
    assert rc == 2 and "present.csv" in err


def test_capture_hook_is_read_in_one_place_and_stalls_past_the_queue():
    assert cmd.capture_stall_every({}) == 0
    assert cmd.capture_stall_every({cmd.CAPTURE_STALL_ENV: "7"}) == 7
    assert cmd.capture_stall_every({cmd.CAPTURE_STALL_ENV: "seven"}) == 0

    class Source:
        class info:
            rate_hz = 100.0
        queue_size = 16
        frames_behind = 3

        def read(self, timeout=None):
            return "frame"

    slept = []
    reader = cmd.StalledReader(Source(), 3, sleep=slept.append)
    assert [reader.read() for _ in range(7)] == ["frame"] * 7
    assert slept == [pytest.approx(0.2)] * 2           # frames 3 and 6: (16 + 4) periods at 100 Hz
    assert reader.frames_behind == 3                    # everything else is the source's
    assert cmd.hooked("src", {}) == "src"
    assert isinstance(cmd.hooked(Source(), {cmd.CAPTURE_STALL_ENV: "2"}), cmd.StalledReader)


# ------------------------------------------------------------ offline: a present log and a recording
def recorded_run(tmp_path, run: Run, shift_s: float = 0.0, wall_s: float = WALL_S):
    """The present log as testcard exports it (its clock pairs saying the wall clock is the
    present clock plus ``wall_s``), and a lossless recording of what the capture saw, its
    timestamps on the present log's clock (plus ``shift_s``)."""
    present, captures = run.build()
    now = {"t": 0.0}
    tl = Timeline(clock_pair=lambda: ClockPair(now["t"] + wall_s, now["t"], 1e-6))
    for i, t in zip(present.index, present.t_s, strict=True):
        now["t"] = float(t)
        tl.append(int(i), float(t), 1.0, 0.0, 0.0, 0.0, "numpy")
    csv_path = tmp_path / "present.csv"
    tl.snapshot().write_csv(csv_path)
    black = np.zeros((SPEC.height, SPEC.width), np.uint8)
    frames = [black if s.index is None else counter_plane(SPEC, s.index) for s in captures.samples]
    pts = [round((s.t_s + shift_s) * run.capture_hz) for s in captures.samples]
    video = tmp_path / "capture.mkv"
    write_gray_video(video, frames, fps=int(run.capture_hz), pts=pts)
    return csv_path, video, present


def test_offline_join_recovers_the_latency_and_the_drops(capsys, tmp_path):
    run = Run(frames=120, display_hz=60.0, capture_hz=120.0, latency_s=0.030, t0=1000.0, drops=(40, 41, 90),
              capture_until_s=0.2)
    csv_path, video, present = recorded_run(tmp_path, run)
    out_csv, plot, hist = tmp_path / "lat.csv", tmp_path / "lat.png", tmp_path / "hist.png"
    rc, out, _err = run_cli(capsys, "--timeline", str(csv_path), "--capture", str(video), "--json",
                            "--csv", str(out_csv), "--plot", str(plot), "--histogram", str(hist))
    assert rc == 0
    r = json.loads(out)
    assert r["presented"] == 120 and r["matched"] == 117
    assert r["display_drops"] == 3 and r["dropped"] == [40, 41, 90]
    assert r["capture_drops"] == 0 and r["unmatched_captures"] == 0
    period_ms = 1000.0 / 120.0
    for f in r["frames"]:
        if f["status"] == "matched":      # quantised to the capture period (Matroska keeps whole ms)
            assert 30.0 - MS <= f["latency_ms"] < 30.0 + period_ms + MS
    assert r["capture_clock"] == "monotonic" and not r["notes"]
    clock = r["corrections"][0]
    assert (clock["kind"], clock["clock"], clock["offset_s"]) == ("clock", "monotonic", 0.0)
    assert out_csv.read_text().count("\n") == 121 and plot.stat().st_size and hist.stat().st_size


def test_capture_offset_puts_a_shifted_recording_on_the_present_clock(capsys, tmp_path):
    run = Run(frames=60, display_hz=60.0, capture_hz=120.0, latency_s=0.050, t0=500.0)
    csv_path, video, _ = recorded_run(tmp_path, run, shift_s=20.0)
    rc, _out, err = run_cli(capsys, "--timeline", str(csv_path), "--capture", str(video))
    assert rc == 2 and "do not overlap the present log" in err and "--capture-offset-s" in err
    rc, out, _err = run_cli(capsys, "--timeline", str(csv_path), "--capture", str(video),
                            "--capture-offset-s", "-20", "--offset-ms", "10", "--json")
    r = json.loads(out)
    assert rc == 0 and r["matched"] == 60 and r["capture_clock"] == "offset"
    clock, chain = r["corrections"]
    assert (clock["clock"], clock["offset_s"], clock["uncertainty_ms"]) == ("offset", -20.0, None)
    # the chain's own 10 ms is a correction: listed, applied, the raw figure kept beside it
    assert chain["ms"] == -10.0 and r["corrections_total_ms"] == -10.0
    assert r["latency_ms"]["median"] == pytest.approx(r["uncorrected_latency_ms"]["median"] - 10.0)
    assert 40.0 - MS <= r["latency_ms"]["min"] <= r["latency_ms"]["max"] < 40.0 + 1000 / 120 + MS


def strict_json(text: str):
    def refuse(name):
        raise AssertionError(f"{name} in testcard's JSON")
    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("offset_ms", ["10000", "-10000"])
def test_the_offset_at_its_range_ends_gives_finite_json(capsys, tmp_path, offset_ms):
    run = Run(frames=30, display_hz=60.0, capture_hz=120.0, latency_s=0.050, t0=500.0)
    csv_path, video, _ = recorded_run(tmp_path, run, shift_s=20.0)
    rc, out, err = run_cli(capsys, "--timeline", str(csv_path), "--capture", str(video),
                           "--capture-offset-s", "-20", "--offset-ms", offset_ms, "--json")
    assert rc == 0, err
    r = strict_json(out)
    assert r["corrections"][1]["ms"] == -float(offset_ms)
    raw = r["uncorrected_latency_ms"]["median"]
    assert r["latency_ms"]["median"] == pytest.approx(raw - float(offset_ms))


def test_a_wall_clock_recording_joins_with_no_offset_through_the_clock_pairs(capsys, tmp_path):
    """Stamped as x11grab stamps (the wall clock, kept by -copyts): recognised and mapped."""
    run = Run(frames=120, display_hz=60.0, capture_hz=120.0, latency_s=0.030, t0=1000.0, drops=(50,))
    csv_path, video, _ = recorded_run(tmp_path, run, shift_s=WALL_S)
    rc, out, err = run_cli(capsys, "--timeline", str(csv_path), "--capture", str(video), "--json")
    assert rc == 0, err
    r = json.loads(out)
    assert r["matched"] == 119 and r["dropped"] == [50] and r["capture_clock"] == "realtime-mapped"
    clock = r["corrections"][0]
    assert clock["clock"] == "realtime" and clock["offset_s"] == pytest.approx(-WALL_S, abs=1e-3)
    # a 2 s run: one pair, on its first row; the captures after it may have slewed 0.5 ms/s since
    assert clock["clock_pairs"] == 1 and clock["steps"] == 0
    assert 0.0 < clock["uncertainty_ms"] < 2.25 * 0.5 + 0.01
    assert r["corrections_total_ms"] == 0.0
    for f in r["frames"]:
        if f["status"] == "matched":
            assert 30.0 - MS <= f["latency_ms"] < 30.0 + 1000 / 120 + MS
    rc, out, _err = run_cli(capsys, "--timeline", str(csv_path), "--capture", str(video))
    assert rc == 0
    assert "corrections: capture clock: wall clock (CLOCK_REALTIME) onto CLOCK_MONOTONIC, " in out
    assert "clock pairs" in out and "uncertainty " in out


def test_a_recording_counting_from_zero_is_refused_with_the_flags(capsys, tmp_path):
    run = Run(frames=60, display_hz=60.0, capture_hz=120.0, t0=1000.0)
    csv_path, video, _ = recorded_run(tmp_path, run, shift_s=-1000.0)
    rc, out, err = run_cli(capsys, "--timeline", str(csv_path), "--capture", str(video))
    assert rc == 2 and out == "" and err.count("\n") == 1 and err.startswith("testcard: error:")
    assert f"`{KEEP_CLOCK_FLAGS}`" in err and "count from the start of the recording" in err
    # the user's offset still overrides
    rc, out, _err = run_cli(capsys, "--timeline", str(csv_path), "--capture", str(video),
                            "--capture-offset-s", "1000", "--json")
    assert rc == 0 and json.loads(out)["matched"] == 60


def test_human_report_says_the_figures_and_what_they_are(capsys, tmp_path):
    run = Run(frames=60, display_hz=60.0, capture_hz=120.0, latency_s=0.020, t0=100.0, drops=(30,))
    csv_path, video, _ = recorded_run(tmp_path, run)
    rc, out, _err = run_cli(capsys, "--timeline", str(csv_path), "--capture", str(video), "--end-of-frame")
    assert rc == 0
    text = out.splitlines()
    assert text[0].startswith("source: file:") and "presented: 60  matched: 59" in out
    assert any(line.startswith("latency (ms, n=59): min ") and " p95 " in line and " p99 " in line
               for line in text)
    assert "display drops: 1" in out and "capture drops: 0" in out
    assert "capture end-of-frame timestamp -8.333 ms" in out
    assert "quantised to the capture period (8.33 ms at 120.00 Hz)" in out
    assert "not when light left the screen" in out


def test_a_capture_that_shows_nothing_says_so(capsys, tmp_path):
    present = tmp_path / "present.csv"
    present.write_text("index,present_s\n0,1.0\n1,1.0166\n")
    video = tmp_path / "black.mkv"
    write_gray_video(video, [np.zeros((64, 96), np.uint8)] * 12, fps=60, pts=list(range(60, 72)))
    rc, out, _err = run_cli(capsys, "--timeline", str(present), "--capture", str(video))
    assert rc == 0
    assert "matched: 0" in out and "latency (ms, n=0): min -" in out
