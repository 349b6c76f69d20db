"""A real Prometheus server (Debian's ``prometheus``) scraping testcard's metrics endpoint, for
end-to-end tests: started on a free loopback port with its own storage in a temporary folder,
scraping every 0.5 s, queried through its HTTP API, stopped afterwards."""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

BINARY = shutil.which("prometheus")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prometheus:
    def __init__(self, folder: Path, target: str, job: str = "testcard"):
        self.folder = Path(folder)
        self.port = free_port()
        config = self.folder / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 500ms\n  scrape_timeout: 400ms\n"
            f"scrape_configs:\n  - job_name: {job}\n    static_configs:\n"
            f"      - targets: ['{target}']\n        labels:\n          box: edge-test\n",
            encoding="utf-8")
        self.log = open(self.folder / "prometheus.log", "wb")
        self.proc = subprocess.Popen(
            [BINARY, f"--config.file={config}", f"--storage.tsdb.path={self.folder / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}"],
            stdout=self.log, stderr=subprocess.STDOUT)

    def api(self, path: str, **params) -> dict:
        url = f"http://127.0.0.1:{self.port}/api/v1/{path}?{urllib.parse.urlencode(params)}"
        with urllib.request.urlopen(url, timeout=5) as r:
            return json.loads(r.read())

    def wait_ready(self, timeout: float = 60.0) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                log = (self.folder / "prometheus.log").read_text()
                raise RuntimeError(f"prometheus exited: {log[-2000:]}")
            ready = f"http://127.0.0.1:{self.port}/-/ready"
            with contextlib.suppress(OSError), urllib.request.urlopen(ready, timeout=2) as r:
                if r.status == 200:
                    return
            time.sleep(0.2)
        raise TimeoutError("prometheus did not become ready")

    def query(self, expr: str) -> list:
        return self.api("query", query=expr)["data"]["result"]

    def wait_for(self, expr: str, ok, timeout: float = 60.0):
        """Query ``expr`` until ``ok(result)`` holds; returns that result."""
        end = time.monotonic() + timeout
        result = []
        while time.monotonic() < end:
            result = self.query(expr)
            if ok(result):
                return result
            time.sleep(0.3)
        raise TimeoutError(f"{expr}: still {result!r}")

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
