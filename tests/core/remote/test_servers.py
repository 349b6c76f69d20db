"""The PGenerator and UPGCI servers and the discovery responder on real loopback sockets: the wire
acknowledgement comes only after the app has set the patch's Acknowledgement."""

from __future__ import annotations

import socket

import pytest

from core.remote import DiscoveryResponder, PGeneratorServer, RemoteError, UpgciServer, senders
from core.remote.upgci import ACK
from tests.core.remote.conftest import WAIT_S, App, connect, quiet, read_exactly, read_until

FHD = (1920, 1080)


def pgen(app: App, stopping, **kw) -> PGeneratorServer:
    server = PGeneratorServer(("127.0.0.1", 0), on_patch=app.on_patch, on_event=app.on_event,
                              on_state=app.on_state, resolution=FHD, version="v1", **kw)
    server.start()
    stopping(server)
    return server


def calman_server(app: App, stopping, **kw) -> UpgciServer:
    server = UpgciServer(("127.0.0.1", 0), on_patch=app.on_patch, on_event=app.on_event,
                         on_state=app.on_state, resolution=FHD, **kw)
    server.start()
    stopping(server)
    return server


def ask(sock: socket.socket, wire: bytes, end: bytes = b"\x02\r") -> bytes:
    sock.sendall(wire)
    return read_until(sock, end)


# ---------------------------------------------------------------- PGenerator
def test_pgenerator_says_where_it_listens_and_answers_hcfrs_queries(app, stopping):
    server = pgen(app, stopping)
    host, port = server.bound
    assert host == "127.0.0.1" and port > 0
    assert app.wait_event("listening")["message"] == f"PGenerator server listening on 127.0.0.1:{port}"
    assert server.state == f"listening on 127.0.0.1:{port}"
    with connect(port) as c:
        assert ask(c, senders.pgenerator_request("CMD:GET_RESOLUTION")) == b"OK:1920x1080\x02\r"
        assert ask(c, senders.pgenerator_request("CMD:GET_GPU_MEMORY")) == b"OK:192\x02\r"
        assert ask(c, senders.pgenerator_request("IS_ALIVE")) == b"ALIVE\x02\r"
        assert ask(c, senders.pgenerator_request("NONSENSE")) == b"ERR\x02\r"
        app.wait(lambda a: any(s.startswith("connected to 127.0.0.1:") for s in a.states), "state")
        c.sendall(senders.pgenerator_request("QUIT"))
        assert c.recv(10) == b""                                  # closed, no reply
    app.wait_event("disconnected")
    assert "refused" in app.kinds()                               # NONSENSE was logged


def test_pgenerator_ok_comes_only_after_the_patch_is_presented(app, stopping):
    server = pgen(app, stopping)
    with connect(server.bound[1]) as c:
        c.sendall(senders.hcfr_rectangle(10, 1920, 1080, (128, 128, 128), (0, 0, 0)))
        app.wait_patches(1)
        assert app.patches[0].color == (128, 128, 128) and app.patches[0].source == "pgenerator"
        assert quiet(c), "OK went out before the patch was presented"
        app.acks[0].set(41, app.patches[0].received_s + 0.02)
        assert read_until(c, b"\x02\r") == b"OK\x02\r"
        presented = app.wait_event("presented")
        assert presented["frame"] == 41 and presented["latency_ms"] == pytest.approx(20.0)
        # the next patch waits for its own acknowledgement
        c.sendall(senders.hcfr_rectangle(10, 1920, 1080, (512, 0, 0), (0, 0, 0), bits=10))
        app.wait_patches(2)
        assert quiet(c)
        app.acks[1].set(42, app.patches[1].received_s)
        assert read_until(c, b"\x02\r") == b"OK\x02\r"


def test_pgenerator_answers_err_never_ok_when_the_timeout_passes_unpresented(app, stopping):
    ticks = iter(range(10_000))
    server = pgen(app, stopping, ack_timeout_s=5.0, clock=lambda: float(next(ticks)))
    with connect(server.bound[1]) as c:
        c.sendall(senders.hcfr_rectangle(10, 1920, 1080, (1, 2, 3), (0, 0, 0)))
        assert read_until(c, b"\x02\r") == b"ERR\x02\r"
        assert ask(c, senders.pgenerator_request("IS_ALIVE")) == b"ALIVE\x02\r"   # still served
    assert "not presented within 5 s; not acknowledged" in app.wait_event("ack-timeout")["message"]
    assert app.acks[0].failed == "not presented within 5 s"
    assert not app.acks[0].set(9, 1.0)            # presented later: the client was told no already


def test_pgenerator_answers_err_at_once_for_a_patch_the_app_fails(app, stopping):
    server = pgen(app, stopping, ack_timeout_s=60.0)
    with connect(server.bound[1]) as c:
        c.sendall(senders.hcfr_rectangle(10, 1920, 1080, (1, 2, 3), (0, 0, 0)))
        app.wait_patches(1)
        assert quiet(c)
        app.acks[0].fail("replaced by a later patch before it was presented")
        assert read_until(c, b"\x02\r") == b"ERR\x02\r"
    assert "replaced" in app.wait_event("not-acknowledged")["message"]


def test_pgenerator_refuses_bad_patches_with_err_and_keeps_the_connection(app, stopping):
    server = pgen(app, stopping)
    with connect(server.bound[1]) as c:
        assert ask(c, b"RGB=RECTANGLE;100,100;0;256,0,0;0,0,0;-1,-1\x02\r") == b"ERR\x02\r"
        assert ask(c, b"\xff\xfe\x02\r") == b"ERR\x02\r"
        assert ask(c, senders.pgenerator_request("IS_ALIVE")) == b"ALIVE\x02\r"
    assert not app.patches
    assert any("red 256" in e["message"] for e in app.events if e["kind"] == "refused")


