"""The control window's docks: the preview in the middle, the pattern catalog on the left, the
frame settings and the parameter editor on the right, the timing and the log tabbed at the
bottom, and a dock per panel added after (:mod:`app.panels`).

Their sizes and the first-run layout are :mod:`app.window.layout`'s; every dock's content
either fits or scrolls.  :func:`restore_layout` puts the window and its docks back where they
were left.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QVBoxLayout, QWidget

from app.preview import GLPresenter
from app.window.layout import grow_when_raised, place_default, scrolled
from app.window.timing_dock import TimingDock

AREAS = {"left": Qt.DockWidgetArea.LeftDockWidgetArea, "right": Qt.DockWidgetArea.RightDockWidgetArea,
         "bottom": Qt.DockWidgetArea.BottomDockWidgetArea}


def central_preview(window: QMainWindow, preview) -> QWidget:
    """``preview`` (a presenter) as ``window``'s central widget: a GL window in a container."""
    if isinstance(preview, GLPresenter):
        widget = QWidget.createWindowContainer(preview, window)
        widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    else:
        widget = preview
    widget.setMinimumSize(320, 180)
    window.setCentralWidget(widget)
    return widget


def build_docks(window: QMainWindow, *, catalog: QWidget, frame_settings: QWidget, editor: QWidget,
                log: QDockWidget) -> dict[str, QDockWidget]:
    """The built-in docks around ``window``'s preview, by name ("patterns", "parameters",
    "timing": a new :class:`~app.window.timing_dock.TimingDock`, "log"); the timing dock raised."""
    left = QDockWidget("Patterns", window)
    left.setObjectName("PatternsDock")
    left.setWidget(catalog)
    window.addDockWidget(AREAS["left"], left)
    right_body = QWidget()
    rl = QVBoxLayout(right_body)
    rl.addWidget(frame_settings)
    rl.addWidget(editor)
    rl.addStretch(1)
    scroll = scrolled(right_body, fit_width=True)   # as wide as the editor needs; scrolls down
    right = QDockWidget("Parameters", window)
    right.setObjectName("ParametersDock")
    right.setWidget(scroll)
    window.addDockWidget(AREAS["right"], right)
    timing = TimingDock(window)
    window.addDockWidget(AREAS["bottom"], timing)
    window.addDockWidget(AREAS["bottom"], log)
    window.tabifyDockWidget(timing, log)
    timing.raise_()
    return {"patterns": left, "parameters": right, "timing": timing, "log": log}


def add_panel_dock(window: QMainWindow, docks: dict[str, QDockWidget], widget: QWidget, title: str,
                   area: str = "right") -> QDockWidget:
    """``widget`` in a dock of its own in ``area`` ("left", "right", "bottom"; another is the
    right), tabbed with the parameters or the timing dock there, and named in ``docks``."""
    dock = QDockWidget(title, window)
    dock.setObjectName(f"Panel{title.replace(' ', '')}")
    dock.setWidget(scrolled(widget))   # a panel taller than its dock scrolls, never cut off
    window.addDockWidget(AREAS.get(area, AREAS["right"]), dock)
    grow_when_raised(window, dock)     # a bottom panel opened in the low dock shows its controls
    sibling = {"right": docks["parameters"], "bottom": docks["timing"]}.get(area)
    if sibling is not None:
        window.tabifyDockWidget(sibling, dock)
        sibling.raise_()
    docks[title.lower()] = dock
    return dock


def restore_layout(window: QMainWindow, geometry: str, state: str, available: QRect) -> bool:
    """Put ``window`` where it was left (``geometry``, ``state``: as stored, base64), else size
    and centre it for ``available`` (a screen's available geometry).  Returns whether the dock
    state was not restored (the first-run dock layout is due once the window is shown)."""
    if not (geometry and window.restoreGeometry(QByteArray.fromBase64(geometry.encode()))):
        place_default(window, available)
    return not (state and window.restoreState(QByteArray.fromBase64(state.encode())))
