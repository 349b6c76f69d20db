"""``testcard bench preview``: the real window, N frames, the per-frame cost of each stage.

Stages, per presented frame: render (the engine, device-synchronised, on the render thread),
transfer (device to host), upload (the GUI thread's share of moving pixels: mapping the pixel
buffer and ``glTexSubImage2D`` from it into the presenter's texture, or wrapping the bytes for
the raster presenter) and present (paint start to swap done).  Prints median and p99 of each
and of render+transfer+upload, the per-frame cost that must fit the budget.
``--no-render-thread`` renders on the GUI thread, ``--no-pbo`` uploads from host memory and
``--whole-frames`` renders and uploads every frame whole (where only a counter moves, the loop
otherwise writes and uploads just its lines), so one command line measures the loop as it was
beside the loop as it is.
"""

from __future__ import annotations

import sys

from app.commands.common import CliError, Progress, check_output, print_json, print_table
from app.commands.render import add_spec_arguments, spec_from_args

STAGES = ("render_ms", "transfer_ms", "upload_ms", "present_ms")


def register_bench(bench_sub) -> None:
    p = bench_sub.add_parser(
        "preview", help="run the live window for N frames; per-frame render, transfer, upload, present")
    p.add_argument("--pattern", default="counter", help="pattern to show (default counter)")
    add_spec_arguments(p, size_required=False)
    p.add_argument("--device", default="cpu", help="render device: cpu, cuda, cuda:N or mps (default cpu)")
    p.add_argument("--frames", type=int, default=300, help="frames to measure (default 300)")
    p.add_argument("--warmup", type=int, default=30,
                   help="frames presented first and not counted (default 30)")
    p.add_argument("--fullscreen", action="store_true",
                   help="measure the fullscreen output window (1:1 pixels) instead of the scaled preview")
    p.add_argument("--no-render-thread", action="store_true",
                   help="render on the GUI thread, one frame ahead, also frames rendered whole (where "
                        "only the counter's lines are written the loop does so anyway)")
    p.add_argument("--no-pbo", action="store_true",
                   help="upload from host memory, not from pixel-buffer objects the engine writes into")
    p.add_argument("--whole-frames", action="store_true",
                   help="render and upload every frame whole, also where only the counter's lines change")
    p.add_argument("--metrics", choices=("off", "on", "both"), default="off",
                   help="serve Prometheus metrics while measuring, fed every frame and scraped twice a "
                        "second (on), or, after one uncounted warm-up run, measure off and on "
                        "alternately three times each and compare (both)")
    p.add_argument("--timeline", metavar="CSV", help="also write the per-frame timeline here")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def stage_figures(snapshot, warmup: int) -> dict:
    """Median and p99 per stage over the frames after ``warmup`` (pure numpy)."""
    import numpy as np

    out = {}
    cols = {s: getattr(snapshot, s)[warmup:] for s in STAGES}
    cols["render_transfer_upload_ms"] = cols["render_ms"] + cols["transfer_ms"] + cols["upload_ms"]
    for name, v in cols.items():
        v = np.asarray(v, np.float64)
        out[name] = ({"median": round(float(np.median(v)), 3), "p99": round(float(np.percentile(v, 99)), 3)}
                     if len(v) else {"median": None, "p99": None})
    return out


def run(args) -> int:
    if args.frames < 1:
        raise CliError(f"--frames must be >= 1, got {args.frames}")
    if args.warmup < 0:
        raise CliError(f"--warmup must be >= 0, got {args.warmup}")
    spec = spec_from_args(args.pattern, args)
    if args.device != "cpu":
        from core.engine import device_problem

        why = device_problem(args.device)
        if why:
            raise CliError(f"--device {args.device}: {why}")
    if args.timeline:
        if args.metrics == "both":
            raise CliError("--timeline records one run: leave it out with --metrics both")
        check_output(args.timeline, "--timeline")

    from app.qapp import ensure_qapplication

    app = ensure_qapplication()
    if args.metrics == "both":
        # a first window warms the process (imports, GL, the engine) and is not counted; then
        # off and on alternate, three of each, so drift on a shared box falls on both
        measure(app, args, spec, metrics=False)
        runs = [measure(app, args, spec, metrics=on) for on in (False, True) * 3]
        return print_metrics_comparison(runs, args.json)
    info = measure(app, args, spec, metrics=args.metrics == "on")
    cancelled = info["cancelled"]
    if args.json:
        print_json(info)
    else:
        ups = ", ".join(f"{n} {k}" for k, n in info["uploads"].items()) or "none counted"
        print(f"# {info['pattern']} {info['size']} {info['bit_depth']}-bit, path {info['path']} "
              f"({info['path_source']}), {info['presenter']} presenter, {info['surface_bits']}-bit surface "
              f"-> {info['format']}, {info['pacing']} at {info['refresh_hz']:.2f} Hz; "
              f"{info['frames']} frames after {info['warmup']} warm-up; render thread "
              f"{'on' if info['render_thread'] else 'off'}, uploads: {ups} "
              f"({info['line_uploads']} of the changing lines only); timing dock "
              f"{'shown' if info['timing_dock_visible'] else 'hidden'}", file=sys.stderr)
        rows = []
        for key, label in (("render_ms", "render"), ("transfer_ms", "transfer"), ("upload_ms", "upload"),
                           ("present_ms", "present"), ("render_transfer_upload_ms", "render+transfer+upload"),
                           ("interval_ms", "present interval")):
            fig = info[key] or {}
            rows.append({"stage": label, "median_ms": fig.get("median"), "p99_ms": fig.get("p99")})
        print_table(rows, ["stage", "median_ms", "p99_ms"])
        print(f"late frames: {info['late']}, missed vsyncs: {info['missed_vsyncs']}")
    return 130 if cancelled else 0


