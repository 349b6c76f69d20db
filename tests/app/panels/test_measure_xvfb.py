"""The Measure panel's live race under a real X server with GL, from a main window built as
``testcard gui`` builds it: a still pattern on the output races every default candidate,
torch-compiled included, to the end (tests/helpers/measure_gui_race.py runs it)."""

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import ROOT
from tests.helpers.screens import xvfb_server

pytestmark = [pytest.mark.qt, pytest.mark.xvfb]


def test_a_still_pattern_races_to_the_end_with_the_default_candidates(tmp_path):
    from core.engine import path_problem

    why = path_problem("torch-compiled", "cpu")
    if why:
        pytest.skip(f"torch-compiled cannot run here: {why}")
    with xvfb_server("1280x720") as display:
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT),
                   TESTCARD_CONFIG_DIR=str(tmp_path / "config"))
        env.pop("TESTCARD_PRESENTER", None)
        proc = subprocess.run([sys.executable, "-m", "tests.helpers.measure_gui_race", "--pattern", "window"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["form"] == "live" and out["band"] == "window@320x180/rgb8"
    assert set(out["candidates"]) >= {"numpy", "torch-eager", "torch-compiled"}
    for name in ("numpy", "torch-eager", "torch-compiled"):
        c = out["candidates"][name]
        assert c["status"] == "ok" and c["median_ms"] > 0, (name, c["reason"])
    # the output reuses its still frame again once the race is over; the panel names its figure
    assert out["reused_before"] and out["reused_after"]
    assert out["axis"] == "p99 frame cost (ms)" and "p99 frame cost (ms)" in out["headers"]
