"""The main window's menus and actions: File, View, Presets, Output, Remote, Help (Doctor among it).

Every action is added to the window as well as to its menu, with an application-wide shortcut,
so the shortcuts also work from the GL preview and the output window (the window replays keys
pressed there through its actions).  A keyed action takes its text and keys from
``app/window/shortcuts.py`` (:func:`add_keyed`), the one table the README's shortcut list is
generated from.  The actions are the window's attributes (``act_*``); the
slots they trigger are the window's methods.  ``win`` below is always the
:class:`~app.window.main_window.MainWindow` (not imported here: it imports this module).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QToolBar, QToolButton

from app.doctor import DoctorDialog
from app.preview import screen_records
from app.window.help import ShortcutsDialog, open_readme, show_about
from app.window.remote_actions import build_remote_menu
from app.window.shortcuts import plain, shortcut
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


def add_keyed(win, action: str, slot, checkable=False, menu=None) -> QAction:
    """:func:`add_action` with the text and keys of ``action``'s entry in the shortcut table."""
    entry = shortcut(action)
    return add_action(win, entry.text, slot, entry.keys, checkable=checkable, menu=menu)


def build_menus(win) -> None:
    mb = win.menuBar()
    f = mb.addMenu("&File")
    win.act_save = add_keyed(win, "save", win.save_frame_dialog, menu=f)
    win.act_export = add_action(win, "&Export timing CSV\u2026", win.export_timeline_dialog, menu=f)
    f.addSeparator()
    win.act_quit = add_keyed(win, "quit", win.close, menu=f)
    v = mb.addMenu("&View")
    win.menu_view = v
    win.act_pause = add_keyed(win, "pause", win.set_paused, checkable=True, menu=v)
    win.act_back = add_keyed(win, "back", lambda: win.step(-1), menu=v)
    win.act_forward = add_keyed(win, "forward", lambda: win.step(1), menu=v)
    win.act_back.setEnabled(False)
    win.act_forward.setEnabled(False)
    v.addSeparator()
    win.act_one_to_one = add_keyed(win, "one_to_one", win.set_one_to_one, checkable=True, menu=v)
    win.act_one_to_one.setToolTip("1:1: one frame pixel per screen pixel (drag or scroll to pan); "
                                  "off: fit the preview, nearest-neighbour")
    win.act_reset = add_keyed(win, "reset", win.reset_timing, menu=v)
    win.act_banner = add_action(win, "Screen &banner on fullscreen", win.set_output_banner, checkable=True,
                                menu=v)
    win.act_banner.setChecked(win.settings.output_banner)
    win.act_banner.setToolTip("going fullscreen, name the screen and how to leave for a few seconds")
    v.addSeparator()
    for dock in win.docks.values():
        v.addAction(dock.toggleViewAction())
    build_presets_menu(win, mb)
    o = mb.addMenu("&Output")
    win.menu_output = o
    win.screen_group = QActionGroup(win)
    win.screen_group.setExclusive(True)
    win.act_fullscreen = add_keyed(win, "fullscreen", win.toggle_fullscreen, checkable=True)
    win.act_leave = add_keyed(win, "leave", win.leave_fullscreen)
    win.act_leave.setEnabled(False)
    o.aboutToShow.connect(win._rebuild_output_menu)
    rebuild_output_menu(win)
    build_remote_menu(win, mb)   # calibration software's connections (remote_actions.py)
    h = mb.addMenu("&Help")
    win.act_shortcuts = add_keyed(win, "shortcuts", lambda: show_shortcuts(win), menu=h)
    win.act_readme = add_action(win, "&User guide", lambda: open_readme(win), menu=h)
    win.act_doctor = add_action(win, "&Doctor: is this box ready?\u2026", lambda: show_doctor(win), menu=h)
    win.act_doctor.setToolTip("check the render paths, speed, surface, presents, screens, HDR, capture "
                              "and decisions of this box (testcard doctor)")
    h.addSeparator()
    add_action(win, "&About testcard", lambda: show_about(win), menu=h)
    build_corner(win)


