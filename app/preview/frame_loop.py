"""The live frame loop: render frame N with the engine, present it, record when it got there.

Vsync-paced where the presenter's swap waits for vblank: each ``presented``
signal (from ``frameSwapped``) immediately renders the next frame and asks for
the next present, so the display's refresh drives the loop.  Where swaps do
not wait (the raster presenter, Xvfb, X11 without vsync) it is paced by a
precise timer at the screen's refresh rate with absolute deadlines; the
:class:`~core.timing.pacing.PacingMonitor` notices when a GL surface's swaps return
far faster than the screen period and switches over.  The GUI thread never
waits for a swap.

It presents with any :class:`~app.preview.presenter.Presenter` (the preview, the output
window, and the preview again as a passive mirror while an output is up).

The frame index advances exactly once per presented frame (frozen while
paused; stepped by :meth:`step`).  A render error is reported and the last
good frame stays on screen; the loop keeps running.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, Qt, QTimer, Signal

from app.preview.presenter import Presenter
from core.decisions import choose_path_for
from core.engine import Engine, RenderedFrame
from core.timing import TIMER, VSYNC, DeadlineSchedule, PacingMonitor, Timeline


class FrameLoop(QObject):
    frame_presented = Signal(int)          # the frame index just shown
    render_failed = Signal(str)            # one sentence naming the frame
    pacing_changed = Signal(str, str)      # mode (VSYNC / TIMER), why
    engine_changed = Signal()              # path, format or rounding note changed
    finished = Signal()                    # the frame limit was reached

    MIRROR_INTERVAL_S = 0.1                # passive preview refresh while an output is active
    STALL_S = 0.5                          # re-ask a presenter that has not presented for this long

    def __init__(self, spec, *, device: str = "cpu", frame_limit: int = 0, clock=time.perf_counter,
                 reuse_static: bool = True, parent=None):
        super().__init__(parent)
        self.reuse_static = reuse_static
        self.clock = clock
        self.spec = spec
        self.device = device
        self.frame_limit = frame_limit
        self.timeline = Timeline()
        self.index = 0
        self.paused = False
        self.presented_count = 0
        self.path = "numpy"
        self.path_source = "default"
        self.path_reason = ""
        self.fmt = "rgb8"
        self.engine: Engine | None = None
        self.last_error: str | None = None
        self.rounding_note = ""
        self.monitor = PacingMonitor(1000.0 / 60.0)
        self.period_ms = 1000.0 / 60.0
        self.presenter: Presenter | None = None
        self.mirror: Presenter | None = None
        self._mirror_t = 0.0
        self._pending: RenderedFrame | None = None
        self._pending_t = 0.0
        self._uploaded = None
        self._running = False
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

    def attach(self, presenter: Presenter, refresh_hz: float) -> None:
        """Make ``presenter`` the one that paces the loop (the output window or the preview)."""
        if self.presenter is not None:
            try:
                self.presenter.presented.disconnect(self._on_presented)
                self.presenter.surface_ready.disconnect(self._on_surface)
            except (RuntimeError, TypeError):
                pass
        self.presenter = presenter
        self._pending = None
        presenter.presented.connect(self._on_presented)
        presenter.surface_ready.connect(self._on_surface)
        self.set_refresh(refresh_hz)
        if self.engine is None or self._wanted_fmt() != self.fmt:
            self._rebuild_engine()
        if self._running:
            self._kick()

    def set_mirror(self, presenter: Presenter | None) -> None:
        """A second presenter refreshed a few times a second (the preview while an output is up)."""
        self.mirror = presenter

    def set_refresh(self, refresh_hz: float) -> None:
        self.period_ms = 1000.0 / refresh_hz if refresh_hz and refresh_hz > 0 else 1000.0 / 60.0
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
        if self.engine is not None and self._decide(spec)[0] == self.engine.path:
            self.engine.set_spec(spec)
            self.spec = spec
            self._update_notes()
            self.engine_changed.emit()
        else:
            old = self.spec
            self.spec = spec
            try:
                self._rebuild_engine()
            except ValueError:
                self.spec = old
                raise

    def set_device(self, device: str) -> None:
        """Render on ``device`` from the next frame; refuses (ValueError) one the engine cannot use."""
        if device == self.device:
            return
        old = self.device
        self.device = device
        try:
            self._rebuild_engine()
        except ValueError:
            self.device = old
            raise

    def _wanted_fmt(self) -> str:
        bits = self.presenter.surface_bits if self.presenter is not None else 8
        return "rgb10" if bits >= 10 else "rgb8"

    def _on_surface(self, _bits: int) -> None:
        if self._wanted_fmt() != self.fmt:
            self._rebuild_engine()

    def _decide(self, spec) -> tuple[str, str, str]:
        d = choose_path_for(spec, self._wanted_fmt(), self.device)
        return d.path, d.source, d.reason

    def _rebuild_engine(self) -> None:
        self.fmt = self._wanted_fmt()
        path, source, reason = self._decide(self.spec)
        old = self.engine
        kw = dict(device=self.device, fmt=self.fmt, allow_rounding=True, reuse_static=self.reuse_static)
        try:
            engine = Engine(self.spec, path=path, **kw)
        except ValueError as exc:
            if path == "numpy":
                raise
            reason = f"{path} cannot render this here ({exc}); using numpy"
            path, source = "numpy", "fallback"
            engine = Engine(self.spec, path=path, **kw)
        self.engine = engine
        self.path, self.path_source, self.path_reason = path, source, reason
        if old is not None:
            old.close()
        self._update_notes()
        self.engine_changed.emit()

    def _update_notes(self) -> None:
        self.rounding_note = "" if self.engine.exact else (
            f"{self.fmt[3:]}-bit surface: " + self.engine.note)

    @property
    def active_path(self) -> str:
        """The path serving frames now (the decided one, or its stand-in while it compiles)."""
        return self.engine.active_path if self.engine is not None else self.path

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
        if self.engine is not None:
            self.engine.close()

    @property
    def running(self) -> bool:
        return self._running

    def set_paused(self, paused: bool) -> None:
        self.paused = bool(paused)

    def step(self, delta: int) -> None:
        """Move the index by ``delta`` (used while paused; never below 0)."""
        self.index = max(0, self.index + int(delta))

    def reset_timing(self) -> None:
        self.timeline.clear()
        self.monitor.reset(self.period_ms, self.monitor.mode)

    def _kick(self) -> None:
        if self.monitor.mode == VSYNC:
            if self._pending is None:
                self._produce()
        else:
            self._timer.start(0)

    def _tick(self) -> None:
        if not self._running:
            return
        if self._pending is None:
            self._produce()
        wait = self._schedule.next_wait_ms(self.clock())
        self._timer.start(wait)

    def _produce(self) -> None:
        if self.presenter is None:
            return
        r = self.engine.render(self.index)
        if r.error:
            # "frame N: <what failed>": one notice per distinct failure, not one per frame
            what = r.error.split(": ", 1)[1] if r.error.startswith("frame ") else r.error
            if what != self.last_error:
                self.render_failed.emit(r.error)
            self.last_error = what
        else:
            self.last_error = None
        self._pending = r
        self._pending_t = self.clock()
        # a static frame the engine served again from the same buffer is already on the
        # presenter: present it again without another upload
        key = (id(self.presenter), self.spec, id(r.data))
        reusable = self.reuse_static and not self.spec.animated
        if not reusable or r.error or key != self._uploaded:
            self.presenter.set_frame(r.data)
            self._uploaded = key if reusable else None
        self.presenter.request_present()
        if self.mirror is not None and self._pending_t - self._mirror_t >= self.MIRROR_INTERVAL_S:
            self._mirror_t = self._pending_t
            self.mirror.set_frame(r.data)
            self.mirror.request_present()

    def _on_presented(self, t_paint: float, t_done: float, upload_ms: float) -> None:
        r = self._pending
        if r is None:  # a repaint we did not ask for (expose, resize)
            return
        self._pending = None
        self.timeline.append(r.index, t_done, r.render_ms, r.transfer_ms, upload_ms,
                             (t_done - t_paint) * 1e3, r.path, r.warmup, self.paused, r.error)
        self.presented_count += 1
        if not self.paused:
            self.index = r.index + 1
        if self.monitor.observe(t_done):
            self.pacing_changed.emit(self.monitor.mode, self.monitor.reason)
            if self._running:
                self._schedule = DeadlineSchedule(self.period_ms / 1e3)
                self._timer.start(0)
        self.frame_presented.emit(r.index)
        if self.frame_limit and self.presented_count >= self.frame_limit:
            self.stop()
            # not from inside the presenter's paint: a window closed there crashes Qt
            QTimer.singleShot(0, self.finished.emit)
            return
        if self._running and self.monitor.mode == VSYNC:
            self._produce()

    def _check_stall(self) -> None:
        if self._pending is not None and self.clock() - self._pending_t > self.STALL_S:
            # a hidden or unexposed window presents nothing; ask again instead of waiting forever
            self._pending_t = self.clock()
            self.presenter.request_present()
