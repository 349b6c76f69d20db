"""What the start path and the light commands import: the window is on screen before torch or
OpenCV is imported, and ``--help``, ``patterns`` and ``decisions which/show`` never import
torch (``--help`` not even numpy).  Each runs in a fresh interpreter, so what an earlier test
imported cannot hide an import."""

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import ROOT

HEAVY = ("torch", "cv2", "numpy", "PySide6")

# the command as testcard runs it, then which heavy modules it imported, on stderr's last line
_PROBE = """
import json, sys
from app.cli import main
try:
    rc = main(sys.argv[1:])
except SystemExit as exc:   # --help
    rc = exc.code
print(json.dumps({"rc": rc, **{m: m in sys.modules for m in HEAVY}}), file=sys.stderr)
""".replace("HEAVY", repr(HEAVY))

# the window as testcard gui builds it: which heavy modules are imported at its first show
_AT_SHOW = """
import json, sys
from app.window import MainWindow
seen = {}
shown = MainWindow.showEvent
def first_show(self, event):
    if not seen:
        seen.update({m: m in sys.modules for m in HEAVY})
    shown(self, event)
MainWindow.showEvent = first_show
from app.cli import main
rc = main(["gui", "--frames", "30"])
print(json.dumps({"rc": rc, **seen}), file=sys.stderr)
""".replace("HEAVY", repr(HEAVY))


def _run(tmp_path, code: str, *argv: str, stdout: bool = False, **env_extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT), TESTCARD_CONFIG_DIR=str(tmp_path / "config"),
               TESTCARD_CACHE_DIR=str(tmp_path / "cache"), **env_extra)
    proc = subprocess.run([sys.executable, "-c", code, *argv], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.stderr.strip(), proc.stdout
    got = json.loads(proc.stderr.strip().splitlines()[-1])
    return (got, proc.stdout) if stdout else got


def test_help_imports_neither_torch_nor_numpy_nor_qt(tmp_path):
    got = _run(tmp_path, _PROBE, "--help")
    assert got["rc"] == 0
    assert not got["torch"] and not got["numpy"] and not got["PySide6"], got


def test_patterns_imports_neither_torch_nor_qt(tmp_path):
    # the catalog's pattern modules import numpy: listing them needs it, torch never
    got = _run(tmp_path, _PROBE, "patterns")
    assert got["rc"] == 0
    assert not got["torch"] and not got["cv2"] and not got["PySide6"], got


@pytest.mark.parametrize("argv", [("decisions", "which", "checkerboard@1080p/rgb8"),
                                  ("decisions", "show"), ("decisions", "show", "--json")])
def test_decisions_which_and_show_do_not_import_torch(tmp_path, argv):
    got = _run(tmp_path, _PROBE, *argv)
    assert got["rc"] == 0
    assert not got["torch"] and not got["PySide6"], got


def test_decisions_show_marks_a_cpu_verdict_here_without_torch(tmp_path):
    record = ("from core.decisions import DecisionCache, fingerprint\n"
              "from tests.helpers.decision_helpers import entry\n"
              "DecisionCache().record(fingerprint('cpu'), 'checkerboard@1080p/rgb8', entry('numpy'))\n")
    _run(tmp_path, record + "import sys; print('{}', file=sys.stderr)")
    got, out = _run(tmp_path, _PROBE, "decisions", "show", "--json", stdout=True)
    assert got["rc"] == 0 and not got["torch"], got
    rows = json.loads(out)
    assert [(r["band"], r["here"]) for r in rows] == [("checkerboard@1080p/rgb8", True)]


@pytest.mark.qt
def test_the_window_is_shown_before_torch_or_opencv_is_imported(tmp_path):
    got = _run(tmp_path, _AT_SHOW, QT_QPA_PLATFORM="offscreen")
    assert got["rc"] == 0
    assert got["PySide6"] and got["numpy"]          # the probe saw the first show
    assert not got["torch"] and not got["cv2"], got
