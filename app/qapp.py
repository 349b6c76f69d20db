"""The one QApplication: everything that must happen around creating it, done once.

:func:`ensure_qapplication` guards the interpreter against the binding's missing references
(:mod:`app.qt_compat`), asks for the GL surface format before the application exists (Qt reads
the default format when the first GL window is created, and only a format set before the
QApplication reaches every window), and names the application, its desktop entry and its icon.
The GUI and ``testcard bench preview`` both start through it.

``request_surface_format`` lives here rather than beside the GL presenter because it must run
before the QApplication exists; the presenters read the granted format per window.
"""

from __future__ import annotations

import sys

from PySide6.QtGui import QIcon, QPixmap, QSurfaceFormat
from PySide6.QtWidgets import QApplication

from app.qt_compat import guard_singleton_refcounts
from resources import APP_ID, ICON_SIZES

APP_NAME = "testcard"


def request_surface_format(ten_bit: bool = True) -> None:
    """Ask every GL window for swap interval 1 (and 10 bits per channel where granted).

    Must run before the QApplication exists.  Both are requests: the granted
    format is checked per window (``GLPresenter.surface_bits``).
    """
    fmt = QSurfaceFormat()
    fmt.setSwapInterval(1)
    fmt.setSwapBehavior(QSurfaceFormat.SwapBehavior.DoubleBuffer)
    if ten_bit:
        fmt.setRedBufferSize(10)
        fmt.setGreenBufferSize(10)
        fmt.setBlueBufferSize(10)
        fmt.setAlphaBufferSize(2)
    QSurfaceFormat.setDefaultFormat(fmt)


def ensure_qapplication(argv: list[str] | None = None) -> QApplication:
    """The running QApplication, created (with ``argv``, default the program name) if there is none.

    Either way the refcount guard is in place and the application carries testcard's name,
    desktop file name and icon.  The surface format is only requested when this call creates
    the application: afterwards it would not reach every window.
    """
    guard_singleton_refcounts()
    app = QApplication.instance()
    if app is None:
        request_surface_format()
        app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setDesktopFileName(APP_ID)   # matches the .desktop entry
    set_icon(app)
    return app


def set_icon(app) -> None:
    """The app icon from the package resources, when they are installed."""
    from importlib import resources

    icon = QIcon()
    try:
        folder = resources.files("resources.icons")
        for size in ICON_SIZES:
            f = folder.joinpath(f"testcard-{size}.png")
            if f.is_file():
                pm = QPixmap()
                if pm.loadFromData(f.read_bytes()):
                    icon.addPixmap(pm)
    except (ModuleNotFoundError, OSError):
        return
    if not icon.isNull():
        app.setWindowIcon(icon)
