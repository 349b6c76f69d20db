"""The frame loop against a fake presenter: presents are driven by the test, clocks injected."""

import numpy as np
import pytest
from PySide6.QtCore import QObject, Signal

from app.preview import FrameLoop
from core.engine import RenderedFrame
from core.patterns import make_spec
from core.timing import TIMER, VSYNC

pytestmark = pytest.mark.qt


class FakePresenter(QObject):
    presented = Signal(float, float, float)
    key_pressed = Signal(object)
    surface_ready = Signal(int)
    kind = "fake"

    def __init__(self, vsync=True, bits=8):
        super().__init__()
        self.vsync_capable = vsync
        self.surface_bits = bits
        self.frames = []
        self.requests = 0

    def set_frame(self, data):
        self.frames.append(np.array(data))

    def request_present(self):
        self.requests += 1


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


@pytest.fixture
def spec():
    return make_spec("counter", {"bits": 8}, width=64, height=36, bit_depth=8)


@pytest.fixture
def loop(qtbot, spec):
    clock = Clock()
    lp = FrameLoop(spec, clock=clock)
    lp.clock_ref = clock
    yield lp
    lp.close()


def present(loop, p, interval_ms, upload_ms=0.5, paint_ms=1.0):
    loop.clock_ref.t += interval_ms / 1e3
    t = loop.clock_ref.t
    p.presented.emit(t - paint_ms / 1e3, t, upload_ms)


def test_vsync_loop_renders_on_each_present_and_advances_once(loop, spec):
    p = FakePresenter()
    loop.attach(p, 60.0)
    loop.start()
    assert p.requests == 1 and loop.mode == VSYNC
    for _ in range(30):
        present(loop, p, 1000 / 60)
    assert p.requests == 31
    snap = loop.timeline.snapshot()
    assert list(snap.index) == list(range(30))       # one index per presented frame, no gaps
    assert loop.index == 30 and loop.presented_count == 30
    assert np.allclose(snap.upload_ms, 0.5) and np.allclose(snap.present_ms, 1.0)
    assert np.allclose(np.diff(snap.present_s) * 1e3, 1000 / 60)
    # what was handed to the presenter is the engine's frame for that index
    from core.engine import Engine

    with Engine(spec, fmt="rgb8") as eng:
        assert np.array_equal(p.frames[7], eng.render(7).data)


def test_a_presenter_without_vsync_is_timer_paced(qtbot, loop):
    p = FakePresenter(vsync=False)
    loop.attach(p, 60.0)
    assert loop.mode == TIMER and "no vsync" in loop.monitor.reason
    loop.start()
    qtbot.waitUntil(lambda: p.requests == 1, timeout=2000)
    present(loop, p, 16.0)
    qtbot.waitUntil(lambda: p.requests == 2, timeout=2000)   # the timer, not the present, asks again


def test_fast_swaps_switch_to_the_timer_and_say_why(qtbot, loop):
    p = FakePresenter(vsync=True)
    loop.attach(p, 60.0)
    changes = []
    loop.pacing_changed.connect(lambda mode, why: changes.append((mode, why)))
    loop.start()
    for _ in range(40):
        present(loop, p, 6.0)
        if loop.mode == TIMER:
            break
    assert loop.mode == TIMER
    assert changes[-1][0] == TIMER and "vsync is not honoured" in changes[-1][1]
    n = p.requests
    present(loop, p, 6.0)
    assert p.requests == n   # no longer rendering straight from the present
    qtbot.waitUntil(lambda: p.requests > n, timeout=2000)


def test_pause_freezes_the_index_and_steps_move_it(loop):
    p = FakePresenter()
    loop.attach(p, 60.0)
    loop.start()
    for _ in range(5):
        present(loop, p, 16.7)
    loop.set_paused(True)
    for _ in range(3):
        present(loop, p, 16.7)
    assert loop.index == 5
    loop.step(4)
    present(loop, p, 16.7)                  # shows frame 5 (rendered before the step)
    present(loop, p, 16.7)                  # shows frame 9
    loop.step(-100)
    assert loop.index == 0
    snap = loop.timeline.snapshot()
    assert list(snap.index) == [0, 1, 2, 3, 4, 5, 5, 5, 5, 9]
    assert list(snap.paused) == [False] * 5 + [True] * 5


