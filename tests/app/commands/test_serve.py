"""`testcard serve` on the offscreen platform: it says where it listens, acknowledges each patch
once shown, logs every patch with its first frame and present time, ends cleanly on SIGTERM;
anything wrong is one line and exit 2 before the output opens."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app import cli
from core.jsonfile import parse_json
from core.remote import senders
from core.remote.upgci import ACK
from tests.helpers import ROOT

pytestmark = pytest.mark.qt

LISTEN = re.compile(r"^testcard serve: (?P<title>.+?) listening on 127\.0\.0\.1:(?P<port>\d+)$")


def outputs():
    return [w for w in QApplication.topLevelWidgets() if w.windowTitle() == "testcard output"
            and w.isVisible()]


@pytest.mark.parametrize("argv, words", [
    ([], "serve needs a connection: give --resolve, --argyll-web, --pgenerator or --upgci"),
    (["--pgenerator", "1.2.3.4:99999"], "--pgenerator: the port must be a number 0..65535"),
    (["--resolve", "bad host:1"], "--resolve: 'bad host' is not a host name or address"),
    (["--argyll-web", "https://127.0.0.1:8080"], "--argyll-web: only http://"),
    (["--upgci", "0", "--discovery"], "--discovery answers for the PGenerator server"),
    (["--upgci", "0", "--allow", "nobody"], "--allow: 'nobody' is not an address or network"),
    (["--upgci", "0", "--bit-depth", "17"], "bit"),
    (["--upgci", "0", "--limited", "--bit-depth", "6"], "limited"),
    (["--upgci", "0", "--ack-timeout", "0"], "--ack-timeout must be above 0 s"),
    (["--upgci", "0", "--ack-timeout", "nan"], "--ack-timeout must be above 0 s"),
    (["--upgci", "0", "--idle-timeout", "inf"], "--idle-timeout must be above 0 s"),
    (["--upgci", "0", "--request-timeout", "-1"], "--request-timeout must be above 0 s"),
    (["--upgci", "0", "--log-max", "nan"], "--log-max must be"),
    (["--resolve", ""], "--resolve: expected an address, got ''"),
    (["--pgenerator", " "], "--pgenerator: expected an address, got ' '"),
    (["--upgci", "0", "--size", "0x0"], "size"),
    (["--upgci", "0", "--log", "/"], "remote log"),
    (["--upgci", "0", "--screen", "9"], "--screen 9: there is no screen 9"),
])
def test_bad_input_is_one_line_and_exit_2_before_the_output_opens(qtbot, capsys, argv, words):
    assert cli.main(["serve", *argv]) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("testcard: error: ") and words in err, err
    assert "output" not in out and not outputs()


def test_a_taken_port_is_refused_before_the_output_opens_and_nothing_stays_open(qtbot, capsys):
    taken = socket.create_server(("127.0.0.1", 0))
    try:
        guard = QTimer()
        guard.setSingleShot(True)
        guard.timeout.connect(QApplication.quit)
        guard.start(60_000)
        rc = cli.main(["serve", "--upgci", "127.0.0.1:0", "--pgenerator",
                       f"127.0.0.1:{taken.getsockname()[1]}", "--size", "64x36"])
        guard.stop()
    finally:
        taken.close()
    out, err = capsys.readouterr()
    assert rc == 2 and "cannot listen on 127.0.0.1:" in err and err.count("\n") == 1
    assert "testcard serve: output" not in out and not outputs()


def test_serve_acknowledges_shown_patches_logs_them_and_ends_on_sigterm(tmp_path):
    log = tmp_path / "serve.jsonl"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT),
               TESTCARD_CONFIG_DIR=str(tmp_path / "config"))
    proc = subprocess.Popen([sys.executable, "-m", "app", "serve", "--pgenerator", "127.0.0.1:0",
                             "--upgci", "127.0.0.1:0", "--size", "96x54", "--bit-depth", "10",
                             "--log", str(log)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ports = {}
        while len(ports) < 2:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            m = LISTEN.match(line.strip())
            if m:
                ports[m["title"]] = int(m["port"])
        assert set(ports) == {"PGenerator server (HCFR)", "UPGCI server (Calman, ColourSpace)"}
        assert proc.stdout.readline().startswith("testcard serve: output 96x54 at 10-bit, full range")
        with socket.create_connection(("127.0.0.1", ports["PGenerator server (HCFR)"]), timeout=30) as s:
            s.sendall(senders.hcfr_rectangle(10, 96, 54, (400, 800, 200), (16, 16, 16), bits=10))
            assert s.recv(16) == b"OK\x02\r"
        with socket.create_connection(("127.0.0.1", ports["UPGCI server (Calman, ColourSpace)"]),
                                      timeout=30) as s:
            s.sendall(senders.calman_rgb_s((940, 940, 940), 18))
            assert s.recv(1) == ACK
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out, err = proc.communicate()
    assert rc == 0, err
    assert out.strip().splitlines()[-1] == "testcard serve: ended (SIGTERM); 2 patches shown"
    assert "logged " in err and str(log) in err
    records = [parse_json(line, source="log") for line in log.read_text().splitlines()]
    shown = [r for r in records if r["kind"] == "shown"]
    assert [(r["source"], r["patch"]["color"]) for r in shown] == [("pgenerator", [400, 800, 200]),
                                                                   ("upgci", [940, 940, 940])]
    for r in shown:
        assert isinstance(r["frame"], int) and r["present_s"] >= r["received_s"]
        assert r["latency_ms"] == pytest.approx((r["present_s"] - r["received_s"]) * 1000)
        # 10 bits on a 10-bit frame, then the 8-bit offscreen surface, by the one rule
        assert r["pattern"] == "window" and r["note"].endswith(
            "on the 8-bit surface (round(v*255/1023))") and r["shown"]["bits"] == 8
