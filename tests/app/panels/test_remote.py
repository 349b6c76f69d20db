"""The Remote dock shows a RemoteLink: connections and their state, the patch on screen with its
first frame and latency, the last events (bounded), and Close all."""

from __future__ import annotations

import time

import pytest

from app.panels.remote import SHOWN_EVENTS, RemotePanel, event_text
from app.preview import FrameLoop, RemoteLink
from core.patterns import FrameFormat, make_spec
from core.remote import RemotePatch, parse_connection
from tests.helpers.presenters import showing_presenter

pytestmark = pytest.mark.qt


@pytest.fixture
def link(qtbot):
    presenter = showing_presenter(bits=8)
    loop = FrameLoop(make_spec("solid", {"color": (0, 0, 0)}, width=64, height=36, bit_depth=8))
    loop.attach(presenter, 60.0)
    surface = FrameFormat(64, 36, 8, False)
    lk = RemoteLink(loop, lambda spec: loop.set_spec(spec) or True, lambda: surface)
    loop.start()
    yield lk
    lk.shutdown()
    loop.close()


def patch(color):
    return RemotePatch(color=color, background=(0, 0, 0), bits=8, rect=(0.25, 0.25, 0.5, 0.5),
                       video_levels=False, source="pgenerator", received_s=time.perf_counter(), raw="x")


def test_the_dock_shows_the_patch_on_screen_its_first_frame_and_latency(qtbot, link):
    panel = RemotePanel(link)
    qtbot.addWidget(panel)
    assert panel.texts()["connections"].startswith("No connection")
    assert not panel.close_all.isEnabled()
    ack = link.on_patch(patch((12, 34, 56)))
    qtbot.waitUntil(ack.is_set, timeout=10_000)
    t = panel.texts()
    assert t["patch"] == "8-bit 12,34,56 on 0,0,0, 0.5 x 0.5 at 0.25,0.25 (pgenerator)"
    assert t["frame"].startswith(f"{ack.frame_index} (present at")
    assert t["latency"].endswith("over 1)") and " ms (last " in t["latency"]
    assert t["events"][-1].startswith(f"shown at frame {ack.frame_index} after ")


def test_connections_and_their_state_show_and_close_all_closes_them(qtbot, link):
    panel = RemotePanel(link)
    qtbot.addWidget(panel)
    key = link.open(parse_connection("upgci", "127.0.0.1:0"), resolution=(64, 36))
    qtbot.waitUntil(lambda: "listening on 127.0.0.1:" in panel.texts()["connections"], timeout=10_000)
    assert panel.texts()["connections"] == \
        f"UPGCI server (Calman, ColourSpace): {link.where(key)}"   # listening on the port bound
    assert panel.close_all.isEnabled()
    panel.close_all.click()
    assert not link.transports and panel.texts()["connections"].startswith("No connection")


def test_the_event_list_keeps_the_last_hundred(qtbot, link):
    panel = RemotePanel(link)
    qtbot.addWidget(panel)
    for i in range(SHOWN_EVENTS + 20):
        link._post_event({"source": "upgci", "kind": "command", "message": f"RGB_S:{i}"})
    link._drain()                          # the GUI thread takes the inbox in one go
    events = panel.texts()["events"]
    assert len(events) == SHOWN_EVENTS
    assert events[-1] == "upgci command: RGB_S:119" and events[0] == "upgci command: RGB_S:20"
    shown = {"kind": "shown", "frame": 7, "latency_ms": None, "message": "m"}
    assert event_text(shown) == "shown at frame 7: m"
