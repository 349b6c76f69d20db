"""``testcard doctor --json`` under Xvfb (Mesa llvmpipe): every check, the real GL surface's
granted format, presents judged timer-paced (Xvfb's swaps do not wait for a vblank), the screen
grab reaching the screen, and the exit status by the rule."""

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import ROOT
from tests.helpers.screens import xvfb_server

pytestmark = [pytest.mark.qt, pytest.mark.xvfb]


def test_doctor_json_under_xvfb_has_every_check_and_exits_by_the_rule(tmp_path):
    with xvfb_server("1280x720") as display:
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT),
                   TESTCARD_CONFIG_DIR=str(tmp_path / "config"))
        env.pop("TESTCARD_TEST_DOCTOR_CORRUPT", None)
        res = subprocess.run([sys.executable, "-m", "app", "doctor", "--json"], capture_output=True,
                             text=True, cwd=ROOT, env=env, timeout=600)
    assert "Traceback" not in res.stderr, res.stderr
    doc = json.loads(res.stdout)
    by = {(c["group"], c["name"]): c for c in doc["checks"]}
    assert {"screens", "hdr", "surface", "paths", "speed", "decisions", "capture"} <= {g for g, _ in by}
    assert res.returncode == doc["exit_status"] == (1 if any(c["verdict"] == "fail" for c in by.values())
                                                    else 0)
    fmt = by[("surface", "format")]
    assert fmt["data"]["swap_interval"] >= 0 and fmt["data"]["red"] >= 8
    presents = by[("surface", "presents")]
    assert presents["verdict"] == "warning" and presents["figure"].startswith("timer-paced, no vsync")
    figures = presents["data"]
    assert figures["intervals"] >= 30 and figures["median_ms"] < figures["period_ms"]
    assert by[("screens", "output")]["data"]["index"] == 0
    assert by[("capture", "screen grab")]["data"]["width"] == 1280
    assert by[("paths", "torch-compiled on cpu")]["verdict"] in ("ok", "warning", "not available")
    assert by[("capture", "loop-back latency")]["verdict"] == "not run"
    assert by[("hdr", "PQ signal")]["verdict"] == "not available"
