"""A real ArgyllCMS drives `testcard serve --argyll-web` under Xvfb.

``dispwin -dweb:PORT`` is ArgyllCMS's web display: it serves each test colour to whatever polls
it and moves on to the next only when the next poll arrives.  testcard polls again only once
the patch has been presented, so dispwin runs through its colours and exits 0 only because
testcard acknowledged each one after showing it; testcard's ``--log`` lists every patch with
the frame and present time that first showed it.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys

import pytest

from core.jsonfile import parse_json
from tests.helpers import ROOT
from tests.helpers.screens import xvfb_server

pytestmark = [pytest.mark.qt, pytest.mark.xvfb, pytest.mark.slow]

COLOURS = [(1.0, 0.0, 0.0), (0.0, 0.5, 0.0), (0.0, 0.0, 1.0), (0.25, 0.75, 1.0)]
CODES = [tuple(int(v * 255 + 0.5) for v in c) for c in COLOURS]     # webwin.c's rounding


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def need_dispwin() -> str:
    exe = shutil.which("dispwin")
    if exe is None:
        if os.environ.get("CI") == "true":
            pytest.fail("dispwin is not installed; CI installs argyll for this test (packaging/setup)")
        pytest.skip("ArgyllCMS's dispwin is not installed (apt-get install argyll)")
    return exe


def test_dispwin_completes_because_testcard_acknowledges_each_patch_once_presented(tmp_path):
    dispwin = need_dispwin()
    log = tmp_path / "serve.jsonl"
    port = free_port()
    with xvfb_server("640x360") as display:
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT),
                   TESTCARD_CONFIG_DIR=str(tmp_path / "config"), ARGYLL_DISPLAY_SETTLE_TIME_MULT="0")
        env.pop("TESTCARD_PRESENTER", None)
        args = [dispwin, f"-dweb:{port}", "-v"]
        for c in COLOURS:
            args += ["-C", ",".join(f"{v:g}" for v in c)]
        argyll = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True)
        serve = subprocess.Popen([sys.executable, "-m", "app", "serve", "--argyll-web",
                                  f"http://127.0.0.1:{port}", "--log", str(log)],
                                 cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            argyll_out, _ = argyll.communicate(timeout=240)
            argyll_rc = argyll.returncode
            serve.send_signal(signal.SIGTERM)
            serve_rc = serve.wait(timeout=30)
        finally:
            for proc in (argyll, serve):
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
        out, err = serve.communicate()
    assert argyll_rc == 0, argyll_out
    assert argyll_out.count("Patch no ") == len(COLOURS), argyll_out
    assert serve_rc == 0, err
    records = [parse_json(line, source="log") for line in log.read_text().splitlines()]
    shown = [r for r in records if r["kind"] == "shown"]
    assert shown and all(r["source"] == "argyll-web" for r in shown)
    # every patch dispwin asked for was shown, in order, each with its first frame and present time
    colours = [tuple(r["patch"]["color"]) for r in shown]
    firsts = [colours.index(c) for c in CODES]
    assert firsts == sorted(firsts), colours
    for r in shown:
        assert isinstance(r["frame"], int) and r["present_s"] >= r["received_s"] > 0
        assert r["latency_ms"] is not None and r["latency_ms"] >= 0
    assert not [r for r in records if r["kind"] == "ack-timeout"]   # none acknowledged unseen
    assert "testcard serve: ArgyllCMS web display client to http://127.0.0.1:" in out
