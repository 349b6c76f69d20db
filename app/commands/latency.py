"""``testcard latency``: how late each presented frame reached the capture, and what went missing.

Live (``--source SOURCE``): the robust counter is shown fullscreen on ``--screen`` (1:1, no
banner), the source is captured and decoded on its own threads in the same run, and each
presented index is matched to the first capture showing it (:mod:`core.decode.latency`).  The
present log comes from the frame loop: the frame index and the moment its swap returned, on
``time.perf_counter()`` (CLOCK_MONOTONIC on Linux, the clock the capture is put on).  Only the
presents made while the capture ran are joined.

Offline (``--timeline PRESENT.csv --capture FILE``): a present log exported from testcard (the
timing dock's export or record, ``testcard show --timeline``) joined with a recorded capture.
Which clock the recording's timestamps are on -- the present log's monotonic one (V4L2 with
``-copyts``), the wall clock (``x11grab`` with ``-copyts``, mapped through the log's clock pairs)
or none (FFmpeg's default, refused with the flags that keep the clock) -- is recognised by
:func:`core.decode.latency_clock.place_capture`; ``--capture-offset-s`` overrides it.

Test hooks, each read in one place: ``TESTCARD_TEST_STALL_EVERY=N`` (the frame loop: every
N-th frame is overwritten at once, a display drop) and ``TESTCARD_TEST_CAPTURE_STALL_EVERY=N``
(here: every N-th capture the reader stalls until the source's queue overflows, capture drops).
"""

from __future__ import annotations

import math
import os
import sys
import time

from app.commands.common import (
    RATE_HZ,
    RUN_S,
    SCREEN_HELP,
    CliError,
    Number,
    Progress,
    check_output,
    metrics_address,
    print_json,
    refuse_overwriting_inputs,
)
from app.commands.latency_live import run_live

MAX_SECONDS = 24 * 3600.0
MAX_OFFSET_MS = 10_000.0          # core.decode.latency_log's (kept here so the CLI starts without numpy)
MAX_CAPTURE_OFFSET_S = 1e10       # a wall clock (1.7e9 s since 1970) onto a monotonic one fits easily
OFFSET_MS = Number(-MAX_OFFSET_MS, MAX_OFFSET_MS, "ms")
CAPTURE_OFFSET_S = Number(-MAX_CAPTURE_OFFSET_S, MAX_CAPTURE_OFFSET_S, "s")
CAPTURE_STALL_ENV = "TESTCARD_TEST_CAPTURE_STALL_EVERY"


def register(sub) -> None:
    p = sub.add_parser(
        "latency", help="present the counter fullscreen, capture it, report per-frame latency",
        description="Show the robust frame counter fullscreen and capture it in the same run (or join "
                    "a saved present log to a recorded capture): per presented frame, the time from "
                    "testcard's present (its swap returning) to the first capture showing it; display "
                    "drops, repeats and tears; the capture's own drops apart. Software present time "
                    "is not light: the figures include the display and the capture chain.")
    live = p.add_argument_group("live")
    live.add_argument("--source", metavar="SOURCE",
                      help="capture source: v4l2:/dev/videoN, x11grab:DISPLAY[+X,Y] or a video file/FIFO "
                           "(`testcard capture --list` lists devices)")
    live.add_argument("--screen", metavar="INDEX|NAME", help=SCREEN_HELP + " (default: the primary)")
    live.add_argument("--size", metavar="WxH", help="counter frame size (default: the screen's size)")
    live.add_argument("--seconds", type=RUN_S, default=10.0, help="capture this long (default 10)")
    live.add_argument("--capture-fps", type=RATE_HZ, metavar="F",
                      help="ask the source for this rate (default: x11grab a little over twice the screen's "
                           "refresh, a device its own)")
    live.add_argument("--capture-size", metavar="WxH", help="ask the source for this frame size")
    live.add_argument("--pixel-format", metavar="FMT", help="V4L2 input format (mjpeg, yuyv422, ...)")
    live.add_argument("--bits", type=int, default=16, help="counter bits (default 16)")
    live.add_argument("--metrics", metavar="[ADDR:]PORT",
                      help="serve Prometheus metrics while it runs: the output's frames, frames captured, "
                           "capture and display drops and the latency histogram (loopback unless an "
                           "address is given)")
    offline = p.add_argument_group("offline")
    offline.add_argument("--timeline", metavar="PRESENT.csv",
                         help="present log: a timeline CSV exported or recorded by testcard")
    offline.add_argument("--capture", metavar="FILE", help="the recorded capture (a video file)")
    offline.add_argument("--capture-offset-s", type=CAPTURE_OFFSET_S, metavar="S",
                         help="seconds added to the capture's timestamps to put them on the present "
                              "log's clock (default: recognise the capture's clock, monotonic or wall "
                              "clock, from the present log's clock pairs)")
    p.add_argument("--offset-ms", type=OFFSET_MS, metavar="MS",
                   help="the capture chain's own latency (measured once by looping the output straight "
                        "into the capture), subtracted from every sample and listed as a correction")
    p.add_argument("--end-of-frame", action="store_true",
                   help="the capture stamps frames when complete: subtract one capture period "
                        "(listed as a correction)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON document")
    p.add_argument("--csv", metavar="FILE", help="write one row per presented frame")
    p.add_argument("--plot", metavar="FILE.png", help="draw latency against present time")
    p.add_argument("--histogram", metavar="FILE.png", help="draw the latency histogram")
    p.set_defaults(func=run)


