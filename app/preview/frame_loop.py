"""The live frame loop: frame N rendered ahead on a thread of its own, presented, recorded.

A render thread keeps up to two frames ready ahead of their presents (which ones:
:class:`~core.timing.render_ahead.RenderAhead`, no Qt), each written by the engine straight into
a buffer the presenter lends (a mapped pixel-buffer object on GL); the GUI thread only hands
finished frames over.  The index advances exactly once per presented frame; a step or a changed
frame (spec, path, device, presenter) starts a new generation, so the next present shows exactly
the asked index, never a frame rendered before.  Paused, and for a static frame, the frame on
screen is presented again, not rendered again.  ``render_thread=False`` renders on the GUI
thread, one ahead (benchmarks compare).

Vsync-paced where swaps wait for vblank (each ``presented``, from ``frameSwapped``, hands the
next frame over); elsewhere (raster, Xvfb, X11 without vsync) a precise timer with absolute
deadlines paces it, and the :class:`~core.timing.pacing.PacingMonitor` switches over when a GL
surface's swaps return far faster than the screen period.  The GUI thread never waits for a swap
or a render (but for one in progress when the frame's size, format or presenter changes).  The
mirror (the preview while an output is up) gets a copy, made on the render thread, a few times
a second.  A render error is reported once and the last good frame stays on screen.  The engine
and its path decision are :class:`~app.preview.live_engine.LiveEngine`'s, each present's record
(and the stall test hook) :class:`~app.preview.present_log.PresentLog`'s.  One piece (a little
over 400 lines): every slot left here moves the same state (generation, pacing, buffers).
"""

from __future__ import annotations

import math
import time

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from app.preview.live_engine import LiveEngine
from app.preview.present_log import PresentLog, stall_every
from app.preview.presenter import Presenter
from core.decisions import DecisionCache, RaceOverride
from core.engine import RenderedFrame
from core.timing import TIMER, VSYNC, DeadlineSchedule, Job, PacingMonitor, RenderAhead, Timeline


