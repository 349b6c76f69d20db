"""The surface checks: the GL format the output's presenter is granted, and whether its presents
wait for the vblank.

:class:`PresentProbe` opens testcard's own GL presenter (:class:`app.preview.GLPresenter`, swap
interval 1, the default surface format: 10 bits asked for) as a small window on the output
screen.  At its first present the granted format is read (``surface_known``); then
:meth:`PresentProbe.run_presents` asks for a present as soon as each one lands, ``frames``
times, and the timestamps are judged by :func:`core.doctor.judge_presents`, the frame loop's own
pacing rule (``finished``).  Nothing waits: both arrive as signals (the CLI runs an event loop
until they do, :func:`wait_for`).  Where the platform has no OpenGL (offscreen) both checks say
so at once: the raster presenter has no swap to wait on.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEventLoop, QObject, QTimer, Signal
from PySide6.QtGui import QSurfaceFormat

from app.doctor.display import Target
from app.preview import GLPresenter, gl_problem, qscreen_of
from core.doctor import FAIL, NOT_AVAILABLE, OK, WARNING, Check, judge_presents, no_vsync_surface

FORMAT_WHY = "10-bit code values reach the screen only on a surface granted 10 bits per channel"
FIRST_PRESENT_S = 15.0          # llvmpipe's first GL window can take seconds
WINDOW = (480, 270)


def format_check(granted: QSurfaceFormat, requested: QSurfaceFormat) -> Check:
    """The granted format: depth per channel, 10-bit or not, alpha, swap interval."""
    bits = (granted.redBufferSize(), granted.greenBufferSize(), granted.blueBufferSize())
    alpha = granted.alphaBufferSize()
    asked = (requested.redBufferSize(), requested.greenBufferSize(), requested.blueBufferSize())
    data = {"red": bits[0], "green": bits[1], "blue": bits[2], "alpha": alpha,
            "swap_interval": granted.swapInterval(), "ten_bit": min(bits) >= 10,
            "requested": {"rgb": list(asked), "alpha": requested.alphaBufferSize(),
                          "swap_interval": requested.swapInterval()}}
    depth = "/".join(str(b) for b in bits) + (f"/{alpha}" if alpha > 0 else "")
    figure = (f"RGB{'A' if alpha > 0 else ''} {depth} bits, swap interval {granted.swapInterval()}: "
              f"{'10-bit' if data['ten_bit'] else '8-bit'} output")
    detail = ""
    verdict = OK
    if not data["ten_bit"]:
        verdict = WARNING
        detail = (f"asked for {'/'.join(map(str, asked))} bits, granted {depth}: testcard renders rgb8 "
                  "here and rounds 10-bit patterns to 8 bits")
    if granted.swapInterval() < 1:
        verdict = WARNING
        detail = "; ".join(d for d in (detail, "swap interval 0: presents are not asked to wait for "
                                       "the vblank") if d)
    return Check("surface", "format", verdict, figure, FORMAT_WHY, detail, data)


class PresentProbe(QObject):
    """Testcard's GL presenter on ``target``'s screen, presenting as fast as it is let."""

    surface_known = Signal(object)     # the format Check
    finished = Signal(object)          # the presents Check

    def __init__(self, target: Target, frames: int = 120, parent=None):
        super().__init__(parent)
        self.target = target
        self.frames = frames
        self.present_s: list[float] = []
        self.format: Check | None = None
        self.presents: Check | None = None
        self.presenter: GLPresenter | None = None
        self._running = False
        self._frame = 0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._timed_out)

    def start(self) -> None:
        """Open the window; ``surface_known`` follows (at once where there is no GL)."""
        why = gl_problem()
        if why is not None:
            self.presents = no_vsync_surface(why)     # before the format: its slot may ask for it
            self._known(Check("surface", "format", NOT_AVAILABLE, f"not available: {why}", FORMAT_WHY,
                              "the raster presenter paints 8-bit frames with no swap of its own",
                              {"reason": why}))
            return
        p = self.presenter = GLPresenter()
        p.setTitle("testcard doctor")
        p.setScreen(qscreen_of(self.target.screen))
        s = self.target.screen
        w, h = min(WINDOW[0], s.width), min(WINDOW[1], s.height)
        p.setGeometry(s.x + (s.width - w) // 2, s.y + (s.height - h) // 2, w, h)
        p.presented.connect(self._on_presented)
        self._next_frame()
        self._timer.start(int(FIRST_PRESENT_S * 1000))
        p.show()

    def run_presents(self) -> None:
        """Present ``frames`` times, each as soon as the last one landed; ``finished`` follows."""
        if self.presents is not None:            # no GL: said when the surface was looked at
            self.finished.emit(self.presents)
            return
        if self.presenter is None or self.format is None or self.format.verdict == FAIL:
            self._finish(judge_presents([], self.target.period_ms))
            return
        self._running = True
        period_s = self.target.period_ms / 1e3
        self._timer.start(int((self.frames * period_s * 4 + 5.0) * 1000))
        self._present()

    def cancel(self) -> None:
        """Stop at once: the window closes, nothing more is emitted."""
        self._running = False
        self._timer.stop()
        self._close()

    # -- internals
    def _next_frame(self) -> None:
        self._frame += 1
        grey = 96 if self._frame % 2 else 160      # a fresh frame each time: each present uploads
        self.presenter.set_frame(np.full((36, 64, 4), grey, np.uint8))

    def _present(self) -> None:
        self._next_frame()
        self.presenter.request_present()

    def _on_presented(self, _t_paint: float, t_done: float, _upload_ms: float) -> None:
        if self.format is None:
            ctx = self.presenter.context()
            granted = ctx.format() if ctx is not None else self.presenter.format()
            self._timer.stop()
            self._known(format_check(granted, QSurfaceFormat.defaultFormat()))
            return
        if not self._running:
            return
        self.present_s.append(t_done)
        if len(self.present_s) >= self.frames:
            self._running = False
            self._finish(judge_presents(self.present_s, self.target.period_ms))
            return
        self._present()

    def _known(self, check: Check) -> None:
        self.format = check
        self.surface_known.emit(check)

    def _timed_out(self) -> None:
        if self.format is None:
            self._known(Check("surface", "format", FAIL, f"no present within {FIRST_PRESENT_S:.0f} s",
                              FORMAT_WHY, "the GL window was never exposed or never swapped"))
            return
        if self._running:
            self._running = False
            self._finish(judge_presents(self.present_s, self.target.period_ms))

    def _finish(self, check: Check) -> None:
        self.presents = check
        self._close()
        self.finished.emit(check)

    def _close(self) -> None:
        p, self.presenter = self.presenter, None
        if p is not None:
            # the presenter's own closing order: GL objects freed, hidden, deleted (never close()
            # first: see app.preview.presenter)
            p.presented.disconnect(self._on_presented)
            p.release()
            p.hide()
            p.deleteLater()


def wait_for(signal, start) -> object:
    """Call ``start()`` and run an event loop until ``signal`` fires; its argument (the CLI's way
    to run the probe; the dialog connects the signals instead)."""
    got: list = []
    loop = QEventLoop()

    def done(value) -> None:
        got.append(value)
        loop.quit()

    signal.connect(done)
    try:
        start()
        if not got:
            loop.exec()
    finally:
        signal.disconnect(done)
    return got[0]
