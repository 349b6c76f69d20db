"""``testcard render``: one frame to PNG, TIFF or .npy, with its manifest."""

from __future__ import annotations

import sys

from app.commands.common import add_transfer_arguments, mastering_from_args, parse_sets
from core.levels import shown

MAX_FRAME = (1 << 63) - 1      # the largest index a frame (and its sidecar) can carry


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
    add_transfer_arguments(p)


def spec_from_args(name: str, args):
    from core.patterns import make_spec, parse_size

    w, h = parse_size(args.size)
    roi = None
    if args.roi:
        try:
            roi = tuple(int(v) for v in args.roi.split(","))
        except ValueError:
            raise ValueError(f"--roi takes x,y,w,h integers, got {args.roi!r}") from None
    return make_spec(name, parse_sets(args.set), width=w, height=h, bit_depth=args.bit_depth,
                     limited=args.limited, dtype=args.dtype, roi=roi,
                     counter_bits=args.counter_bits if args.counter else None,
                     transfer=args.transfer, mastering=mastering_from_args(args))


def register(sub) -> None:
    p = sub.add_parser("render", help="render one frame to .png, .tif or .npy (plus OUT.json)")
    p.add_argument("name", help="pattern name (see `testcard patterns`)")
    add_spec_arguments(p)
    p.add_argument("--frame", type=int, default=0, help="frame index (default 0)")
    p.add_argument("--backend", default="numpy", choices=("numpy", "torch"))
    p.add_argument("--device", default=None, help="torch device (cpu, cuda, cuda:1, mps)")
    p.add_argument("-o", "--output", required=True, help="output file: .png, .tif or .npy")
    p.add_argument("--hdr-metadata", metavar="OUT.bin",
                   help="also write the frame's 32-byte DRM HDR_OUTPUT_METADATA blob (MaxCLL and "
                        "MaxFALL computed from the frame; needs --transfer pq or hlg)")
    p.set_defaults(func=run)


def run(args) -> int:
    from core import xp as X
    from core.imageio import check_output_path
    from core.manifest import save_frame
    from core.patterns import frame_apl, render

    spec = spec_from_args(args.name, args)
    check_output_path(args.output, sidecar=True)
    if args.hdr_metadata is not None:
        from app.commands.common import check_output, refuse_overwriting_inputs
        from core.imageio import sidecar_path

        if spec.transfer == "sdr":
            raise ValueError("--hdr-metadata: an SDR frame has no HDR metadata; give --transfer pq "
                             "or hlg")
        check_output(args.hdr_metadata, "the HDR metadata blob")
        refuse_overwriting_inputs([args.hdr_metadata, args.output, sidecar_path(args.output)], [])
    if not 0 <= args.frame <= MAX_FRAME:
        # past int64 a torch render cannot hold the index, and testcard's own readers refuse
        # the sidecar that would record it
        raise ValueError(f"--frame must be 0..{MAX_FRAME}, got {shown(args.frame)}")
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
    signal = spec.signal_fields(arr)
    out = save_frame(args.output, spec, arr, args.frame, args.backend, str(device) if device else None,
                     signal=signal)
    print(f"wrote {out} ({spec.width}x{spec.height}, {spec.bit_depth}-bit, {spec.pattern})",
          file=sys.stderr)
    if "hdr" in signal:
        hdr = signal["hdr"]
        print(f"{spec.transfer.upper()} code values ({signal['signal']['range']} range), MaxCLL "
              f"{hdr['max_cll']:.1f} cd/m2, MaxFALL {hdr['max_fall']:.1f} cd/m2; the file tags "
              "nothing HDR: tell whatever shows it", file=sys.stderr)
    if args.hdr_metadata is not None:
        write_hdr_metadata(args.hdr_metadata, spec, signal["hdr"])
    problem = frame_apl(spec, args.frame).problem
    if problem:
        print(f"warning: {spec.pattern}: {problem}", file=sys.stderr)
    return 0


def write_hdr_metadata(path, spec, hdr: dict) -> None:
    """The blob for ``spec``'s frame (``hdr``: its sidecar entry), written atomically."""
    from core.atomic import atomic_write
    from core.patterns import hdr_output_metadata

    blob = hdr_output_metadata(spec.transfer, spec.mastering, hdr["max_cll_metadata"],
                               hdr["max_fall_metadata"])
    out = atomic_write(path, blob)
    print(f"wrote {out} (HDR_OUTPUT_METADATA, {len(blob)} bytes: EOTF {hdr['eotf']}, MaxCLL "
          f"{hdr['max_cll_metadata']}, MaxFALL {hdr['max_fall_metadata']} cd/m2)", file=sys.stderr)
