"""The view toggles at the menu bar's right end keep their short labels, and so their place,
after the output has gone fullscreen and come back (a tool button takes its text from its
action again on every change of the action)."""

import pytest
from PySide6.QtWidgets import QToolButton

pytestmark = pytest.mark.qt


def _buttons(win):
    return [b for b in win.view_toggles.findChildren(QToolButton) if b.defaultAction() is not None]


def test_the_toggles_keep_their_labels_through_fullscreen_and_back(qtbot, main_window):
    win = main_window
    before = [(b.text(), b.sizeHint().width()) for b in _buttons(win)]
    assert [t for t, _w in before] == ["1:1", "Pause", "Fullscreen"]
    win.act_fullscreen.trigger()
    qtbot.waitUntil(lambda: win.output.is_open)
    win.act_fullscreen.trigger()
    qtbot.waitUntil(lambda: not win.output.is_open)
    win.act_pause.trigger()              # checked and unchecked: each a change of its action
    win.act_pause.trigger()
    assert [(b.text(), b.sizeHint().width()) for b in _buttons(win)] == before
    assert all(b.isVisible() for b in _buttons(win))
    ext = [b for b in win.view_toggles.findChildren(QToolButton) if b.objectName() == "qt_toolbar_ext_button"]
    assert not any(b.isVisible() for b in ext)      # nothing behind the overflow arrow
    # the menus keep the actions' full text
    assert win.act_fullscreen.text() == "&Fullscreen output"
