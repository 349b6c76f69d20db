"""The main window driven by calibration software: the Remote menu opens and closes the same
connections `testcard serve` does, a patch becomes the window's pattern (the editor and the
catalog follow) on the frame settings' surface, and the Remote dock shows it."""

from __future__ import annotations

import socket

import numpy as np
import pytest

from app.window.catalog import NAME_ROLE
from core.remote import patch_rect_px, senders

pytestmark = pytest.mark.qt

WAIT_MS = 10_000


def menu_texts(win) -> list[str]:
    return [a.text() for a in win.menu_remote.actions() if not a.isSeparator()]


def test_the_remote_menu_opens_a_server_and_a_patch_becomes_the_pattern_on_screen(main_window, qtbot):
    win = main_window
    assert "Re&mote" in [m.title() for m in win.menuBar().findChildren(type(win.menu_remote))]
    assert not win.act_remote_close_all.isEnabled()
    key = win.open_remote("pgenerator", "127.0.0.1:0")
    assert key is not None
    closing = f"Close PGenerator server (HCFR) ({win.remote.where(key)})"
    assert closing in menu_texts(win)
    assert win.act_remote_close_all.isEnabled()
    port = win.remote.transports[key].bound[1]
    w, h = win.spec.width, win.spec.height
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.setblocking(False)
        s.sendall(senders.hcfr_rectangle(25, w, h, (200, 30, 90), (10, 20, 30), bits=8))
        reply = bytearray()

        def answered():
            try:
                reply.extend(s.recv(64))
            except BlockingIOError:
                pass
            return reply.endswith(b"\x02\r")

        qtbot.waitUntil(answered, timeout=WAIT_MS)
    assert bytes(reply) == b"OK\x02\r"
    record = win.remote.on_screen
    assert record is not None and record["source"] == "pgenerator"
    # the window's own pattern now: catalog, editor and spec follow
    assert win.spec.pattern == "window"
    assert win.catalog.tree.currentItem().data(0, NAME_ROLE) == "window"
    assert win.spec.param_dict["color"] == (200, 30, 90)
    # the engine's frame for the first frame that showed it: the patch, pixel for pixel
    frame = win.loop.engine.render(record["frame"]).data[..., :3]
    x, y, pw, ph = patch_rect_px(tuple(record["patch"]["rect"]), w, h)
    want = np.empty((h, w, 3), np.uint8)
    want[:] = (10, 20, 30)
    want[y:y + ph, x:x + pw] = (200, 30, 90)
    np.testing.assert_array_equal(frame, want)
    # the dock says what is on screen and how long it took
    panel = win.docks["remote"].widget().widget()
    texts = panel.texts()
    assert "8-bit 200,30,90" in texts["patch"] and texts["frame"].startswith(str(record["frame"]))
    assert "ms" in texts["latency"]
    assert texts["connections"].startswith("PGenerator server (HCFR): ")
    assert any("connected" in e for e in texts["events"])
    win.close_remote(key)
    assert key not in win.remote.transports and closing not in menu_texts(win)
    assert panel.texts()["connections"].startswith("No connection")


def test_a_bad_address_or_a_taken_port_is_a_notice_not_an_exception(main_window):
    win = main_window
    assert win.open_remote("upgci", "300.1.2.3:99999") is None
    assert "--upgci: the port must be a number" in win.statusBar().currentMessage()
    taken = socket.create_server(("127.0.0.1", 0))
    try:
        assert win.open_remote("upgci", f"127.0.0.1:{taken.getsockname()[1]}") is None
        assert "cannot listen on" in win.statusBar().currentMessage()
    finally:
        taken.close()
    assert win.open_remote("discovery") is None
    assert "open one first" in win.statusBar().currentMessage()
    assert not win.remote.transports


def test_close_all_and_closing_the_window_stop_every_connection(main_window):
    win = main_window
    a = win.open_remote("upgci", "127.0.0.1:0")
    b = win.open_remote("pgenerator", "127.0.0.1:0")
    assert {a, b} <= set(win.remote.transports)
    win.act_remote_close_all.trigger()
    assert not win.remote.transports
    win.open_remote("upgci", "127.0.0.1:0")
    win.close()                         # the fixture checks no thread outlives it
    assert not win.remote.transports
