"""The metrics endpoint under scrapers good and bad: GET only, bounded requests, a deadline for
every connection, a bound on threads, and a server that outlives all of them."""

import http.client
import socket
import threading
import urllib.error
import urllib.request

import pytest
from prometheus_client import CollectorRegistry, Counter
from prometheus_client.parser import text_string_to_metric_families

from core.metrics import MetricsServer, parse_metrics_address


@pytest.fixture
def server():
    reg = CollectorRegistry()
    Counter("testcard_things", "things", registry=reg).inc(3)
    health = {"ok": True}
    srv = MetricsServer(reg, "127.0.0.1", 0,
                        health=lambda: (health["ok"], "presenting" if health["ok"] else "no present for 9 s"))
    srv.health_state = health
    srv.start()
    yield srv
    srv.close()


def get(srv, path, method="GET", body=None, headers=None):
    conn = http.client.HTTPConnection(*srv.address, timeout=10)
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, dict(r.getheaders()), data


def scrape_ok(srv) -> float:
    status, _h, data = get(srv, "/metrics")
    assert status == 200
    fams = {f.name: f for f in text_string_to_metric_families(data.decode())}
    return fams["testcard_things"].samples[0].value


def test_metrics_are_the_registry_s_and_openmetrics_on_request(server):
    assert scrape_ok(server) == 3
    status, headers, data = get(server, "/metrics", headers={"Accept": "application/openmetrics-text"})
    assert status == 200 and headers["Content-Type"].startswith("application/openmetrics-text")
    assert data.rstrip().endswith(b"# EOF")


def test_healthz_says_what_it_verified(server):
    assert get(server, "/healthz")[0] == 200
    server.health_state["ok"] = False
    status, _h, data = get(server, "/healthz")
    assert status == 503 and b"no present" in data


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "OPTIONS", "HEAD", "PATCH"])
def test_only_get_is_answered(server, method):
    status, headers, _ = get(server, "/metrics", method=method, body=b"x" * 100 if method != "HEAD" else None)
    assert status == 405 and headers["Allow"] == "GET"
    assert scrape_ok(server) == 3


def test_unknown_paths_are_404(server):
    assert get(server, "/metrics/../etc/passwd")[0] == 404
    assert get(server, "/")[0] == 200


def raw(srv, data: bytes) -> bytes:
    with socket.create_connection(srv.address, timeout=10) as s:
        s.sendall(data)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_oversized_requests_are_refused(server):
    line = raw(server, b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n")
    assert line.startswith(b"HTTP/1.0 414")
    headers = b"".join(b"X-Pad-%d: %s\r\n" % (i, b"b" * 200) for i in range(100))
    reply = raw(server, b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n")
    assert reply.startswith(b"HTTP/1.0 431")
    assert b"400" in raw(server, b"\x00\xff garbage\r\n\r\n")      # answered as HTTP/0.9: a body only
    assert scrape_ok(server) == 3


def test_a_connection_that_never_finishes_its_request_is_shut(server):
    server.DEADLINE_S = 0.3
    with socket.create_connection(server.address, timeout=30) as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\n")          # and never the blank line
        assert s.recv(100) == b""                        # the server shut it, not our timeout
    assert scrape_ok(server) == 3


def test_many_concurrent_scrapers_and_idle_sockets_never_stop_it(server):
    idle = [socket.create_connection(server.address) for _ in range(server.MAX_CLIENTS + 4)]
    try:
        # every slot held by a socket that sends nothing: a new scraper gets 503 at once
        # or, once the deadline frees the slots, its answer
        try:
            status = get(server, "/metrics")[0]
        except (ConnectionError, http.client.RemoteDisconnected):
            status = "reset"
        assert status in (200, 503, "reset")
    finally:
        for s in idle:
            s.close()
    results, errors = [], []

    def scrape():
        for _ in range(5):
            try:
                with urllib.request.urlopen(server.url, timeout=20) as r:
                    results.append(r.status)
            except urllib.error.HTTPError as exc:
                results.append(exc.code)
            except OSError as exc:
                errors.append(exc)

    threads = [threading.Thread(target=scrape) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(results) + len(errors) == 200
    assert set(results) <= {200, 503} and results.count(200) > 0
    assert scrape_ok(server) == 3


def test_close_ends_the_thread_even_with_a_peer_connected():
    srv = MetricsServer(CollectorRegistry(), "127.0.0.1", 0).start()
    s = socket.create_connection(srv.address)
    s.sendall(b"GET /met")
    thread = srv._thread
    srv.close()
    assert not thread.is_alive()
    s.close()
    with pytest.raises(OSError):
        socket.create_connection(srv.address, timeout=2).close()


def test_the_address_is_loopback_unless_given():
    assert parse_metrics_address("9464") == ("127.0.0.1", 9464)
    assert parse_metrics_address("0.0.0.0:9464") == ("0.0.0.0", 9464)
    assert parse_metrics_address("[::1]:9464") == ("::1", 9464)
    for bad in ("", "x:y", "99999", "host:"):
        with pytest.raises(ValueError, match="--metrics"):
            parse_metrics_address(bad)


def test_a_taken_port_is_an_os_error_naming_it(server):
    with pytest.raises(OSError):
        MetricsServer(CollectorRegistry(), "127.0.0.1", server.address[1])