class FrameLoop(QObject):
    frame_presented = Signal(int)          # the frame index just shown
    render_failed = Signal(str)            # one sentence naming the frame
    pacing_changed = Signal(str, str)      # mode (VSYNC / TIMER), why
    engine_changed = Signal()              # path, format or rounding note changed
    finished = Signal()                    # the frame limit was reached
    _rendered = Signal()                   # from the render thread: a frame is ready

    MIRROR_INTERVAL_S = 0.1                # passive preview refresh while an output is active
    STALL_S = 0.5                          # re-ask a presenter that has not presented for this long
    AHEAD = 2                              # frames the render thread keeps ready
    render_thread = True                   # False: render on the GUI thread (benchmarks compare)
    line_updates = True                    # False: every frame rendered and uploaded whole

    def __init__(self, spec, *, device: str = "cpu", frame_limit: int = 0, clock=time.perf_counter,
                 reuse_static: bool = True, render_thread: bool | None = None,
                 decisions: DecisionCache | None = None, race: RaceOverride | None = None, parent=None):
        super().__init__(parent)
        self.reuse_static = reuse_static
        self.clock = clock
        self.spec = spec
        self.device = device
        self.frame_limit = frame_limit
        self.timeline = Timeline()
        self.presents = PresentLog(self.timeline, stall_every())   # each present, counted
        self.live = LiveEngine(decisions, race)  # the engine and its path decision (race > ... > cache)
        self.last_error: str | None = None
        self.monitor = PacingMonitor(1000.0 / 60.0)
        self.period_ms = 1000.0 / 60.0
        self.presenter: Presenter | None = None
        self.mirror: Presenter | None = None
        self._mirror_t = -math.inf             # read and written by the render thread only
        self._pending_t = 0.0
        self._due = False                      # a present is due and waits for its frame
        self._lending = False                  # the presenter may lend buffers (not released)
        self._running = False
        if render_thread is not None:
            self.render_thread = bool(render_thread)
        threaded = self.render_thread
        self._ahead = RenderAhead(self._render_job, self._give_back, threaded=threaded,
                                  depth=self.AHEAD if threaded else 1,
                                  on_ready=self._rendered.emit if threaded else None)
        self._rendered.connect(self._on_rendered)     # queued: emitted on the render thread
        self._schedule = DeadlineSchedule(self.period_ms / 1e3)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._tick)
        self._watchdog = QTimer(self)
        self._watchdog.setInterval(int(self.STALL_S * 1000))
        self._watchdog.timeout.connect(self._check_stall)

    # ------------------------------------------------------------ configuration
    @property
    def mode(self) -> str:
        return self.monitor.mode

    @property
    def index(self) -> int:
        """The frame the next present shows (while paused: the one on screen)."""
        return self._ahead.index

    @property
    def renders_threaded(self) -> bool:
        """Whether frames are rendered on the render thread now (see :meth:`_threaded`)."""
        return self._ahead.threaded

    @property
    def paused(self) -> bool:
        return self._ahead.paused

    @property
    def presented_count(self) -> int:
        """Presents so far (the test hook's discarded frames included)."""
        return self.presents.count

    def attach(self, presenter: Presenter, refresh_hz: float) -> None:
        """Make ``presenter`` the one that paces the loop (the output window or the preview)."""
        old = self.presenter
        if old is not None:
            self._lending = False
            self._restart(wait=True)              # its buffers back before another lends any
            for signal, slot in self._wiring(old):
                try:
                    signal.disconnect(slot)
                except (RuntimeError, TypeError):
                    pass
        self.presenter = presenter
        self._lending = True
        for signal, slot in self._wiring(presenter):
            signal.connect(slot)
        self.set_refresh(refresh_hz)
        if self.engine is None or self._wanted_fmt() != self.fmt:
            self._rebuild_engine()
        else:
            self._restart()
        if self._running:
            self._kick()

    def _wiring(self, presenter: Presenter):
        return ((presenter.presented, self._on_presented), (presenter.surface_ready, self._on_surface),
                (presenter.releasing, self._on_releasing))

    def set_mirror(self, presenter: Presenter | None) -> None:
        """A second presenter refreshed a few times a second (the preview while an output is up)."""
        self.mirror = presenter
        if presenter is not None:
            self._restart()                       # a frame rendered now reaches it at once

    def set_refresh(self, refresh_hz: float) -> None:
        self.period_ms = 1000.0 / refresh_hz if refresh_hz and refresh_hz > 0 else 1000.0 / 60.0
        self.timeline.set_period(self.period_ms)   # late frames judged, and history sized, by it
        capable = self.presenter is not None and self.presenter.vsync_capable
        self.monitor.reset(self.period_ms, VSYNC if capable else TIMER)
        if not capable and self.presenter is not None:
            self.monitor.reason = f"the {self.presenter.kind} presenter has no vsync to wait for"
        self._schedule = DeadlineSchedule(self.period_ms / 1e3)
        self.pacing_changed.emit(self.monitor.mode, self.monitor.reason)

    def set_spec(self, spec) -> None:
        """Show ``spec`` from the next frame on; refuses (ValueError) what the engine refuses.

        The render path is decided again (the band may differ); the engine is only
        rebuilt when the decision changes, so compiled graphs stay cached.
        """
        wait = self.live.take(spec, self._wanted_fmt(), device=self.device, reuse_static=self.reuse_static)
        self.spec = spec
        self._engine_changed(wait)

    def redecide(self) -> None:
        """Decide the render path again (a verdict was just saved or imported): the engine is
        rebuilt only when the path changes; the decision's source and reason are updated."""
        self._engine_changed(self.live.redecide(self.spec, self._wanted_fmt(), device=self.device,
                                                reuse_static=self.reuse_static))

    def set_device(self, device: str) -> None:
        """Render on ``device`` from the next frame; refuses (ValueError) one the engine cannot use."""
        if device != self.device:
            wait = self.live.rebuild(self.spec, self._wanted_fmt(), device=device,
                                     reuse_static=self.reuse_static)
            self.device = device
            self._engine_changed(wait)

    def set_reuse_static(self, reuse: bool) -> None:
        """``False``: render every frame presented, a static one whole (a live race times each
        render); ``True``: present a static frame again instead.  The engine is rebuilt on a change."""
        if bool(reuse) != self.reuse_static:
            self.reuse_static = bool(reuse)
            self._rebuild_engine()

    def _wanted_fmt(self) -> str:
        bits = self.presenter.surface_bits if self.presenter is not None else 8
        return "rgb10" if bits >= 10 else "rgb8"

    def _on_surface(self, _bits: int) -> None:
        if self._wanted_fmt() != self.fmt:
            self._rebuild_engine()

    def _rebuild_engine(self) -> None:
        self._engine_changed(self.live.rebuild(self.spec, self._wanted_fmt(), device=self.device,
                                               reuse_static=self.reuse_static))

    def _engine_changed(self, wait: bool | None) -> None:
        """A new engine or spec (``wait``: of another frame layout, so no render may still write
        a buffer lent so far) starts a new generation; None: only the decision's reason changed."""
        if wait is not None:
            self._restart(wait=wait)
        self.engine_changed.emit()

    # the engine and its decision (app/preview/live_engine.py), read by the status bar and tests
    engine = property(lambda self: self.live.engine)
    path = property(lambda self: self.live.path)
    path_source = property(lambda self: self.live.path_source)
    path_reason = property(lambda self: self.live.path_reason)
    fmt = property(lambda self: self.live.fmt)
    rounding_note = property(lambda self: self.live.rounding_note)

    @property
    def active_path(self) -> str:
        """The path serving frames now (the decided one, or its stand-in while it compiles)."""
        return self.live.active_path

    # ------------------------------------------------------------ running
    def start(self) -> None:
        if self._running:
            return
        self._running = True
        self._watchdog.start()
        self._kick()

    def stop(self) -> None:
        self._running = False
        self._timer.stop()
        self._watchdog.stop()

    def close(self) -> None:
        self.stop()
        self._ahead.close()                        # the render thread ends; buffers go back
        self.timeline.stop_recording()             # a streamed record is completed, not lost
        self.live.close()

    @property
    def running(self) -> bool:
        return self._running

    def set_paused(self, paused: bool) -> None:
        self._ahead.set_paused(paused)
        self._fill()

    def step(self, delta: int) -> None:
        """Move the index by ``delta`` (used while paused; never below 0); the next present
        shows exactly that frame."""
        if self._ahead.step(delta):
            self._withdrawn()
        self._fill()
        if self._due:
            self._hand_over()

    def reset_timing(self) -> None:
        self.timeline.clear()
        self.monitor.reset(self.period_ms, self.monitor.mode)

    def _restart(self, wait: bool = False) -> None:
        """The frame changed: a new generation (``wait``: and no render writes a buffer lent so far)."""
        static = self.reuse_static and not self.spec.animated
        threaded = self._threaded()
        depth = self.AHEAD if threaded else 1
        if (self._ahead.drain if wait else self._ahead.invalidate)(static, threaded, depth):
            self._withdrawn()
        self._fill()
        if self._due:
            self._hand_over()

    def _threaded(self) -> bool:
        """Whether this generation renders on the render thread: frames rendered whole do; where
        only the counter's lines are written (a path that can, and a presenter that updates just
        those), a render costs less than handing it to a thread that contends with the present
        for the cores and the interpreter, so those render on the GUI thread, one ahead."""
        if not self.render_thread:
            return False
        presenter, engine = self.presenter, self.engine
        lines = self.line_updates and presenter is not None and presenter.updates_lines and \
            engine is not None and engine.writes_lines and self.spec.changing_lines not in (None, ())
        return not lines

    def _withdrawn(self) -> None:
        # the frame handed over is outdated: the present asked for repeats the screen (and is
        # not recorded); the asked frame follows as soon as it is rendered
        if self.presenter is not None:
            self.presenter.withdraw()
        self._due = True

    def _kick(self) -> None:
        self._fill()
        if self.monitor.mode == VSYNC:
            self._hand_over()
        else:
            self._timer.start(0)

    def _tick(self) -> None:
        if not self._running:
            return
        self._hand_over()
        wait = self._schedule.next_wait_ms(self.clock())
        self._timer.start(wait)

    # ------------------------------------------------------------ frames ahead
    def _fill(self) -> None:
        """Keep the frames ahead rendering, into buffers the presenter lends."""
        if not self._running or not self._lending or self.engine is None:
            return
        shape, dtype = self.engine.frame_layout
        while self._ahead.wanted() is not None:
            buf = self.presenter.lend_buffer(shape, dtype)
            if buf is None:
                break                             # all in use: a present frees one
            self._ahead.submit(buf)
        if not self._ahead.threaded:
            self._ahead.run()

    def _render_job(self, job: Job) -> tuple[RenderedFrame, object, object]:
        """On the render thread: the frame into its buffer (only its changing lines when the
        presenter holds a whole frame of the spec), and a whole copy for the mirror when due."""
        engine, presenter = self.engine, self.presenter
        key = (engine.spec, engine.fmt)
        mirror_due = self.mirror is not None and (
            job.first or self.clock() - self._mirror_t >= self.MIRROR_INTERVAL_S)
        lines = None
        if self.line_updates and not mirror_due and presenter is not None and presenter.holds(key):
            lines = engine.spec.changing_lines
            if lines == () and not self.reuse_static:
                lines = None                      # rendering every frame: a static one whole
        try:
            r = engine.render(job.index, out=job.buffer, lines=lines)
        except Exception as exc:  # a buffer of the size before a change, an engine replaced
            r = RenderedFrame(job.index, job.buffer, engine.active_path, 0.0, 0.0,
                              error=f"frame {job.index}: {type(exc).__name__}: {exc}", warmup=True)
        copy = None
        if mirror_due and not r.error:
            self._mirror_t = self.clock()
            copy = r.data.copy()                  # the buffer itself goes to the presenter
        return r, copy, key

    def _give_back(self, buffer) -> None:
        if self.presenter is not None:
            self.presenter.give_back(buffer)

    def _on_rendered(self) -> None:
        if self._due:
            self._hand_over()
        self._fill()

    def _on_releasing(self) -> None:
        # the presenter is about to free what it lent: nothing may write into it any more
        self._lending = False
        self._restart(wait=True)

    def _hand_over(self) -> None:
        """A present is due: hand the presenter its frame once it is ready, and ask for it."""
        if not self._running or not self._lending or self._ahead.handed is not None:
            return
        got = self._ahead.take()
        if got is None:
            self._due = True                      # handed over when the render thread has it
            return
        self._due = False
        if got.fresh:
            r, copy, key = got.result
            self._note_error(r)
            if r.error:
                self.presenter.give_back(got.job.buffer)     # the last good frame stays
            else:
                self._set_frame(r, key)
                self.presents.shown_path = r.path
            if copy is not None and self.mirror is not None:
                self.mirror.set_frame(copy)
                self.mirror.request_present()
        self.presenter.request_present()
        self._pending_t = self.clock()
        self._fill()

    def _set_frame(self, r: RenderedFrame, key) -> None:
        if r.lines is not None and not self.presenter.holds(key):
            # the texture was replaced after the render thread asked: the whole frame, here
            whole = self.engine.render(r.index, out=r.data) if key == (self.engine.spec, self.engine.fmt) \
                else None
            if whole is None or whole.error:
                self.presenter.give_back(r.data)   # the frame on screen stays
                return
            r.lines = None
        self.presenter.set_frame(r.data, lines=r.lines, key=key)

    def _note_error(self, r: RenderedFrame) -> None:
        if r.error:
            # "frame N: <what failed>": one notice per distinct failure, not one per frame
            what = r.error.split(": ", 1)[1] if r.error.startswith("frame ") else r.error
            if what != self.last_error:
                self.render_failed.emit(r.error)
            self.last_error = what
        else:
            self.last_error = None

    def _on_presented(self, t_paint: float, t_done: float, upload_ms: float) -> None:
        got = self._ahead.handed
        if got is None:  # a repaint we did not ask for (expose, resize), or a withdrawn frame
            return
        self._ahead.presented()
        self.presents.presented(got, t_paint, t_done, upload_ms, self.paused)
        if self.monitor.observe(t_done):
            self.pacing_changed.emit(self.monitor.mode, self.monitor.reason)
            if self._running:
                self._schedule = DeadlineSchedule(self.period_ms / 1e3)
                self._timer.start(0)
        self.frame_presented.emit(got.index)
        if self.frame_limit and self.presented_count >= self.frame_limit:
            self.stop()
            # not from inside the presenter's paint: a window closed there crashes Qt
            QTimer.singleShot(0, self.finished.emit)
            return
        if self.presents.stalls(self.paused):
            self._discard_next(got.index + 1, t_done)
        if self._running and self.monitor.mode == VSYNC:
            self._hand_over()
        self._fill()

    def _discard_next(self, index: int, t_done: float) -> None:
        """The test hook (:func:`~app.preview.present_log.stall_every`): ``index`` recorded as
        presented, never shown."""
        self.presents.discarded(index, t_done)
        self.frame_presented.emit(index)
        self.step(1)

    def _check_stall(self) -> None:
        if self._ahead.handed is not None and self.clock() - self._pending_t > self.STALL_S:
            # a hidden or unexposed window presents nothing; ask again instead of waiting forever
            self._pending_t = self.clock()
            self.presenter.request_present()
