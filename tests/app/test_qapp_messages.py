"""Qt's own messages go to the log at their level, never to stdout: the line Qt says on every
start under Xvfb ("Falling back to using screens root_visual.") is debug."""

import logging
import os
import subprocess
import sys

import pytest
from PySide6.QtCore import QMessageLogContext, QtMsgType

from app.qapp import QT_LOG, qt_message
from tests.helpers import ROOT
from tests.helpers.screens import xvfb_server

pytestmark = pytest.mark.qt


@pytest.mark.parametrize(("kind", "level"), [(QtMsgType.QtDebugMsg, logging.DEBUG),
                                             (QtMsgType.QtInfoMsg, logging.INFO),
                                             (QtMsgType.QtWarningMsg, logging.WARNING),
                                             (QtMsgType.QtCriticalMsg, logging.ERROR)])
def test_a_qt_message_is_logged_at_its_level(caplog, capsys, kind, level):
    with caplog.at_level(logging.DEBUG, logger=QT_LOG.name):
        qt_message(kind, QMessageLogContext(), "something Qt says")
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        (QT_LOG.name, level, "something Qt says")]
    assert capsys.readouterr().out == ""


def test_the_root_visual_fallback_is_debug_not_a_warning(caplog):
    with caplog.at_level(logging.DEBUG, logger=QT_LOG.name):
        qt_message(QtMsgType.QtWarningMsg, QMessageLogContext(), "Falling back to using screens root_visual.")
    assert [r.levelno for r in caplog.records] == [logging.DEBUG]


@pytest.mark.xvfb
def test_gui_under_xvfb_prints_no_qt_noise(tmp_path):
    with xvfb_server("640x480") as display:
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT),
                   TESTCARD_CONFIG_DIR=str(tmp_path / "config"), TESTCARD_CACHE_DIR=str(tmp_path / "cache"))
        proc = subprocess.run([sys.executable, "-m", "app", "gui", "--frames", "30"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("docks: "), proc.stdout       # the one line gui --frames prints
    assert "root_visual" not in proc.stdout + proc.stderr
