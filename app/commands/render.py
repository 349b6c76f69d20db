"""``testcard render``: one frame to PNG, TIFF or .npy, with its manifest."""

from __future__ import annotations

import sys

from app.commands.common import parse_sets
from core.patterns import parse_size


def add_spec_arguments(p, size_required: bool = True) -> None:
    """Arguments that describe a frame; shared by render and the benchmarks."""
    p.add_argument("--size", required=size_required, default=None if size_required else "1920x1080",
                   help="frame size WIDTHxHEIGHT (or 1080p, 1440p, 2160p)")
    p.add_argument("--bit-depth", type=int, default=10, help="code-value bit depth 1..16 (default 10)")
    p.add_argument("--dtype", default="uint16", help="output dtype (default uint16)")
    p.add_argument("--limited", action="store_true", help="limited (video) range: 64..940 at 10 bits")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="set a pattern parameter (repeatable)")
    p.add_argument("--roi", help="region of interest x,y,w,h; pixels outside are 0")
    p.add_argument("--counter", action="store_true", help="composite the frame-counter panel")
    p.add_argument("--counter-bits", type=int, default=16, help="counter bits with --counter")


def spec_from_args(name: str, args):
    from core.patterns import make_spec

    w, h = parse_size(args.size)
    roi = None
    if args.roi:
        try:
            roi = tuple(int(v) for v in args.roi.split(","))
        except ValueError:
            raise ValueError(f"--roi takes x,y,w,h integers, got {args.roi!r}") from None
    return make_spec(name, parse_sets(args.set), width=w, height=h, bit_depth=args.bit_depth,
                     limited=args.limited, dtype=args.dtype, roi=roi,
                     counter_bits=args.counter_bits if args.counter else None)


def register(sub) -> None:
    p = sub.add_parser("render", help="render one frame to .png, .tif or .npy (plus OUT.json)")
    p.add_argument("name", help="pattern name (see `testcard patterns`)")
    add_spec_arguments(p)
    p.add_argument("--frame", type=int, default=0, help="frame index (default 0)")
    p.add_argument("--backend", default="numpy", choices=("numpy", "torch"))
    p.add_argument("--device", default=None, help="torch device (cpu, cuda, cuda:1, mps)")
    p.add_argument("-o", "--output", required=True, help="output file: .png, .tif or .npy")
    p.set_defaults(func=run)


def run(args) -> int:
    from core import xp as X
    from core.imageio import check_output_path
    from core.manifest import save_frame
    from core.patterns import render

    spec = spec_from_args(args.name, args)
    check_output_path(args.output)
    if args.frame < 0:
        raise ValueError(f"--frame must be >= 0, got {args.frame}")
    xp = X.namespace(args.backend)
    device = None
    if args.backend == "torch":
        from core.engine import check_device

        device = check_device(args.device or "cpu")
        frame = xp.tensor(args.frame, device=device)
    elif args.device not in (None, "cpu"):
        raise ValueError("--device needs --backend torch")
    else:
        frame = args.frame
    arr = render(spec, frame, xp, device)
    out = save_frame(args.output, spec, arr, args.frame, args.backend, str(device) if device else None)
    print(f"wrote {out} ({spec.width}x{spec.height}, {spec.bit_depth}-bit, {spec.pattern})",
          file=sys.stderr)
    return 0
