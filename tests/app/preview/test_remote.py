"""Calibration software drives the frame loop through RemoteLink, over real loopback sockets with
the bytes the real senders send: the presented frame (the engine's, as the presenter got it)
equals the requested code values and geometry pixel for pixel, and the acknowledgement -- on
the wire too -- comes only after the present of the patch's first frame."""

from __future__ import annotations

import socket
import threading
import time

import numpy as np
import pytest

from app.preview import FrameLoop, RemoteLink
from core.engine.formats import unpack_rgb10
from core.patterns import FrameFormat, make_spec
from core.remote import RemoteLog, convert_codes, parse_connection, patch_rect_px, senders
from core.remote.upgci import ACK
from tests.helpers.presenters import showing_presenter

pytestmark = pytest.mark.qt

W, H = 192, 108
WAIT_MS = 10_000


def expected_frame(patch, bit_depth=10):
    x, y, w, h = patch_rect_px(patch.rect, W, H)
    out = np.empty((H, W, 3), np.uint16)
    out[:] = convert_codes(patch.background, patch.bits, patch.video_levels, bit_depth)
    out[y:y + h, x:x + w] = convert_codes(patch.color, patch.bits, patch.video_levels, bit_depth)
    return out


class Rig:
    """A frame loop on a 10-bit test presenter, a RemoteLink on it, and a record of every
    present: (frame index, the frame shown, which acknowledgements were set by then)."""

    def __init__(self, qtbot, tmp_path, bits=10, counter_bits=None):
        self.qtbot = qtbot
        self.presenter = showing_presenter(bits=bits)
        self.loop = FrameLoop(make_spec("solid", {"color": (0, 0, 0)}, width=W, height=H, bit_depth=10))
        self.loop.attach(self.presenter, 60.0)
        self.surface = FrameFormat(W, H, bits, False, counter_bits)
        self.log_path = tmp_path / "remote.jsonl"
        self.link = RemoteLink(self.loop, self._show, lambda: self.surface, log=RemoteLog(self.log_path),
                               ack_timeout_s=30.0)
        self.patches, self.acks, self.presents = [], [], []
        on_patch = self.link.on_patch

        def spying(patch):            # what the transports call, from their threads
            ack = on_patch(patch)
            self.patches.append(patch)
            self.acks.append(ack)
            return ack

        self.link.on_patch = spying
        self.loop.frame_presented.connect(self._on_presented)   # after the link's own slot
        self.loop.start()

    def _show(self, spec) -> bool:
        self.loop.set_spec(spec)
        return True

    def _on_presented(self, index):
        words = self.presenter.shown
        frame = unpack_rgb10(words) if words.ndim == 2 else words[..., :3].astype(np.uint16)
        self.presents.append((index, time.perf_counter(), frame, [a.is_set() for a in self.acks]))

    def open(self, kind, text):
        return self.link.open(parse_connection(kind, text), resolution=(W, H))

    def bound_port(self, key):
        return self.link.transports[key].bound[1]

    def wait_shown(self, n):
        self.qtbot.waitUntil(lambda: self.link.shown_count >= n, timeout=WAIT_MS)

    def check_first_frame(self, i, expected=None):
        """Patch ``i``'s acknowledgement names the first present showing it; none before it
        had the acknowledgement set; that present shows exactly the patch."""
        patch, ack = self.patches[i], self.acks[i]
        assert ack.is_set()
        want = expected_frame(patch) if expected is None else expected
        first = next(k for k, p in enumerate(self.presents) if p[0] == ack.frame_index
                     and len(p[3]) > i and p[3][i])
        _, t, frame, _ = self.presents[first]
        np.testing.assert_array_equal(frame, want)
        assert ack.present_s >= patch.received_s
        for earlier in self.presents[:first]:
            assert len(earlier[3]) <= i or not earlier[3][i], "acknowledged before it was presented"
        assert first == 0 or not np.array_equal(self.presents[first - 1][2], want), \
            "the present before it showed the patch already: it was not the first"
        return t

    def close(self):
        self.link.shutdown()
        self.loop.close()
        self.presenter.release()