# ------------------------------------------------------------ checks (no Qt)
def _check(args) -> None:
    from core.capture import parse_spec, source_problem
    from core.counter import MAX_BITS, MIN_BITS
    from core.decode import check_png

    live, offline = args.source is not None, args.timeline is not None or args.capture is not None
    if live == offline:
        raise CliError("give --source SOURCE (live), or --timeline PRESENT.csv and --capture FILE "
                       "(offline), not both")
    if offline and not (args.timeline and args.capture):
        raise CliError("offline needs both --timeline PRESENT.csv and --capture FILE")
    if offline and args.metrics is not None:
        raise CliError("--metrics watches a live run: give it with --source")
    if live:
        args.metrics_at = metrics_address(args)
        parse_spec(args.source)
        if not (math.isfinite(args.seconds) and 0 < args.seconds <= MAX_SECONDS):
            raise CliError(f"--seconds must be above 0 and at most {MAX_SECONDS:g}, got {args.seconds:g}")
        if args.capture_fps is not None and not (math.isfinite(args.capture_fps) and args.capture_fps > 0):
            raise CliError(f"--capture-fps must be above 0, got {args.capture_fps:g}")
        if not MIN_BITS <= args.bits <= MAX_BITS:
            raise CliError(f"--bits must be {MIN_BITS}..{MAX_BITS}, got {args.bits}")
        if args.screen is not None and not args.screen.strip():
            raise CliError("--screen takes a screen's index (0, 1, ...) or its name, got ''")
    if args.capture_offset_s is not None and not math.isfinite(args.capture_offset_s):
        raise CliError(f"--capture-offset-s must be a finite number of seconds, "
                       f"got {args.capture_offset_s:g}")
    if args.offset_ms is not None:
        from core.decode import offset_correction

        offset_correction(args.offset_ms)
    for flag, path in (("--csv", args.csv), ("--plot", args.plot), ("--histogram", args.histogram)):
        if path:
            check_output(path, flag)
            if flag != "--csv":
                check_png(path, flag)
    inputs = [args.timeline, args.capture]
    if live and os.path.exists(args.source.removeprefix("file:")):
        inputs.append(args.source.removeprefix("file:"))
    refuse_overwriting_inputs([args.csv, args.plot, args.histogram], [i for i in inputs if i])
    if live:
        why = source_problem(args.source)        # a missing file or device, a dead X display
        if why is not None:
            raise CliError(why)


def _sizes(args) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    from core.patterns import parse_size

    def size(flag, text):
        try:
            return parse_size(text) if text else None
        except ValueError as exc:
            raise CliError(f"{flag}: {exc}") from None

    return size("--size", args.size), size("--capture-size", args.capture_size)