def test_pgenerator_closes_on_a_request_over_4k(app, stopping):
    server = pgen(app, stopping)
    with connect(server.bound[1]) as c:
        c.sendall(b"A" * 5000)
        assert read_until(c, b"\x02\r") == b"ERR\x02\r"
        assert c.recv(10) == b""


def test_an_app_that_cannot_show_the_patch_gets_err(stopping):
    def broken(_patch):
        raise RuntimeError("no screen")

    app = App()
    server = PGeneratorServer(("127.0.0.1", 0), on_patch=broken, on_event=app.on_event,
                              resolution=FHD)
    server.start()
    stopping(server)
    with connect(server.bound[1]) as c:
        assert ask(c, senders.hcfr_rectangle(10, 1920, 1080, (1, 2, 3))) == b"ERR\x02\r"
    assert "no screen" in app.wait_event("error")["message"]


def test_the_allow_list_refuses_other_clients(app, stopping):
    server = pgen(app, stopping, allow=["192.168.7.7"])
    assert "clients from 192.168.7.7/32 only" in app.wait_event("listening")["message"]
    try:
        # a refusal is a close or a reset; under load the reset can reach the client while
        # its connect() is still returning, or on the first send
        with connect(server.bound[1]) as c:
            c.sendall(senders.pgenerator_request("IS_ALIVE"))
            assert c.recv(10) == b""
    except (ConnectionResetError, BrokenPipeError):
        pass
    assert "not on the allow-list" in app.wait_event("refused")["message"]


def test_a_taken_port_is_one_remote_error(app, stopping):
    server = pgen(app, stopping)
    other = PGeneratorServer(server.bound, on_patch=app.on_patch, resolution=FHD)
    with pytest.raises(RemoteError, match="cannot listen on 127.0.0.1:"):
        other.start()


def test_stop_ends_every_client_thread_and_resets_the_connection(app, stopping):
    server = pgen(app, stopping)
    c = connect(server.bound[1])
    c.sendall(senders.hcfr_rectangle(10, 1920, 1080, (1, 2, 3)))
    app.wait_patches(1)                                           # waiting for the ack
    server.stop()                                                 # the fixture checks the threads
    assert not server.running and server.state == "stopped"
    try:
        assert c.recv(10) == b""
    except ConnectionResetError:
        pass
    c.close()


def test_a_client_with_a_patch_being_shown_keeps_its_slot(app, stopping):
    server = pgen(app, stopping, max_clients=1)
    with connect(server.bound[1]) as first:
        first.sendall(senders.hcfr_rectangle(10, 1920, 1080, (1, 2, 3)))
        app.wait_patches(1)                                       # busy: waiting to be shown
        try:
            connect(server.bound[1]).close()
        except ConnectionResetError:
            pass                                                  # reset as soon as accepted
        assert "have a patch being shown" in app.wait_event("refused")["message"]
        app.acks[0].set(1, app.patches[0].received_s)
        assert read_until(first, b"\x02\r") == b"OK\x02\r"


# ---------------------------------------------------------------- UPGCI
def test_upgci_handshake_queries_and_patches(app, stopping):
    server = calman_server(app, stopping, serial="EDGE1")
    with connect(server.bound[1]) as c:
        c.sendall(senders.calman("INIT:2.0"))
        assert read_exactly(c, 1) == ACK
        assert ask(c, senders.calman("SN"), b"\x03") == b"EDGE1\x03"
        assert ask(c, senders.calman("CAP"), b"\x03").startswith(b"RGB_S")
        c.sendall(senders.calman_rgb_s((940, 940, 940), 18))
        app.wait_patches(1)
        assert app.patches[0].color == (940, 940, 940) and app.patches[0].bits == 10
        assert quiet(c), "ACK went out before the patch was presented"
        app.acks[0].set(7, app.patches[0].received_s)
        assert read_exactly(c, 1) == ACK
        c.sendall(senders.calman_rgb_a((1023, 0, 0), (64, 64, 64), 50))
        app.wait_patches(2)
        assert app.patches[1].background == (64, 64, 64) and quiet(c)
        app.acks[1].set(8, app.patches[1].received_s)
        assert read_exactly(c, 1) == ACK
        c.sendall(senders.calman("TERM"))
        assert read_exactly(c, 1) == ACK
        assert c.recv(10) == b""


def test_upgci_closes_on_a_malformed_patch_with_a_log_line(app, stopping):
    server = calman_server(app, stopping)
    with connect(server.bound[1]) as c:
        c.sendall(senders.calman("RGB_S:2000,0000,0000,010"))
        assert c.recv(10) == b""                                  # no ACK: closed
    assert "red 2000" in app.wait_event("refused")["message"]
    assert not app.patches


# ---------------------------------------------------------------- discovery
def test_discovery_answers_who_is_a_pgenerator(app, stopping):
    responder = DiscoveryResponder(("127.0.0.1", 0), name="edge-1", on_event=app.on_event)
    responder.start()
    stopping(responder)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(WAIT_S)
        s.sendto(b"Who is a PGenerator", responder.bound)
        data, _ = s.recvfrom(100)
        assert data == b"I am a PGenerator edge-1"
        s.sendto(b"something else", responder.bound)
        s.sendto(b"Who is a PGenerator", responder.bound)
        assert s.recvfrom(100)[0] == b"I am a PGenerator edge-1"  # the other datagram: no answer
