"""The default window: it fits the screen, the preview gets the most room, no dock is cut off."""

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QAbstractScrollArea, QDockWidget, QToolButton

from app.window import MainWindow
from app.window.layout import MAX_SIZE, default_size, dock_sizes, place_default

pytestmark = pytest.mark.qt


@pytest.mark.parametrize("avail, expected", [
    ((1280, 720), (1152, 648)),
    ((1920, 1080), (1728, 972)),
    ((3840, 2160), MAX_SIZE),
    ((1280, 680), (1152, 612)),        # a 1280x720 screen less a 40-pixel panel
])
def test_default_size_is_a_fraction_of_the_screen_capped(avail, expected):
    assert default_size(*avail) == expected
    w, h = default_size(*avail)
    assert w <= avail[0] and h <= avail[1]


def test_a_first_run_window_fits_the_screen_it_opens_on(qtbot, small_settings):
    small_settings.window_geometry = ""
    win = MainWindow(settings=small_settings, persist=False)
    qtbot.addWidget(win)
    avail = QGuiApplication.primaryScreen().availableGeometry()
    assert (win.width(), win.height()) == default_size(avail.width(), avail.height())
    assert avail.contains(win.geometry())
    place_default(win, QRect(0, 0, 1280, 720))
    assert (win.x(), win.y(), win.width(), win.height()) == (64, 36, 1152, 648)
    win.close()


def _cut_off(win) -> list[str]:
    """Docks (and the preview) whose content is smaller than it needs and does not scroll."""
    bad = []
    for dock in win.findChildren(QDockWidget):
        if not dock.isVisible():
            continue
        body = dock.widget()
        need = body.minimumSizeHint()
        if not isinstance(body, QAbstractScrollArea) and (body.width() < need.width()
                                                          or body.height() < need.height()):
            bad.append(f"{dock.windowTitle()}: {body.width()}x{body.height()} "
                       f"< {need.width()}x{need.height()}")
    return bad


@pytest.mark.parametrize("size", [(1152, 648), (1280, 720), (1728, 972), (1920, 1080)])
def test_pattern_first_layout_at_common_sizes_cuts_nothing_off(qtbot, small_settings, size):
    small_settings.window_geometry = small_settings.window_state = ""
    win = MainWindow(settings=small_settings, persist=False)
    qtbot.addWidget(win)
    win.resize(*size)
    win.show()
    qtbot.waitExposed(win)
    qtbot.waitUntil(lambda: win.size().width() == size[0] and win.size().height() == size[1])
    qtbot.wait(50)
    assert win.minimumSizeHint().width() <= size[0] and win.minimumSizeHint().height() <= size[1]
    assert _cut_off(win) == []
    for dock in win.tabifiedDockWidgets(win.timing):            # each tab of the bottom dock in turn
        dock.raise_()
        qtbot.waitUntil(dock.isVisible)
        assert _cut_off(win) == [], dock.windowTitle()
        assert (win.width(), win.height()) == size                # no tab grows the window
    win.timing.raise_()
    qtbot.waitUntil(win.timing.isVisible)
    preview = win.preview_widget.width() * win.preview_widget.height()
    docks = {d.windowTitle(): d.width() * d.height() for d in win.findChildren(QDockWidget) if d.isVisible()}
    assert all(preview > area for area in docks.values()), (preview, docks)
    sizes = dock_sizes(*size)
    assert abs(win.timing.height() - sizes["bottom"]) <= 40
    # the panels and the parameters scroll when their dock is smaller than they are
    for title in ("Measure", "Decode", "Latency", "Parameters"):
        assert isinstance(win.docks[title.lower()].widget(), QAbstractScrollArea)
    win.close()


def test_the_one_to_one_toggle_is_visible_beside_the_menus(qtbot, main_window):
    buttons = {b.text(): b for b in main_window.view_toggles.findChildren(QToolButton)}
    assert main_window.menuBar().cornerWidget() is main_window.view_toggles
    one = buttons["1:1"]
    assert one.isVisible() and one.defaultAction() is main_window.act_one_to_one
    assert "Ctrl+1" in one.toolTip()
    one.click()
    assert main_window.preview.one_to_one and main_window.act_one_to_one.isChecked()
    one.click()
    assert not main_window.preview.one_to_one
