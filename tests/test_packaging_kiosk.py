"""The edge box's autostart files (packaging/testcard-show.service and .desktop): valid for
their tools, and the command each runs is one testcard's own parser accepts."""

import configparser
import os
import shlex
import shutil
import subprocess

import pytest

from app import cli
from tests.helpers import ROOT

PACKAGING = ROOT / "packaging"


def command_of(exec_line: str) -> list[str]:
    argv = shlex.split(exec_line)
    assert os.path.basename(argv[0]) == "testcard"
    return argv[1:]


def test_the_systemd_unit_runs_a_valid_kiosk_command_and_restarts_only_on_failure():
    unit = configparser.ConfigParser(interpolation=None, strict=True)
    unit.read_string((PACKAGING / "testcard-show.service").read_text())
    argv = command_of(unit["Service"]["ExecStart"])
    args = cli.build_parser().parse_args(argv)
    assert args.command == "show" and args.screen == "0" and args.banner is False
    assert unit["Service"]["Restart"] == "on-failure"          # SIGTERM exits 0: a stop stays stopped
    assert unit["Install"]["WantedBy"] == "graphical-session.target"


def test_the_autostart_entry_is_valid_and_runs_the_same_command():
    entry = configparser.ConfigParser(interpolation=None, strict=True)
    entry.optionxform = str
    entry.read_string((PACKAGING / "testcard-show.desktop").read_text())
    d = entry["Desktop Entry"]
    argv = command_of(d["Exec"])
    assert cli.build_parser().parse_args(argv).command == "show"
    unit = configparser.ConfigParser(interpolation=None)
    unit.read_string((PACKAGING / "testcard-show.service").read_text())
    assert argv == command_of(unit["Service"]["ExecStart"])
    if shutil.which("desktop-file-validate") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("desktop-file-validate is not installed; CI needs desktop-file-utils")
        pytest.skip("desktop-file-validate is not installed (desktop-file-utils)")
    r = subprocess.run(["desktop-file-validate", str(PACKAGING / "testcard-show.desktop")],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and not r.stdout.strip(), r.stdout + r.stderr
