"""`testcard bench preview` refuses bad input with one line and exit 2, before any window."""

import subprocess
import sys

import pytest

from app.commands.preview_bench import stage_figures
from core.timing import Timeline
from tests.helpers import ROOT

pytestmark = pytest.mark.qt



@pytest.mark.parametrize("args, message", [
    (["--frames", "0"], "--frames must be >= 1"),
    (["--warmup", "-1"], "--warmup must be >= 0"),
    (["--pattern", "nope"], "unknown pattern 'nope'"),
    (["--size", "12x"], "size must be WIDTHxHEIGHT"),
    (["--timeline", "no/such/folder/t.csv"], "its folder does not exist"),
    (["--device", "cuda:9"], "--device cuda:9"),
    (["--metrics", "both", "--timeline", "t.csv"], "--timeline records one run"),
])
def test_bad_input_is_one_line_exit_2_and_no_qt(args, message):
    code = ("import sys\nfrom app.cli import main\nrc = main(['bench', 'preview', *sys.argv[1:]])\n"
            "print('QT', any(k.startswith('PySide6') for k in sys.modules), file=sys.stderr)\n"
            "sys.exit(rc)")
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT,
                         timeout=60)
    assert out.returncode == 2
    lines = [ln for ln in out.stderr.splitlines() if not ln.startswith("QT ")]
    assert len(lines) == 1 and message in lines[0]
    assert "QT False" in out.stderr


def test_stage_figures_skip_warmup_and_sum_the_pre_swap_stages():
    tl = Timeline()
    for i in range(110):
        slow = i < 10
        tl.append(i, i / 60, 50.0 if slow else 2.0, 0.5, 1.0 + (i == 109) * 10, 3.0, "numpy")
    figs = stage_figures(tl.snapshot(), warmup=10)
    assert figs["render_ms"] == {"median": 2.0, "p99": 2.0}
    assert figs["render_transfer_upload_ms"]["median"] == 3.5
    assert figs["upload_ms"]["p99"] > 1.0 and figs["present_ms"]["median"] == 3.0


def test_metrics_both_measures_off_and_on_alternately_in_one_run(tmp_path):
    import json
    import os

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TESTCARD_CONFIG_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-m", "app", "bench", "preview", "--size", "64x36",
                          "--frames", "20", "--warmup", "2", "--metrics", "both", "--json"],
                         capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert [r["metrics"] for r in got["runs"]] == [False, True] * 3
    assert all(r["frames"] == 20 for r in got["runs"])
    assert set(got["summary"]) == {"off", "on"} and "late" in got["summary"]["on"]
