"""The live output's metrics against a real frame loop on the offscreen platform: the counter
follows the presents, the info labels follow the spec and path, /healthz follows presenting."""

import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.preview import FrameLoop
from app.preview.live_metrics import start_metrics
from core.patterns import make_spec
from tests.helpers.presenters import showing_presenter

pytestmark = pytest.mark.qt


def scrape(server) -> dict:
    with urllib.request.urlopen(server.url, timeout=10) as r:
        text = r.read().decode()
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out.setdefault(s.name, []).append(s)
    return out


def healthz(server) -> int:
    url = server.url.replace("/metrics", "/healthz")
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.fixture
def running(qtbot):
    spec = make_spec("checkerboard", {}, width=64, height=48)
    loop = FrameLoop(spec, render_thread=False)
    presenter = showing_presenter()
    loop.attach(presenter, 60.0)
    live, server = start_metrics(("127.0.0.1", 0), loop, presenter="test")
    yield loop, live, server
    server.close()
    loop.close()


def test_presented_counter_follows_the_loop_and_health_follows_presenting(qtbot, running):
    loop, live, server = running
    assert healthz(server) == 503                      # nothing presented yet: not healthy
    loop.start()
    qtbot.waitUntil(lambda: loop.timeline.total >= 30, timeout=10000)
    got = scrape(server)["testcard_frames_presented_total"][0].value
    assert got >= 30 and got <= loop.timeline.total
    assert healthz(server) == 200
    loop.stop()
    live.feed.last_wall_s -= 60                       # as if the last present were a minute ago
    assert healthz(server) == 503


def test_info_labels_follow_the_spec_and_the_path(qtbot, running):
    loop, _live, server = running
    loop.start()
    qtbot.waitUntil(lambda: loop.timeline.total >= 2, timeout=10000)
    info = scrape(server)["testcard_output_info"][0].labels
    assert info["pattern"] == "checkerboard" and info["width"] == "64" and info["height"] == "48"
    assert info["bit_depth"] == str(loop.spec.bit_depth) and info["transfer"] == "sdr"
    assert info["render_path"] == loop.path and info["path_source"] == loop.path_source
    loop.set_spec(make_spec("solid", {}, width=32, height=16))
    qtbot.waitUntil(lambda: scrape(server)["testcard_output_info"][0].labels["pattern"] == "solid",
                    timeout=10000)
    assert scrape(server)["testcard_output_info"][0].labels["width"] == "32"
