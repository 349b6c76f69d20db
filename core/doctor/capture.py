"""Capture: the sources ``testcard capture --list`` lists, whether the X11 screen grab delivers
a frame, and the loop-back latency self-test (not run by the doctor: it says so, never ``ok``).
"""

from __future__ import annotations

import time

from core.capture import NONE_FOUND, capture_devices, list_devices, open_source, screen_grab_spec
from core.doctor.check import NOT_AVAILABLE, NOT_RUN, OK, WARNING, Check, Step

SOURCES_WHY = "decode --live and latency read the screen through one of these"
GRAB_WHY = "the screen grab is the capture every box has: decode and latency can be tried with it"
LATENCY_WHY = "the loop-back test times each present to the capture showing it"
GRAB_TIMEOUT_S = 5.0


def check_sources(environ=None) -> Check:
    devices = list_devices()
    caps = capture_devices(devices)
    grab = screen_grab_spec(environ)
    data = {"devices": [d.to_dict() for d in devices], "capture_devices": len(caps), "screen_grab": grab}
    named = [d.spec for d in caps] + ([grab] if grab else [])
    figure = ", ".join(named) if named else "none"
    if not caps:
        figure += f" ({NONE_FOUND})"
    if not named:
        return Check("capture", "sources", NOT_AVAILABLE, f"not available: {NONE_FOUND} and no X11 "
                     "display (DISPLAY is not set)", SOURCES_WHY, data=data)
    return Check("capture", "sources", OK, figure, SOURCES_WHY, data=data)


def check_screen_grab(environ=None, timeout_s: float = GRAB_TIMEOUT_S, clock=time.monotonic) -> Check:
    """Open the X11 grab of the current display and wait for one frame."""
    grab = screen_grab_spec(environ)
    if grab is None:
        return Check("capture", "screen grab", NOT_AVAILABLE, "not available: no X11 display "
                     "(DISPLAY is not set)", GRAB_WHY)
    t0 = clock()
    try:
        with open_source(grab) as source:
            frame = source.read(timeout=timeout_s)
    except ImportError as exc:
        return Check("capture", "screen grab", NOT_AVAILABLE, f"not available: {exc}", GRAB_WHY)
    except (ValueError, OSError) as exc:
        return Check("capture", "screen grab", WARNING, f"{grab} could not be opened", GRAB_WHY, str(exc),
                     {"source": grab, "error": str(exc)})
    took = clock() - t0
    if frame is None:
        return Check("capture", "screen grab", WARNING, f"{grab} delivered no frame in {timeout_s:.0f} s",
                     GRAB_WHY, data={"source": grab})
    h, w = frame.image.shape[:2]
    return Check("capture", "screen grab", OK, f"{grab}: a {w}x{h} frame after {took:.2f} s", GRAB_WHY,
                 data={"source": grab, "width": w, "height": h, "first_frame_s": round(took, 3),
                       "clock": frame.clock})


def latency_not_run(environ=None) -> Check:
    grab = screen_grab_spec(environ)
    how = (f"testcard latency --source {grab} --seconds 10" if grab
           else "testcard latency --source SOURCE")
    return Check("capture", "loop-back latency", NOT_RUN,
                 "not run: it shows the counter fullscreen for several seconds; run it on its own",
                 LATENCY_WHY, how)


def capture_steps(environ=None) -> list[Step]:
    return [Step("capture", "sources", lambda: check_sources(environ), why=SOURCES_WHY),
            Step("capture", "screen grab", lambda: check_screen_grab(environ), why=GRAB_WHY),
            Step("capture", "loop-back latency", lambda: latency_not_run(environ), why=LATENCY_WHY)]
