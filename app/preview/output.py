"""The fullscreen output window on a chosen screen, following screens as they come and go.

Placement is decided by :func:`app.preview.placement.place_output` over plain screen
records; this module only turns ``QScreen`` objects into records (index, name, maker,
geometry, refresh, pixel ratio), applies the decision to a presenter window, and lays the
banner over it that says which screen this is.
"""

from __future__ import annotations

import os
import re

from PySide6.QtCore import QObject, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QWindow
from PySide6.QtWidgets import QLabel, QWidget

from app.preview.placement import (
    Placement,
    ScreenIdentity,
    ScreenRecord,
    banner_lines,
    distinguish,
    match_screen,
    place_output,
    x_screen_numbers,
)
from core.capture import x_screen_sizes

BANNER_MS = 4000   # how long the fullscreen banner stays up


def qscreens() -> list:
    """The screens the app lists and chooses from, in Qt's order (tests replace this)."""
    return list(QGuiApplication.screens())


def screen_record(screen, index: int = 0, primary=None) -> ScreenRecord:
    g = screen.geometry()
    primary = primary if primary is not None else QGuiApplication.primaryScreen()
    return ScreenRecord(screen.name() or "screen", g.x(), g.y(), g.width(), g.height(),
                        float(screen.devicePixelRatio()), float(screen.refreshRate() or 60.0),
                        screen is primary, index, screen.manufacturer() or "", screen.model() or "",
                        screen.serialNumber() or "")


def screen_records(exclude=None) -> list[ScreenRecord]:
    """Every screen (but ``exclude``, one being removed), indexed in Qt's order; those whose
    name tells them from no other carry their X screen and geometry (:func:`distinguish`)."""
    primary = QGuiApplication.primaryScreen()
    screens = qscreens()
    display, numbers = _x_screens(screens)
    records = distinguish([screen_record(s, i, primary) for i, s in enumerate(screens)], display, numbers)
    return [r for r, s in zip(records, screens, strict=True) if s is not exclude]   # indices kept


def _x_screens(screens: list) -> tuple[str | None, list[int] | None]:
    """The display connection and each screen's X screen under xcb (else ``None, None``)."""
    if QGuiApplication.platformName() != "xcb":
        return None, None
    display = os.environ.get("DISPLAY", "")
    m = re.fullmatch(r"([^:]*):(\d+)(?:\.(\d+))?", display.strip())
    if m is None:
        return None, None
    groups, first = [], []
    for s in screens:
        siblings = s.virtualSiblings() if hasattr(s, "virtualSiblings") else [s]
        lead = next((k for k, f in enumerate(first) if f in siblings), None)
        if lead is None:
            first.append(s)
            lead = len(first) - 1
        groups.append(lead)
    numbers = x_screen_numbers(groups, int(m.group(3) or 0))
    # Qt's order is inferred (x_screen_numbers): said only where the server's own screens agree
    sizes = x_screen_sizes(display.strip())
    if sizes is None or len(sizes) != len(first) or not all(
            _fits(s, sizes[n]) for s, n in zip(screens, numbers, strict=True)):
        numbers = None
    return display.strip(), numbers


def _fits(screen, size: tuple[int, int]) -> bool:
    g, dpr = screen.geometry(), float(screen.devicePixelRatio())
    return round((g.x() + g.width()) * dpr) <= size[0] and round((g.y() + g.height()) * dpr) <= size[1]


def qscreen_of(record: ScreenRecord | None):
    """The ``QScreen`` a record describes (its index, checked by identity), else the primary.

    Looked up among Qt's own screens: a window can only be put on a real ``QScreen``.
    """
    screens = list(QGuiApplication.screens())
    if record is not None:
        primary = QGuiApplication.primaryScreen()
        found = [(i != record.index, i, s) for i, s in enumerate(screens)
                 if screen_record(s, i, primary).identity.key == record.identity.key]
        if found:
            return min(found, key=lambda f: f[:2])[2]   # the same index first
    return QGuiApplication.primaryScreen()


def _window_handle(presenter) -> QWindow:
    if isinstance(presenter, QWindow):
        return presenter
    presenter.winId()  # creates the native window so its screen can be set
    return presenter.windowHandle()