def corrections(args, capture_rate_hz: float | None, end_of_frame: bool = True) -> tuple:
    """The corrections asked for (``end_of_frame=False``: all but the end-of-frame one)."""
    from core.decode import end_of_frame_correction, offset_correction

    out = []
    if args.end_of_frame and end_of_frame:
        if not capture_rate_hz:
            raise CliError("--end-of-frame needs the capture rate, and the source does not say it")
        out.append(end_of_frame_correction(capture_rate_hz))
    if args.offset_ms is not None:
        out.append(offset_correction(args.offset_ms))
    return tuple(out)


# ------------------------------------------------------------ the test hook for capture drops
def capture_stall_every(environ=None) -> int:
    """``TESTCARD_TEST_CAPTURE_STALL_EVERY=N`` (0: off); read here only."""
    text = (os.environ if environ is None else environ).get(CAPTURE_STALL_ENV, "").strip()
    return int(text) if text.isdigit() else 0


class StalledReader:
    """A source whose reader stalls every ``every`` frames for the source's queue and four frames
    more, so the queue overflows and the source drops frames (capture-side drops, never the
    display's).  Everything else is the source's."""

    def __init__(self, source, every: int, sleep=time.sleep):
        self._source, self.every, self._sleep, self._n = source, int(every), sleep, 0

    def read(self, timeout=None):
        frame = self._source.read(timeout)
        if frame is not None:
            self._n += 1
            if self._n % self.every == 0:
                rate = self._source.info.rate_hz or 60.0
                self._sleep((self._source.queue_size + 4) / rate)
        return frame

    def __getattr__(self, name):
        return getattr(self._source, name)


def hooked(source, environ=None):
    every = capture_stall_every(environ)
    return StalledReader(source, every) if every else source


# ------------------------------------------------------------ the report as text
def _f(v, unit: str = "") -> str:
    return "-" if v is None else f"{v:.2f}{unit}"


def report_lines(report: dict) -> list[str]:
    """The latency report as a few lines for a terminal."""
    s = report["latency_ms"]
    lines = []
    src = report.get("source") or {}
    if src:
        size = src.get("size") or ["?", "?"]
        rate = src.get("rate_hz")
        lines.append(f"source: {src.get('spec')} ({src.get('kind')}, {size[0]}x{size[1]}"
                     + (f" at {rate:.2f} Hz" if rate else "")
                     + f", {src.get('pixel_format')} read as {src.get('plane')}, clock {src.get('clock')})")
    out = report.get("output")
    if out:
        lines.append(f"output: robust counter {out['size']} on screen {out['screen']}, {out['presenter']} "
                     f"presenter, {out['pacing']} at {out['refresh_hz']:.2f} Hz")
    frac = report.get("matched_fraction")
    lines.append(f"presented: {report['presented']}  matched: {report['matched']}"
                 + (f" ({100 * frac:.1f} %)" if frac is not None else "")
                 + f"  before the capture: {report['before_capture']}  after it: {report['after_capture']}")
    lines.append(f"latency (ms, n={s['n']}): min {_f(s['min'])}  p5 {_f(s['p5'])}  median {_f(s['median'])}  "
                 f"mean {_f(s['mean'])}  p95 {_f(s['p95'])}  p99 {_f(s['p99'])}  max {_f(s['max'])}  "
                 f"sd {_f(s['sd'])}")
    bands = [f"{name} {_f(b['latency_ms']['median'])}" for name, b in report.get("bands", {}).items()
             if b["latency_ms"]["n"]]
    if bands:
        scan = report.get("top_to_bottom_ms")
        lines.append("median by band (ms): " + ", ".join(bands)
                     + (f"; top to bottom {scan:.2f}" if scan is not None else ""))
    lines.append(f"display drops: {report['display_drops']}  repeats: {report['repeats']}  "
                 f"torn captures: {report['torn']}  "
                 f"unseen in capture gaps: {report['unseen_in_capture_gaps']}")
    dec = report.get("decode") or {}
    behind = (f" (frames behind {dec['frames_behind']}, lost by the source {dec['source_lost']})"
              if dec else "")
    lines.append(f"capture drops: {report['capture_drops']}{behind}  captures: {report['captures']}, "
                 f"unknown content {report['captures_unknown']}, unmatched {report['unmatched_captures']}")
    corr = report.get("corrections") or []
    lines.append("corrections: " + ("; ".join(_correction_text(c) for c in corr) if corr
                                    else "none (latency_ms is the raw join)"))
    mapping = report.get("clock_mapping")
    if mapping and "readings" in mapping:
        lines.append(f"capture clock: {report['capture_clock']}, mapped by {mapping['readings']} bracketed "
                     f"readings (uncertainty {mapping['uncertainty_ms']} ms, steps {mapping['steps']})")
    else:
        lines.append(f"capture clock: {report['capture_clock']}")
    lines.append(f"precision: {report['precision']}")
    lines.append("present time is when testcard's swap returned, not when light left the screen")
    lines.extend(f"note: {n}" for n in report.get("notes", []))
    return lines


