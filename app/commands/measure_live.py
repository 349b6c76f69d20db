"""``testcard measure --form live``: the race inside the real presenter.

The main window is built as ``testcard bench preview`` builds it (its live loop, its timing
dock, its output window); each band is shown fullscreen on the chosen screen and every
candidate is presented in turn by that loop (:class:`app.panels.LiveOutput`), while the race
(:func:`core.decisions.live_race_band`) runs on a worker thread and the GUI thread presents.
Qt is imported only here, and only when a live race runs.
"""

from __future__ import annotations

import os
import sys
import threading

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


def _on_worker(make_gen, on_progress):
    """Run the race generator on a thread while this (the GUI) thread keeps presenting;
    the race's result, or what it raised."""
    from PySide6.QtCore import QEventLoop, QObject, Signal

    from core.decisions import run_race

    class Done(QObject):
        finished = Signal()

    done, ev, box = Done(), QEventLoop(), {}
    over = threading.Event()
    done.finished.connect(ev.quit)

    def work():
        try:
            box["result"] = run_race(make_gen(), on_progress)
        except BaseException as exc:  # handed back to the caller on the GUI thread
            box["error"] = exc
        finally:
            over.set()
            done.finished.emit()      # queued: it quits the loop below once that runs

    t = threading.Thread(target=work, name="testcard-race", daemon=True)
    t.start()
    if not over.is_set():
        ev.exec()
    t.join()
    if "error" in box:
        raise box["error"]
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
    from app.preview import screen_records
    from app.settings import Settings
    from app.window import MainWindow
    from core.decisions import RaceRequest

    screens = screen_records()
    if args.screen is not None and not 0 <= args.screen < len(screens):
        listed = "; ".join(f"{s.index}: {s.name} {s.width}x{s.height}" for s in screens)
        raise ValueError(f"--screen {args.screen}: this box has {len(screens)} screen(s) ({listed})")
    # a still band renders every frame while it races: LiveOutput.open sees to that
    win = MainWindow(spec=plans[0][0].spec(), settings=Settings(device=args.device), persist=False)
    if args.screen is not None:
        win.choose_output_screen(screens[args.screen])
    win.resize(1280, 720)
    win.show()
    out = LiveOutput(win)
    cancelled = threading.Event()

    def on_sigint(*_):
        cancelled.set()
        out.abort("interrupted")

    old = signal.signal(signal.SIGINT, on_sigint)
    try:
        for band, _runnable, _unavailable in plans:
            try:
                raced = out.open(band, args.device)
                shown = win.output.window
                place = win.output.placement
                setup = {"screen": place.screen.title if place is not None else "?",
                         "refresh_hz": round(1000.0 / win.loop.period_ms, 3), "presenter": shown.kind,
                         "surface_bits": shown.surface_bits, "pacing": win.loop.mode}
                on_band(band, raced, setup)
                request = RaceRequest(raced, args.device, tuple(paths or ()), settings, form="live",
                                      present=out.present)
                result = _on_worker(lambda r=request: r.steps(cancel=cancelled),
                                    lambda p, b=raced: on_progress(b, p))
            except Exception:
                if cancelled.is_set():
                    raise KeyboardInterrupt from None   # the CLI's quiet exit 130
                raise
            finally:
                out.close()
            on_result(result)
    finally:
        signal.signal(signal.SIGINT, old)
        win.close()
        app.processEvents()
