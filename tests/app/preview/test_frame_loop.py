"""The frame loop against a fake presenter: presents are driven by the test, clocks injected.

Most tests render on the GUI thread (``render_thread=False``: exact and synchronous); the
render thread's own tests wait on conditions.  The fake lends buffers with the real
bookkeeping (:class:`~app.preview.pixel_buffers.FrameBuffers`) and checks at every present that
the frame handed over was not written to after it was handed over.
"""

import threading

import numpy as np
import pytest
from PySide6.QtCore import QObject, Signal

from app.preview import FrameLoop
from app.preview.pixel_buffers import FREE, PENDING, FrameBuffers
from core.engine import Engine, RenderedFrame
from core.patterns import make_spec
from core.timing import TIMER, VSYNC
from tests.helpers.presenters import showing_presenter

pytestmark = pytest.mark.qt


class FakePresenter(QObject):
    presented = Signal(float, float, float)
    key_pressed = Signal(object)
    surface_ready = Signal(int)
    releasing = Signal()
    kind = "fake"
    updates_lines = False

    def __init__(self, vsync=True, bits=8, buffers=4):
        super().__init__()
        self.vsync_capable = vsync
        self.surface_bits = bits
        self.pool = FrameBuffers(buffers)
        self.frames = []            # a copy of every frame set
        self.painted = []           # a copy of every frame that reached the 'screen'
        self.requests = 0
        self.withdrawn = 0
        self.pending = None         # (buffer, a copy of it when set)
        self.foreign = 0            # frames set that were not lent (copies)

    def set_frame(self, data, lines=None, key=None):
        assert lines is None, "lines for a presenter that holds no frame"
        self.withdraw()
        slot = self.pool.find(data)
        if slot is None:
            self.foreign += 1
        else:
            assert slot.state not in (FREE, PENDING), "set a buffer that was not lent"
            self.pool.set_state(slot, PENDING)
        self.frames.append(np.array(data))
        self.pending = (data, np.array(data))

    def holds(self, key):
        return False

    def request_present(self):
        self.requests += 1

    def lend_buffer(self, shape, dtype):
        return self.pool.lend(shape, dtype)

    def give_back(self, buffer):
        slot = self.pool.find(buffer)
        assert slot is not None and slot.state not in (FREE, PENDING), "gave back a buffer not lent"
        self.pool.set_state(slot, FREE)

    def withdraw(self):
        if self.pending is not None:
            self.withdrawn += 1
            slot = self.pool.find(self.pending[0])
            if slot is not None:
                self.pool.set_state(slot, FREE)
        self.pending = None

    def paint(self):
        """The present: the pending frame is 'uploaded' (unchanged since set) and its buffer freed."""
        if self.pending is not None:
            data, copy = self.pending
            assert np.array_equal(data, copy), "a frame was written after it was handed over"
            self.painted.append(copy)
            slot = self.pool.find(data)
            if slot is not None:
                self.pool.set_state(slot, FREE)
        self.pending = None


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def make_loop(spec, **kw):
    clock = Clock()
    kw.setdefault("render_thread", False)
    lp = FrameLoop(spec, clock=clock, **kw)
    lp.clock_ref = clock
    return lp


@pytest.fixture
def spec():
    return make_spec("counter", {"bits": 8}, width=64, height=36, bit_depth=8)


@pytest.fixture
def loop(qtbot, spec):
    lp = make_loop(spec)
    yield lp
    lp.close()


def present(loop, p, interval_ms, upload_ms=0.5, paint_ms=1.0):
    loop.clock_ref.t += interval_ms / 1e3
    t = loop.clock_ref.t
    p.paint()
    p.presented.emit(t - paint_ms / 1e3, t, upload_ms)


def engine_frame(spec, index, fmt="rgb8"):
    with Engine(spec, fmt=fmt) as eng:
        return eng.render(index).data.copy()


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
    # what was handed to the presenter is the engine's frame for that index, in a buffer it lent
    assert np.array_equal(p.frames[7], engine_frame(spec, 7)) and p.foreign == 0


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
    assert p.requests == n   # no longer handing over straight from the present
    qtbot.waitUntil(lambda: p.requests > n, timeout=2000)


