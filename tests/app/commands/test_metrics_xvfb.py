"""`testcard show --metrics` on a real X server, scraped two ways: with prometheus_client's own
parser (the presented counter climbs at the screen's rate, the info labels name what is on
screen) and by a real Prometheus server (Debian's), queried through its HTTP API for the
counter's increase."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.helpers import ROOT
from tests.helpers.prometheus import BINARY, Prometheus, free_port
from tests.helpers.screens import xvfb_server

pytestmark = [pytest.mark.qt, pytest.mark.xvfb, pytest.mark.slow]


def scrape(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s for fam in text_string_to_metric_families(text)
            for s in fam.samples}


def presented(port: int) -> float:
    return scrape(port)[("testcard_frames_presented_total", ())].value


def show(display, tmp_path, port):
    env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT),
               TESTCARD_CONFIG_DIR=str(tmp_path / "config"))
    env.pop("TESTCARD_PRESENTER", None)
    return subprocess.Popen([sys.executable, "-m", "app", "show", "bars", "--no-banner", "--size", "320x180",
                             "--bit-depth", "8", "--metrics", f"127.0.0.1:{port}"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_serving(proc, port, timeout=120.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, proc.communicate()
        try:
            if presented(port) >= 10:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise TimeoutError("testcard show never served its metrics")


def stop(proc) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_presented_counter_climbs_at_the_screen_s_rate_and_the_labels_are_right(tmp_path):
    port = free_port()
    with xvfb_server("640x360") as display:
        proc = show(display, tmp_path, port)
        try:
            wait_serving(proc, port)
            got = scrape(port)
            rate = got[("testcard_refresh_rate_hertz", ())].value
            assert rate == pytest.approx(60, abs=1)         # Xvfb's 60 Hz
            info = next(s.labels for (name, _), s in got.items() if name == "testcard_output_info")
            assert (info["pattern"], info["width"], info["height"], info["bit_depth"]) == \
                ("bars", "320", "180", "8")
            assert info["render_path"] == "numpy" and info["path_source"] == "default"
            assert info["transfer"] == "sdr" and info["presenter"] in ("opengl", "raster")
            # the counter over a few seconds against the monotonic clock: the screen's rate,
            # less the late frames the counter itself reports (a loaded box drops some)
            t0, n0 = time.monotonic(), presented(port)
            late0 = got[("testcard_frames_late_total", ())].value
            time.sleep(3.0)
            got = scrape(port)
            t1, n1 = time.monotonic(), got[("testcard_frames_presented_total", ())].value
            assert scrape(port)[("testcard_frames_presented_total", ())].value >= n1   # never goes down
            measured = (n1 - n0) / (t1 - t0)
            late = got[("testcard_frames_late_total", ())].value - late0
            assert 0.5 * rate < measured <= rate * 1.1, (measured, late)
            assert got[("testcard_present_interval_seconds_count", ())].value > 0
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as r:
                assert r.status == 200 and b"presenting" in r.read()
        finally:
            rc = stop(proc)
        assert rc == 0, proc.communicate()


@pytest.mark.skipif(BINARY is None,
                    reason="Debian's prometheus is not installed (packaging/setup test installs it)")
def test_a_real_prometheus_scrapes_a_running_show(tmp_path):
    port = free_port()
    with xvfb_server("640x360") as display:
        proc = show(display, tmp_path, port)
        prom = None
        try:
            wait_serving(proc, port)
            prom = Prometheus(tmp_path, f"127.0.0.1:{port}")
            prom.wait_ready()
            up = prom.wait_for('up{job="testcard"}', lambda r: r and r[0]["value"][1] == "1")
            assert up[0]["metric"]["box"] == "edge-test"
            # the counter's increase over the last few seconds, as a fleet's dashboard asks it
            result = prom.wait_for("increase(testcard_frames_presented_total[5s])",
                                   lambda r: r and float(r[0]["value"][1]) > 30, timeout=90)
            assert float(result[0]["value"][1]) > 30
            # a box that is presenting is not in the "not presenting" query
            stale = prom.query("time() - testcard_last_present_timestamp_seconds > 30")
            assert stale == []
        finally:
            if prom is not None:
                prom.close()
            rc = stop(proc)
        assert rc == 0, proc.communicate()


def test_a_live_latency_run_serves_its_captures_drops_and_latency(tmp_path):

    port = free_port()
    with xvfb_server("640x360") as display:
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT),
                   TESTCARD_CONFIG_DIR=str(tmp_path / "config"))
        for key in ("TESTCARD_PRESENTER", "TESTCARD_TEST_STALL_EVERY", "TESTCARD_TEST_CAPTURE_STALL_EVERY"):
            env.pop(key, None)
        proc = subprocess.Popen([sys.executable, "-m", "app", "latency", "--source", f"x11grab:{display}",
                                 "--size", "320x240", "--seconds", "6", "--json",
                                 "--metrics", f"127.0.0.1:{port}"],
                                cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        seen = None
        try:
            end = time.monotonic() + 120
            while proc.poll() is None and time.monotonic() < end:
                try:
                    got = scrape(port)
                except OSError:
                    time.sleep(0.2)
                    continue
                if got[("testcard_latency_seconds_count", ())].value > 5:
                    seen = got
                    break
                time.sleep(0.2)
            out, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 0, err
    assert seen is not None, "the latency histogram never filled while the run went on"
    assert json.loads(out)["output"]["pattern"] == "counter (robust)"
    assert seen[("testcard_capture_frames_total", ())].value > 0
    assert seen[("testcard_frames_presented_total", ())].value > 0
    assert ("testcard_display_drops_total", ()) in seen and ("testcard_capture_drops_total", ()) in seen
    assert seen[("testcard_latency_seconds_sum", ())].value > 0


def test_metrics_belong_to_a_live_latency_run_only(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), TESTCARD_CONFIG_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-m", "app", "latency", "--timeline", "t.csv", "--capture", "c.mkv",
                          "--metrics", "9464"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--metrics watches a live run" in out.stderr
