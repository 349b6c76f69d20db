"""The render-ahead schedule: hypothesis over presents, pauses, steps, resumes and parameter
changes (renders run on the test's thread), then the worker thread itself."""

import threading

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from core.timing import Handed, RenderAhead

BUFFERS = 4          # depth 2 ahead + the presenter's pending and shown frames


class Schedule(RuleBasedStateMachine):
    """A loop driving RenderAhead with a fake presenter that holds a pending and a shown buffer."""

    def __init__(self):
        super().__init__()
        self.rendered: dict[int, list[int]] = {}      # generation -> indices rendered, in order
        self.static_of: dict[int, bool] = {0: False}
        self.free = [f"buf{i}" for i in range(BUFFERS)]
        self.in_ahead: set[str] = set()
        self.pending = None         # buffer handed to the presenter, present to come
        self.shown = None           # buffer the presenter shows
        self.on_screen = None       # (generation, index) of the frame on screen
        self.change_while_rendering = False
        self.ahead = RenderAhead(self._render, self._give_back, depth=2, threaded=False)

    def _render(self, job):
        self.rendered.setdefault(job.generation, []).append(job.index)
        assert job.buffer in self.in_ahead
        if self.change_while_rendering:
            # the GUI thread changes the frame while this render is in flight (on the worker)
            self.change_while_rendering = False
            self._withdraw(self.ahead.invalidate())
        return (job.generation, job.index)

    def _give_back(self, buf):
        assert buf in self.in_ahead, f"{buf} given back but not lent"
        self.in_ahead.remove(buf)
        self.free.append(buf)

    # ------------------------------------------------------------ what the loop does
    @rule()
    def fill(self):
        while self.free and self.ahead.wanted() is not None:
            buf = self.free.pop()
            self.in_ahead.add(buf)
            self.ahead.submit(buf)

    @rule(n=st.integers(1, 3))
    def render_some(self, n):
        self.ahead.run(n)

    @precondition(lambda self: self.ahead.handed is None)
    @rule()
    def take(self):
        asked = self.ahead.index
        got = self.ahead.take()
        if got is None:
            return
        assert got.index == asked                     # exactly the asked index
        assert got.generation == self.ahead.generation
        if got.fresh:
            gen, index = got.result
            assert gen == self.ahead.generation       # never a frame of an older generation
            if not self.ahead.static:
                assert index == asked
            self.in_ahead.remove(got.job.buffer)
            self.pending = got.job.buffer
        else:
            # presented again: only the asked frame of this generation, already on screen
            assert self.on_screen is not None and self.on_screen[0] == self.ahead.generation
            assert self.ahead.static or self.on_screen[1] == asked

    @precondition(lambda self: self.ahead.handed is not None)
    @rule()
    def present(self):
        paused, before = self.ahead.paused, self.ahead.index
        got = self.ahead.presented()
        assert self.ahead.index == (before if paused else got.index + 1)   # once per present
        if got.fresh:
            if self.shown is not None:
                self.free.append(self.shown)
            self.shown, self.pending = self.pending, None
            self.on_screen = (got.generation, got.result[1])

    def _withdraw(self, withdrawn):
        if withdrawn and self.pending is not None:      # (a frame presented again has none)
            self.free.append(self.pending)
            self.pending = None
        assert self.ahead.handed is None
        self.static_of[self.ahead.generation] = self.ahead.static

    @rule(paused=st.booleans())
    def pause_or_resume(self, paused):
        self.ahead.set_paused(paused)

    @rule(delta=st.integers(-3, 3))
    def step(self, delta):
        gen = self.ahead.generation
        want = max(0, self.ahead.index + delta)
        withdrawn = self.ahead.step(delta)
        assert self.ahead.index == want
        if self.ahead.generation != gen:
            self._withdraw(withdrawn)

    @rule(static=st.sampled_from([None, False, True]))
    def change(self, static):
        self._withdraw(self.ahead.invalidate(static))

    @rule()
    def change_during_the_next_render(self):
        self.change_while_rendering = True

    @rule()
    def drain(self):
        self._withdraw(self.ahead.drain())
        assert not self.in_ahead                       # every buffer it held is back

    # ------------------------------------------------------------ what must always hold
    @invariant()
    def renders_are_consecutive_and_never_repeated(self):
        for gen, indices in self.rendered.items():
            if self.static_of.get(gen, False):
                assert len(indices) <= 1                # a static frame is rendered once
            assert all(b == a + 1 for a, b in zip(indices, indices[1:], strict=False)), (gen, indices)

    @invariant()
    def every_buffer_is_in_one_place(self):
        held = [*self.free, *self.in_ahead, *(b for b in (self.pending, self.shown) if b is not None)]
        assert sorted(held) == sorted(f"buf{i}" for i in range(BUFFERS))

    @precondition(lambda self: self.ahead.handed is None)
    @rule()
    def the_asked_frame_always_comes(self):
        # with every render done, the asked frame is ready or on screen: the loop never stalls
        for _ in range(3):
            self.fill()
            self.ahead.run()
        asked = self.ahead.index
        self.take()
        assert self.ahead.handed is not None and self.ahead.handed.index == asked


Schedule.TestCase.settings = settings(max_examples=80, stateful_step_count=40, deadline=None)
test_schedule = Schedule.TestCase


# ---------------------------------------------------------------- plain cases
def make(depth=2, threaded=False, **kw):
    log, back = [], []
    ahead = RenderAhead(lambda job: (log.append(job.index), job.index)[1], back.append,
                        depth=depth, threaded=threaded, **kw)
    return ahead, log, back


