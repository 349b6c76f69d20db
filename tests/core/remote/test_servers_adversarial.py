"""The servers and clients attacked the way a hostile probe attacked them, on real loopback
sockets with the bytes the real programs send: idle sockets filling the slots, a sender that
never finishes, a peer that never reads, unknown commands, floats for integers, a reply that
never ends.  Each test asserts the rule, never a time."""

from __future__ import annotations

import socket
import threading

from core.remote import ArgyllWebClient, PGeneratorServer, UpgciServer, senders
from core.remote.upgci import ACK
from tests.core.remote.conftest import App, connect, quiet, read_exactly, read_until

FHD = (1920, 1080)
END = b"\x02\r"


def pgen(app: App, stopping, **kw) -> PGeneratorServer:
    server = PGeneratorServer(("127.0.0.1", 0), on_patch=app.on_patch, on_event=app.on_event,
                              resolution=FHD, **kw)
    server.start()
    stopping(server)
    return server


def calman_server(app: App, stopping, **kw) -> UpgciServer:
    server = UpgciServer(("127.0.0.1", 0), on_patch=app.on_patch, on_event=app.on_event,
                         resolution=FHD, **kw)
    server.start()
    stopping(server)
    return server


def closed(sock: socket.socket) -> bool:
    """The peer closed or reset ``sock`` (waits for it)."""
    try:
        return sock.recv(16) == b""
    except ConnectionResetError:
        return True


def test_four_idle_sockets_never_lock_out_the_real_client(stopping):
    app = App(auto_ack=True)
    server = pgen(app, stopping)                       # 4 slots
    idle = [connect(server.bound[1]) for _ in range(4)]
    app.wait_event("connected", 4)
    try:
        with connect(server.bound[1]) as hcfr:         # what HCFR sends first, then a patch
            assert ask(hcfr, senders.pgenerator_request("CMD:GET_RESOLUTION")) == b"OK:1920x1080" + END
            assert ask(hcfr, senders.hcfr_rectangle(10, 1920, 1080, (235, 235, 235))) == b"OK" + END
        assert closed(idle[0])                          # the one idle longest made room
        app.wait(lambda a: any("closed to make room" in e["message"] for e in a.events
                               if e["kind"] == "disconnected"), "the reason in the log")
    finally:
        for s in idle:
            s.close()


def test_idle_clients_are_kept_while_a_slot_is_free(app, stopping):
    # a calibration program sits for minutes between runs: idleness alone never closes it
    server = pgen(app, stopping, request_timeout_s=0.2)
    with connect(server.bound[1]) as a, connect(server.bound[1]) as b:
        assert ask(a, senders.pgenerator_request("IS_ALIVE")) == b"ALIVE" + END
        assert quiet(b, 1.0)                            # longer than the request timeout
        assert ask(b, senders.pgenerator_request("IS_ALIVE")) == b"ALIVE" + END
        assert ask(a, senders.pgenerator_request("IS_ALIVE")) == b"ALIVE" + END
        assert "disconnected" not in app.kinds()


def test_an_idle_timeout_when_asked_for_closes_with_the_reason(app, stopping):
    server = pgen(app, stopping, idle_timeout_s=0.2)
    with connect(server.bound[1]) as c:
        assert closed(c)
    assert "the idle timeout" in app.wait_event("disconnected")["message"]


def test_a_sender_that_never_finishes_its_request_is_closed(app, stopping):
    server = pgen(app, stopping, request_timeout_s=0.3)
    with connect(server.bound[1]) as slow, connect(server.bound[1]) as real:
        slow.sendall(b"RGB=RECTANGLE;100,100;0;1,")     # and nothing more
        assert closed(slow)
        assert ask(real, senders.pgenerator_request("IS_ALIVE")) == b"ALIVE" + END
    assert "has not ended" in app.wait_event("disconnected")["message"]
    assert not app.patches


