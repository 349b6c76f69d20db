"""The one QApplication: everything that must happen around creating it, done once.

:func:`ensure_qapplication` guards the interpreter against the binding's missing references
(:mod:`app.qt_compat`), asks for the GL surface format before the application exists (Qt reads
the default format when the first GL window is created, and only a format set before the
QApplication reaches every window), and names the application, its desktop entry and its icon.
The GUI and ``testcard bench preview`` both start through it.  Where there is no display at
all it refuses first (:func:`display_problem`), with one sentence naming the ways on, instead of
letting Qt abort the interpreter while loading its platform plugin.

``request_surface_format`` lives here rather than beside the GL presenter because it must run
before the QApplication exists; the presenters read the granted format per window.

Qt's own messages go to the ``testcard.qt`` logger (:func:`route_qt_messages`), never straight
to the terminal: a warning is a warning there (and on stderr while nothing else handles the
log), and what Qt says on every start of a healthy box (Xvfb's "Falling back to using screens
root_visual.") is debug.
"""

from __future__ import annotations

import logging
import os
import sys

from PySide6 import __version__ as PYSIDE_VERSION
from PySide6.QtCore import QtMsgType, qInstallMessageHandler
from PySide6.QtGui import QColorSpace, QGuiApplication, QIcon, QPixmap, QSurfaceFormat, QWindow
from PySide6.QtWidgets import QApplication, QWidget

from app.display_check import display_refusal
from app.qt_compat import collect_on_gui_thread, guard_singleton_refcounts
from resources import APP_ID, ICON_SIZES

APP_NAME = "testcard"


QT_LOG = logging.getLogger("testcard.qt")
# said on every start of a box where nothing is wrong: debug, not a warning
QT_NOISE = ("Falling back to using screens root_visual.",
            "This plugin does not support propagateSizeHints()")
_QT_LEVELS = {QtMsgType.QtDebugMsg: logging.DEBUG, QtMsgType.QtInfoMsg: logging.INFO,
              QtMsgType.QtWarningMsg: logging.WARNING, QtMsgType.QtCriticalMsg: logging.ERROR,
              QtMsgType.QtFatalMsg: logging.CRITICAL}


def qt_message(kind, context, message: str) -> None:
    """Qt's message handler: ``message`` to :data:`QT_LOG` at the level of its kind (the lines
    in :data:`QT_NOISE` at debug), prefixed with its category where it has one."""
    level = logging.DEBUG if message.strip() in QT_NOISE else _QT_LEVELS.get(kind, logging.WARNING)
    category = getattr(context, "category", None)
    QT_LOG.log(level, "%s%s", f"{category}: " if category and category != "default" else "", message)


def route_qt_messages() -> None:
    """Send Qt's messages through :func:`qt_message` (before the QApplication: the platform
    plugin speaks while it loads)."""
    qInstallMessageHandler(qt_message)


class NoDisplayError(ValueError):
    """There is no display to open a window on; the message says what to do instead."""