def test_pause_freezes_the_index_and_a_step_shows_exactly_the_asked_frame(loop, spec):
    p = FakePresenter()
    loop.attach(p, 60.0)
    loop.start()
    for _ in range(5):
        present(loop, p, 16.7)
    loop.set_paused(True)
    for _ in range(3):
        present(loop, p, 16.7)
    assert loop.index == 5 and len(p.frames) == 6   # frame 5 rendered once, presented three times
    loop.step(4)
    present(loop, p, 16.7)                  # frame 9 at once: nothing rendered before the step
    loop.step(-100)
    assert loop.index == 0
    present(loop, p, 16.7)
    snap = loop.timeline.snapshot()
    assert list(snap.index) == [0, 1, 2, 3, 4, 5, 5, 5, 9, 0]
    assert list(snap.paused) == [False] * 5 + [True] * 5
    assert np.array_equal(p.painted[-2], engine_frame(spec, 9))
    assert np.array_equal(p.painted[-1], engine_frame(spec, 0))


def test_a_change_withdraws_the_frame_handed_over_and_the_next_present_shows_the_new_one(loop, spec):
    p = FakePresenter()
    loop.attach(p, 60.0)
    loop.start()
    present(loop, p, 16.7)                  # frame 0 shown, frame 1 handed over
    new = make_spec("counter", {"bits": 4}, width=64, height=36, bit_depth=8)
    loop.set_spec(new)
    assert p.withdrawn == 1                 # frame 1 of the old spec never reaches the screen
    present(loop, p, 16.7)
    assert np.array_equal(p.painted[-1], engine_frame(new, 1))
    assert list(loop.timeline.snapshot().index) == [0, 1]


def test_a_new_size_waits_for_the_buffers_of_the_old_one(loop):
    p = FakePresenter()
    loop.attach(p, 60.0)
    loop.start()
    present(loop, p, 16.7)
    loop.set_spec(make_spec("counter", {"bits": 8}, width=80, height=40, bit_depth=8))
    present(loop, p, 16.7)
    assert p.painted[-1].shape == (40, 80, 4) and p.pool.layout[0] == (40, 80, 4)


def test_render_error_is_reported_once_and_the_loop_keeps_going(loop):
    p = FakePresenter()
    loop.attach(p, 60.0)
    errors = []
    loop.render_failed.connect(errors.append)
    real = loop.engine.render

    def failing(index, out=None, lines=None):
        good = real(index, out=out, lines=lines)
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
    assert len(p.frames) == 8               # the failed frames were not shown: the last good one stayed


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
    present(loop, p, 16.7)   # stopped: the frame handed over before still counts, once
    present(loop, p, 16.7)   # an expose repaint: nothing handed over, nothing recorded
    assert loop.presented_count == 4


def test_ten_bit_surface_gets_packed_words(loop, spec):
    p = FakePresenter(bits=10)
    loop.attach(p, 60.0)
    loop.start()
    assert loop.fmt == "rgb10"
    assert p.frames[0].dtype == np.uint32 and p.frames[0].shape == (36, 64)
    assert np.array_equal(p.frames[0], engine_frame(spec, 0, "rgb10"))
    assert loop.rounding_note == ""


def test_eight_bit_surface_says_that_ten_bit_values_round(qtbot):
    spec = make_spec("ramp", {}, width=64, height=36, bit_depth=10)
    lp = FrameLoop(spec)
    p = FakePresenter(bits=8)
    lp.attach(p, 60.0)
    assert lp.fmt == "rgb8" and "8-bit surface" in lp.rounding_note
    lp.close()


def test_a_static_frame_is_uploaded_once_and_presented_every_time(qtbot):
    lp = make_loop(make_spec("bars", {}, width=64, height=36, bit_depth=8))
    p = FakePresenter()
    lp.attach(p, 60.0)
    lp.start()
    for _ in range(5):
        present(lp, p, 16.7)
    assert p.requests == 6 and len(p.frames) == 1 and lp.engine.frames_rendered == 1
    assert list(lp.timeline.snapshot().index) == [0, 1, 2, 3, 4]     # the index still advances
    lp.set_spec(make_spec("bars", {"level": 100.0}, width=64, height=36, bit_depth=8))
    present(lp, p, 16.7)
    present(lp, p, 16.7)
    assert len(p.frames) == 2 and p.frames[1].max() == 255
    other = FakePresenter()
    lp.attach(other, 60.0)                     # a new presenter gets the frame again
    assert len(other.frames) == 1 and p.pool.in_use() == 0
    lp.close()


