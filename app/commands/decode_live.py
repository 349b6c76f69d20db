"""``testcard decode --live SOURCE``: decode a capture source as its frames arrive.

The source (:func:`core.capture.open_source`: a V4L2 device, an X11 screen grab, a video file
or FIFO played live) reads on its own thread; :class:`core.decode.LiveDecode` decodes each
frame as it comes and returns the report ``testcard decode`` writes (``live: true``), with the
capture's own drops kept apart from the display's.  The run ends after ``--seconds``, when the
source ends, or on Ctrl-C: the report then covers the frames decoded so far.  No Qt.
"""

from __future__ import annotations

import math
import signal
import sys
import threading

from app.commands.common import RUN_S, CliError, Progress, print_json, refuse_overwriting_inputs
from app.commands.decode_checks import exit_status, set_checks


def add_live_arguments(p) -> None:
    """The options of a live decode (``--capture-fps`` and the others are decode's own)."""
    p.add_argument("--live", metavar="SOURCE",
                   help="decode a live source instead of PATH: v4l2:/dev/videoN, x11grab:DISPLAY[+X,Y] "
                        "or a video file/FIFO played at its own rate (`testcard capture --list`); "
                        "--capture-fps asks the source for that rate")
    p.add_argument("--seconds", type=RUN_S, metavar="N",
                   help="with --live: stop after N seconds (default: when the source ends, or Ctrl-C)")
    p.add_argument("--capture-size", metavar="WxH", help="with --live: ask the source for this size")
    p.add_argument("--pixel-format", metavar="FMT",
                   help="with --live: the V4L2 input format (mjpeg, yuyv422, ...)")


def check_live(args) -> None:
    """What only a live decode refuses; the other options are checked as for PATH."""
    live_only = [f for f, v in (("--seconds", args.seconds), ("--capture-size", args.capture_size),
                                ("--pixel-format", args.pixel_format)) if v is not None]
    if args.live is None:
        if args.path is None:
            raise CliError("give PATH (a folder, glob or video of captured frames) or --live SOURCE")
        if live_only:
            raise CliError(f"{live_only[0]} applies to --live only")
        return
    if args.path is not None:
        raise CliError("give PATH or --live SOURCE, not both")
    if args.seconds is not None and not (math.isfinite(args.seconds) and args.seconds > 0):
        raise CliError(f"--seconds must be above 0, got {args.seconds:g}")


def run_live(args, source_factory=None) -> int:
    """Decode ``args.live`` live; ``source_factory()`` opens another source instead (tests)."""
    from core.capture import open_source, parse_spec
    from core.decode import LiveDecode, LiveRequest, summary_lines, write_csv, write_plot
    from core.patterns import parse_size

    parse_spec(args.live)
    try:
        size = parse_size(args.capture_size) if args.capture_size else None
    except ValueError as exc:
        raise CliError(f"--capture-size: {exc}") from None
    if parse_spec(args.live)[0] == "file":
        refuse_overwriting_inputs([args.csv, args.plot], [args.live.removeprefix("file:")])
    request = LiveRequest(args.manifest, args.bits, args.display_fps, args.seconds,
                          present_log=args.timeline)
    request.check()
    source = source_factory() if source_factory is not None else open_source(
        args.live, size=size, fps=args.capture_fps, pixel_format=args.pixel_format)
    try:
        live = LiveDecode(source, request)
    except ValueError:
        source.close()
        raise
    cancel = threading.Event()
    old = signal.signal(signal.SIGINT, lambda *_: cancel.set()) \
        if threading.current_thread() is threading.main_thread() else None
    prog = Progress(None, "decode --live")
    steps = live.steps(cancel)
    try:
        while True:
            try:
                batch = next(steps)
            except StopIteration as stop:
                report = stop.value
                break
            s = batch.summary
            prog.update(s["frames"], f"{s['decoded']} decoded, {s['dropped_count']} dropped, "
                                     f"{s['capture_drops']} capture drops")
    finally:
        steps.close()
        prog.close()
        if old is not None:
            signal.signal(signal.SIGINT, old)
    s = report["summary"]
    if not s["frames"]:
        raise CliError(f"no frames arrived from {args.live}"
                       + (f": {source.error}" if getattr(source, "error", None) else ""))
    verdict = set_checks(report, args)
    if args.csv:
        write_csv(args.csv, report["frames"], report["events"])
    if args.plot:
        write_plot(args.plot, report)
    if args.json:
        print_json(report)
    else:
        lines = summary_lines(report)
        lines.insert(1, live_line(report))
        print("\n".join(lines))
    if report["cancelled"]:
        print("testcard: interrupted; the report covers the frames decoded so far", file=sys.stderr)
        return 130
    return exit_status(verdict)


def live_line(report: dict) -> str:
    """What a live run adds to the summary: the source, how long, the capture's own drops."""
    s, cap = report["summary"], report.get("capture") or {}
    rate = s.get("capture_fps_measured") or s.get("capture_fps")
    return (f"live: {s['frames']} frames in {s['elapsed_s']:.1f} s"
            + (f" (~{rate:.2f} fps)" if rate else "")
            + f" from {cap.get('kind', 'source')}, clock {cap.get('clock', '?')}; capture drops "
              f"{s['capture_drops']} (behind {s['frames_behind']}, lost by the source {s['source_lost']}): "
              "the capture's, never counted as display drops")
