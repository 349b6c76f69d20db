"""`testcard serve --metrics`: the patches its calibration clients sent, acknowledged and
refused, per protocol, beside the output's own frames, scraped while it runs."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from app import cli
from core.remote import senders
from tests.helpers import ROOT
from tests.helpers.prometheus import free_port

pytestmark = pytest.mark.qt


def scrape(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for fam in text_string_to_metric_families(text) for s in fam.samples}


@pytest.mark.parametrize("value, words", [("99999", "--metrics: the port must be"),
                                          ("host:", "--metrics: expected [ADDR:]PORT")])
def test_a_bad_metrics_address_is_one_line_and_exit_2(qtbot, capsys, value, words):
    assert cli.main(["serve", "--upgci", "0", "--metrics", value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err


def test_serve_counts_patches_per_protocol_and_the_output_s_frames(tmp_path):
    port = free_port()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT),
               TESTCARD_CONFIG_DIR=str(tmp_path / "config"))
    proc = subprocess.Popen([sys.executable, "-m", "app", "serve", "--pgenerator", "127.0.0.1:0",
                             "--size", "96x54", "--metrics", f"127.0.0.1:{port}"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        pg = None
        while pg is None:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            if "listening on 127.0.0.1:" in line:
                pg = int(line.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", pg), timeout=30) as s:
            s.sendall(senders.hcfr_rectangle(10, 96, 54, (200, 100, 50), (0, 0, 0), bits=8))
            assert s.recv(16) == b"OK\x02\r"
            s.sendall(b"RGB=RECTANGLE;10,10;100;1.5,2,3;0,0,0;-1,-1\x02\r")     # not integers
            assert s.recv(16) == b"ERR\x02\r"
            got = scrape(port)
            assert got[("testcard_clients_connected", (("protocol", "pgenerator"),))] == 1
        got = scrape(port)
        assert got[("testcard_patches_received_total", (("protocol", "pgenerator"),))] == 1
        assert got[("testcard_patches_acknowledged_total", (("protocol", "pgenerator"),))] == 1
        assert got[("testcard_patches_refused_total", (("protocol", "pgenerator"),))] == 1
        assert got[("testcard_frames_presented_total", ())] > 0
        assert got[("testcard_patches_received_total", (("protocol", "upgci"),))] == 0
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    with pytest.raises(OSError):                     # the endpoint went with it
        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2)
