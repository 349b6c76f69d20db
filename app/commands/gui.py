"""Start the app: ``testcard`` with no arguments, or ``testcard gui [--pattern P] [--frames N]``."""

from __future__ import annotations

import sys


def register(sub) -> None:
    p = sub.add_parser("gui", help="start the app (the default with no command)")
    p.add_argument("--pattern", help="pattern to show first")
    p.add_argument("--frames", type=int, default=0,
                   help="quit after presenting this many frames (0: run until closed)")
    p.set_defaults(func=run)


def run(args) -> int:
    return run_gui(pattern=args.pattern, frames=args.frames)


def run_gui(pattern: str | None = None, frames: int = 0, argv: list[str] | None = None) -> int:
    """Open the main window and run until it closes (or after ``frames`` presented frames).

    Refuses (ValueError, one sentence) an unknown pattern or a negative frame count
    before any window opens.
    """
    from core.patterns import get_pattern

    if pattern is not None:
        get_pattern(pattern)
    if frames < 0:
        raise ValueError(f"--frames must be >= 0, got {frames}")

    from PySide6.QtWidgets import QApplication

    from app.preview import request_surface_format
    from app.qt_compat import guard_singleton_refcounts

    guard_singleton_refcounts()

    app = QApplication.instance()
    if app is None:
        request_surface_format()
        app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName("testcard")
    app.setDesktopFileName("io.github.testcard.Testcard")  # matches the .desktop entry
    _set_icon(app)

    from app.window import MainWindow

    win = MainWindow(pattern=pattern, frame_limit=frames)
    if frames:
        win.loop.finished.connect(win.close)
    win.show()
    return int(app.exec())


def _set_icon(app) -> None:
    """The app icon from the package resources, when they are installed."""
    from importlib import resources

    from PySide6.QtGui import QIcon, QPixmap

    icon = QIcon()
    try:
        folder = resources.files("resources.icons")
        for size in (16, 32, 48, 64, 128, 256):
            f = folder.joinpath(f"testcard-{size}.png")
            if f.is_file():
                pm = QPixmap()
                if pm.loadFromData(f.read_bytes()):
                    icon.addPixmap(pm)
    except (ModuleNotFoundError, OSError):
        return
    if not icon.isNull():
        app.setWindowIcon(icon)
