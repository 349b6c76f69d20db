"""``testcard doctor`` as a command: every check in the JSON, progress on stderr, exit status 1
only for a failed check, one line for a bad --screen, and with no display at all the headless
checks and one line about the display, never a traceback."""

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.qt

HEADLESS_GROUPS = {"paths", "speed", "decisions", "capture"}


def doctor(args, tmp_path, **env_changes):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "TESTCARD_TEST_DOCTOR_CORRUPT")}
    env.update(PYTHONPATH=str(ROOT), TESTCARD_CONFIG_DIR=str(tmp_path / "config"),
               TESTCARD_DECISION_CACHE=str(tmp_path / "decisions.json"), **env_changes)
    return subprocess.run([sys.executable, "-m", "app", "doctor", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=300)


def test_no_display_gives_the_headless_checks_and_one_display_line(tmp_path):
    res = doctor(["--quick", "--json"], tmp_path)
    assert "Traceback" not in res.stderr
    doc = json.loads(res.stdout)
    display = [c for c in doc["checks"] if c["group"] == "display"]
    assert len(display) == 1 and display[0]["figure"] == "not available: no display"
    assert display[0]["verdict"] == "not available"
    assert HEADLESS_GROUPS <= {c["group"] for c in doc["checks"]}
    assert not {"screens", "surface", "hdr"} & {c["group"] for c in doc["checks"]}
    assert res.returncode == doc["exit_status"] == (1 if doc["counts"]["fail"] else 0)
    # one progress line per check, on stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("doctor [")]
    assert len(lines) == len(doc["checks"])


def test_no_display_table_says_so_in_one_line(tmp_path):
    res = doctor(["--quick"], tmp_path)
    assert "Traceback" not in res.stderr and res.returncode == 0, res.stderr
    table, _, notes = res.stdout.partition("\n\n")
    rows = [ln for ln in table.splitlines() if ln.startswith("display: display")]
    assert len(rows) == 1 and "not available: no display" in rows[0]
    assert "paths: numpy on cpu" in table
    assert "display: display: no display to open a window on" in notes    # the why, once


def test_a_path_forced_to_mismatch_fails_the_run_with_its_first_differing_pixel(tmp_path):
    res = doctor(["--quick", "--json"], tmp_path, QT_QPA_PLATFORM="offscreen",
                 TESTCARD_TEST_DOCTOR_CORRUPT="numpy")
    assert res.returncode == 1, res.stderr
    doc = json.loads(res.stdout)
    failed = [c for c in doc["checks"] if c["verdict"] == "fail"]
    assert [c["name"] for c in failed] == ["numpy on cpu"]
    first = failed[0]["data"]["first_difference"]
    assert set(first) == {"y", "x", "channel", "got", "want"} and first["got"] != first["want"]
    # the offscreen platform: screens listed, no GL surface, presents not vsync
    by = {(c["group"], c["name"]): c for c in doc["checks"]}
    assert by[("surface", "format")]["verdict"] == "not available"
    assert by[("surface", "presents")]["figure"].startswith("timer-paced, no vsync")
    assert by[("screens", "output")]["verdict"] == "ok"


def test_a_screen_that_is_not_connected_is_one_error_line(tmp_path):
    res = doctor(["--quick", "--screen", "7"], tmp_path, QT_QPA_PLATFORM="offscreen")
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.strip().splitlines() == [res.stderr.strip()]
    assert res.stderr.startswith("testcard: error: --screen 7: there is no screen 7")
