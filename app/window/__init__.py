"""The control window: catalog, parameter editor, preview, timing and log docks, menus.

``SHORTCUTS`` (the one table of keyboard shortcuts, ``shortcuts.py``) is Qt-free, so
``app.docs`` reads it headless; the widgets are imported on first use of their names (PEP 562),
which keeps Qt out of a process that only wants the table.
"""

from app.window.shortcuts import SHORTCUTS, Shortcut


def __getattr__(name):
    if name == "MainWindow":
        from app.window.main_window import MainWindow

        return MainWindow
    if name == "TimingDock":
        from app.window.timing_dock import TimingDock

        return TimingDock
    if name in ("Kiosk", "output_target", "quit_on_signals", "run_until_quit", "say"):
        from app.window import kiosk

        return getattr(kiosk, name)
    raise AttributeError(f"module 'app.window' has no attribute {name!r}")


__all__ = [
    "SHORTCUTS",
    "Kiosk",
    "MainWindow",
    "Shortcut",
    "TimingDock",
    "output_target",
    "quit_on_signals",
    "run_until_quit",
    "say",
]
