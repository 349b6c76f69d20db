"""The control window: catalog, parameter editor, preview, timing and log docks, menus."""

from app.window.main_window import MainWindow
from app.window.timing_dock import TimingDock

__all__ = [
    "MainWindow",
    "TimingDock",
]
