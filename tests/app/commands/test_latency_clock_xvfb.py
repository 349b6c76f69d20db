"""`testcard show --timeline` and a screen recording made apart from testcard, joined offline
with no offset: the recording is an x11grab grab (PyAV, as FFmpeg's x11grab stamps it: wall
clock microseconds, kept in a lossless Matroska file), the present log is on the monotonic
clock, and `testcard latency --timeline --capture` must recognise the wall clock and map it
through the log's clock pairs by itself.

The test checks the join against its own: it reads the counter of every grabbed frame at the
panel's exact geometry, maps the grab's own microsecond timestamps onto the monotonic clock by a
clock pair of its own, and takes each index's first grab minus its first present.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from app.cli import main
from core.counter import geometry_for
from core.decode import decode_counter
from core.timing.clocks import take_clock_pair
from tests.helpers import ROOT
from tests.helpers.screens import xvfb_server
from tests.helpers.xserver import need_xwininfo, wait_for, windows

pytestmark = [pytest.mark.qt, pytest.mark.xvfb, pytest.mark.slow]

W, H = 640, 480
GRAB_S = 3.0
RATE = 60


def need_x11grab():
    import av

    if "x11grab" not in av.formats_available:
        if os.environ.get("CI") == "true":
            pytest.fail("this FFmpeg has no x11grab input; CI needs it for the latency join")
        pytest.skip("this FFmpeg has no x11grab input")


def show(display, tmp_path, present):
    env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT),
               TESTCARD_CONFIG_DIR=str(tmp_path / "config"))
    for key in ("TESTCARD_PRESENTER", "TESTCARD_TEST_STALL_EVERY"):
        env.pop(key, None)
    return subprocess.Popen([sys.executable, "-m", "app", "show", "counter", "--set", "layout=robust",
                             "--set", "bits=16", "--size", f"{W}x{H}", "--bit-depth", "8", "--no-banner",
                             "--timeline", str(present)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def grab(display, path, seconds) -> list[int]:
    """Grab the screen with PyAV's x11grab into a lossless .mkv, each frame with the pts it was
    grabbed with (wall-clock microseconds); returns those pts, in order."""
    import av

    pts = []
    options = {"framerate": str(RATE), "video_size": f"{W}x{H}"}
    with av.open(display, format="x11grab", options=options) as src, av.open(str(path), "w") as out:
        ins = src.streams.video[0]
        assert ins.time_base == Fraction(1, 1_000_000)
        st = out.add_stream("ffv1", rate=RATE)
        st.width, st.height, st.pix_fmt = W, H, ins.codec_context.pix_fmt
        # the encoder's time base as the grab's: encoding would round pts to frame periods
        st.time_base = st.codec_context.time_base = ins.time_base
        for frame in src.decode(ins):
            pts.append(int(frame.pts))
            for packet in st.encode(frame):
                out.mux(packet)
            if (pts[-1] - pts[0]) / 1e6 >= seconds:
                break
        for packet in st.encode():
            out.mux(packet)
    return pts


def counters(path) -> list[int | None]:
    """The counter each recorded frame shows (None: not readable), read at the exact geometry."""
    import av

    geom = geometry_for(W, H, {"layout": "robust", "bits": 16})
    out = []
    with av.open(str(path)) as f:
        for frame in f.decode(video=0):
            try:
                out.append(decode_counter(frame.to_ndarray(format="rgb24"), geom))
            except ValueError:
                out.append(None)
    return out


def first_presents(path) -> dict[int, float]:
    first: dict[int, float] = {}
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if not row["error"]:
                first.setdefault(int(row["index"]), float(row["present_s"]))
    return first


def test_show_timeline_joins_an_independent_x11grab_recording_with_no_offset(tmp_path, capsys):
    need_x11grab()
    need_xwininfo()
    present, video = tmp_path / "present.csv", tmp_path / "grab.mkv"
    with xvfb_server(f"{W}x{H}") as display:
        proc = show(display, tmp_path, present)
        try:
            def up():
                return proc.poll() is None and any(w[0] == "testcard output" for w in windows(display, 0))

            wait_for(up, 150, "the output window")
            pts = grab(display, video, GRAB_S)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                rc = proc.wait(timeout=60)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            _out, err = proc.communicate()
    assert rc == 0, err
    assert len(pts) >= GRAB_S * RATE / 2

    # testcard's join, told nothing about the clocks
    assert main(["latency", "--timeline", str(present), "--capture", str(video), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    clock = r["corrections"][0]
    assert r["capture_clock"] == "realtime-mapped" and clock["clock"] == "realtime"
    assert clock["clock_pairs"] >= 2 and clock["steps"] == 0 and clock["uncertainty_ms"] < 1.0
    assert r["captures"] == len(pts) and r["unmatched_captures"] == 0

    # the test's own join: its own clock pair, its own reading of each grabbed frame
    pair = take_clock_pair()
    presents = first_presents(present)
    seen: dict[int, float] = {}
    for p, value in zip(pts, counters(video), strict=True):
        if value is not None and value in presents:
            seen.setdefault(value, p / 1e6 - pair.offset_s)
    ours = {i: (t - presents[i]) * 1e3 for i, t in seen.items()}
    assert len(ours) >= GRAB_S * RATE / 3

    period_ms = 1000.0 / RATE
    theirs = {f["index"]: f["latency_ms"] for f in r["frames"] if f["latency_ms"] is not None}
    common = sorted(set(ours) & set(theirs))
    assert len(common) >= 0.9 * len(ours)
    diff = np.array([theirs[i] - ours[i] for i in common])
    # the same grab of the same frame, to Matroska's millisecond; a frame read in another band
    # than the top one (a torn grab) may be seen one grab apart
    assert np.mean(np.abs(diff) <= 1.0) >= 0.9, diff
    assert (np.abs(diff) <= period_ms + 1.0).all(), diff
    assert abs(r["latency_ms"]["median"] - float(np.median([ours[i] for i in common]))) <= period_ms
    # a latency is a present followed by a grab: about a frame here, never seconds
    assert -period_ms < r["latency_ms"]["median"] < 250.0
