"""``testcard decode``: read counter panels from a capture and report drops, repeats and tears;
``testcard bench decode``: how fast that goes."""

from __future__ import annotations

import math
import sys

from app.commands.common import (
    RATE_HZ,
    CliError,
    Progress,
    check_output,
    print_json,
    print_table,
    refuse_overwriting_inputs,
)
from app.commands.decode_checks import STATUSES, add_check_arguments, exit_status, set_checks
from app.commands.decode_live import add_live_arguments, check_live, run_live


def register(sub) -> None:
    p = sub.add_parser(
        "decode", help="decode counter panels from captured frames (folder, glob or video)",
        description="Read the frame counter from every captured frame and report dropped, repeated, "
                    "out-of-order and torn frames, freezes and jumps back, and gaps: captured frames "
                    "that could not be read or decoded, never counted as drops. The robust layout is "
                    "recognised by itself; a manifest is a hint checked against the capture; without "
                    "one or --bits a compat panel's bit count is read from the picture. " + STATUSES)
    p.add_argument("path", metavar="PATH", nargs="?",
                   help="a folder or glob of PNG/TIFF/JPEG/.npy frames, one image, or a video file "
                        "(or --live SOURCE)")
    p.add_argument("--manifest", metavar="FILE",
                   help="sidecar manifest (FRAME.png.json from `testcard render`): where the panel is")
    p.add_argument("--bits", type=int, metavar="N",
                   help="counter bits of a compat panel (1..31; default: from the manifest, else read "
                        "from the picture)")
    p.add_argument("--capture-fps", type=RATE_HZ, metavar="F",
                   help="capture rate (read from a video when not given)")
    p.add_argument("--display-fps", type=RATE_HZ, metavar="F",
                   help="display refresh rate; with the capture rate it counts repeats exactly, "
                        "tells a display frozen for the whole capture, and at a capture slower than "
                        "the display tells the indices it could not have seen (unobservable, never "
                        "drops) from the jumps the rate ratio does not allow (drops)")
    p.add_argument("--timeline", metavar="PRESENT.csv",
                   help="present log of the run captured (`testcard show --timeline`): an index it "
                        "shows on screen for less than a capture period and missing from the capture "
                        "is a capture miss, not a display drop (with --live: read when the run ends)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON document: frames, summary, events")
    p.add_argument("--csv", metavar="FILE", help="write one row per frame to FILE")
    p.add_argument("--plot", metavar="FILE.png", help="draw decoded index against capture position")
    add_check_arguments(p)
    add_live_arguments(p)
    p.set_defaults(func=run)


def register_bench(bench_sub) -> None:
    p = bench_sub.add_parser("decode", help="frames/s decoding counter panels, with and without file reading")
    p.add_argument("--size", default="1920x1080", help="frame size (default 1920x1080)")
    p.add_argument("--bits", type=int, default=16)
    p.add_argument("--frames", type=int, default=120, help="distinct frames to decode (default 120)")
    p.add_argument("--files", type=int, default=60, help="frames written to PNG and video (default 60)")
    p.add_argument("--no-files", action="store_true", help="only the in-memory figures")
    p.add_argument("--threads", type=int, default=None,
                   help="reading threads set against one (image files decoded ahead, a video's "
                        "codec threads; default: the CPUs, at most 4)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_bench)


def _check_args(args) -> None:
    from pathlib import Path

    from core.atomic import require_writable
    from core.decode import check_plot_path

    if args.bits is not None and not 1 <= args.bits <= 31:
        raise CliError(f"--bits must be 1..31, got {args.bits}")
    for flag, rate in (("--capture-fps", args.capture_fps), ("--display-fps", args.display_fps)):
        if rate is not None and not (math.isfinite(rate) and rate > 0):
            raise CliError(f"{flag} must be above 0, got {rate:g}")
    if args.csv:
        require_writable(args.csv)
    if args.plot:
        check_plot_path(require_writable(args.plot))
    refuse_overwriting_inputs([args.csv, args.plot], [args.manifest, args.timeline])
    if args.manifest and not Path(args.manifest).is_file():
        raise CliError(f"manifest {args.manifest} does not exist")
    if args.timeline and args.live is None and not Path(args.timeline).is_file():
        raise CliError(f"present log {args.timeline} does not exist")


def _inputs(job) -> list:
    """Every file the decode reads or may read: the frames or the video, and their sidecars."""
    from core.imageio import sidecar_path

    cap = job.capture
    if cap is None:
        return []
    files = list(cap.files) if cap.kind == "images" else [cap.source]
    return [*files, *(s for s in map(sidecar_path, files) if s.exists()), cap.manifest_path]


def run(args) -> int:
    from core.decode import DecodeJob, DecodeRequest, summary_lines, write_csv, write_plot

    check_live(args)
    _check_args(args)
    if args.live is not None:
        return run_live(args)
    job = DecodeJob(DecodeRequest(args.path, args.manifest, args.bits, args.capture_fps, args.display_fps,
                                  present_log=args.timeline))
    try:
        refuse_overwriting_inputs([args.csv, args.plot], _inputs(job))
    except ValueError:
        job.close()
        raise
    prog = Progress(job.total, "decode")
    cancelled = False
    try:
        for r in job:
            prog.update(r.position + 1, r.status if r.index is None else str(r.index))
    except KeyboardInterrupt:
        cancelled = True
    finally:
        prog.close()
        job.close()
    if not job.results:
        raise CliError(f"no frames could be read from {args.path}")
    report = job.report(cancelled=cancelled)
    verdict = set_checks(report, args)
    if args.csv:
        write_csv(args.csv, report["frames"], report["events"])
    if args.plot:
        write_plot(args.plot, report)
    if args.json:
        print_json(report)
    else:
        print("\n".join(summary_lines(report)))
    if cancelled:
        print("testcard: interrupted; the report covers the frames decoded so far", file=sys.stderr)
        return 130
    return exit_status(verdict)


def run_bench(args) -> int:
    from core.decode import bench_decode
    from core.patterns import parse_size

    w, h = parse_size(args.size)
    if not 1 <= args.bits <= 31:
        raise CliError(f"--bits must be 1..31, got {args.bits}")
    if args.frames < 1 or args.files < 1:
        raise CliError("--frames and --files must be at least 1")
    if args.threads is not None and args.threads < 1:
        raise CliError(f"--threads must be at least 1, got {args.threads}")
    if not args.no_files:
        import tempfile
        from pathlib import Path

        check_output(Path(tempfile.gettempdir()) / "testcard-bench", "the benchmark's frame files",
                     "--no-files measures in memory only")
    prog = Progress(None, "bench decode")
    rows = bench_decode(w, h, bits=args.bits, frames=args.frames, files=0 if args.no_files else args.files,
                        progress=lambda note: prog.update(prog.done + 1, note), threads=args.threads)
    prog.close()
    if args.json:
        print_json(rows)
        return 0
    print(f"# robust {args.bits}-bit panel at {w}x{h}; one core for the in-memory rows; "
          "file rows include reading and decoding the file", file=sys.stderr)
    print_table(rows, ["case", "frames", "frames_per_s", "ms_per_frame", "note"])
    return 0

