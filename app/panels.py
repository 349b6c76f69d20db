"""Optional panels other parts of testcard add to the main window.

A panel module (``app/decode_panel.py``, ``app/measure_panel.py``) is loaded
when it exists.  It provides::

    PANEL_TITLE = "Decode"                    # dock title (optional; default: the widget's title)
    PANEL_AREA = "right"                      # "left", "right" or "bottom" (optional; default right)
    def create_panel(main_window) -> QWidget  # built on the GUI thread

The widget may define ``shutdown()``; the main window calls it on close (stop
worker threads there).  What a panel may use from the main window:
``current_spec()``, ``loop`` (``loop.engine``, ``loop.timeline``,
``loop.index``, ``loop.frame_presented``), the ``spec_changed`` signal, and
``log(message)``.  A panel that fails to load is reported in the log; the
app starts without it.
"""

from __future__ import annotations

import importlib
import importlib.util

PANEL_MODULES = ("app.decode_panel", "app.measure_panel")


def load_panels(window, modules=PANEL_MODULES) -> list[str]:
    """Import each present module and add its panel as a dock; returns the titles added."""
    added = []
    for name in modules:
        try:
            if importlib.util.find_spec(name) is None:
                continue
            mod = importlib.import_module(name)
            widget = mod.create_panel(window)
            title = getattr(mod, "PANEL_TITLE", None) or widget.windowTitle() or name.rsplit(".", 1)[-1]
            window.add_panel(widget, title, getattr(mod, "PANEL_AREA", "right"))
            added.append(title)
        except Exception as exc:  # one broken panel must not stop the app
            window.log(f"panel {name} could not be loaded: {type(exc).__name__}: {exc}")
    return added
