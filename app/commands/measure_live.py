"""``testcard measure --form live``: the race inside the real presenter.

An output session is built as the main window and the kiosk build theirs
(:class:`app.preview.OutputSession`: the live loop, the output window, the decision cache and the
race override), with no window around it; each band is shown fullscreen on the chosen screen and
every candidate is presented in turn by that loop (:class:`app.panels.LiveOutput`), while the race
(:func:`core.decisions.live_race_band`) runs on the one worker
(:class:`app.workers.GeneratorWorker`, as the Measure panel runs it) and the GUI thread presents.
Qt is imported only here, and only when a live race runs.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.workers import GeneratorWorker
    from core.decisions import RaceProgress, RaceResult

HEADLESS_PLATFORMS = ("offscreen", "minimal", "vnc")


def live_display_problem(environ=None, platform: str | None = None) -> str | None:
    """Why a live race cannot show frames here (None when a display may be found).  Never
    starts Qt: it is what chooses the default form."""
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    qpa = (env.get("QT_QPA_PLATFORM") or "").split(":")[0].strip().lower()
    if qpa in HEADLESS_PLATFORMS:
        return f"QT_QPA_PLATFORM={qpa} has no screen to present on"
    if platform.startswith(("win", "darwin", "cygwin")) or qpa:
        return None
    if not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        return "no display (DISPLAY and WAYLAND_DISPLAY are not set)"
    return None


def race_on_worker(worker: GeneratorWorker, on_progress: Callable[[RaceProgress], None]) -> RaceResult:
    """Start ``worker`` (a :class:`app.workers.GeneratorWorker` over a race) and keep this, the
    GUI, thread's events going (the live loop presents) until it finishes; ``on_progress(p)``
    takes each progress step, on this thread.  Returns the race's result; raises what the race
    raised, or ``KeyboardInterrupt`` when it stopped after ``worker.quit()`` (Ctrl-C)."""
    from PySide6.QtCore import QEventLoop

    ev, box = QEventLoop(), dict[str, Any]()

    def progressed(batch: list[RaceProgress]) -> None:
        for p in batch:
            on_progress(p)

    def over() -> None:
        box["over"] = True
        ev.quit()

    worker.yielded.connect(progressed)
    worker.returned.connect(lambda result: box.update(result=result))
    worker.errored.connect(lambda exc: box.update(error=exc))
    worker.aborted.connect(lambda: box.update(error=KeyboardInterrupt()))
    worker.finished.connect(over)         # always last, queued behind the outcome
    worker.start()
    while "over" not in box:
        ev.exec()
    worker.wait()
    if "error" in box:
        raise box["error"]
    if "result" not in box:               # the race's thread died of a BaseException
        raise RuntimeError("the race ended without a result")
    return box["result"]


def run_live(args, plans, settings, paths, on_band, on_progress, on_result) -> None:
    """Race each ``(band, runnable, unavailable)`` of ``plans`` live: ``on_band(band, raced,
    setup)`` says what is about to run, ``on_progress(band, p)`` follows it, ``on_result(result)``
    takes each band's result as it comes.  ``ValueError`` when there is no display or no such
    screen; ``KeyboardInterrupt`` on Ctrl-C (the band being raced records nothing)."""
    why = live_display_problem()
    if why:
        raise ValueError(f"--form live needs a display: {why}; race with --form render")
    import signal

    from app.qapp import ensure_qapplication

    app = ensure_qapplication()
    from app.panels import LiveOutput
    from app.preview import OutputSession, screen_records
    from app.workers import GeneratorWorker
    from core.decisions import RaceRequest

    screens = screen_records()
    if args.screen is not None and not 0 <= args.screen < len(screens):
        listed = "; ".join(f"{s.index}: {s.name} {s.width}x{s.height}" for s in screens)
        raise ValueError(f"--screen {args.screen}: this box has {len(screens)} screen(s) ({listed})")
    wanted = screens[args.screen].identity if args.screen is not None else None
    # a still band renders every frame while it races: LiveOutput.open sees to that
    session = OutputSession(plans[0][0].spec(), device=args.device, read_decisions=True)
    session.start(fullscreen=False)      # the loop runs; each band opens the output
    out = LiveOutput(session, screen=lambda: wanted)
    cancelled = threading.Event()
    racing: list[GeneratorWorker] = []   # the band's worker while it races

    def on_sigint(*_):
        cancelled.set()
        for worker in racing:
            worker.quit()
        out.abort("interrupted")

    old = signal.signal(signal.SIGINT, on_sigint)
    try:
        for band, _runnable, _unavailable in plans:
            try:
                raced = out.open(band, args.device)
                shown, place, loop = session.output.window, session.output.placement, session.loop
                if shown is None:            # open() saw it open: closed since, by the window system
                    raise ValueError("the output window was closed as the live race began")
                setup = {"screen": place.screen.title if place is not None else "?",
                         "refresh_hz": round(1000.0 / loop.period_ms, 3), "presenter": shown.kind,
                         "surface_bits": shown.surface_bits, "pacing": loop.mode}
                on_band(band, raced, setup)
                request = RaceRequest(raced, args.device, tuple(paths or ()), settings, form="live",
                                      present=out.present)
                worker = GeneratorWorker(request.steps, name="testcard-race")
                racing[:] = [worker]
                if cancelled.is_set():       # Ctrl-C while the output opened
                    worker.quit()
                result = race_on_worker(worker, functools.partial(on_progress, raced))
            except Exception:
                if cancelled.is_set():
                    raise KeyboardInterrupt from None   # the CLI's quiet exit 130
                raise
            finally:
                racing.clear()
                out.close()
            on_result(result)
    finally:
        signal.signal(signal.SIGINT, old)
        session.close()
        app.processEvents()