def test_render_error_is_reported_once_and_the_loop_keeps_going(loop):
    p = FakePresenter()
    loop.attach(p, 60.0)
    errors = []
    loop.render_failed.connect(errors.append)
    real = loop.engine.render

    def failing(index):
        good = real(index)
        if 3 <= index <= 5:
            return RenderedFrame(index, good.data, good.path, 0.0, 0.0, error=f"frame {index}: boom")
        return good

    loop.engine.render = failing
    loop.start()
    for _ in range(10):
        present(loop, p, 16.7)
    assert errors == ["frame 3: boom"]      # a repeated failure is one notice, not one per frame
    assert loop.presented_count == 10 and loop.index == 10
    assert loop.timeline.snapshot().errors == {3: "frame 3: boom", 4: "frame 4: boom", 5: "frame 5: boom"}


def test_frame_limit_stops_and_finishes(qtbot, loop):
    p = FakePresenter()
    loop.frame_limit = 4
    loop.attach(p, 60.0)
    loop.start()
    finished = []
    loop.finished.connect(lambda: finished.append(loop.presented_count))
    with qtbot.waitSignal(loop.finished, timeout=1000):
        for _ in range(4):
            present(loop, p, 16.7)
        assert not finished            # delivered after the present returns, never inside it
    assert finished == [4] and not loop.running and p.requests == 4


def test_unrequested_repaints_are_not_recorded(loop):
    p = FakePresenter()
    loop.attach(p, 60.0)
    loop.start()
    present(loop, p, 16.7)
    present(loop, p, 16.7)   # answered the request made after the first present
    present(loop, p, 16.7)   # (the fake asks nothing of its own: every present had a request)
    assert loop.presented_count == 3
    loop.stop()
    present(loop, p, 16.7)   # stopped: no render was pending after the last one? it was: recorded once
    present(loop, p, 16.7)   # an expose repaint: nothing pending, nothing recorded
    assert loop.presented_count == 4


def test_ten_bit_surface_gets_packed_words(loop, spec):
    p = FakePresenter(bits=10)
    loop.attach(p, 60.0)
    loop.start()
    assert loop.fmt == "rgb10"
    assert p.frames[0].dtype == np.uint32 and p.frames[0].shape == (36, 64)
    assert loop.rounding_note == ""


def test_eight_bit_surface_says_that_ten_bit_values_round(qtbot):
    spec = make_spec("ramp", {}, width=64, height=36, bit_depth=10)
    lp = FrameLoop(spec)
    p = FakePresenter(bits=8)
    lp.attach(p, 60.0)
    assert lp.fmt == "rgb8" and "8-bit surface" in lp.rounding_note
    lp.close()


def test_a_static_frame_is_uploaded_once_and_presented_every_time(qtbot):
    lp = FrameLoop(make_spec("bars", {}, width=64, height=36, bit_depth=8), clock=Clock())
    lp.clock_ref = lp.clock
    p = FakePresenter()
    lp.attach(p, 60.0)
    lp.start()
    for _ in range(5):
        present(lp, p, 16.7)
    assert p.requests == 6 and len(p.frames) == 1
    lp.set_spec(make_spec("bars", {"level": 100.0}, width=64, height=36, bit_depth=8))
    present(lp, p, 16.7)
    present(lp, p, 16.7)
    assert len(p.frames) == 2 and p.frames[1].max() == 255
    other = FakePresenter()
    lp.attach(other, 60.0)                     # a new presenter gets the frame again
    assert len(other.frames) == 1
    lp.close()


def test_animated_frames_and_benchmarks_upload_every_frame(loop):
    p = FakePresenter()
    loop.attach(p, 60.0)
    loop.start()
    for _ in range(4):
        present(loop, p, 16.7)
    assert len(p.frames) == 5
    bench = FrameLoop(make_spec("bars", {}, width=64, height=36, bit_depth=8), reuse_static=False,
                      clock=Clock())
    bench.clock_ref = bench.clock
    q = FakePresenter()
    bench.attach(q, 60.0)
    bench.start()
    for _ in range(4):
        present(bench, q, 16.7)
    assert len(q.frames) == 5
    bench.close()


def test_the_presenters_and_the_fake_are_what_the_loop_presents_with(qtbot):
    from app.preview import GLPresenter, Presenter, RasterPresenter

    raster = RasterPresenter()
    qtbot.addWidget(raster)
    assert isinstance(raster, Presenter) and isinstance(GLPresenter(), Presenter)
    assert isinstance(FakePresenter(), Presenter)
    assert not isinstance(object(), Presenter)
