"""Every keyboard shortcut of the main window, written once (no Qt here).

The menus (``app/window/menus.py``) take each keyed action's text and keys from
:data:`SHORTCUTS`; the README's shortcut table (``app/docs.py``, section ``shortcuts``) is
generated from it; Help > Keyboard shortcuts lists the window's real actions at run time, and a
test holds the two to each other, so neither can drift.  Keys are written in Qt's portable
form (``QKeySequence(keys).toString()`` gives them back unchanged).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shortcut:
    action: str     # the window's attribute is ``act_<action>``
    menu: str       # the menu it sits in
    text: str       # the menu text; ``&`` marks the mnemonic
    keys: str       # Qt's portable key text
    what: str       # one line for the README

    @property
    def label(self) -> str:
        """The menu text as a person reads it (no mnemonic marker, no ellipsis)."""
        return plain(self.text)


SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut("save", "File", "&Save current frame\u2026", "Ctrl+S",
             "write the frame on screen (PNG, TIFF or .npy) with its JSON sidecar"),
    Shortcut("quit", "File", "&Quit", "Ctrl+Q", "close testcard (settings and layout are kept)"),
    Shortcut("pause", "View", "&Pause", "Space", "freeze the frame index; the output keeps presenting"),
    Shortcut("back", "View", "Step &back", "Left", "one frame back, while paused"),
    Shortcut("forward", "View", "Step &forward", "Right", "one frame forward, while paused"),
    Shortcut("one_to_one", "View", "&1:1 pixels", "Ctrl+1",
             "preview one frame pixel per screen pixel (drag or scroll to pan); off: fit the window"),
    Shortcut("reset", "View", "&Reset timing", "Ctrl+R", "clear the frame-timing history"),
    Shortcut("preset_next", "Presets", "&Next entry", "PgDown", "the preset's next pattern"),
    Shortcut("preset_prev", "Presets", "&Previous entry", "PgUp", "the preset's previous pattern"),
    Shortcut("play", "Presets", "P&lay", "F5",
             "play the chosen preset: each entry on screen for its dwell time"),
    Shortcut("play_pause", "Presets", "P&ause playback", "F6", "hold the playing entry (again: go on)"),
    Shortcut("play_prev", "Presets", "Pre&vious", "F7", "playback: the previous entry"),
    Shortcut("play_next", "Presets", "Ne&xt", "F8", "playback: the next entry"),
    Shortcut("play_stop", "Presets", "S&top", "Shift+F5", "stop the playback"),
    Shortcut("play_loop", "Presets", "L&oop", "Ctrl+L", "play the preset over and over"),
    Shortcut("fullscreen", "Output", "&Fullscreen output", "F11",
             "open (or close) the output fullscreen on the chosen screen"),
    Shortcut("leave", "Output", "&Leave fullscreen", "Esc", "close the fullscreen output"),
    Shortcut("shortcuts", "Help", "&Keyboard shortcuts", "F1", "list every shortcut"),
)


def shortcut(action: str) -> Shortcut:
    """The entry for ``act_<action>``; KeyError names the action when there is none."""
    for s in SHORTCUTS:
        if s.action == action:
            return s
    raise KeyError(f"no shortcut entry for action {action!r} in app/window/shortcuts.py")


def plain(text: str) -> str:
    """Menu text without its mnemonic marker (``&&`` stays one ``&``) or trailing ellipsis."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("\u2026").rstrip(".")
