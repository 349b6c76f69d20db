"""The control window's live figures: the status bar, the APL readout and the timing statistics.

The loop's pacing changes are logged here too (timer-paced, and why).

:class:`LiveFigures` refreshes them a few times a second, right after a present, so the repaint
uses the slack before the next frame instead of delaying it; a timer covers a loop that is not
presenting.  Each present is followed by one piece only (the timing dock's pieces one after the
other, else the refresh when it is due): together they would not fit one frame.  The timing
statistics are computed on a worker (a long timeline never stalls a frame), and so is the APL
(a zone plate's takes about 60 ms at 2160p).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from app.workers import TaskRunner, either
from core.patterns import Spec, frame_apl
from core.timing import TIMER, timeline_columns, timing_view


class LiveFigures(QObject):
    """The live figures of ``loop`` (a :class:`~app.preview.FrameLoop`) in ``status_bar``,
    ``timing`` (the timing dock) and ``editor`` (its APL readout); ``spec`` gives the spec on
    screen, ``log`` takes a sentence for the log."""

    STATUS_INTERVAL_MS = 250

    def __init__(self, loop, *, status_bar, timing, editor, spec: Callable[[], Spec],
                 log: Callable[[str], None], parent=None):
        super().__init__(parent)
        self.loop, self.status_bar, self.timing, self.editor = loop, status_bar, timing, editor
        self._spec = spec
        self._log = log
        self.stats_worker = TaskRunner("testcard-stats", self)
        self.apl_worker = TaskRunner("testcard-apl", self)
        self._apl_state = "idle"                # "idle", "running", "again"
        self.refreshed_at = 0.0
        self.closed = False
        self.timer = QTimer(self)               # the refresh of a loop that is not presenting
        self.timer.setInterval(4 * self.STATUS_INTERVAL_MS)
        self.timer.timeout.connect(self.refresh_if_idle)
        timing.window_changed.connect(lambda _s: self.refresh())
        loop.pacing_changed.connect(self._on_pacing)

    def start(self) -> None:
        """Refresh after each present from now on, and on the timer while none comes."""
        self.loop.frame_presented.connect(self.after_present)
        self.timer.start()

    def stop(self) -> None:
        """No more refreshes; results still computing are dropped (:meth:`wait` joins them)."""
        self.closed = True
        self.timer.stop()

    def wait(self) -> None:
        self.stats_worker.wait()
        self.apl_worker.wait()

    def _on_pacing(self, mode: str, reason: str) -> None:
        self.status_bar.show_loop(self.loop, self._spec())
        if mode == TIMER and reason:
            self._log(f"timer-paced at {1000.0 / self.loop.period_ms:.2f} Hz: {reason}")
        elif reason:
            self._log(reason)

    # ------------------------------------------------------------ the refresh
    def after_present(self, _index: int) -> None:
        if self.timing.apply_next():
            return
        if self.loop.clock() - self.refreshed_at >= self.STATUS_INTERVAL_MS / 1000.0:
            self.refresh(split=True)

    def refresh_if_idle(self) -> None:
        self.timing.flush()                 # nothing presenting: what is queued shows now
        if self.loop.clock() - self.refreshed_at >= self.STATUS_INTERVAL_MS / 1000.0:
            self.refresh()

    def refresh(self, split: bool = False) -> None:
        """The status bar, the APL readout and the timing statistics (computed on a worker).
        ``split``: the status bar now, the rest queued as pieces of the timing dock's refresh,
        so each present is followed by one piece only."""
        self.refreshed_at = self.loop.clock()
        self.status_bar.show_fps(self.loop.timeline.column("present_s", last=61))
        self.status_bar.show_loop(self.loop, self._spec())
        rest = [self.show_apl] if self._spec().animated else []
        rest.append(self.submit_statistics)
        if split:
            self.timing.queue_pieces(rest)
        else:
            for piece in rest:
                piece()

    def submit_statistics(self) -> None:
        tl = self.loop.timeline
        if self.timing.isVisible() and not self.stats_worker.busy:
            pacing = self.status_bar.st_pacing.text()
            if self.loop.monitor.reason:
                pacing += f": {self.loop.monitor.reason}"
            cols, period = timeline_columns(tl), self.loop.period_ms
            window = self.timing.WINDOW_S
            self.stats_worker.submit(lambda: timing_view(*cols, period, window),
                                     either(lambda view: self.timing.queue_view(view, pacing),
                                             lambda exc: self._log(f"timing statistics failed: {exc}")))

    # ------------------------------------------------------------ the APL
    def show_apl(self) -> None:
        """The frame's APL (from its plan: no pixels read) in the editor and the status bar,
        computed off the GUI thread; edits made meanwhile are covered by one more run."""
        if self._apl_state != "idle":
            self._apl_state = "again"
            return
        self._apl_state = "running"
        spec = self._spec()
        index = self.loop.index if spec.animated else 0
        self.apl_worker.submit(lambda: frame_apl(spec, index),
                               lambda apl, exc: self._on_apl(spec, apl, exc))

    def _on_apl(self, spec, apl, exc) -> None:
        again, self._apl_state = self._apl_state == "again", "idle"
        if self.closed:
            return
        if again or spec != self._spec():
            self.show_apl()
            return
        if exc is not None:
            apl = None
            self._log(f"APL not available: {exc}")
        self.editor.show_apl(apl)
        self.status_bar.show_apl(apl)

    @property
    def apl_pending(self) -> bool:
        """True while the APL shown may be behind the frame (tests wait on it)."""
        return self._apl_state != "idle"
