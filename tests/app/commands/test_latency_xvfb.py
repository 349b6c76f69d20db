"""`testcard latency --source x11grab:...` end to end under a real X server, with no hardware:
the robust counter fullscreen on a 320x240 Xvfb screen, grabbed from that screen in the same
run, every capture decoded and joined to the present log.

A second run turns on both test hooks: the frame loop's ``TESTCARD_TEST_STALL_EVERY`` (every
N-th frame is logged as presented and never shown) must come out as display drops exactly N
indices apart (any other drop must be a frame on screen for about a capture period or less), and
the capture's ``TESTCARD_TEST_CAPTURE_STALL_EVERY`` (the reader stalls until the source's
queue overflows) as capture drops, counted apart and never as the display's.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.helpers import ROOT
from tests.helpers.screens import xvfb_server

pytestmark = [pytest.mark.qt, pytest.mark.xvfb]

SECONDS = 4
STALL_EVERY = 20


@pytest.fixture(scope="module")
def display():
    import av

    if "x11grab" not in av.formats_available:
        if os.environ.get("CI") == "true":
            pytest.fail("this FFmpeg has no x11grab input; CI needs it for the latency loop")
        pytest.skip("this FFmpeg has no x11grab input")
    with xvfb_server("320x240") as d:
        yield d


def latency(display, tmp_path, env_extra=None, *extra):
    env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT),
               TESTCARD_CONFIG_DIR=str(tmp_path / "config"), **(env_extra or {}))
    for key in ("TESTCARD_PRESENTER", "TESTCARD_TEST_STALL_EVERY", "TESTCARD_TEST_CAPTURE_STALL_EVERY"):
        if key not in (env_extra or {}):
            env.pop(key, None)
    proc = subprocess.run([sys.executable, "-m", "app", "latency", "--source", f"x11grab:{display}",
                           "--size", "320x240", "--seconds", str(SECONDS), "--json", *extra],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_presented_counter_is_grabbed_decoded_and_joined(display, tmp_path):
    csv_path = tmp_path / "latency.csv"
    r = latency(display, tmp_path, None, "--csv", str(csv_path))
    src = r["source"]
    assert src["kind"] == "x11grab" and src["clock"] == "realtime-mapped" and src["size"] == [320, 240]
    assert r["output"]["size"] == "320x240" and r["output"]["presenter"] == "opengl"
    # the run presented for the whole capture (a 60 Hz screen: well over a hundred frames)
    assert r["presented"] > 100
    # every capture decoded; no capture showed an index that was not presented around its time
    assert r["captures"] > r["presented"]
    assert r["captures_unknown"] == 0 and r["decode"]["undecodable"] == 0
    assert r["unmatched_captures"] == 0
    assert r["matched"] >= 0.9 * r["presented"], r["events"][:20]
    lat = r["latency_ms"]
    assert lat["n"] == r["matched"]
    assert 0 < lat["median"] < 250
    assert lat["max"] < 250
    # a matched frame is one presented frame seen at one capture: its latency is that difference
    rows = [f for f in r["frames"] if f["status"] == "matched"]
    assert rows and all(abs(f["latency_ms"] - 1e3 * (f["capture_s"] - f["present_s"])) < 1e-2 for f in rows)
    assert "quantised to the capture period" in r["precision"]
    assert csv_path.read_text().count("\n") == r["presented"] + 1


def test_stalled_presenter_is_display_drops_and_throttled_capture_is_capture_drops(display, tmp_path):
    r = latency(display, tmp_path, {"TESTCARD_TEST_STALL_EVERY": str(STALL_EVERY),
                                    "TESTCARD_TEST_CAPTURE_STALL_EVERY": "60"})
    discarded = SECONDS * 60 / STALL_EVERY           # frames logged as presented and never shown
    # the discarded frames are display drops: N indices apart, as the hook discards them
    hooked = [i for i in r["dropped"] if i % STALL_EVERY == 0]
    assert len(hooked) >= discarded / 2, r["events"][:20]
    assert not (np.diff(np.asarray(hooked)) % STALL_EVERY).any(), r["dropped"]
    assert sorted(f["index"] for f in r["frames"] if f["status"] == "dropped") == sorted(r["dropped"])
    # any other drop is a frame really on screen for about a capture period or less (presented
    # late and replaced at the next deadline): the screen grab, whose instants jitter by up to a
    # period, can miss it; a few such frames, never a frame shown for longer
    present = {f["index"]: f["present_s"] for f in r["frames"]}
    capture_period = 1.0 / r["capture_rate_hz"]
    others = [i for i in r["dropped"] if i % STALL_EVERY]
    assert len(others) <= 0.02 * r["presented"], r["dropped"]
    for i in others:
        assert present[i + 1] - present[i] < 2 * capture_period, (i, r["dropped"])
    # the reader's stalls overflow the source's queue: capture drops, counted apart
    assert r["decode"]["frames_behind"] > 0
    assert r["capture_drops"] >= r["decode"]["frames_behind"]
    # what a capture gap may have hidden is never called a display drop
    assert r["unseen_in_capture_gaps"] > 0
    assert r["unmatched_captures"] == 0
    assert 0 < r["latency_ms"]["median"] < 250
