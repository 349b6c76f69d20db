"""The Resolve and Argyll web clients against fake senders on loopback: reconnection, a closed
peer seen at once, a reset on disconnect, and Argyll's next poll only after the ack."""

from __future__ import annotations

import select
import socket
import struct

import pytest

from core.remote import ArgyllWebClient, ResolveClient, senders
from tests.core.remote.conftest import QUIET_S, WAIT_S, App, read_until


@pytest.fixture
def listener():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(4)
    sock.settimeout(WAIT_S)
    yield sock
    sock.close()


def accept(listener: socket.socket) -> socket.socket:
    conn, _ = listener.accept()
    conn.settimeout(WAIT_S)
    return conn


def no_connection_yet(listener: socket.socket) -> bool:
    r, _, _ = select.select([listener], [], [], QUIET_S)
    return not r


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def resolve_client(app: App, port: int, stopping, **kw) -> ResolveClient:
    client = ResolveClient("127.0.0.1", port, on_patch=app.on_patch, on_event=app.on_event,
                           on_state=app.on_state, first_backoff_s=0.05, max_backoff_s=0.2, **kw)
    client.start()
    stopping(client)
    return client


# ---------------------------------------------------------------- Resolve
def test_resolve_client_reads_displaycal_and_survives_its_peer(app, listener, stopping):
    client = resolve_client(app, listener.getsockname()[1], stopping)
    conn = accept(listener)
    app.wait(lambda a: a.states and a.states[-1].startswith("connected to 127.0.0.1:"), "connected")
    conn.sendall(senders.displaycal_calman((0.5,) * 3))                       # its first grey
    conn.sendall(senders.displaycal_calman((128 / 255,) * 3, (0, 0, 0), 0.4, 0.4, 0.2, 0.2))
    conn.sendall(senders.displaycal_calman((128 / 255,) * 3, (0, 0, 0), 0.4, 0.4, 0.2, 0.2))
    app.wait_event("repeat")
    assert [p.color for p in app.patches] == [(512,) * 3, (514,) * 3]         # the repeat dropped
    assert app.patches[1].rect == pytest.approx((0.4, 0.4, 0.2, 0.2))
    conn.close()                                                               # DisplayCAL quits
    assert "closed the connection" in app.wait_event("disconnected")["message"]
    conn = accept(listener)                                                    # and is back
    conn.sendall(senders.displaycal_calman((0,) * 3, x=0, y=0, w=1, h=1))      # its final black
    app.wait_patches(3)
    assert app.patches[2].full_screen and app.patches[2].color == (0, 0, 0)
    client.stop()                                                              # the user disconnects
    with pytest.raises(ConnectionResetError):                                  # seen as a reset
        conn.recv(10)
    conn.close()
    assert "asked to" in app.wait_event("disconnected", 2)["message"]


@pytest.mark.parametrize("length", [0, -1, 65537])
def test_resolve_client_reconnects_after_a_broken_stream(app, listener, stopping, length):
    resolve_client(app, listener.getsockname()[1], stopping)
    conn = accept(listener)
    conn.sendall(struct.pack(">i", length) + b"<calibration/>")
    assert str(length) in app.wait_event("refused")["message"]
    try:
        assert conn.recv(10) == b""
    except ConnectionResetError:
        pass
    conn.close()
    accept(listener).close()                                                   # it came back
    assert not app.patches


def test_resolve_client_logs_bad_xml_and_reads_on(app, listener, stopping):
    resolve_client(app, listener.getsockname()[1], stopping)
    conn = accept(listener)
    bomb = '<!DOCTYPE x [<!ENTITY a "aaaa">]><calibration/>'
    conn.sendall(struct.pack(">I", len(bomb)) + bomb.encode())
    conn.sendall(senders.displaycal_lightspace((1, 0, 0)))
    app.wait_patches(1)
    assert app.patches[0].color == (255, 0, 0)
    assert "DTD" in app.wait_event("refused")["message"]
    conn.close()


