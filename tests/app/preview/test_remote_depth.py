"""``serve --bit-depth 10`` on an 8-bit surface: a RemoteLink drawing 10-bit frames for an 8-bit
presenter shows an 8-bit request as asked (128 stays 128: by shift it was 129), and its log
line records the depth change between the frame and the surface with the rule used."""

from __future__ import annotations

import time

import numpy as np
import pytest

from app.preview import FrameLoop, RemoteLink
from core.jsonfile import parse_json
from core.patterns import FrameFormat, make_spec
from core.remote import RemoteLog, RemotePatch
from tests.helpers.presenters import showing_presenter

pytestmark = pytest.mark.qt

W, H = 64, 36


@pytest.fixture
def link(qtbot, tmp_path):
    presenter = showing_presenter(bits=8)
    loop = FrameLoop(make_spec("solid", {"color": (0, 0, 0)}, width=W, height=H, bit_depth=10))
    loop.attach(presenter, 60.0)
    log_path = tmp_path / "remote.jsonl"

    def show(spec):
        loop.set_spec(spec)
        return True

    rl = RemoteLink(loop, show, lambda: FrameFormat(W, H, 10, False), log=RemoteLog(log_path),
                    ack_timeout_s=30.0)
    loop.start()
    yield rl, loop, presenter, log_path
    rl.shutdown()
    loop.close()
    presenter.release()


def test_an_eight_bit_request_is_shown_as_asked_and_the_log_names_the_rule(qtbot, link):
    rl, loop, presenter, log_path = link
    assert loop.fmt == "rgb8"
    patch = RemotePatch(color=(128, 128, 128), background=(0, 0, 0), bits=8, rect=(0.0, 0.0, 1.0, 1.0),
                        video_levels=False, source="resolve", received_s=time.perf_counter(), raw="test")
    ack = rl.on_patch(patch)
    qtbot.waitUntil(ack.is_set, timeout=10_000)
    assert loop.spec.param_dict["color"] == (514, 514, 514)        # the 10-bit frame
    assert np.all(presenter.shown[..., :3] == 128)                  # the 8-bit surface
    rl.shutdown()
    records = [parse_json(line, source="log") for line in log_path.read_text().splitlines()]
    rec = next(r for r in records if r["kind"] == "shown")
    assert rec["shown"] == {"bits": 8, "color": [128, 128, 128], "background": [0, 0, 0]}
    assert "10-bit frame 514,514,514 shown as 128,128,128 on the 8-bit surface (round(v*255/1023))" \
        in rec["note"]
