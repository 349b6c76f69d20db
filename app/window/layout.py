"""The main window's default size and dock layout: the pattern first, nothing cut off.

The first time (no stored geometry) the window takes :data:`SCREEN_FRACTION` of the screen's
available geometry, capped at :data:`MAX_SIZE`, centred on it -- so a 1280x720 screen gets a
window that fits, decorations included.  The default layout gives the preview most of the
room: the catalog and the parameters are narrow columns at the sides, the timing, log and
panels share one tabbed bottom dock of about a quarter of the height.  Every dock's content
either fits or scrolls (:func:`scrolled`), so no dock can push the window past the screen.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, QSize, Qt, QTimer
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget

SCREEN_FRACTION = 0.9
MAX_SIZE = (1920, 1200)
MIN_SIZE = (640, 400)
RAISED_CAP = 0.6     # a bottom panel brought to the front grows its dock up to this much of the window


def default_size(available_w: int, available_h: int) -> tuple[int, int]:
    """The first-run window size for a screen whose available geometry is ``w x h``."""
    w = min(MAX_SIZE[0], round(available_w * SCREEN_FRACTION))
    h = min(MAX_SIZE[1], round(available_h * SCREEN_FRACTION))
    return max(min(MIN_SIZE[0], available_w), w), max(min(MIN_SIZE[1], available_h), h)


def dock_sizes(window_w: int, window_h: int) -> dict[str, int]:
    """Pattern-first sizes: the side columns' widths and the bottom dock's height."""
    def clamp(v, lo, hi):
        return int(max(lo, min(hi, v)))

    return {"left": clamp(window_w * 0.13, 150, 240), "right": clamp(window_w * 0.22, 250, 380),
            "bottom": clamp(window_h * 0.26, 150, 330)}


class FitWidthScrollArea(QScrollArea):
    """A scroll area as wide as its content asks to be (its preferred width, asked again whenever
    the content's layout changes) that scrolls only vertically."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def setWidget(self, widget: QWidget) -> None:  # noqa: N802 - Qt override
        super().setWidget(widget)
        widget.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        if obj is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(obj, event)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        hint = super().minimumSizeHint()
        body = self.widget()
        if body is None:
            return hint
        # the content's preferred width, so combos show their whole text, not just their minimum
        width = body.sizeHint().width() + self.verticalScrollBar().sizeHint().width() + 2
        return QSize(max(hint.width(), width), hint.height())


def scrolled(widget: QWidget, fit_width: bool = False) -> QScrollArea:
    """``widget`` in a frameless scroll area: it gets its minimum size, and scrolls when the dock
    is smaller than that instead of being cut off (or of growing the window).  ``fit_width``:
    the area is as wide as the widget needs and scrolls only vertically."""
    area = FitWidthScrollArea() if fit_width else QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(widget)
    return area


def place_default(win, available: QRect) -> None:
    """Size ``win`` for ``available`` (a screen's available geometry) and centre it there."""
    w, h = default_size(available.width(), available.height())
    win.resize(w, h)
    win.move(available.x() + (available.width() - w) // 2, available.y() + (available.height() - h) // 2)


def apply_default_docks(win) -> None:
    """The pattern-first proportions for the window's current size (call once it is shown)."""
    sizes = dock_sizes(win.width(), win.height())
    win.resizeDocks([win.docks["patterns"], win.docks["parameters"]],
                    [sizes["left"], sizes["right"]], Qt.Orientation.Horizontal)
    win.resizeDocks([win.timing], [sizes["bottom"]], Qt.Orientation.Vertical)


def grow_when_raised(win, dock) -> None:
    """When ``dock`` comes to the front in the bottom area, grow the area to the height its
    panel asks for (its minimum size), up to :data:`RAISED_CAP` of the window: a panel opened in
    the low default bottom dock shows its controls instead of scrolling them out of view.  It
    never shrinks the dock, so a height the user dragged it to stays."""
    def fit() -> None:
        body = dock.widget()
        if (not dock.isVisible() or body is None or dock.isFloating()
                or win.dockWidgetArea(dock) != Qt.DockWidgetArea.BottomDockWidgetArea):
            return
        panel = body.widget() if isinstance(body, QScrollArea) else body
        need = panel.minimumSizeHint().height()
        if panel.hasHeightForWidth():   # wrapped labels: as tall as it is at the dock's width
            need = max(need, panel.heightForWidth(body.width()))
        want = need + (dock.height() - body.height())
        want = min(want, int(win.height() * RAISED_CAP))
        if dock.height() < want:
            win.resizeDocks([dock], [want], Qt.Orientation.Vertical)

    # after the tab switch has laid the dock out
    dock.visibilityChanged.connect(lambda shown: shown and QTimer.singleShot(0, dock, fit))
