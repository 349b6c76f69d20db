"""The fullscreen output window on a chosen screen, following screens as they come and go.

Placement is decided by :func:`app.preview.placement.place_output` over plain screen
records; this module only turns ``QScreen`` objects into records and applies
the decision to a presenter window.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QRect, Qt, Signal
from PySide6.QtGui import QGuiApplication, QWindow

from app.preview.placement import Placement, ScreenRecord, place_output


def screen_record(screen, primary=None) -> ScreenRecord:
    g = screen.geometry()
    primary = primary if primary is not None else QGuiApplication.primaryScreen()
    return ScreenRecord(screen.name() or "screen", g.x(), g.y(), g.width(), g.height(),
                        float(screen.devicePixelRatio()), float(screen.refreshRate() or 60.0),
                        screen is primary)


def screen_records(exclude=None) -> list[ScreenRecord]:
    primary = QGuiApplication.primaryScreen()
    return [screen_record(s, primary) for s in QGuiApplication.screens() if s is not exclude]


def qscreen_named(name: str | None):
    for s in QGuiApplication.screens():
        if s.name() == name:
            return s
    return QGuiApplication.primaryScreen()


def _window_handle(presenter) -> QWindow:
    if isinstance(presenter, QWindow):
        return presenter
    presenter.winId()  # creates the native window so its screen can be set
    return presenter.windowHandle()


class OutputController(QObject):
    """Owns the output window: open on a screen, close, and fall back when its screen goes."""

    opened = Signal(object)        # the output presenter
    closed = Signal()
    placed = Signal(object)        # the Placement applied
    note = Signal(str)             # a sentence for the log and status bar
    screens_changed = Signal()

    def __init__(self, make_presenter, parent=None):
        super().__init__(parent)
        self._make = make_presenter
        self.window = None
        self.placement: Placement | None = None
        self.wanted: str | None = None
        app = QGuiApplication.instance()
        app.screenAdded.connect(self._on_screen_added)
        app.screenRemoved.connect(self._on_screen_removed)

    @property
    def is_open(self) -> bool:
        return self.window is not None

    def open(self, screen_name: str | None):
        """Borderless fullscreen on ``screen_name`` (None: primary), 1:1 pixels, cursor hidden."""
        self.wanted = screen_name
        if self.window is None:
            self.window = self._make()
            self.window.set_one_to_one(True)
            self._apply(place_output(screen_records(), screen_name))
            self.opened.emit(self.window)
        else:
            self._apply(place_output(screen_records(), screen_name))
        return self.window

    def close(self) -> None:
        w, self.window = self.window, None
        self.placement = None
        if w is None:
            return
        w.release()
        w.close()
        w.deleteLater()
        self.closed.emit()

    def _apply(self, p: Placement) -> None:
        w = self.window
        handle = _window_handle(w)
        handle.setScreen(qscreen_named(p.screen))
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
        if landed is not None and landed.name() != p.screen:
            # Wayland compositors choose placement themselves; say where it went
            self.note.emit(f"the output window landed on {landed.name()}, not {p.screen}")
        if p.note:
            self.note.emit(p.note)
        self.placed.emit(p)

    def _on_screen_added(self, screen) -> None:
        self.screens_changed.emit()
        if self.window is not None and self.placement is not None and not self.placement.fullscreen \
                and screen.name() == self.wanted:
            self._apply(place_output(screen_records(), self.wanted))

    def _on_screen_removed(self, screen) -> None:
        if self.window is not None and self.placement is not None and screen.name() == self.placement.screen:
            self._apply(place_output(screen_records(exclude=screen), self.wanted))
        self.screens_changed.emit()
