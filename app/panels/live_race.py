"""The live race's Qt side: a live output session's own loop presents each candidate on the
output screen, and :meth:`LiveOutput.present` hands core the timing records of the frames.

It drives an :class:`~app.preview.OutputSession` (the main window's, or one ``testcard measure
--form live`` builds alone), never a window: the output (``open_output``, ``close_output``,
``is_open``), the loop (``loop.set_spec``, ``loop.set_device``, ``loop.timeline``,
``loop.frame_presented``, ``loop.period_ms``), ``rechoose_path``, the ``note`` signal and the
session's race override (``race``, a :class:`core.decisions.RaceOverride`).  Which screen the
output opens on is the caller's (``screen``).  A candidate's path is put on the loop the way
any verdict is: the override names it for the band under test and the session chooses its path
again, so the race measures the production loop (its pacing, its uploads, the mirror, the
timing dock) and nothing else.  While
it races, the loop renders every frame it presents (``loop.set_reuse_static(False)``): a still
frame is rendered for each present, whole, as an animated one is, never presented again from
its render cache (which would time no render at all and never switch to a compiled path).  A
paused output is refused, and pausing it ends the race.

:meth:`LiveOutput.present` may be called from the race's worker thread (the Measure panel) or
from the GUI thread itself (``testcard measure --form live``): the GUI thread does the
presenting either way, the caller waits for the frames.  :meth:`open` and :meth:`close` run on
the GUI thread; :meth:`close` puts back the pattern (the one on the loop when the race began, or
the last the session showed since), device and output as they were.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from PySide6.QtCore import QEventLoop, QObject, QThread, QTimer, Signal, Slot

from core.decisions import Band, LiveFrames, LiveOutputLost, RaceOverride, band_chain, make_band

OPEN_FRAMES = 10          # frames presented after opening, so the surface's format is known
OPEN_TIMEOUT_S = 10.0
STALL_S = 10.0            # a request that sees no frame for this long loses the output


class _Request:
    """``count`` frames on ``path``, asked for by a caller waiting on :attr:`done`."""

    def __init__(self, path: str, count: int, wake=None):
        self.path, self.count, self.wake = path, count, wake
        self.seen = 0
        self.result: LiveFrames | None = None
        self.error: BaseException | None = None
        self.done = threading.Event()
        self.last_frame_t = time.monotonic()

    def finish(self, result=None, error=None) -> None:
        if not self.done.is_set():
            self.result, self.error = result, error
            self.done.set()
            if self.wake is not None:
                self.wake()


class RaceSession(Protocol):
    """What a live race drives: an :class:`app.preview.OutputSession` (a sibling package, so
    named here by what is used, not imported)."""

    loop: Any                   # the session's FrameLoop
    race: RaceOverride
    note: Any                   # Signal(str): a sentence for the operator
    spec_shown: Any             # Signal(object): the session showed this spec

    @property
    def is_open(self) -> bool: ...

    def open_output(self, wanted: Any = None) -> None: ...

    def close_output(self) -> None: ...

    def rechoose_path(self) -> bool: ...


class LiveOutput(QObject):
    """Presents a band on ``session``'s live output, one render path at a time; ``screen()``
    is the :class:`~app.preview.ScreenIdentity` an output the race opens goes to (None, or a
    ``screen`` of None: the primary)."""

    _asked = Signal(object)        # a _Request, queued to the GUI thread

    def __init__(self, session: RaceSession, *, screen: Callable[[], Any] | None = None, parent=None):
        super().__init__(parent)
        self.session = session
        self.screen = screen
        self.loop = session.loop
        self.race = session.race              # where the candidate raced is named for the loop
        self.band: Band | None = None         # the band raced: the loop's display format
        self.device: str | None = None
        self.spec = None                      # the spec shown while racing
        self._restore: dict | None = None
        self._request: _Request | None = None  # the request the frames now presented count for
        self._waiting: set[_Request] = set()   # every request a caller waits on
        self._lock = threading.Lock()
        self._aborted: str | None = None
        self._asked.connect(self._begin)
        session.spec_shown.connect(self._on_spec_shown)
        self._watchdog = QTimer(self)
        self._watchdog.setInterval(500)
        self._watchdog.timeout.connect(self._check_stall)

    # ------------------------------------------------------------ GUI thread
    def open(self, band: Band, device: str) -> Band:
        """Show ``band`` on the output (fullscreen on its screen) rendered on ``device``; returns
        the band as the loop renders it: in the output surface's display format.  The pattern on
        screen races when the band covers it, else the band's own frame is shown.  ``ValueError``
        with one sentence when it cannot be shown."""
        loop, session = self.loop, self.session
        if loop.paused:
            raise ValueError("the live output is paused: resume it to race (a paused frame is "
                             "presented again, not rendered)")
        self._restore = {"device": loop.device, "opened": not session.is_open,
                         "reuse_static": loop.reuse_static, "spec": loop.spec}
        self._aborted = None
        loop.set_reuse_static(False)    # every candidate renders each frame it is timed on
        if loop.device != device:
            loop.set_device(device)
        if self._restore["opened"]:
            session.open_output(self.screen() if self.screen is not None else None)
        self._wait_frames(OPEN_FRAMES, OPEN_TIMEOUT_S)   # the surface, and so its format, is known
        if not session.is_open:
            raise ValueError("the output window did not open")
        raced = make_band(band.family, (band.width, band.height), loop.fmt)
        if raced not in band_chain(loop.spec, loop.fmt):
            loop.set_spec(raced.spec())
            self._wait_frames(OPEN_FRAMES, OPEN_TIMEOUT_S)
        self.spec, self.band, self.device = loop.spec, raced, device
        self._watchdog.start()
        return raced

    def close(self) -> None:
        """End the race on the output: the raced path, the pattern, device and output as before."""
        self._watchdog.stop()
        self.abort("the live race ended")
        self._end()
        if self.band is not None and self.device is not None:
            self.race.set(self.band, self.device, None)
        r, self._restore = self._restore, None
        if r is None:
            return
        loop, session = self.loop, self.session
        try:
            if loop.spec != r["spec"]:
                loop.set_spec(r["spec"])
            if loop.device != r["device"]:
                loop.set_device(r["device"])
            loop.set_reuse_static(r["reuse_static"])
        except ValueError as exc:   # what the output showed before cannot come back: say so
            session.note.emit(f"after the live race: {exc}")
        if r["opened"] and session.is_open:
            session.close_output()
        session.rechoose_path()

    def _on_spec_shown(self, spec) -> None:
        # the session showed a spec while racing (which ends the race): that one comes back
        if self._restore is not None:
            self._restore["spec"] = spec

    def abort(self, why: str = "the live race was cancelled") -> None:
        """Fail the frames being waited for now, and any asked for later (any thread): a caller
        waiting in :meth:`present` returns at once, even while the GUI thread is blocked."""
        self._aborted = why
        with self._lock:
            waiting = list(self._waiting)
        for req in waiting:
            req.finish(error=LiveOutputLost(why))

    def _wait_frames(self, count: int, timeout_s: float) -> None:
        ev = QEventLoop()
        seen = [0]

        def on_frame(_i):
            seen[0] += 1
            if seen[0] >= count:
                ev.quit()

        self.loop.frame_presented.connect(on_frame)
        QTimer.singleShot(int(timeout_s * 1000), ev.quit)
        try:
            ev.exec()
        finally:
            self.loop.frame_presented.disconnect(on_frame)

    @Slot(object)
    def _begin(self, req: _Request) -> None:
        if req.done.is_set():      # aborted while it was queued
            return
        if self._aborted:
            req.finish(error=LiveOutputLost(self._aborted))
            return
        lost = self._lost()
        if lost or self.device is None:
            req.finish(error=LiveOutputLost(lost or "no band is open on the live output"))
            return
        self.race.set(self.band, self.device, req.path)
        if self.loop.path != req.path:
            self.session.rechoose_path()
        if self.loop.path != req.path:
            req.finish(error=RuntimeError(f"the live loop did not take {req.path}: "
                                          f"{self.loop.path_reason}"))
            return
        self._end()                # a request aborted while it was being served
        self._request = req
        self.loop.frame_presented.connect(self._on_frame)

    def _on_frame(self, _index: int) -> None:
        req = self._request
        if req is None:
            return
        if req.done.is_set():      # aborted meanwhile
            self._end()
            return
        req.seen += 1
        req.last_frame_t = time.monotonic()
        lost = self._lost()
        if lost:
            self._end(error=LiveOutputLost(lost))
        elif req.seen >= req.count:
            snap = self.loop.timeline.snapshot()
            if len(snap) < req.count:
                self._end(error=RuntimeError("the timing was reset during the round"))
            else:
                self._end(result=LiveFrames.from_snapshot(snap, self.loop.period_ms, last=req.count))

    def _end(self, result=None, error=None) -> None:
        req, self._request = self._request, None
        if req is not None:
            self.loop.frame_presented.disconnect(self._on_frame)
            req.finish(result, error)

    def _check_stall(self) -> None:
        req = self._request
        if req is not None and time.monotonic() - req.last_frame_t > STALL_S:
            self._end(error=LiveOutputLost(f"the live output presented no frame for {STALL_S:.0f} s"))

    def _lost(self) -> str | None:
        if not self.session.is_open:
            return "the output window was closed during the live race"
        if self.loop.spec != self.spec:
            return "the pattern on the live output changed during the race"
        if self.loop.paused:
            return "the live output was paused during the race"
        return None

    # ------------------------------------------------------------ any thread
    def present(self, path: str, count: int) -> LiveFrames:
        """:class:`core.decisions.PresentFrames`: the next ``count`` frames on ``path``."""
        here = QThread.currentThread() is self.thread()
        ev = QEventLoop() if here else None
        req = _Request(path, count, wake=ev.quit if here else None)
        with self._lock:
            self._waiting.add(req)
        try:
            if self._aborted:
                req.finish(error=LiveOutputLost(self._aborted))
            elif here:
                self._begin(req)
                while not req.done.is_set():
                    ev.exec()
            else:
                self._asked.emit(req)
                req.done.wait()
        finally:
            with self._lock:
                self._waiting.discard(req)
            if self._request is req and here:
                self._end()
        if req.error is not None:
            raise req.error
        return req.result
