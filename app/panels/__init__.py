"""The built-in panels the main window adds as docks: Decode, Measure, Latency and Remote.

Each panel module provides::

    PANEL_TITLE = "Decode"                    # dock title
    PANEL_AREA = "right"                      # "left", "right" or "bottom"
    def create_panel(main_window) -> QWidget  # built on the GUI thread

They are imported here by statement, never by name, so every bundler and the import contracts
see them, and a missing panel is an import error, not a silently absent dock.  The widget may
define ``shutdown()``; the main window calls it on close (stop worker threads there).  What a
panel may use from the main window: ``current_spec()``, ``loop`` (``loop.engine``,
``loop.timeline``, ``loop.index``, ``loop.device``, ``loop.path``, ``loop.frame_presented``,
``loop.engine_changed``), the ``spec_changed`` signal, ``log(message)``, ``devices`` (the
render devices of this box), ``live_band()`` (the band the live output renders),
``rechoose_render_path()`` (after a verdict changed), ``decisions`` (the live output's decision
cache: a verdict saved through it reaches the loop at once), ``session`` (the live output, an
:class:`app.preview.OutputSession`: what a live race drives, :class:`LiveOutput` receives it and
never the window), ``output_choice.identity`` (the screen the output goes to), ``dialogs``
(file dialogs that remember their folders) and ``remote`` (the window's
:class:`app.preview.RemoteLink`).
The dock holds the panel in a scroll area, so a panel taller than its dock scrolls.  A panel
whose construction fails is reported in the log; the app starts without it.
"""

from __future__ import annotations

from app.panels import decode, latency, measure, remote
from app.panels.decode import DecodePanel
from app.panels.latency import LatencyPanel
from app.panels.latency_run import (
    SWITCH_INTERVAL_S,
    LatencyRequest,
    PresentRecorder,
    Refused,
    latency_steps,
    screen_grab_rate,
)
from app.panels.live_race import LiveOutput
from app.panels.measure import MeasurePanel
from app.panels.remote import RemotePanel

BUILTIN_PANELS = (decode, measure, latency, remote)


def load_panels(window, panels=BUILTIN_PANELS) -> list[str]:
    """Build each panel and add it as a dock; returns the titles added."""
    added = []
    for mod in panels:
        try:
            widget = mod.create_panel(window)
            window.add_panel(widget, mod.PANEL_TITLE, mod.PANEL_AREA)
            added.append(mod.PANEL_TITLE)
        except Exception as exc:  # one broken panel must not stop the app
            window.log(f"panel {mod.__name__} could not be loaded: {type(exc).__name__}: {exc}")
    return added


__all__ = ["BUILTIN_PANELS", "SWITCH_INTERVAL_S", "DecodePanel", "LatencyPanel", "LatencyRequest",
           "LiveOutput", "MeasurePanel", "PresentRecorder", "Refused", "RemotePanel", "latency_steps",
           "load_panels", "screen_grab_rate"]
