"""`testcard serve --log` flooded the way a hostile probe flooded it (on the offscreen platform):
a PGenerator client sending requests as fast as the socket takes them and a DisplayCAL-style
Resolve server sending patches without pause.  The rules: memory and the log stay bounded,
the newest Resolve patch is the one shown, SIGTERM ends serve (exit 0) whatever the peers do,
and the log survives SIGKILL as whole lines.  Nothing here asserts a time."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading

import pytest

from core.jsonfile import parse_json
from core.remote import senders
from tests.helpers import ROOT

pytestmark = [pytest.mark.qt, pytest.mark.slow]

LISTEN = re.compile(r"^testcard serve: PGenerator server \(HCFR\) listening on 127\.0\.0\.1:(?P<port>\d+)$")
LOG_MAX_MB = 0.2
REQUESTS = 150_000
RSS_GROWTH_MB = 120          # the probe saw 560 MB; a bounded serve stays far under this


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:")) / 1024


def start(tmp_path, log, resolve_port):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT),
               TESTCARD_CONFIG_DIR=str(tmp_path / "config"))
    proc = subprocess.Popen([sys.executable, "-m", "app", "serve", "--pgenerator", "127.0.0.1:0",
                             "--resolve", f"127.0.0.1:{resolve_port}", "--size", "96x54",
                             "--log", str(log), "--log-max", str(LOG_MAX_MB)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    port = None
    while True:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        m = LISTEN.match(line.strip())
        if m:
            port = int(m["port"])
        if line.startswith("testcard serve: output"):
            lines: list[str] = []                     # read on, as a terminal would
            threading.Thread(target=lines.extend, args=(proc.stdout,), daemon=True).start()
            return proc, port, lines


REPLIES = len(b"ALIVE\x02\r" + b"ERR\x02\r") * (REQUESTS // 2)


def flood_pgenerator(port: int, done: threading.Event) -> None:
    """IS_ALIVE and garbage as fast as the socket takes them; ``done`` once every reply came."""
    with socket.create_connection(("127.0.0.1", port), timeout=120) as s:
        reader = threading.Thread(target=_drain, args=(s, done), daemon=True)
        reader.start()
        chunk = (senders.pgenerator_request("IS_ALIVE") + b"NONSENSE\x02\r") * 500
        for _ in range(REQUESTS // 1000):
            s.sendall(chunk)
        reader.join(120)


def _drain(sock, done: threading.Event) -> None:
    got = 0
    try:
        while got < REPLIES and (data := sock.recv(65536)):
            got += len(data)
    except OSError:
        pass
    if got >= REPLIES:
        done.set()


def wait_for(condition, what: str, timeout_s: float = 60.0) -> None:
    import time

    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)   # another process's output; nothing here to wait on a signal of


def log_records(log) -> list[dict]:
    lines = []
    for path in (log.with_name(log.name + ".1"), log):
        if path.exists():
            lines += path.read_text().splitlines()
    return [parse_json(line, source="log") for line in lines]   # each one whole


@pytest.mark.parametrize("ending", ["SIGTERM", "SIGKILL"])
def test_a_flood_with_log_stays_bounded_and_serve_ends(tmp_path, ending):
    log = tmp_path / "serve.jsonl"
    displaycal = socket.create_server(("127.0.0.1", 0))
    proc, port, lines = start(tmp_path, log, displaycal.getsockname()[1])
    try:
        displaycal.settimeout(60)
        conn, _ = displaycal.accept()
        before = rss_mb(proc.pid)
        done = threading.Event()
        flooder = threading.Thread(target=flood_pgenerator, args=(port, done), daemon=True)
        flooder.start()
        patches = b"".join(senders.displaycal_calman(((i % 997) / 997,) * 3) for i in range(20_000))
        conn.sendall(patches)
        flooder.join(180)
        assert done.is_set(), "not every request was answered"
        conn.sendall(senders.displaycal_calman((0.25, 0.5, 0.75)))      # the newest: it must win
        wait_for(lambda: any("256,512,767 full screen (resolve)" in line and "shown at frame" in line
                             for line in list(lines)), "the newest Resolve patch shown")
        grown = rss_mb(proc.pid) - before
        if ending == "SIGTERM":
            import time

            t0 = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            rc = proc.wait(timeout=60)                # the rule: serve ends, whatever the peers do
            print(f"\nSIGTERM to exit: {time.monotonic() - t0:.2f} s")
        else:
            proc.send_signal(signal.SIGKILL)
            rc = proc.wait(timeout=60)
        conn.close()
    finally:
        displaycal.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read()
    size = log.stat().st_size / 1e6
    print(f"\n{REQUESTS} requests and 20,000 patches: RSS grew {grown:.0f} MB, log {size:.2f} MB, "
          f"{len(log_records(log))} records kept")
    assert grown < RSS_GROWTH_MB, f"memory grew {grown:.0f} MB under the flood"
    cap = LOG_MAX_MB * 1e6
    assert log.stat().st_size <= cap
    assert not log.with_name(log.name + ".1").exists() or log.with_name(log.name + ".1").stat().st_size <= cap
    records = log_records(log)                        # SIGKILL too: whole lines, every one JSON
    assert records and all("kind" in r for r in records)
    if ending == "SIGTERM":
        assert rc == 0, err
        assert lines[-1].startswith("testcard serve: ended (SIGTERM)")
        assert len(lines) < REQUESTS / 100            # a flood of requests is not a flood of output
        shown = [r for r in records if r["kind"] == "shown" and r["source"] == "resolve"]
        assert shown and shown[-1]["patch"]["color"] == [256, 512, 767]   # and logged last
    else:
        assert rc == -signal.SIGKILL
