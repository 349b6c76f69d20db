"""``testcard scale``: how the capture chain scaled the frame, from a captured zone plate."""

from __future__ import annotations

import sys

from app.commands.common import CliError, Progress, print_json, print_table


def register(sub) -> None:
    p = sub.add_parser(
        "scale", help="measure the chain's horizontal and vertical scale from a captured zone plate",
        description="Measure captured size / rendered size across and down from a captured "
                    "zone_plate frame (an image, a folder or glob of them, or a video: every frame, "
                    "and their median). The rendered plate's size comes from its manifest: "
                    "--manifest, or the capture's own sidecar. Scales 0.25 to 2 are read to "
                    "within 0.02 per axis, the two axes independently; a capture that shows no "
                    "plate, or one too small or blurred to measure, is an error, not a number.")
    p.add_argument("capture", metavar="CAPTURE",
                   help="a captured image (PNG/TIFF/JPEG/.npy), a folder or glob of them, or a video")
    p.add_argument("--manifest", metavar="FILE",
                   help="the rendered zone plate's sidecar (FRAME.png.json from `testcard render "
                        "zone_plate`); default: the capture's own sidecar")
    p.add_argument("--json", action="store_true",
                   help="print one JSON document: per-frame readings, their median, the plate")
    p.set_defaults(func=run)


def run(args) -> int:
    from pathlib import Path

    from core.decode import open_scale, scale_report, scale_steps

    if args.manifest and not Path(args.manifest).is_file():
        raise CliError(f"manifest {args.manifest} does not exist")
    capture, geometry = open_scale(args.capture, args.manifest)
    steps = scale_steps(capture, geometry)
    prog = Progress(capture.count, "scale")
    frames: list[dict] = []
    report = None
    try:
        for row in steps:
            frames.append(row)
            prog.update(len(frames), row.get("error", "")[:40] or f"{row['scale_x']:.3f}")
    except KeyboardInterrupt:
        steps.close()
        report = scale_report(frames, geometry, cancelled=True)
    finally:
        prog.close()
    if report is None:
        report = scale_report(frames, geometry)
    if not frames:
        raise CliError(f"no frames could be read from {args.capture}")
    if report["measured"] == 0 and not report["cancelled"]:
        more = f" (and in all {len(frames)} frames)" if len(frames) > 1 else ""
        raise CliError(f"{frames[0]['error']}{more}")
    if args.json:
        print_json(report)
    else:
        _print(report)
    if report["cancelled"]:
        print("testcard: interrupted; the report covers the frames measured so far", file=sys.stderr)
        return 130
    return 0


def _print(report: dict) -> None:
    frames = report["frames"]
    med = report["median"]
    if len(frames) > 1:
        rows = [{"frame": f["position"], "name": f.get("name") or "",
                 "scale_x": f.get("scale_x"), "scale_y": f.get("scale_y"), "match": f.get("match"),
                 "note": f.get("error", "")[:70]} for f in frames]
        print_table(rows, ["frame", "name", "scale_x", "scale_y", "match", "note"])
    if med is None:
        print("no frame measured")
        return
    over = (f" (median of {report['measured']} of {len(frames)} frames)" if len(frames) > 1 else "")
    print(f"scale: {med['scale_x']:.4f} across, {med['scale_y']:.4f} down "
          f"(captured / rendered size; rendered plate {report['geometry']['diameter']} px){over}")
    if len(frames) == 1:
        f = frames[0]
        print(f"plate centre in the capture: ({f['centre'][0]:.1f}, {f['centre'][1]:.1f}); "
              f"match {f['match']:.2f}")
