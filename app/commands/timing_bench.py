"""``testcard bench timing``: what a refresh of the live timing figures costs, and the memory
the timeline holds, after 1 min, 1 h and 24 h of synthetic frames (headless; figures only)."""

from __future__ import annotations

import math
import sys

from app.commands.common import CliError, Number, Progress, print_json, print_table

COLUMNS = ["run", "frames", "rows_held", "memory_mib", "samples", "points", "copy_ms", "view_ms",
           "stats_ms", "plot_ms", "append_us"]


def register_bench(bench_sub) -> None:
    p = bench_sub.add_parser(
        "timing", help="refresh cost and memory of the live timing figures after 1 min, 1 h, 24 h")
    p.add_argument("--rate", type=Number(0, 1000, "frames per second", above=True), default=60.0,
                   help="frames per second of the synthetic run (default 60)")
    p.add_argument("--window", type=Number(5, 600, "s"), default=600.0,
                   help="the plot window in seconds: 5, 60 or 600 (default 600)")
    p.add_argument("--repeats", type=int, default=15, help="refreshes timed per run length (default 15)")
    p.add_argument("--json", action="store_true", help="print one JSON list")
    p.set_defaults(func=run)


def run(args) -> int:
    from core.timing import WINDOWS_S, bench_timing

    if not (math.isfinite(args.rate) and 0 < args.rate <= 1000):
        raise CliError(f"--rate must be above 0 and at most 1000 frames per second, got {args.rate:g}")
    if args.window not in WINDOWS_S:
        raise CliError(f"--window must be 5, 60 or 600 seconds, got {args.window:g}")
    if args.repeats < 1:
        raise CliError(f"--repeats must be >= 1, got {args.repeats}")
    steps = 6
    prog = Progress(steps, "bench timing")
    done = [0]

    def step(note):
        prog.update(done[0], note)
        done[0] += 1

    rows = bench_timing(rate_hz=args.rate, window_s=args.window, repeats=args.repeats, progress=step)
    prog.close()
    if args.json:
        print_json(rows)
        return 0
    print(f"# synthetic run at {args.rate:g} Hz, plot window {args.window:g} s; median of "
          f"{args.repeats} refreshes; copy = GUI thread, view = worker (stats + plot)",
          file=sys.stderr)
    print_table(rows, COLUMNS)
    return 0
