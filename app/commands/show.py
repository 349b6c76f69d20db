"""``testcard show``: kiosk mode, the fullscreen output alone -- what an edge box autostarts.

The options are ``testcard gui``'s (:func:`app.commands.gui.add_start_options`), checked by
the same :func:`~app.commands.gui.plan_start` before the QApplication exists, so a bad value is
one ``testcard: error:`` line and exit 2; those not given are as the app last left them, and
nothing is saved.  Once Qt lists the screens, ``--screen`` is resolved and the frame is checked
again at the screen's native size (unless ``--size``), still before the output opens.  The
output is fullscreen on that screen with the cursor hidden, rendered on the decision cache's
path; Esc, SIGTERM or SIGINT end it (exit 0).
"""

from __future__ import annotations

import sys

from app.commands.common import check_output, one_line
from app.commands.gui import GuiStart, add_start_options, plan_start


def register(sub) -> None:
    p = sub.add_parser(
        "show", help="kiosk mode: the fullscreen output only, for an edge box",
        description="Show a pattern or a preset fullscreen on one screen with no control window and "
                    "the cursor hidden, rendered on the decision cache's path. Esc, SIGTERM or "
                    "SIGINT end it. Options not given are as the app last left them.")
    p.add_argument("pattern", nargs="?", metavar="PATTERN",
                   help="the pattern to show (see `testcard patterns`; default: as last time)")
    add_start_options(p)
    p.add_argument("--timeline", metavar="CSV",
                   help="stream every presented frame to this CSV (put in place when show ends)")
    p.add_argument("--no-banner", dest="banner", action="store_const", const=False, default=None,
                   help="do not name the screen for a few seconds when the output opens")
    p.add_argument("--frames", type=int, default=0,
                   help="end after presenting this many frames (0: run until Esc, SIGTERM or SIGINT)")
    p.set_defaults(func=run, fullscreen=True)


def run(args) -> int:
    from app import settings as settings_mod

    settings = settings_mod.load()
    for problem in settings.problems:      # an edge box's log is where these are read
        print(f"testcard: settings: {one_line(problem)}", file=sys.stderr)
    start = plan_start(args, settings)
    timeline = None
    if args.timeline:
        timeline = str(check_output(args.timeline, "the timeline record", make_parent=False))
    return run_show(start, timeline=timeline)


def frame_specs(start: GuiStart, size: tuple[int, int], presets=None):
    """``(spec, preset, entry specs)`` at ``size``: the spec ``start`` carries, or the preset's
    entries (``ValueError``, one sentence, for one that does not fit this output)."""
    from core.patterns import get_preset, load_presets

    start = start.at_size(size)
    if start.preset is not None:
        if presets is None:
            from core.paths import presets_dir

            presets, _problems = load_presets([presets_dir()])
        preset = get_preset(start.preset, presets)
        specs = start.format.preset_specs(preset)
        return specs[0], preset, specs
    assert start.spec is not None     # plan_start builds one wherever no preset is named
    return start.spec, None, [start.spec]


def run_show(start: GuiStart, *, timeline: str | None = None, argv=None) -> int:
    """Open the output and run until Esc, SIGTERM, SIGINT or ``start.frames``; exit status 0.

    Prints one line when the output opens (what, where, how to end it) and, with
    ``timeline``, one when the record is in place.  With the depth on "auto" (none typed, none
    chosen in the app), the frames follow the depth the output surface was granted."""
    from app.qapp import ensure_qapplication

    app = ensure_qapplication(argv, transfer=start.transfer)
    from app.commands.common import open_metrics
    from app.preview import ScreenIdentity
    from app.window import Kiosk, output_target, run_until_quit, say

    s = start.settings
    remembered = ScreenIdentity.from_settings(s.output_screen_id, s.output_screen)
    identity, record = output_target(start.screen, remembered)
    w, h = s.size if s.size else record.native_size
    size = (int(w), int(h))
    start = start.at_size(size)     # remembered parameters judged at this output's size
    spec, preset, _entry_specs = frame_specs(start, size)
    for note in start.notes:    # stored parameters refused: the defaults are shown
        print(f"testcard: settings: {one_line(note)}", file=sys.stderr)
    kiosk = Kiosk(spec, wanted=identity, banner=s.output_banner, frame_limit=start.frames,
                  frame_format=start.frame_format(size), auto_depth=start.auto_depth)
    kiosk.note.connect(say)
    for note in kiosk.decision_notes:
        say(note)
    if preset is not None:
        kiosk.show_preset(preset, play=start.play)
    if timeline:
        kiosk.loop.timeline.record_to(timeline)
    _live, metrics = open_metrics(start.metrics, kiosk.loop, presenter=kiosk.presenter_kind, parent=kiosk)
    what = f"preset {preset.name}" + (" (playing)" if start.play else "") if preset else spec.pattern
    keys = "PgDown/PgUp step, Space pauses, I says what is on screen; " if preset else ""

    def opened() -> None:
        depth = f"{spec.bit_depth}-bit" + (" (auto: follows the surface)" if start.auto_depth else "")
        print(f"testcard show: {what} at {size[0]}x{size[1]}, {depth}, on screen "
              f"{record.title}; render path {kiosk.loop.path} ({kiosk.loop.path_source}); "
              f"{keys}Esc, SIGTERM or SIGINT ends it", flush=True)

    try:
        why = run_until_quit(app, kiosk, opened)
    finally:
        if metrics is not None:
            metrics.close()
    result = kiosk.timeline_result
    if result is not None:
        say(result.error or f"recorded {result.rows} frames to {result.path}")
    print(f"testcard show: ended ({why})", flush=True)
    return 0 if result is None or result.error is None else 2


__all__ = ["frame_specs", "register", "run", "run_show"]