def test_animated_frames_and_benchmarks_upload_every_frame(loop):
    p = FakePresenter()
    loop.attach(p, 60.0)
    loop.start()
    for _ in range(4):
        present(loop, p, 16.7)
    assert len(p.frames) == 5
    bench = make_loop(make_spec("bars", {}, width=64, height=36, bit_depth=8), reuse_static=False)
    q = FakePresenter()
    bench.attach(q, 60.0)
    bench.start()
    for _ in range(4):
        present(bench, q, 16.7)
    assert len(q.frames) == 5
    bench.close()


def test_the_mirror_gets_a_copy_never_a_lent_buffer(loop, spec):
    p, mirror = FakePresenter(), FakePresenter()
    loop.attach(p, 60.0)
    loop.set_mirror(mirror)
    loop.start()
    present(loop, p, 16.7)
    assert mirror.frames and mirror.foreign == len(mirror.frames) and mirror.requests >= 1
    assert np.array_equal(mirror.frames[0], engine_frame(spec, 0))


def test_a_releasing_presenter_gets_every_buffer_back_and_lends_no_more(loop):
    p = FakePresenter()
    loop.attach(p, 60.0)
    loop.start()
    present(loop, p, 16.7)
    p.releasing.emit()
    assert p.pool.in_use() == 0
    present(loop, p, 16.7)                  # whatever it still presents, it lends nothing
    assert p.pool.in_use() == 0
    other = FakePresenter()
    loop.attach(other, 60.0)                # the next presenter takes over
    assert other.requests == 1 and other.pool.in_use() >= 1


# ---------------------------------------------------------------- the render thread
def test_the_render_thread_renders_ahead_into_lent_buffers_one_index_per_present(qtbot, spec):
    lp = make_loop(spec, render_thread=True)
    p = FakePresenter()
    lp.attach(p, 60.0)
    threads = set()
    real = lp.engine.render

    def render(index, out=None, lines=None):
        threads.add(threading.current_thread().name)
        return real(index, out=out, lines=lines)

    lp.engine.render = render
    lp.start()
    for n in range(1, 21):
        qtbot.waitUntil(lambda n=n: p.requests == n, timeout=5000)   # handed over once rendered
        present(lp, p, 1000 / 60)
    qtbot.waitUntil(lambda: p.pool.in_use() == 3, timeout=5000)     # two ahead, one handed over
    lp.close()
    assert threads == {"testcard-render"}
    assert list(lp.timeline.snapshot().index) == list(range(20))
    assert all(np.array_equal(p.frames[i], engine_frame(spec, i)) for i in (0, 7, 19))
    assert p.foreign == 0 and p.pool.in_use() <= 1                  # closing gave the rest back
    assert not any(t.name == "testcard-render" for t in threading.enumerate())


def test_a_step_on_the_render_thread_shows_exactly_the_asked_frame(qtbot, spec):
    lp = make_loop(spec, render_thread=True)
    p = FakePresenter()
    lp.attach(p, 60.0)
    lp.start()
    for n in range(1, 4):
        qtbot.waitUntil(lambda n=n: p.requests == n, timeout=5000)
        present(lp, p, 1000 / 60)
    lp.set_paused(True)
    lp.step(10)
    qtbot.waitUntil(lambda: p.frames and np.array_equal(p.frames[-1], engine_frame(spec, lp.index)),
                    timeout=5000)
    present(lp, p, 1000 / 60)
    lp.close()
    assert loop_index_shown(lp) == lp.index


def loop_index_shown(lp):
    return int(lp.timeline.snapshot().index[-1])