def present_next(ahead) -> Handed:
    got = ahead.take()
    assert got is not None
    ahead.presented()
    return got


def test_running_renders_two_ahead_and_presents_each_index_once():
    ahead, log, back = make()
    for i in range(3):
        if ahead.wanted() is not None:
            ahead.submit(f"b{i}")
    assert log == [] and ahead.ahead() == 2          # two ahead, nothing rendered yet
    ahead.run()
    assert log == [0, 1]
    assert [present_next(ahead).index for _ in range(2)] == [0, 1]
    assert ahead.index == 2 and ahead.take() is None  # frame 2 was not submitted: not ready
    assert back == []


def test_a_step_while_paused_shows_exactly_the_asked_frame_and_drops_the_rest():
    ahead, log, back = make()
    ahead.submit("a")
    ahead.submit("b")
    ahead.run()
    present_next(ahead)                               # frame 0 on screen, 1 ready
    ahead.set_paused(True)
    assert present_next(ahead).index == 1             # the frame asked when pausing
    assert not present_next(ahead).fresh              # presented again, not rendered again
    assert ahead.wanted() is None and log == [0, 1]   # nothing more is wanted while paused
    assert ahead.step(3) is False and ahead.index == 4
    ahead.submit("c")
    ahead.run()
    got = present_next(ahead)
    assert got.fresh and got.result == 4 and log == [0, 1, 4]


def test_a_change_withdraws_the_handed_frame_and_gives_back_stale_buffers():
    ahead, log, back = make()
    ahead.submit("a")
    ahead.submit("b")
    ahead.run()
    assert ahead.take().result == 0                    # handed over, present still to come
    assert ahead.invalidate() is True                  # withdrawn: the caller takes it back
    assert back == ["b"]                               # frame 1 of the old spec: never shown
    ahead.submit("c")
    ahead.run()
    assert present_next(ahead).result == 0 and log == [0, 1, 0]


def test_a_static_frame_is_rendered_once_and_presented_every_time():
    ahead, log, back = make()
    ahead.invalidate(static=True)
    ahead.submit("a")
    assert ahead.wanted() is None
    ahead.run()
    shown = [present_next(ahead) for _ in range(5)]
    assert [h.index for h in shown] == [0, 1, 2, 3, 4]  # the index still advances per present
    assert [h.fresh for h in shown] == [True, False, False, False, False] and log == [0]


def test_the_worker_renders_in_order_off_the_callers_thread_and_drain_waits():
    release, started = threading.Event(), threading.Event()
    threads, ready = [], []

    def render(job):
        threads.append(threading.current_thread().name)
        if job.index == 0:
            started.set()
            release.wait(10)
        return job.index

    ahead = RenderAhead(render, lambda b: None, depth=2, on_ready=lambda: ready.append(1),
                        name="test-render")
    try:
        ahead.submit("a")
        ahead.submit("b")
        assert started.wait(10)
        drained = threading.Thread(target=ahead.drain)
        drained.start()
        drained.join(0.2)
        assert drained.is_alive()                 # a render in progress is waited for
        release.set()
        drained.join(10)
        assert not drained.is_alive()
        assert threads == ["test-render"]         # frame 1 was dropped by the drain, never rendered
    finally:
        release.set()
        ahead.close()
    assert not any(t.name == "test-render" for t in threading.enumerate())


def test_close_gives_every_buffer_back_and_refuses_more_work():
    ahead, log, back = make(threaded=True)
    ahead.close()
    assert ahead.wanted() is None
    with pytest.raises(ValueError, match="no frame is wanted"):
        ahead.submit("x")
    with pytest.raises(ValueError, match="depth"):
        RenderAhead(lambda j: None, lambda b: None, depth=0)


def test_a_new_generation_may_switch_between_the_worker_and_the_callers_thread():
    threads, ready = [], threading.Event()

    def render(job):
        threads.append((job.generation, job.index, threading.current_thread().name))
        return job.index

    ahead = RenderAhead(render, lambda b: None, depth=2, on_ready=ready.set, name="test-render")
    try:
        ahead.submit("a")
        assert ready.wait(10)                               # rendered by the worker
        present_next(ahead)
        ahead.invalidate(threaded=False, depth=1)           # this generation: the caller's thread
        assert ahead.threaded is False and ahead.depth == 1
        ahead.submit("b")
        assert ahead.wanted() is None                       # one ahead
        assert ahead.run() == 1
        ready.clear()
        ahead.invalidate(threaded=True, depth=2)            # and back to the worker
        ahead.submit("c")
        assert ready.wait(10)
        assert ahead.run() == 0                             # nothing left for the caller
    finally:
        ahead.close()
    me = threading.current_thread().name
    assert [(g, i, n == me) for g, i, n in threads] == [(0, 0, False), (1, 1, True), (2, 1, False)]
    with pytest.raises(ValueError, match="depth"):
        ahead.invalidate(depth=0)


def test_the_worker_takes_no_job_of_a_generation_rendered_on_the_callers_thread():
    ran = []
    ahead = RenderAhead(lambda job: ran.append(threading.current_thread().name), lambda b: None,
                        depth=2, name="test-render")
    try:
        ahead.submit("a")                                   # starts the worker
        ahead.drain(threaded=False, depth=1)
        ran.clear()
        ahead.submit("b")
        threading.Event().wait(0.2)                         # the worker had time to take it
        assert ran == [] and ahead.ahead() == 1
        ahead.run()
        assert ran == [threading.current_thread().name]
    finally:
        ahead.close()
