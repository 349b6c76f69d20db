"""An acknowledgement means presented, attacked the way a hostile probe attacked it, over real
loopback sockets with the bytes HCFR and Calman send: two clients racing (the loser gets ERR,
never OK), an output that never presents (ERR or a closed connection after the timeout, never
the success reply), a Resolve flood (the newest patch is the one shown).  Each asserts the rule
on every reply, never a time."""

from __future__ import annotations

import socket
import threading

import pytest

from core.remote import senders
from tests.app.preview.test_remote import WAIT_MS, Rig, _patch, _recv_until

pytestmark = pytest.mark.qt

W, H = 192, 108
OK, ERR = b"OK\x02\r", b"ERR\x02\r"


@pytest.fixture
def rig(qtbot, tmp_path):
    before = set(threading.enumerate())
    r = Rig(qtbot, tmp_path)
    yield r
    r.close()
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()
            and t.name.startswith("testcard-remote")]
    assert not left, f"remote threads left running: {left}"


def _client(port, wire, replies, i, barrier=None):
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        if barrier is not None:
            barrier.wait()
        s.sendall(wire)
        replies[i] = _recv_until(s, b"\x02\r")


def test_the_client_whose_patch_was_replaced_before_any_present_gets_err(rig, qtbot):
    port = rig.bound_port(rig.open("pgenerator", "127.0.0.1:0"))
    rig.loop.stop()                                       # nothing presents meanwhile
    replies = {}
    first = threading.Thread(target=_client, args=(port, senders.hcfr_rectangle(
        100, W, H, (255, 0, 0), bits=8), replies, 0))
    first.start()
    qtbot.waitUntil(lambda: rig.link.waiting, timeout=WAIT_MS)          # applied, not presented
    second = threading.Thread(target=_client, args=(port, senders.hcfr_rectangle(
        100, W, H, (0, 0, 255), bits=8), replies, 1))
    second.start()
    qtbot.waitUntil(lambda: 0 in replies, timeout=WAIT_MS)
    assert replies[0] == ERR and 1 not in replies       # at once: no present has happened yet
    assert "replaced" in rig.acks[0].failed
    rig.loop.start()
    qtbot.waitUntil(lambda: 1 in replies, timeout=WAIT_MS)
    first.join(5), second.join(5)
    assert replies[1] == OK
    rig.check_first_frame(1)
    assert not any(p[3][0] for p in rig.presents if p[3])               # never acknowledged


@pytest.mark.parametrize("trial", range(6))
def test_two_clients_racing_never_get_ok_for_a_patch_not_shown(rig, qtbot, trial):
    port = rig.bound_port(rig.open("pgenerator", "127.0.0.1:0"))
    barrier = threading.Barrier(2)
    replies = {}
    colours = [(255, 0, 0), (0, 0, 255)]
    threads = [threading.Thread(target=_client, args=(port, senders.hcfr_rectangle(
        100, W, H, c, bits=8), replies, i, barrier)) for i, c in enumerate(colours)]
    for t in threads:
        t.start()
    qtbot.waitUntil(lambda: len(replies) == 2, timeout=WAIT_MS)
    for t in threads:
        t.join(5)
    assert set(replies.values()) <= {OK, ERR} and OK in replies.values()   # the last one wins
    for i, patch in enumerate(rig.patches):
        who = colours.index(tuple(patch.color))
        if replies[who] == OK:
            rig.check_first_frame(i)                    # OK only for a patch on the screen
        else:
            assert "replaced" in rig.acks[i].failed and not rig.acks[i].is_set()


def test_an_output_that_never_presents_gets_err_and_a_closed_upgci_connection(rig, qtbot):
    rig.link.ack_timeout_s = 0.5                        # before the transports are made
    pg = rig.bound_port(rig.open("pgenerator", "127.0.0.1:0"))
    cal = rig.bound_port(rig.open("upgci", "127.0.0.1:0"))
    rig.loop.stop()                                     # an unmapped window: nothing presents
    replies = {}
    t = threading.Thread(target=_client, args=(pg, senders.hcfr_rectangle(10, W, H, (1, 2, 3)),
                                               replies, 0))
    t.start()
    with socket.create_connection(("127.0.0.1", cal), timeout=20) as s:
        s.sendall(senders.calman_rgb_s((940, 940, 940), 18))
        try:
            upgci_reply = s.recv(1)                         # closed: no ACK byte
        except ConnectionResetError:
            upgci_reply = b""
    qtbot.waitUntil(lambda: 0 in replies, timeout=WAIT_MS)
    t.join(5)
    assert replies[0] == ERR and upgci_reply == b""
    assert all(a.failed and not a.is_set() for a in rig.acks)
    rig.loop.start()                                    # shown later: logged as such, still no OK
    qtbot.waitUntil(lambda: any(e["kind"] == "not-shown" or e["kind"] == "ack-timeout"
                                for e in rig.link.events), timeout=WAIT_MS)


def test_a_resolve_flood_is_held_as_one_patch_and_the_newest_is_shown(rig, qtbot):
    server = socket.create_server(("127.0.0.1", 0))
    rig.open("resolve", f"127.0.0.1:{server.getsockname()[1]}")
    server.settimeout(10)
    conn, _ = server.accept()
    n = 3000
    try:
        # DisplayCAL's own bytes, a different grey each, as fast as the socket takes them
        conn.sendall(b"".join(senders.displaycal_calman(((i % 1000) / 1000,) * 3) for i in range(n)))
        last = senders.displaycal_calman((0.25, 0.5, 0.75))
        conn.sendall(last)
        qtbot.waitUntil(lambda: rig.link.on_screen is not None
                        and rig.link.on_screen["patch"]["color"] == [256, 512, 767], timeout=30_000)
    finally:
        conn.close()
        server.close()
    assert len(rig.patches) >= n                      # every patch was received ...
    settled = [a for a in rig.acks if a.settled()]
    shown = [a for a in rig.acks if a.is_set()]
    assert len(shown) < n / 10                        # ... few were drawn: only the newest waits
    assert all("replaced" in a.failed for a in settled if not a.is_set())
    assert rig.acks[-1].is_set()


def test_a_patch_the_transport_gave_up_on_is_never_drawn(qtbot, tmp_path):
    r = Rig(qtbot, tmp_path)
    try:
        r.loop.stop()
        ack = r.link.on_patch(_patch((7, 8, 9)))
        ack.fail("not presented within 5 s")           # the transport's timeout, before the GUI took it
        qtbot.waitUntil(lambda: any(e["kind"] == "not-shown" for e in r.link.events), timeout=WAIT_MS)
        assert not r.link.waiting and r.loop.spec.param_dict.get("color") != (7, 8, 9)
    finally:
        r.close()