def test_resolve_client_backs_off_exponentially_up_to_the_cap(app, stopping):
    resolve_client(app, free_port(), stopping)
    app.wait_event("reconnecting", 4)
    delays = [e["delay_s"] for e in app.events if e["kind"] == "reconnecting"][:4]
    assert delays == [0.05, 0.1, 0.2, 0.2]
    assert any(s.startswith("reconnecting to 127.0.0.1:") for s in app.states)
    assert "connection refused" in app.events[-1]["message"]


# ---------------------------------------------------------------- Argyll web display
def argyll_client(app: App, port: int, stopping, **kw) -> ArgyllWebClient:
    client = ArgyllWebClient(f"http://127.0.0.1:{port}", on_patch=app.on_patch,
                             on_event=app.on_event, on_state=app.on_state, first_backoff_s=0.05,
                             max_backoff_s=0.2, **kw)
    client.start()
    stopping(client)
    return client


def answer_poll(listener: socket.socket, body: bytes) -> bytes:
    """Be dispwin for one poll: read the request, answer, close (no Content-Length)."""
    conn = accept(listener)
    request = read_until(conn, b"\r\n\r\n")
    conn.sendall(body)
    conn.close()
    return request


def test_argyll_polls_again_only_after_the_patch_is_presented(app, listener, stopping):
    argyll_client(app, listener.getsockname()[1], stopping)
    first = answer_poll(listener, senders.argyll_answer((0.5, 0.5, 0.5)))
    assert first.startswith(b"GET /ajax/messages?0 HTTP/1.1\r\n")
    app.wait_patches(1)
    assert app.patches[0].color == (128, 128, 128) and app.patches[0].full_screen
    assert no_connection_yet(listener), "polled again before the patch was presented"
    app.acks[0].set(3, app.patches[0].received_s)
    second = answer_poll(listener, b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n#FF0000")
    assert second.startswith(b"GET /ajax/messages?1 ")
    app.wait_patches(2)
    assert app.patches[1].color == (255, 0, 0)
    assert no_connection_yet(listener)
    app.acks[1].set(4, app.patches[1].received_s)
    accept(listener).close()                                   # the third poll: the second ack


def test_argyll_video_levels_and_the_end_of_a_run(app, listener, stopping):
    port = listener.getsockname()[1]
    argyll_client(app, port, stopping, video_levels=True)
    answer_poll(listener, senders.argyll_answer((1.0, 0.0, 0.5), video_levels=True))
    app.wait_patches(1)
    assert app.patches[0].color == (235, 16, 126) and app.patches[0].video_levels
    listener.close()                                          # dispwin has finished
    app.acks[0].set(1, app.patches[0].received_s)
    assert "connection refused" in app.wait_event("reconnecting")["message"]


def test_argyll_logs_a_wrong_server_and_keeps_trying(app, listener, stopping):
    argyll_client(app, listener.getsockname()[1], stopping)
    answer_poll(listener, b"HTTP/1.1 404 Not Found\r\n\r\n")
    assert "404" in app.wait_event("refused")["message"]
    accept(listener).close()
    assert not app.patches


def test_stop_while_the_first_poll_waits_returns_promptly(app, listener, stopping):
    client = argyll_client(app, listener.getsockname()[1], stopping)
    conn = accept(listener)
    read_until(conn, b"\r\n\r\n")                             # dispwin holds the first poll
    app.wait(lambda a: a.states and a.states[-1].startswith("waiting for dispwin"), "waiting")
    client.stop()
    assert not client.running
    conn.close()


def test_resolve_user_disconnect_fails_the_senders_very_next_send(app, listener, stopping):
    """DisplayCAL only ever sends: after a graceful close its first send would still succeed
    and only the second fail; the reset (SO_LINGER 0) on disconnect fails the first."""
    client = resolve_client(app, listener.getsockname()[1], stopping)
    conn = accept(listener)
    conn.sendall(senders.displaycal_calman((0.5,) * 3))
    app.wait_patches(1)
    client.stop()                                      # the user disconnects; stop() has joined
    assert "asked to" in app.wait_event("disconnected")["message"]
    with pytest.raises((ConnectionResetError, BrokenPipeError)):
        conn.send(senders.displaycal_calman((0.25,) * 3))   # the first send after it
    conn.close()
