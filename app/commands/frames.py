"""``testcard bench frames``: N frames through the frame engine, no window.

Prints per-frame render and transfer statistics, graphs compiled, compile
seconds, and the ratio of the median render to the same run's cost of filling
an output buffer of that size on that device.
"""

from __future__ import annotations

import sys

from app.commands.common import CliError, Progress, print_json
from app.commands.render import add_spec_arguments, spec_from_args


def register_bench(bench_sub) -> None:
    p = bench_sub.add_parser("frames", help="render N frames through the engine on a path; "
                                            "render/transfer statistics, graphs, compile time")
    p.add_argument("--pattern", required=True, help="pattern name (see `testcard patterns`)")
    add_spec_arguments(p)
    p.add_argument("--path", default="numpy",
                   help="render path: numpy, torch-eager, torch-compiled, torch-cudagraphs (default numpy)")
    p.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N or mps (default cpu)")
    p.add_argument("--frames", type=int, default=200, help="frames to time (default 200)")
    p.add_argument("--warmup", type=int, default=5, help="untimed frames after compiling (default 5)")
    p.add_argument("--format", default="native", dest="fmt",
                   help="output format: native, rgb8, rgb10 or rgb16 (default native)")
    p.add_argument("--allow-rounding", action="store_true",
                   help="allow a format narrower than the bit depth (values round)")
    p.add_argument("--threads", type=int, default=0,
                   help="torch CPU threads (default: torch's own choice; 1 is steadier on a busy box)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args) -> int:
    from core.engine import FORMATS, PATHS, bench_frames, path_problem

    if args.frames < 1:
        raise CliError(f"--frames must be >= 1, got {args.frames}")
    if args.warmup < 0:
        raise CliError(f"--warmup must be >= 0, got {args.warmup}")
    if args.path not in PATHS:
        raise CliError(f"unknown render path {args.path!r}: expected one of {', '.join(PATHS)}")
    if args.fmt not in FORMATS:
        raise CliError(f"unknown format {args.fmt!r}: expected one of {', '.join(FORMATS)}")
    why = path_problem(args.path, args.device)
    if why:
        raise CliError(why)
    if args.threads < 0:
        raise CliError(f"--threads must be >= 0, got {args.threads}")
    threads = None
    if args.path != "numpy" or args.threads:
        import torch

        if args.threads:
            torch.set_num_threads(args.threads)
        threads = torch.get_num_threads()
    spec = spec_from_args(args.pattern, args)
    prog = Progress(args.frames, f"{args.pattern} {args.path}")
    if args.path in ("torch-compiled", "torch-cudagraphs"):
        print(f"compiling {args.pattern} {spec.width}x{spec.height} for {args.path} on {args.device} ...",
              file=sys.stderr)
    out = bench_frames(spec, path=args.path, device=args.device, fmt=args.fmt, frames=args.frames,
                       warmup=args.warmup, allow_rounding=args.allow_rounding,
                       progress=lambda done, total: prog.update(done))
    prog.close()
    out["threads"] = threads
    if args.json:
        print_json(out)
        return 0
    r, t = out["render_ms"], out["transfer_ms"]
    print(f"{out['pattern']} {out['size']} {out['bit_depth']}-bit {out['format']} on {out['path']} "
          f"({out['device']}{f', {threads} threads' if threads else ''}): {out['frames']} frames")
    print(f"  render    median {r['median']:.3f} ms  p99 {r['p99']:.3f} ms  max {r['max']:.3f} ms")
    print(f"  transfer  median {t['median']:.3f} ms  p99 {t['p99']:.3f} ms")
    print(f"  baseline  {out['baseline_ms']:.3f} ms (fill of a same-size buffer)   "
          f"ratio {out['ratio']}")
    print(f"  graphs {out['graphs']}  compile {out['compile_s']:.1f} s  served by "
          + ", ".join(f"{k} x{v}" for k, v in out["served"].items()))
    if out["note"]:
        print(f"  note: {out['note']}")
    if out["errors"]:
        print(f"  {out['errors']} frames failed; first: {out['first_error']}", file=sys.stderr)
    return 0