def measure(app, args, spec, *, metrics: bool) -> dict:
    """One run of the real window: ``args.warmup`` + ``args.frames`` presents; the figures.
    ``metrics``: the live output's metrics fed every frame and served, a scraper reading them
    twice a second meanwhile (what a fleet's Prometheus costs the box)."""
    import signal

    from app.preview import FrameLoop, GLPresenter
    from app.settings import Settings
    from app.window import MainWindow
    from core.timing import frame_stats

    total = args.warmup + args.frames
    # process-wide for this run: the loop and every GL presenter the window makes
    FrameLoop.render_thread = not args.no_render_thread
    GLPresenter.pixel_buffers = not args.no_pbo
    FrameLoop.line_updates = not args.whole_frames
    win = MainWindow(spec=spec, settings=Settings(device=args.device), persist=False, frame_limit=total,
                     reuse_static=False)
    prog = Progress(total, "bench preview")
    win.loop.frame_presented.connect(lambda _i: prog.update(win.loop.presented_count))
    loop = win.loop
    scraper = start_scraper(win) if metrics else None
    seen = {}

    def finish():
        # what was measuring, read before closing the output hands the loop back to the preview
        shown = win.output.window or win.preview
        seen.update(presenter=shown.kind, surface_bits=shown.surface_bits, format=loop.fmt,
                    render_thread=loop.renders_threaded, uploads=dict(shown.uploads),
                    line_uploads=getattr(shown, "line_uploads", 0),
                    timing_dock_visible=win.timing.isVisible(),
                    pacing=loop.mode, pacing_reason=loop.monitor.reason,
                    refresh_hz=round(1000.0 / loop.period_ms, 3), period_ms=loop.period_ms,
                    path=loop.active_path, path_source=loop.path_source)
        # close the window rather than app.quit(): Qt 6.12 can crash delivering a pending
        # update request to a GL window that quit() tore down
        win.close()

    loop.finished.connect(finish)
    cancelled = []

    def on_sigint(*_):
        cancelled.append(True)
        finish()

    old = signal.signal(signal.SIGINT, on_sigint)
    win.resize(1600, 1000)
    win.show()
    win.timing.raise_()          # its tab in front: the dock's refresh is part of what is measured
    if args.fullscreen:
        win.toggle_fullscreen(True)
    try:
        app.exec()
    finally:
        signal.signal(signal.SIGINT, old)
        prog.close()
        if scraper is not None:
            scraper()
    if not seen:  # the window was closed by hand
        cancelled.append(True)
        finish()
    snap = loop.timeline.snapshot()
    period_ms = seen.pop("period_ms")
    info = {"pattern": spec.pattern, "size": f"{spec.width}x{spec.height}", "bit_depth": spec.bit_depth,
            "device": loop.device, **seen, "fullscreen": bool(args.fullscreen),
            "frames": max(0, len(snap) - args.warmup), "warmup": args.warmup, "cancelled": bool(cancelled),
            "metrics": bool(metrics)}
    if args.timeline:
        snap.write_csv(args.timeline)
    warm = min(args.warmup, len(snap))
    info.update(stage_figures(snap, warm))
    stats = frame_stats(snap.present_s, period_ms, render_ms=snap.render_ms, warmup=warm)
    iv = stats["interval_ms"] or {}
    info["interval_ms"] = {"median": round(iv["p50"], 3), "p99": round(iv["p99"], 3)} if iv else None
    info["late"], info["missed_vsyncs"] = stats["late"], stats["missed_vsyncs"]
    return info


def start_scraper(win):
    """Serve ``win``'s live metrics on a free loopback port and scrape them twice a second
    from a thread; returns the function that stops both."""
    import threading
    import urllib.request

    from app.preview import start_metrics

    _live, server = start_metrics(("127.0.0.1", 0), win.loop, presenter=win.presenter_kind, parent=win)
    stop = threading.Event()

    def scrape():
        while not stop.wait(0.5):
            try:
                with urllib.request.urlopen(server.url, timeout=2) as r:
                    r.read()
            except OSError:
                pass

    thread = threading.Thread(target=scrape, name="testcard-bench-scraper", daemon=True)
    thread.start()

    def close():
        stop.set()
        thread.join(5)
        server.close()

    return close


def print_metrics_comparison(runs: list[dict], as_json: bool) -> int:
    """Each run's late frames and p99s, metrics off and on alternately, and the medians."""
    import statistics

    rows = [{"run": i + 1, "metrics": "on" if r["metrics"] else "off", "late": r["late"],
             "missed_vsyncs": r["missed_vsyncs"],
             "interval_p99_ms": (r["interval_ms"] or {}).get("p99"),
             "rtu_p99_ms": r["render_transfer_upload_ms"]["p99"]} for i, r in enumerate(runs)]
    summary = {}
    for state in ("off", "on"):
        mine = [row for row in rows if row["metrics"] == state]
        summary[state] = {k: round(statistics.median([r[k] for r in mine if r[k] is not None] or [0]), 3)
                          for k in ("late", "interval_p99_ms", "rtu_p99_ms")}
    if as_json:
        print_json({"runs": runs, "summary": summary})
    else:
        print_table(rows, ["run", "metrics", "late", "missed_vsyncs", "interval_p99_ms", "rtu_p99_ms"])
        for state, fig in summary.items():
            print(f"metrics {state}: median late {fig['late']}, present interval p99 "
                  f"{fig['interval_p99_ms']} ms, render+transfer+upload p99 {fig['rtu_p99_ms']} ms")
    return 130 if any(r["cancelled"] for r in runs) else 0
