"""``testcard bench ...``: benchmarks that print figures (never pass/fail)."""

from __future__ import annotations

import sys

from app.commands import decode, frames, preview_bench, timing_bench
from app.commands.common import Progress, print_json, print_table

# The other commands' benchmarks (each module's register_bench), in help order.
BENCHMARKS = (preview_bench, frames, decode, timing_bench)


def register(sub) -> None:
    p = sub.add_parser("bench", help="benchmarks: patterns, frames, preview, decode, timing")
    bench_sub = p.add_subparsers(dest="bench", metavar="WHAT")
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])
    pp = bench_sub.add_parser("patterns", help="time every pattern on numpy and torch CPU")
    pp.add_argument("--size", default="3840x2160")
    pp.add_argument("--bit-depth", type=int, default=10)
    pp.add_argument("--dtype", default="uint16")
    pp.add_argument("--backend", action="append", choices=("numpy", "torch"),
                    help="limit to a backend (repeatable; default both)")
    pp.add_argument("--pattern", action="append", help="limit to a pattern (repeatable)")
    pp.add_argument("--repeats", type=int, default=15)
    pp.add_argument("--json", action="store_true")
    pp.set_defaults(func=run_patterns)
    for mod in BENCHMARKS:
        mod.register_bench(bench_sub)


def run_patterns(args) -> int:
    from core.patterns import bench_patterns, get_pattern, parse_size

    w, h = parse_size(args.size)
    for name in args.pattern or []:
        get_pattern(name)
    backends = tuple(args.backend or ("numpy", "torch"))
    names = args.pattern
    from core.patterns import catalog

    total = len(backends) * len(names or catalog())
    prog = Progress(total, "bench")
    count = [0]

    def step(note):
        prog.update(count[0], note)
        count[0] += 1

    rows = bench_patterns(w, h, backends, names, args.bit_depth, args.dtype,
                          repeats=args.repeats, progress=step)
    prog.close()
    if args.json:
        print_json(rows)
    else:
        print(f"# {w}x{h} {args.dtype} {args.bit_depth}-bit; median of {args.repeats} runs; "
              "baseline = full() of the same shape", file=sys.stderr)
        print_table(rows, ["pattern", "backend", "median_ms", "baseline_ms", "ratio"])
    return 0
