"""`testcard show` on the offscreen platform: the output alone, fullscreen with the cursor hidden,
on the decision cache's path; Esc, SIGTERM and SIGINT end it cleanly; bad input is one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app import cli
from app.settings import settings_path
from core.decisions import cache_path, make_key
from core.decisions.schema import encode
from tests.helpers import ROOT
from tests.helpers.decision_helpers import FP, entry

pytestmark = pytest.mark.qt


def outputs():
    return [w for w in QApplication.topLevelWidgets() if w.windowTitle() == "testcard output"
            and w.isVisible()]


def guarded(argv):
    guard = QTimer()            # a kiosk that never ended would hang the suite
    guard.setSingleShot(True)
    guard.timeout.connect(QApplication.quit)
    guard.start(120_000)
    try:
        return cli.main(argv)
    finally:
        guard.stop()


def test_show_runs_the_frame_count_on_the_cache_path_and_records_the_timeline(qtbot, tmp_path, capsys):
    cache_path().parent.mkdir(parents=True, exist_ok=True)
    cache_path().write_bytes(encode({make_key(FP, "bars@64x36/rgb8"): entry("torch-eager")}))
    csv = tmp_path / "timeline.csv"
    rc = guarded(["show", "bars", "--size", "64x36", "--bit-depth", "8", "--frames", "12",
                  "--timeline", str(csv)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    first, last = out.strip().splitlines()
    assert first.startswith("testcard show: bars at 64x36, 8-bit, on screen 0: ")
    assert "render path torch-eager (cache)" in first
    assert last == "testcard show: ended (frame limit)"
    assert f"recorded 12 frames to {csv}" in err
    assert len(csv.read_text().splitlines()) == 13
    assert not outputs()                     # the output closed with it
    assert not settings_path().exists()      # kiosk mode remembers nothing


def test_settings_problems_are_said_on_stderr_and_the_show_goes_on(qtbot, capsys):
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text('{"schema": 1, "bit_depth": 99, "pattern": "bars"}')
    rc = guarded(["show", "bars", "--size", "64x36", "--bit-depth", "8", "--frames", "3"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    said = [line for line in err.splitlines() if line.startswith("testcard: settings: ")]
    assert len(said) == 1 and "bit_depth" in said[0], err
    assert out.strip().splitlines()[-1] == "testcard show: ended (frame limit)"


def test_remembered_parameters_are_judged_at_the_output_screens_size(qtbot, capsys):
    # a pixel rectangle that fits the placeholder size but not this screen: the defaults are
    # shown with one note, the show is not refused
    width = QApplication.primaryScreen().size().width()
    rect = {"geometry": "pixels", "x": width + 100, "y": 0, "w": 50, "h": 50}
    assert width + 150 <= 1920
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(json.dumps({"schema": 1, "pattern": "window", "bit_depth": 8,
                                           "params": {"window": rect}}))
    rc = guarded(["show", "--frames", "3"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    said = [line for line in err.splitlines() if line.startswith("testcard: settings: ")]
    assert len(said) == 1 and f"{width}-pixel width" in said[0] and "using defaults" in said[0], err
    assert out.strip().splitlines()[-1] == "testcard show: ended (frame limit)"


def test_esc_in_the_output_ends_it_and_the_cursor_was_hidden_fullscreen(qtbot, capsys):
    seen = {}

    def press_esc():
        found = outputs()
        if not found:
            QTimer.singleShot(50, press_esc)
            return
        w = found[0]
        seen.update(cursor=w.cursor().shape(), fullscreen=w.isFullScreen())
        QTest.keyClick(w, Qt.Key.Key_Escape)

    QTimer.singleShot(0, press_esc)
    rc = guarded(["show", "checkerboard", "--size", "64x36", "--bit-depth", "8", "--no-banner"])
    out = capsys.readouterr().out
    assert rc == 0 and out.strip().endswith("ended (Esc)")
    assert seen["cursor"] == Qt.CursorShape.BlankCursor and seen["fullscreen"]


def test_a_preset_plays_in_the_output(qtbot, capsys):
    rc = guarded(["show", "--preset", "10 % windows 0-100 %", "--play", "--size", "64x36",
                  "--bit-depth", "8", "--frames", "6"])
    out = capsys.readouterr().out
    assert rc == 0 and "preset 10 % windows 0-100 % (playing) at 64x36" in out


@pytest.mark.parametrize("argv, words", [
    (["show", "nosuch"], "nosuch"),
    (["show", "bars", "--set", "bogus=1"], "bogus"),
    (["show", "--play"], "--play needs --preset"),
    (["show", "bars", "--bit-depth", "17"], "bit"),
    (["show", "bars", "--screen", "7"], "--screen 7: there is no screen 7; connected: "),
    (["show", "bars", "--timeline", "/"], "timeline"),
])
def test_bad_input_is_one_line_and_exit_2_before_any_output_opens(qtbot, capsys, argv, words):
    assert guarded(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("testcard: error: ") and words in err
    assert not outputs()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_ends_it_cleanly(tmp_path, sig):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT),
               TESTCARD_CONFIG_DIR=str(tmp_path / "config"))
    proc = subprocess.Popen([sys.executable, "-m", "app", "show", "bars", "--size", "64x36"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("testcard show: bars at 64x36")   # the output is up
        proc.send_signal(sig)
        rc = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out, err = proc.communicate()
    assert rc == 0, err
    assert out.strip() == f"testcard show: ended ({sig.name})"
    assert "Traceback" not in err