def build_corner(win) -> None:
    """The view toggles in reach at the menu bar's right end: 1:1, pause, fullscreen.

    Each button's short label is its action's icon text: a tool button takes its text from its
    action again whenever the action changes (checked, enabled), so a label set on the button
    alone gave way to the action's longer text on the first toggle, and the wider button went
    behind the bar's overflow arrow."""
    bar = QToolBar()
    bar.setObjectName("ViewToggles")
    bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    for act, label in ((win.act_one_to_one, "1:1"), (win.act_pause, "Pause"),
                       (win.act_fullscreen, "Fullscreen")):
        act.setIconText(label)    # menus show the action's text; tool buttons its icon text
        button = QToolButton()
        button.setDefaultAction(act)
        button.setToolTip(f"{plain(act.text())} ({act.shortcut().toString()})")
        bar.addWidget(button)
    win.menuBar().setCornerWidget(bar, Qt.Corner.TopRightCorner)
    win.view_toggles = bar


def show_shortcuts(win) -> ShortcutsDialog:
    dialog = ShortcutsDialog(win)
    dialog.show()
    win.shortcuts_dialog = dialog   # kept, so it is not collected while shown
    return dialog


def show_doctor(win) -> DoctorDialog:
    """The doctor's dialog, started (one at a time: an open one is raised)."""
    dialog = getattr(win, "doctor_dialog", None)
    if dialog is not None and dialog.isVisible():
        dialog.raise_()
        return dialog
    dialog = DoctorDialog(win.settings, parent=win)
    win.doctor_dialog = dialog     # kept, so it is not collected while it runs
    dialog.show()
    dialog.start()
    return dialog


def build_presets_menu(win, mb) -> None:
    """Named pattern sets (built-in and the settings folder's presets/); PgUp/PgDown step."""
    m = mb.addMenu("P&resets")
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
    win.act_preset_next = add_keyed(win, "preset_next", lambda: win.step_preset(1), menu=m)
    win.act_preset_prev = add_keyed(win, "preset_prev", lambda: win.step_preset(-1), menu=m)
    m.addSeparator()
    build_playback_menu(win, m)


def build_playback_menu(win, m) -> None:
    """Playing a preset: each entry for its dwell (``app/preview/playback.py``).  While it plays,
    PgDown / PgUp move the playback too."""
    win.act_play = add_keyed(win, "play", win.play_current_preset, menu=m)
    win.act_play.setToolTip(shortcut("play").what)
    plays = m.addMenu("Play pre&set")
    for preset in win.presets:
        add_action(win, preset.name, menu=plays,
                   slot=lambda _=False, p=preset: win.play_preset(p.name, win.act_play_loop.isChecked()))
    win.act_play_pause = add_keyed(win, "play_pause", win.player.set_paused, checkable=True, menu=m)
    win.act_play_next = add_keyed(win, "play_next", win.player.next, menu=m)
    win.act_play_prev = add_keyed(win, "play_prev", win.player.previous, menu=m)
    win.act_play_stop = add_keyed(win, "play_stop", win.player.stop, menu=m)
    win.act_play_loop = add_keyed(win, "play_loop", win.player.set_loop, checkable=True, menu=m)
    win.act_play_export = add_action(win, "&Export play log\u2026", win.export_play_log_dialog, menu=m)
    for act in (win.act_play_pause, win.act_play_next, win.act_play_prev, win.act_play_stop,
                win.act_play_export):
        act.setEnabled(False)


def rebuild_output_menu(win) -> None:
    """One checkable entry per connected screen, told apart by index even when names repeat
    (the output's is checked), then fullscreen."""
    o = win.menu_output
    o.clear()
    for a in win.screen_group.actions():
        win.screen_group.removeAction(a)
    current = win.output_record()
    for rec in screen_records():
        a = QAction(rec.label, o)  # owned by the menu: clear() deletes it next time
        a.setCheckable(True)
        a.setChecked(rec.index == current.index)
        a.setData(rec.index)
        a.triggered.connect(lambda _c=False, r=rec: win.choose_output_screen(r))
        win.screen_group.addAction(a)
        o.addAction(a)
    o.addSeparator()
    o.addAction(win.act_fullscreen)
    o.addAction(win.act_leave)
    win.frame_settings.set_native(win.output_native_size())
