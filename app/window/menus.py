"""The main window's menus and actions: File, View, Presets, Output, Help.

Every action is added to the window as well as to its menu, with an application-wide shortcut,
so the shortcuts also work from the GL preview and the output window (the window replays keys
pressed there through its actions).  The actions are the window's attributes (``act_*``); the
slots they trigger are the window's methods.  ``win`` below is always the
:class:`~app.window.main_window.MainWindow` (not imported here: it imports this module).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMessageBox

from app.preview import screen_records
from core import version
from core.paths import presets_dir
from core.patterns import load_presets


def add_action(win, text, slot, shortcut=None, checkable=False, menu=None) -> QAction:
    a = QAction(text, win)
    if shortcut:
        a.setShortcut(QKeySequence(shortcut))
        a.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
    a.setCheckable(checkable)
    a.triggered.connect(slot)
    win.addAction(a)
    if menu is not None:
        menu.addAction(a)
    return a


def build_menus(win) -> None:
    mb = win.menuBar()
    f = mb.addMenu("&File")
    win.act_save = add_action(win, "&Save current frame\u2026", win.save_frame_dialog, "Ctrl+S", menu=f)
    win.act_export = add_action(win, "&Export timing CSV\u2026", win.export_timeline_dialog, menu=f)
    f.addSeparator()
    win.act_quit = add_action(win, "&Quit", win.close, "Ctrl+Q", menu=f)
    v = mb.addMenu("&View")
    win.menu_view = v
    win.act_pause = add_action(win, "&Pause", win.set_paused, "Space", checkable=True, menu=v)
    win.act_back = add_action(win, "Step &back", lambda: win.step(-1), "Left", menu=v)
    win.act_forward = add_action(win, "Step &forward", lambda: win.step(1), "Right", menu=v)
    win.act_back.setEnabled(False)
    win.act_forward.setEnabled(False)
    v.addSeparator()
    win.act_one_to_one = add_action(win, "&1:1 pixels", win.set_one_to_one, "Ctrl+1", checkable=True,
                                    menu=v)
    win.act_reset = add_action(win, "&Reset timing", win.reset_timing, "Ctrl+R", menu=v)
    v.addSeparator()
    for dock in win.docks.values():
        v.addAction(dock.toggleViewAction())
    build_presets_menu(win, mb)
    o = mb.addMenu("&Output")
    win.menu_output = o
    win.screen_group = QActionGroup(win)
    win.screen_group.setExclusive(True)
    win.act_fullscreen = add_action(win, "&Fullscreen output", win.toggle_fullscreen, "F11", checkable=True)
    win.act_leave = add_action(win, "&Leave fullscreen", win.leave_fullscreen, "Esc")
    win.act_leave.setEnabled(False)
    o.aboutToShow.connect(win._rebuild_output_menu)
    rebuild_output_menu(win)
    h = mb.addMenu("&Help")
    add_action(win, "&About testcard", lambda: show_about(win), menu=h)


def build_presets_menu(win, mb) -> None:
    """Named pattern sets (built-in and the settings folder's presets/); PgUp/PgDown step."""
    m = mb.addMenu("P&resets")
    win.preset = None
    win.preset_pos = 0
    try:
        win.presets, problems = load_presets([presets_dir()])
    except ValueError as exc:
        win.presets, problems = [], [str(exc)]
    for why in problems:
        win.log(f"preset skipped: {why}")
    for preset in win.presets:
        act = add_action(win, preset.name, lambda _=False, p=preset: win.choose_preset(p.name), menu=m)
        act.setToolTip(preset.description)
    m.setToolTipsVisible(True)
    m.addSeparator()
    win.act_preset_next = add_action(win, "&Next entry", lambda: win.step_preset(1), "PgDown", menu=m)
    win.act_preset_prev = add_action(win, "&Previous entry", lambda: win.step_preset(-1), "PgUp", menu=m)


def rebuild_output_menu(win) -> None:
    """One checkable entry per connected screen (the output's is checked), then fullscreen."""
    o = win.menu_output
    o.clear()
    for a in win.screen_group.actions():
        win.screen_group.removeAction(a)
    current = win.output_screen()
    for rec in screen_records():
        a = QAction(rec.label, o)  # owned by the menu: clear() deletes it next time
        a.setCheckable(True)
        a.setChecked(current is not None and rec.name == current.name())
        a.setData(rec.name)
        a.triggered.connect(lambda _c=False, n=rec.name: win.choose_output_screen(n))
        win.screen_group.addAction(a)
        o.addAction(a)
    o.addSeparator()
    o.addAction(win.act_fullscreen)
    o.addAction(win.act_leave)
    win.frame_settings.set_native(win.output_native_size())


def show_about(win) -> None:
    QMessageBox.about(win, "testcard", f"testcard {version()}\nDisplay test patterns as exact code "
                      "values, frame timing against the refresh budget.")