@pytest.fixture
def rig(qtbot, tmp_path):
    before = set(threading.enumerate())
    r = Rig(qtbot, tmp_path)
    yield r
    r.close()
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()
            and t.name.startswith("testcard-remote")]
    assert not left, f"remote threads left running: {left}"


def _recv_until(sock, end: bytes, limit=4096) -> bytes:
    data = b""
    while not data.endswith(end) and len(data) < limit:
        chunk = sock.recv(limit)
        if not chunk:
            break
        data += chunk
    return data


def test_pgenerator_rectangle_10bit_is_shown_exactly_and_ok_comes_after_its_first_present(rig, qtbot):
    key = rig.open("pgenerator", "127.0.0.1:0")
    replies = []

    def hcfr():
        with socket.create_connection(("127.0.0.1", rig.bound_port(key)), timeout=10) as s:
            for rgb in ((940, 64, 512), (100, 1023, 7)):
                s.sendall(senders.hcfr_rectangle(10, W, H, rgb, (16, 32, 48), bits=10))
                replies.append((_recv_until(s, b"\x02\r"), time.perf_counter()))

    t = threading.Thread(target=hcfr)
    t.start()
    qtbot.waitUntil(lambda: len(replies) == 2, timeout=WAIT_MS)
    t.join(5)
    assert [r for r, _ in replies] == [b"OK\x02\r", b"OK\x02\r"]
    for i in range(2):
        rig.check_first_frame(i)
        assert replies[i][1] >= rig.acks[i].present_s   # the OK arrived after the present
    assert rig.patches[0].color == (940, 64, 512) and rig.patches[0].bits == 10
    assert patch_rect_px(rig.patches[0].rect, W, H)[2:] == (int(W * 0.1 ** 0.5), int(H * 0.1 ** 0.5))


def test_upgci_rgb_a_is_shown_exactly_and_the_ack_byte_comes_after_its_first_present(rig, qtbot):
    key = rig.open("upgci", "127.0.0.1:0")
    replies = []

    def calman():
        with socket.create_connection(("127.0.0.1", rig.bound_port(key)), timeout=10) as s:
            s.sendall(senders.calman_rgb_a((940, 64, 512), (100, 100, 100), 18))
            replies.append((s.recv(1), time.perf_counter()))
            s.sendall(senders.calman_rgb_s((1023, 1023, 0), 50))
            replies.append((s.recv(1), time.perf_counter()))

    t = threading.Thread(target=calman)
    t.start()
    qtbot.waitUntil(lambda: len(replies) == 2, timeout=WAIT_MS)
    t.join(5)
    assert [r for r, _ in replies] == [ACK, ACK]
    for i in range(2):
        rig.check_first_frame(i)
        assert replies[i][1] >= rig.acks[i].present_s
    assert rig.patches[0].background == (100, 100, 100)


def test_resolve_displaycal_calman_and_lightspace_patches_are_shown_exactly(rig, qtbot):
    server = socket.create_server(("127.0.0.1", 0))
    rig.open("resolve", f"127.0.0.1:{server.getsockname()[1]}")
    server.settimeout(10)
    conn, _ = server.accept()
    try:
        conn.sendall(senders.displaycal_calman((128 / 255,) * 3, (0.0, 0.0, 0.0), 0.4, 0.3,
                                               50 / W, 50 / H))       # a 50-pixel square
        rig.wait_shown(1)
        conn.sendall(senders.lightspace_two_rectangles((16, 16, 16), (128, 128, 128), (514, 514, 514),
                                                       10, 0.25, 0.25, 0.5, 0.5))
        rig.wait_shown(2)
    finally:
        conn.close()
        server.close()
    rig.check_first_frame(0)
    rig.check_first_frame(1)
    assert patch_rect_px(rig.patches[0].rect, W, H)[2:] == (50, 50)   # square on a wide frame
    assert rig.patches[1].color == (514, 514, 514) and rig.patches[1].bits == 10