CLOCK_NAMES = {"monotonic": "already CLOCK_MONOTONIC", "realtime": "wall clock (CLOCK_REALTIME) onto "
               "CLOCK_MONOTONIC", "offset": "shifted by --capture-offset-s"}


def _correction_text(c: dict) -> str:
    if c.get("kind") != "clock":
        return f"{c['name']} {c['ms']:+.3f} ms"
    unc = c.get("uncertainty_ms")
    how = CLOCK_NAMES.get(c["clock"], c["clock"])
    text = f"{c['name']}: {how}, {c['offset_s']:+.6f} s added to its timestamps"
    if c["clock"] == "realtime":
        text += (f" (uncertainty {unc:.4f} ms, {c['clock_pairs']} clock pairs, offset moved "
                 f"{c['offset_span_ms']:.3f} ms, {c['steps']} steps)")
    elif unc is None:
        text += " (uncertainty: the user's)"
    return text


def _write(args, report: dict) -> None:
    from core.decode import write_histogram, write_latency_csv, write_latency_plot

    if args.csv:
        write_latency_csv(args.csv, report)
    if args.plot:
        write_latency_plot(args.plot, report, "--plot")
    if args.histogram:
        write_histogram(args.histogram, report, "--histogram")


def _print(args, report: dict) -> int:
    _write(args, report)
    if args.json:
        print_json(report)
    else:
        print("\n".join(report_lines(report)))
    if report.get("cancelled"):
        print("testcard: interrupted; the report covers the frames captured so far", file=sys.stderr)
        return 130
    return 0


def run(args) -> int:
    _check(args)
    if args.source is None:
        return _print(args, offline_report(args))
    return _print(args, run_live(args, *_sizes(args), corrections(args, None, end_of_frame=False), hooked))


# ------------------------------------------------------------ offline
def offline_report(args) -> dict:
    """The join of a saved present log and a recorded capture (no Qt)."""
    from dataclasses import replace

    from core.capture import open_source
    from core.decode import LiveDecode, LiveRequest, latency_report, place_capture, read_present_log

    present = read_present_log(args.timeline)
    source = open_source(f"file:{args.capture}", paced=False)
    live = LiveDecode(source, LiveRequest())
    prog = Progress(None, "latency")
    steps = live.steps()
    try:
        while True:
            try:
                batch = next(steps)
            except StopIteration as stop:
                decoded = stop.value
                break
            prog.update(batch.summary["frames"], f"{batch.summary['decoded']} decoded")
    finally:
        prog.close()
        steps.close()
    log = live.capture_log()
    if not log.samples:
        raise CliError(f"no frames could be read from {args.capture}")
    try:
        times, placed = place_capture(present, [s.t_s for s in log.samples], args.capture_offset_s)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    samples = tuple(replace(s, t_s=float(t)) for s, t in zip(log.samples, times, strict=True))
    log = replace(log, samples=samples,
                  clock={"realtime": "realtime-mapped"}.get(placed.clock, placed.clock), placed=placed)
    report = latency_report(present, log, corrections=corrections(args, log.rate_hz))
    report["source"] = decoded.get("capture")
    report["decode"] = {k: decoded["summary"].get(k) for k in (
        "frames", "decoded", "ok", "torn", "undecodable", "unreadable", "capture_drops", "frames_behind",
        "source_lost", "layout", "bits")}
    report["cancelled"] = False
    return report