def test_the_presenters_and_the_fake_are_what_the_loop_presents_with(qtbot):
    from app.preview import GLPresenter, Presenter, RasterPresenter

    raster = RasterPresenter()
    qtbot.addWidget(raster)
    assert isinstance(raster, Presenter) and isinstance(GLPresenter(), Presenter)
    assert isinstance(FakePresenter(), Presenter) and isinstance(showing_presenter(), Presenter)
    assert not isinstance(object(), Presenter)
    # only a presenter that keeps the frame (GL's texture) takes frames of their changing lines
    assert GLPresenter.updates_lines and not raster.updates_lines
    spec = make_spec("counter", {"bits": 8}, width=64, height=36, bit_depth=8)
    frame = engine_frame(spec, 0)
    raster.set_frame(frame, key=(spec, "rgb8"))
    assert not raster.holds((spec, "rgb8"))
    with pytest.raises(ValueError, match="holds no frame"):
        raster.set_frame(frame, lines=spec.changing_lines, key=(spec, "rgb8"))


# ---------------------------------------------------------------- only the changing lines
class TexturePresenter(FakePresenter):
    """A presenter with a texture: a whole frame replaces it, a frame of lines updates those."""

    updates_lines = True

    def __init__(self, **kw):
        super().__init__(**kw)
        self.texture = None
        self.held_key = None
        self.line_frames = 0
        self.pending_lines = None

    def holds(self, key):
        return key is not None and key == self.held_key

    def set_frame(self, data, lines=None, key=None):
        assert lines is None or self.holds(key), "lines over a texture of another frame"
        super().set_frame(data)
        self.pending_lines = (lines, key)

    def paint(self):
        if self.pending is not None:
            data, copy = self.pending
            lines, key = self.pending_lines
            if lines is None:
                self.texture, self.held_key = copy.copy(), key
            else:
                self.line_frames += 1
                for y0, y1 in lines:
                    self.texture[y0:y1] = copy[y0:y1]
            self.pending = (data, self.texture.copy())
        super().paint()


@pytest.mark.parametrize("layout", ["compat", "robust"])
def test_where_only_the_counter_moves_frames_carry_its_lines_and_the_screen_is_each_frame(qtbot, layout):
    spec = make_spec("counter", {"bits": 8, "layout": layout}, width=160, height=90, bit_depth=8)
    lp = make_loop(spec, render_thread=True)
    p = TexturePresenter()
    lp.attach(p, 60.0)
    assert not lp.renders_threaded            # a few lines: rendered on the GUI thread
    lp.start()
    for _ in range(12):
        present(lp, p, 1000 / 60)
    lp.close()
    indices = list(lp.timeline.snapshot().index)
    assert p.line_frames >= 10
    for i, shown in zip(indices, p.painted, strict=True):
        np.testing.assert_array_equal(shown, engine_frame(spec, i))


def test_frames_of_a_moving_pattern_are_rendered_whole_on_the_render_thread(qtbot):
    spec = make_spec("checkerboard", {"invert_every": 1}, width=64, height=36, bit_depth=8)
    lp = make_loop(spec, render_thread=True)
    p = TexturePresenter()
    lp.attach(p, 60.0)
    assert lp.renders_threaded
    lp.start()
    for n in range(1, 6):
        qtbot.waitUntil(lambda n=n: p.requests == n, timeout=5000)
        present(lp, p, 1000 / 60)
    lp.close()
    assert p.line_frames == 0
    assert all(np.array_equal(s, engine_frame(spec, i))
               for i, s in zip(lp.timeline.snapshot().index, p.painted, strict=True))


def test_without_line_updates_every_frame_is_whole(qtbot, spec):
    lp = make_loop(spec, render_thread=True)
    lp.line_updates = False
    p = TexturePresenter()
    lp.attach(p, 60.0)
    assert lp.renders_threaded
    lp.close()


def test_a_path_that_writes_whole_frames_renders_them_on_the_render_thread(qtbot, spec, monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.setenv("TESTCARD_RENDER_PATH", "torch-eager")
    lp = make_loop(spec, render_thread=True)
    p = TexturePresenter()
    lp.attach(p, 60.0)
    assert lp.path == "torch-eager" and lp.renders_threaded
    monkeypatch.setenv("TESTCARD_RENDER_PATH", "numpy")
    lp.redecide()
    assert lp.path == "numpy" and not lp.renders_threaded
    lp.close()