def display_problem(environ=None, platform: str | None = None, argv=None) -> str | None:
    """Why a QApplication would find no display here, or None when one may be found.

    Only on X11/Wayland systems (not Windows or macOS), and only when nothing names a display
    or a Qt platform: no ``DISPLAY``, no ``WAYLAND_DISPLAY``, no ``QT_QPA_PLATFORM`` and no
    ``-platform`` argument.  Never starts Qt, so it is safe before the QApplication exists.
    """
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if platform.startswith(("win", "darwin", "cygwin")):
        return None
    if any(env.get(k) for k in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")):
        return None
    if argv is not None and "-platform" in argv:
        return None
    return ("no display to open a window on (DISPLAY and WAYLAND_DISPLAY are not set): run testcard "
            "in a desktop session or under xvfb-run, set QT_QPA_PLATFORM=offscreen for a window "
            "nobody sees, or use a headless command (testcard render, presets, decode, measure, "
            "decisions; testcard --help lists them)")


# BT.2100 colour spaces a surface can ask for (Qt 6.8 on; None where this Qt has none)
HDR_COLOUR_SPACES = {"pq": getattr(QColorSpace.NamedColorSpace, "Bt2100Pq", None),
                     "hlg": getattr(QColorSpace.NamedColorSpace, "Bt2100Hlg", None)}
_TRANSFER_FUNCTIONS = {"pq": "St2084", "hlg": "Hlg"}
WAYLAND_HDR_FROM = (6, 10)   # Qt's Wayland plugin speaks the colour-management protocol from here


def request_surface_format(ten_bit: bool = True, transfer: str = "sdr") -> None:
    """Ask every GL window for swap interval 1 (and 10 bits per channel where granted), and
    under ``transfer`` pq or hlg for a surface tagged BT.2100 PQ or HLG.

    Must run before the QApplication exists.  All are requests: the granted
    format is checked per window (``GLPresenter.surface_bits``, :func:`surface_signal`).
    """
    fmt = QSurfaceFormat()
    named = HDR_COLOUR_SPACES.get(transfer)
    if named is not None:
        fmt.setColorSpace(QColorSpace(named))
    fmt.setSwapInterval(1)
    fmt.setSwapBehavior(QSurfaceFormat.SwapBehavior.DoubleBuffer)
    if ten_bit:
        fmt.setRedBufferSize(10)
        fmt.setGreenBufferSize(10)
        fmt.setBlueBufferSize(10)
        fmt.setAlphaBufferSize(2)
    QSurfaceFormat.setDefaultFormat(fmt)


UPDATE_IDLE_ENV = "QT_QPA_UPDATE_IDLE_TIME"


def present_without_idle_delay(environ=None) -> None:
    """Have a window's update request served at the next pass of the event loop, unless the
    user set Qt's ``QT_QPA_UPDATE_IDLE_TIME`` themselves.  Qt's platforms wait 5 ms by default
    before serving ``QWindow.requestUpdate`` (the GL presenter's every present, where no vsync
    drives it): 5 ms of each 16.7 ms frame spent idle before the present even starts.  Must
    run before the QApplication exists."""
    (os.environ if environ is None else environ).setdefault(UPDATE_IDLE_ENV, "0")


def granted_transfer(window) -> str | None:
    """The BT.2100 transfer (pq, hlg) the surface of ``window`` (a QWindow, or a widget whose
    top-level window is read) was granted, read back from its format; None for anything else."""
    if isinstance(window, QWidget):
        window = window.window().windowHandle()
    if not isinstance(window, QWindow):
        return None
    space = window.format().colorSpace()
    if not space.isValid():
        return None
    tf = space.transferFunction().name
    return next((t for t, name in _TRANSFER_FUNCTIONS.items() if name == tf), None)


def signal_text(transfer: str, granted: str | None, platform: str,
                qt_version: str = PYSIDE_VERSION) -> tuple[bool, str]:
    """Whether the output signal is tagged HDR, and one plain sentence saying what reaches the
    screen.  Tagged only where a surface was granted the BT.2100 colour space of the code values
    on the Wayland platform of a Qt that signals it (6.10 on): X11 has no HDR route through Qt,
    and a format that merely repeats the request there is not a signal."""
    name = transfer.upper()
    version = tuple(int(v) for v in qt_version.split(".")[:2] if v.isdigit())
    can_signal = platform.startswith("wayland") and version >= WAYLAND_HDR_FROM
    tagged = granted if can_signal else None
    if transfer == "sdr":
        if tagged is not None:
            return True, (f"SDR code values on a surface tagged BT.2100 {tagged.upper()}: they will "
                          "not look as meant")
        return False, "SDR signal"
    if tagged == transfer:
        return True, (f"{name} signal: the surface is tagged BT.2100 {name} (granted); whether the "
                      "display switched to HDR shows only in a capture")
    if tagged is not None:
        return True, (f"{name} code values on a surface tagged BT.2100 {tagged.upper()}: "
                      "they will not look as meant")
    why = ("this platform has no HDR route through Qt" if not platform.startswith("wayland")
           else f"Qt {qt_version} does not tag Wayland surfaces" if not can_signal
           else f"the surface was not granted BT.2100 {name}")
    return False, f"{name} code values on an SDR signal: the display will not switch to HDR ({why})"


def surface_signal(transfer: str, window) -> tuple[bool, str]:
    """:func:`signal_text` for the surface of ``window`` (None: no output surface yet)."""
    return signal_text(transfer, granted_transfer(window), QGuiApplication.platformName())


def ensure_qapplication(argv: list[str] | None = None, transfer: str = "sdr") -> QApplication:
    """The running QApplication, created (with ``argv``, default the program name) if there is none.

    Either way the refcount guard is in place and the application carries testcard's name,
    desktop file name and icon.  The surface format is only requested when this call creates
    the application: afterwards it would not reach every window (``transfer`` pq or hlg asks for
    a BT.2100 surface; :func:`surface_signal` says what was granted).  Refuses (:class:`NoDisplayError`,
    a ``ValueError``: one line and exit 2 from the command line) to create one with no display.
    """
    guard_singleton_refcounts()
    app = QApplication.instance()
    if app is None:
        why = display_problem(argv=argv) or display_refusal(argv=argv)   # a dead display: Qt aborts
        if why is not None:
            raise NoDisplayError(why)
        route_qt_messages()
        request_surface_format(transfer=transfer)
        present_without_idle_delay()
        app = QApplication(argv if argv is not None else sys.argv[:1])
    collect_on_gui_thread()          # never a QObject freed by a worker thread's collection
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