def test_argyll_web_polls_again_only_after_the_patch_was_presented(rig, qtbot):
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    polls = []
    colours = [(1.0, 0.5, 0.0), (0.0, 0.0, 1.0)]

    def dispwin():                       # answers as ArgyllCMS's webwin.c does
        server.settimeout(10)
        for n in range(3):
            conn, _ = server.accept()
            with conn:
                conn.recv(4096)
                polls.append(time.perf_counter())
                if n < len(colours):
                    conn.sendall(senders.argyll_answer(colours[n]))
                else:
                    conn.sendall(senders.argyll_answer(colours[-1]))

    t = threading.Thread(target=dispwin)
    t.start()
    rig.open("argyll-web", f"http://127.0.0.1:{port}")
    qtbot.waitUntil(lambda: len(polls) == 3, timeout=WAIT_MS)
    t.join(5)
    server.close()
    for i in range(2):
        rig.check_first_frame(i)
        assert polls[i + 1] >= rig.acks[i].present_s     # the next poll is Argyll's acknowledgement
    assert rig.patches[0].color == (255, 128, 0) and rig.patches[0].bits == 8


def test_the_log_lists_each_patch_with_its_first_frame_and_present_time(rig, qtbot):
    key = rig.open("upgci", "127.0.0.1:0")
    with socket.create_connection(("127.0.0.1", rig.bound_port(key)), timeout=10) as s:
        s.setblocking(False)
        s.sendall(senders.calman_rgb_s((500, 600, 700), 10))
        got = []

        def acked():
            try:
                got.append(s.recv(1))
            except BlockingIOError:
                pass
            return bool(got)

        qtbot.waitUntil(acked, timeout=WAIT_MS)
    rig.link.close(key)
    result = rig.link.shutdown()
    assert result.error is None
    from core.jsonfile import parse_json

    records = [parse_json(line, source="log") for line in rig.log_path.read_text().splitlines()]
    shown = [r for r in records if r["kind"] == "shown"]
    assert len(shown) == 1
    rec = shown[0]
    assert rec["source"] == "upgci" and rec["patch"]["color"] == [500, 600, 700]
    assert rec["frame"] == rig.acks[0].frame_index and rec["present_s"] == rig.acks[0].present_s
    assert rec["received_s"] == rig.patches[0].received_s
    assert rec["latency_ms"] == pytest.approx((rec["present_s"] - rec["received_s"]) * 1000)
    assert {"listening", "connected", "command"} <= {r["kind"] for r in records}
    assert rig.link.latency_summary().startswith("last ")


def test_the_counter_overlay_rides_on_a_remote_patch(qtbot, tmp_path):
    r = Rig(qtbot, tmp_path, counter_bits=8)
    try:
        ack = r.link.on_patch(_patch((1023, 0, 0)))
        qtbot.waitUntil(ack.is_set, timeout=WAIT_MS)
        spec = r.loop.spec
        assert spec.counter_bits == 8 and spec.pattern == "solid"
        frame = next(p[2] for p in r.presents if p[0] == ack.frame_index)
        assert (frame == (1023, 0, 0)).all(axis=-1).mean() > 0.5       # the patch, and the panel on it
        assert not (frame == (1023, 0, 0)).all()
    finally:
        r.close()


def test_a_patch_replaced_before_any_frame_showed_it_is_logged_not_shown(qtbot, tmp_path):
    r = Rig(qtbot, tmp_path)
    try:
        r.loop.stop()                                    # nothing presents meanwhile
        first = r.link.on_patch(_patch((1, 2, 3)))
        second = r.link.on_patch(_patch((4, 5, 6)))
        qtbot.waitUntil(lambda: r.link.waiting and r.loop.spec.param_dict["color"] == (4, 5, 6),
                        timeout=WAIT_MS)
        assert any(e["kind"] == "not-shown" and "replaced" in e["why"] for e in r.link.events)
        r.loop.start()
        qtbot.waitUntil(second.is_set, timeout=WAIT_MS)
        assert not first.is_set()
    finally:
        r.close()


def _patch(color, bits=10):
    from core.remote import RemotePatch

    return RemotePatch(color=color, background=(0, 0, 0), bits=bits, rect=(0.0, 0.0, 1.0, 1.0),
                       video_levels=False, source="upgci", received_s=time.perf_counter(), raw="test")
