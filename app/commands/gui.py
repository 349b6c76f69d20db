"""Start the app: ``testcard`` with no arguments, or ``testcard gui [options]``.

What an operator types is checked before any window opens, and before the QApplication
exists, so a bad value is one ``testcard: error:`` line and exit 2: the pattern and its
``--set`` values, size, bit depth, range and counter with the rules and messages of
``testcard render`` (:func:`core.patterns.make_spec`), the preset, and the form of
``--screen``.  Which screens exist is known only once Qt is up: a ``--screen`` that names
none is refused then, still before the window opens.  Each option sets what the window
starts with; the window remembers its state on close as it always does.
"""

from __future__ import annotations

import argparse
import copy
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from app.commands.common import (
    SCREEN_HELP,
    add_metrics_option,
    add_transfer_arguments,
    metrics_address,
    open_metrics,
    parse_sets,
)
from app.settings import Settings

if TYPE_CHECKING:
    from core.patterns import FrameFormat, Spec

PLACEHOLDER_SIZE = (1920, 1080)   # to check a frame whose size is the screen's, before Qt knows it


def register(sub) -> None:
    p = sub.add_parser(
        "gui", help="start the app (the default with no command)",
        description="Start the app. The options choose what it starts with; the window remembers "
                    "its state on close. Values are checked as `testcard render` checks them.")
    p.add_argument("--pattern", help="pattern to show first (see `testcard patterns`)")
    add_start_options(p)
    p.add_argument("--fullscreen", action="store_true", help="open the output fullscreen at start")
    p.add_argument("--banner", action=argparse.BooleanOptionalAction, default=None,
                   help="name the screen for a few seconds when the output goes fullscreen "
                        "(default: on, or as last time)")
    p.add_argument("--frames", type=int, default=0,
                   help="quit after presenting this many frames (0: run until closed)")
    p.set_defaults(func=run)


def add_start_options(p) -> None:
    """What a window starts with, shared by ``gui`` and ``show``: ``--set``, ``--preset``,
    ``--play``, ``--size``, ``--bit-depth``, ``--limited``, ``--counter``, ``--counter-bits``,
    ``--transfer`` and ``--screen`` (:func:`plan_start` checks them)."""
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="set a pattern parameter (repeatable); the others take their defaults, "
                        "as with `testcard render`")
    p.add_argument("--preset", metavar="NAME", help="show this preset's first entry; PgDown/PgUp step "
                                                    "(see `testcard presets`)")
    p.add_argument("--play", action="store_true",
                   help="play the --preset: each entry on screen for its dwell time")
    p.add_argument("--size", help="frame size WIDTHxHEIGHT (or 1080p, 1440p, 2160p); default: the "
                                  "output screen's native size")
    p.add_argument("--bit-depth", type=int, help="code-value bit depth 1..16 (default: as last time)")
    p.add_argument("--limited", action=argparse.BooleanOptionalAction, default=None,
                   help="limited (video) range: 64..940 at 10 bits (default: as last time)")
    p.add_argument("--counter", action=argparse.BooleanOptionalAction, default=None,
                   help="composite the frame-counter panel (default: as last time)")
    p.add_argument("--counter-bits", type=int, help="counter bits with --counter (default: as last time)")
    add_transfer_arguments(p, mastering=False)
    p.add_argument("--screen", metavar="INDEX|NAME",
                   help=SCREEN_HELP + "; the Output menu lists them in the same order")
    add_metrics_option(p)


