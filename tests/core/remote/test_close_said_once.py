"""A calibration program closing its connection is said once: the disconnect names the
reason, the retry that follows only when it retries."""

from __future__ import annotations

import socket

import pytest

from core.remote import ResolveClient, senders
from tests.core.remote.conftest import WAIT_S, App


@pytest.fixture
def listener():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(4)
    sock.settimeout(WAIT_S)
    yield sock
    sock.close()


def _accept(listener):
    conn, _ = listener.accept()
    return conn


def test_the_close_is_said_once(app: App, listener, stopping):
    client = ResolveClient("127.0.0.1", listener.getsockname()[1], on_patch=app.on_patch,
                           on_event=app.on_event, on_state=app.on_state, first_backoff_s=0.05,
                           max_backoff_s=0.2)
    client.start()
    stopping(client)
    conn = _accept(listener)
    conn.sendall(senders.displaycal_calman((0.5,) * 3))
    app.wait_patches(1)
    conn.close()
    retry = app.wait_event("reconnecting")
    said = [e for e in app.events if "closed the connection" in e["message"]]
    assert [e["kind"] for e in said] == ["disconnected"]
    assert "retrying in" in retry["message"] and "closed" not in retry["message"]
    _accept(listener).close()