class OutputBanner(QLabel):
    """Which screen the output is on and how to leave, laid over the output window.

    Over a widget presenter it is a child widget (a grab of the output shows it while it is
    up); over a GL window, which cannot hold widgets, a frameless window stacked above it
    that takes neither focus nor input.  The frame itself is never touched: once the banner
    is gone the output shows the frame's code values exactly.
    """

    def __init__(self, presenter, lines: list[str], screen=None):
        parent = presenter if isinstance(presenter, QWidget) else None
        super().__init__("\n".join(lines), parent)
        self.setObjectName("OutputBanner")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setStyleSheet("QLabel#OutputBanner { background: #202020; color: #f0f0f0; "
                           "border: 2px solid #f0f0f0; padding: 0.5em 1.2em; }")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        if parent is None:
            self.setWindowFlags(Qt.WindowType.ToolTip | Qt.WindowType.FramelessWindowHint
                                | Qt.WindowType.WindowStaysOnTopHint
                                | Qt.WindowType.WindowDoesNotAcceptFocus
                                | Qt.WindowType.WindowTransparentForInput)
            self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
            if screen is not None:
                self.setScreen(screen)

    def place(self, area: QRect) -> None:
        """Centre on ``area`` (the output's rectangle: local for a child, global for a window)."""
        font = self.font()
        font.setPixelSize(max(14, area.height() // 28))
        self.setFont(font)
        hint = self.sizeHint()
        w, h = min(hint.width(), area.width()), min(hint.height(), area.height())
        self.setGeometry(QRect(area.x() + (area.width() - w) // 2, area.y() + (area.height() - h) // 2, w, h))


class OutputController(QObject):
    """Owns the output window: open on a screen, close, and fall back when its screen goes.

    ``banner_enabled`` and ``banner_ms`` say whether, and for how long, going fullscreen
    shows the banner naming the screen.
    """

    opened = Signal(object)        # the output presenter
    closed = Signal()
    placed = Signal(object)        # the Placement applied
    note = Signal(str)             # a sentence for the log and status bar
    screens_changed = Signal()
    banner_shown = Signal(str)     # the banner's text
    banner_hidden = Signal()

    def __init__(self, make_presenter, parent=None):
        super().__init__(parent)
        self._make = make_presenter
        self.window = None
        self.placement: Placement | None = None
        self.wanted: ScreenIdentity | None = None
        self.banner: OutputBanner | None = None
        self.banner_enabled = True
        self.banner_ms = BANNER_MS
        self._banner_timer = QTimer(self)
        self._banner_timer.setSingleShot(True)
        self._banner_timer.timeout.connect(self.hide_banner)
        app = QGuiApplication.instance()
        app.screenAdded.connect(self._on_screen_added)
        app.screenRemoved.connect(self._on_screen_removed)

    @property
    def is_open(self) -> bool:
        return self.window is not None

    def open(self, wanted: ScreenIdentity | None):
        """Borderless fullscreen on the screen ``wanted`` identifies (None: primary), 1:1 pixels,
        cursor hidden; see :func:`~app.preview.placement.place_output` for the fallbacks."""
        self.wanted = wanted
        if self.window is None:
            self.window = self._make()
            self.window.set_one_to_one(True)
            # a close by the window system: closed here, in the presenter's order
            self.window.close_requested.connect(self.close)
            self._apply(place_output(screen_records(), wanted))
            self.opened.emit(self.window)
        else:
            self._apply(place_output(screen_records(), wanted))
        return self.window

    def close(self) -> None:
        """Close the output window: its GL objects freed on its native window, hidden, and
        deleted at the next pass of the event loop (native window and all); ``closed`` follows."""
        self.hide_banner()
        w, self.window = self.window, None
        self.placement = None
        if w is None:
            return
        w.release()
        w.hide()          # not close(): the native window must go with the object (presenter.py)
        w.deleteLater()
        self.closed.emit()

    def show_banner(self) -> None:
        """The banner over the fullscreen output for ``banner_ms``; nothing when turned off."""
        self.hide_banner()
        p = self.placement
        if not self.banner_enabled or self.banner_ms <= 0 or self.window is None or p is None \
                or not p.fullscreen:
            return
        lines = banner_lines(p.screen)
        self.banner = OutputBanner(self.window, lines, qscreen_of(p.screen))
        local = isinstance(self.window, QWidget)
        self.banner.place(self.window.rect() if local else QRect(p.x, p.y, p.width, p.height))
        self.banner.show()
        self.banner.raise_()
        self._banner_timer.start(self.banner_ms)
        self.banner_shown.emit("\n".join(lines))

    def hide_banner(self) -> None:
        self._banner_timer.stop()
        b, self.banner = self.banner, None
        if b is None:
            return
        b.hide()
        b.deleteLater()
        self.banner_hidden.emit()

    def _apply(self, p: Placement) -> None:
        w = self.window
        handle = _window_handle(w)
        target = qscreen_of(p.screen)
        handle.setScreen(target)
        rect = QRect(p.x, p.y, p.width, p.height)
        if isinstance(w, QWindow):
            w.setFlag(Qt.WindowType.FramelessWindowHint, p.fullscreen)
            w.setGeometry(rect)
        else:
            w.setWindowFlag(Qt.WindowType.FramelessWindowHint, p.fullscreen)
            w.setGeometry(rect)
        w.setCursor(Qt.CursorShape.BlankCursor if p.fullscreen else Qt.CursorShape.ArrowCursor)
        w.setTitle("testcard output") if isinstance(w, QWindow) else w.setWindowTitle("testcard output")
        if p.fullscreen:
            w.showFullScreen()
        else:
            w.showNormal()
        self.placement = p
        landed = _window_handle(w).screen()
        if landed is not None and landed is not target:
            # Wayland compositors choose placement themselves; say where it went
            self.note.emit(f"the output window landed on {landed.name()}, not screen {p.screen.title}")
        if p.note:
            self.note.emit(p.note)
        self.show_banner()
        self.placed.emit(p)

    def _on_screen_added(self, screen) -> None:
        self.screens_changed.emit()
        if self.window is None or self.placement is None or self.placement.fullscreen or self.wanted is None:
            return
        records = screen_records()
        if match_screen(records, self.wanted).how == "exact":   # the wanted screen is back
            self._apply(place_output(records, self.wanted))

    def _on_screen_removed(self, screen) -> None:
        if self.window is not None and self.placement is not None \
                and screen_record(screen).identity.key == self.placement.screen.identity.key:
            self._apply(place_output(screen_records(exclude=screen), self.wanted))
        self.screens_changed.emit()