@dataclass(frozen=True)
class GuiStart:
    """What the window starts with, checked: its settings, the frame format and the spec built
    from them once, then what to do once it is open."""

    settings: Settings
    format: FrameFormat            # size (PLACEHOLDER_SIZE while it is the screen's), depth, range,
    #                                overlay and transfer (pq, hlg: what the surface asks to be tagged)
    spec: Spec | None = None       # the pattern to show first, built in ``format`` (None: the preset's)
    preset: str | None = None      # the preset's own name (as spelled in its file)
    play: bool = False
    screen: str | None = None      # --screen as typed; resolved once Qt lists the screens
    fullscreen: bool = False
    frames: int = 0
    metrics: tuple[str, int] | None = None   # --metrics: where to serve them
    notes: tuple[str, ...] = ()    # stored parameters that were refused (the defaults shown instead)
    stored: dict | None = None     # the remembered parameters ``spec`` starts from (None: typed)

    @property
    def transfer(self) -> str:
        """What the output surface asks to be tagged (sdr unless --transfer said pq or hlg)."""
        return self.format.transfer or "sdr"

    def frame_format(self, size: tuple[int, int]) -> FrameFormat:
        """The output's :class:`~core.patterns.FrameFormat` at ``size``."""
        return self.format.with_size(*size)

    def at_size(self, size: tuple[int, int]) -> GuiStart:
        """This start on an output of ``size`` (the screen's, known once Qt lists the screens):
        a spec from remembered parameters built again at that size (refused ones become the
        defaults, with their notes: judged at the real size, not the placeholder's); a typed
        one the same at that size, ``ValueError`` (one sentence) where it does not fit there."""
        fmt = self.frame_format(size)
        if fmt == self.format:
            return self
        if self.spec is not None and self.stored is not None:
            notes: list[str] = []
            stored = self.stored if self.spec.pattern == self.settings.pattern else {}
            spec = fmt.start_spec(self.spec.pattern, stored, notes.append, checkerboard=False)
            return replace(self, format=fmt, spec=spec, notes=tuple(notes))
        spec = None if self.spec is None else self.spec.replace(width=fmt.width, height=fmt.height)
        return replace(self, format=fmt, spec=spec)

    @property
    def auto_depth(self) -> bool:
        """The depth follows the output surface's (no depth typed, none chosen in the window)."""
        return not self.settings.bit_depth_chosen


def plan_start(args, settings: Settings, presets=None) -> GuiStart:
    """Check ``args``, fold them into a copy of ``settings`` and build the frame format and the
    first spec from that, once; no Qt.

    Refuses (``ValueError``, one sentence naming the option) what ``testcard render`` refuses,
    an unknown preset, ``--play`` without ``--preset``, ``--preset`` with ``--pattern`` or
    ``--set``, an empty ``--screen`` and a negative ``--frames``.  ``presets`` defaults to the
    built-in ones and the settings folder's.  Stored parameters the format refuses are not an
    error: the pattern's defaults are shown, and the start's ``notes`` say why.
    """
    from core.patterns import get_pattern, get_preset, load_presets, parse_size

    if args.frames < 0:
        raise ValueError(f"--frames must be >= 0, got {args.frames}")
    if args.play and not args.preset:
        raise ValueError("--play needs --preset NAME: the preset to play")
    if args.preset and (args.pattern or args.set):
        raise ValueError("--preset chooses the patterns itself: leave out --pattern and --set")
    if args.screen is not None and not args.screen.strip():
        raise ValueError("--screen takes a screen's index (0, 1, ...) or its name, got ''")
    s = copy.deepcopy(settings)
    if args.size:
        s.size = list(parse_size(args.size))
    if args.bit_depth is not None:
        s.bit_depth = args.bit_depth
        s.bit_depth_chosen = True   # typed: no longer following the output surface's depth
    for name in ("limited", "counter", "counter_bits"):
        if getattr(args, name) is not None:
            setattr(s, name, getattr(args, name))
    if args.banner is not None:
        s.output_banner = args.banner
    fmt = settings_format(s, args.transfer)
    preset, spec, stored = None, None, None
    notes: list[str] = []
    if args.preset:
        from core.paths import presets_dir

        if presets is None:
            presets, _problems = load_presets([presets_dir()])   # the window logs the problems
        preset = get_preset(args.preset, presets)
        fmt.preset_specs(preset)
    else:
        pattern = args.pattern or s.pattern
        if args.pattern is None:
            try:
                get_pattern(pattern)
            except ValueError:   # a remembered name this version lacks: the window's default
                pattern = "checkerboard"
        # a typed --counter is the spec's own overlay: refused on the counter pattern (a counter
        # already), where a remembered one is left off by the format's rule
        own = fmt.counter_bits if args.counter else None
        typed = fmt.spec(pattern, parse_sets(args.set), counter_bits=own)
        s.pattern = pattern
        if args.set:
            spec = typed
            s.params[pattern] = spec.to_dict()["params"]
        else:
            stored = dict(s.params.get(pattern, {}))
            spec = fmt.start_spec(pattern, stored, notes.append)
    return GuiStart(s, fmt, spec, preset.name if preset else None, bool(args.play), args.screen,
                    bool(args.fullscreen), args.frames, metrics_address(args), tuple(notes), stored)