def test_a_dribbling_sender_holds_no_slot_against_a_real_client(stopping):
    app = App(auto_ack=True)
    server = pgen(app, stopping, max_clients=1)
    with connect(server.bound[1]) as slow:
        slow.sendall(b"IS_AL")                          # begun, not finished: not busy
        app.wait_event("connected")
        with connect(server.bound[1]) as real:
            assert ask(real, senders.hcfr_rectangle(50, 1920, 1080, (16, 16, 16))) == b"OK" + END
        assert closed(slow)


def test_stop_ends_every_thread_whatever_the_peers_do(app, stopping):
    server = pgen(app, stopping)
    deaf = connect(server.bound[1])                    # floods and never reads a reply
    deaf.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    flood = senders.pgenerator_request("IS_ALIVE") * 20000
    sender = threading.Thread(target=lambda: _send_quietly(deaf, flood), daemon=True)
    sender.start()
    idle = connect(server.bound[1])
    waiting = connect(server.bound[1])
    waiting.sendall(senders.hcfr_rectangle(10, 1920, 1080, (1, 2, 3)))
    app.wait_patches(1)                                 # waiting for its acknowledgement
    server.stop()                                       # the fixture asserts no thread is left
    assert not server.running
    assert closed(waiting) and app.acks[0].failed       # no OK for a patch never shown
    for s in (deaf, idle, waiting):
        s.close()
    sender.join(10)


def _send_quietly(sock, data):
    try:
        sock.sendall(data)
    except OSError:
        pass


def test_pgenerator_refuses_a_float_that_rounds_to_an_integer(app, stopping):
    server = pgen(app, stopping)
    with connect(server.bound[1]) as c:
        assert ask(c, b"RGB=RECTANGLE;100,100;0;254.9999999999999999,0,0;0,0,0;-1,-1" + END) == b"ERR" + END
    assert not app.patches
    assert "expected an integer" in app.wait_event("refused")["message"]


def test_upgci_never_acknowledges_a_command_it_does_not_implement(app, stopping):
    server = calman_server(app, stopping)
    with connect(server.bound[1]) as c:
        c.sendall(senders.calman("INIT:2.0"))
        assert read_exactly(c, 1) == ACK
        c.sendall(senders.calman_rgb_s((940, 940, 940), 18))
        app.wait_patches(1)
        app.acks[0].set(1, app.patches[0].received_s)
        assert read_exactly(c, 1) == ACK
        c.sendall(senders.calman("SPECIALTY:CONTRAST"))  # a pattern testcard does not draw
        assert closed(c)                                 # no ACK: the previous patch is not it
    assert "not a command this generator implements" in app.wait_event("refused")["message"]


def test_upgci_closes_without_ack_for_a_patch_not_presented(app, stopping):
    server = calman_server(app, stopping)
    with connect(server.bound[1]) as c:
        c.sendall(senders.calman_rgb_s((64, 64, 64), 10))
        app.wait_patches(1)
        app.acks[0].fail("replaced by a later patch before it was presented")
        assert closed(c)
    assert "no error reply" in app.wait_event("disconnected")["message"]


def test_the_argyll_client_gives_up_on_an_answer_that_never_ends(app, stopping):
    listener = socket.create_server(("127.0.0.1", 0))
    polls = []

    def argyll():                                         # answers the first poll, never closes
        held = []
        for _ in range(2):
            conn, _ = listener.accept()
            polls.append(conn.recv(4096))
            if len(polls) == 1:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n#FF")
                held.append(conn)
            else:
                conn.close()
        for conn in held:
            conn.close()

    server = threading.Thread(target=argyll, daemon=True)
    server.start()
    client = ArgyllWebClient(f"http://127.0.0.1:{listener.getsockname()[1]}", on_patch=app.on_patch,
                             on_event=app.on_event, reply_timeout_s=0.3, first_backoff_s=0.05,
                             max_backoff_s=0.1)
    client.start()
    stopping(client)
    assert "did not end within 0.3 s" in app.wait_event("refused")["message"]
    server.join(10)
    assert len(polls) == 2 and not app.patches           # polled again; nothing shown from it
    listener.close()


def ask(sock: socket.socket, wire: bytes) -> bytes:
    sock.sendall(wire)
    return read_until(sock, END)