def settings_format(s: Settings, transfer: str | None = None) -> FrameFormat:
    """The frame format the settings ``s`` say (their size, else :data:`PLACEHOLDER_SIZE` until
    the screen's is known; depth, range, the overlay when it is on) with ``transfer``."""
    from core.patterns import FrameFormat

    w, h = s.size or PLACEHOLDER_SIZE
    return FrameFormat(int(w), int(h), s.bit_depth, s.limited, s.counter_bits if s.counter else None,
                       transfer)


def run(args) -> int:
    from app import settings as settings_mod

    return run_gui(plan_start(args, settings_mod.load()))


def open_window(start: GuiStart):
    """The main window for ``start`` (the QApplication must exist), not yet shown, showing
    the spec ``start`` carries (at the output screen's size where no size was given).

    Refuses (``ValueError``, one sentence) a ``--screen`` that names none (naming the connected
    screens) and a spec that does not fit the screen's size, before any window exists.
    """
    from app.preview import ScreenIdentity, match_screen, resolve_screen, screen_records
    from app.window import MainWindow

    s = start.settings
    if start.screen is not None:
        rec = resolve_screen(screen_records(), start.screen)
        s.output_screen, s.output_screen_id = rec.name, rec.identity.to_dict()
    if not s.size:    # the output screen's, as the window's frame settings show it
        remembered = ScreenIdentity.from_settings(s.output_screen_id, s.output_screen)
        start = start.at_size(match_screen(screen_records(), remembered).screen.native_size)
    win = MainWindow(frame_limit=start.frames, settings=s, spec=start.spec, frame_format=start.format)
    for note in start.notes:
        win.log(note)
    if start.preset is not None:
        if start.play:
            win.play_preset(start.preset)
        else:
            win.choose_preset(start.preset)
    return win


def run_gui(start: GuiStart, argv: list[str] | None = None) -> int:
    """Open the main window and run until it closes (or after ``start.frames`` presented frames,
    or SIGTERM or SIGINT, which close it as its close button does).

    Refuses with no display at all (:func:`app.qapp.display_problem`), before the QApplication
    exists.  With ``frames``, prints one line to stdout once the window has closed:
    ``docks: <titles>``, the window's dock titles in the order they were added.
    """
    from app.qapp import ensure_qapplication

    app = ensure_qapplication(argv, transfer=start.transfer)

    from PySide6.QtCore import QTimer

    from app.window import quit_on_signals

    win = open_window(start)
    if start.frames:
        win.loop.finished.connect(win.close)
    _live, metrics = open_metrics(start.metrics, win.loop, presenter=win.presenter_kind, parent=win)
    win.show()
    if start.fullscreen:
        QTimer.singleShot(0, lambda: win.output.is_open or win.act_fullscreen.trigger())
    # SIGTERM and SIGINT close the window as its close button does: settings stored, exit 0
    try:
        with quit_on_signals(lambda _name: win.close()):
            rc = int(app.exec())
    finally:
        if metrics is not None:
            metrics.close()
    if start.frames:
        # the packaging smoke run checks that the bundled GUI has every built-in panel
        print("docks: " + ", ".join(d.windowTitle() for d in win.docks.values()), flush=True)
    return rc
