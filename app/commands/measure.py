"""``testcard measure``: race the render paths on bands of work and record the verdicts."""

from __future__ import annotations

import sys

from app.commands.common import Progress, print_json, print_table

DEFAULT_BANDS = ("animated@1080p/rgb10", "animated@2160p/rgb10")


def register(sub) -> None:
    p = sub.add_parser(
        "measure", help="race the render paths on bands of work and record the winners",
        description="Race the render paths (numpy, torch-eager, torch-compiled, torch-cudagraphs) "
                    "on each band: parity with numpy first, then paired rounds in rotated order. "
                    "A path replaces the simpler default only when it is faster by more than the "
                    "margin beyond the measured spread. Verdicts go to the decision cache unless "
                    "--no-record.")
    p.add_argument("--band", action="append", metavar="NAME",
                   help="FAMILY@RESOLUTION/FORMAT, e.g. counter@2160p/rgb10 (repeatable; default "
                        + ", ".join(DEFAULT_BANDS) + ")")
    p.add_argument("--candidates", action="append", metavar="PATHS",
                   help="render paths to race, comma-separated or repeated (default: every path)")
    p.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N or mps (default cpu)")
    p.add_argument("--rounds", type=int, default=9, help="rounds, candidates rotated (default 9)")
    p.add_argument("--frames", type=int, default=50, help="timed frames per round (default 50)")
    p.add_argument("--warmup", type=int, default=5, help="untimed frames per round (default 5)")
    p.add_argument("--margin", type=float, default=3.0, metavar="PCT",
                   help="how much faster, in %% beyond the spread, a challenger must be (default 3)")
    p.add_argument("--json", action="store_true", help="print a JSON list, one object per band")
    p.add_argument("--no-record", action="store_true", help="measure only; leave the cache alone")
    p.set_defaults(func=run)


def parse_candidates(items) -> list[str] | None:
    from core.engine import PATHS

    if not items:
        return None
    names = [n.strip() for item in items for n in item.split(",") if n.strip()]
    if not names:
        raise ValueError("--candidates names no render path")
    for n in names:
        if n not in PATHS:
            raise ValueError(f"unknown render path {n!r}: expected one of {', '.join(PATHS)}")
    return list(dict.fromkeys(names))


def result_json(result, fp: str, recorded: bool) -> dict:
    from core.decisions import candidate_figures

    return {"band": result.band, "device": result.device, "fingerprint": fp,
            "winner": result.winner, "reason": result.reason, "recorded": recorded,
            "rounds": result.settings.rounds, "frames": result.settings.frames,
            "margin_pct": round(result.settings.margin * 100, 3),
            "candidates": candidate_figures(result)}


def result_rows(result) -> list[dict]:
    rows = []
    for n, c in result.candidates.items():
        rows.append({"band": result.band, "path": n + (" *" if n == result.winner else ""),
                     "status": c.status, "median_ms": c.median_ms, "spread_ms": c.spread_ms,
                     "compile_s": c.compile_s,
                     "vs_default": (f"{c.median_ms / result.default_ms:.2f}x"
                                    if c.median_ms and result.default_ms else ""),
                     "note": c.reason[:60]})
    return rows


def run(args) -> int:
    from app.commands.decisions import report_warnings
    from core.decisions import (
        DecisionCache,
        RaceRequest,
        RaceSettings,
        band_candidates,
        fingerprint,
        parse_band,
        record_result,
        run_race,
    )
    from core.engine import check_device

    bands = [parse_band(b) for b in (args.band or DEFAULT_BANDS)]
    bands = list(dict.fromkeys(bands))
    paths = parse_candidates(args.candidates)
    check_device(args.device)
    if not 0 <= args.margin < 100:
        raise ValueError(f"--margin is a percentage 0..100, got {args.margin:g}")
    settings = RaceSettings(rounds=args.rounds, frames=args.frames, warmup=args.warmup,
                            margin=args.margin / 100.0)
    fp = fingerprint(args.device)
    plans = []   # what each band's race will run: for the progress total and the checks
    for band in bands:
        runnable, unavailable, _ = band_candidates(band, args.device, paths)
        band.spec()  # refuses a band whose representative frame cannot be built here
        plans.append((band, runnable, unavailable))
    total = sum(len(r) * settings.frames_per_candidate for _, r, _ in plans)
    prog = Progress(total, "measure")
    done_before = 0
    out, recorded_bands = [], []
    cache = DecisionCache()
    with report_warnings():
        for band, runnable, unavailable in plans:
            names = ", ".join(c.name for c in runnable) or "none"
            print(f"measure: {band.name} on {args.device} ({fp}): {names}", file=sys.stderr)
            if not runnable:
                raise ValueError(f"no candidate can run on {args.device} for {band.name}: "
                                 + "; ".join(f"{k}: {v}" for k, v in unavailable.items()))
            base = done_before

            def step(p, base=base, band=band):
                note = {"open": f"{band.name} starting {p.candidate}",
                        "parity": f"{band.name} parity",
                        "round": f"{band.name} round {p.round + 1} {p.candidate}",
                        "done": f"{band.name} done"}[p.phase]
                prog.update(base + p.done, note)

            request = RaceRequest(band, args.device, tuple(paths or ()), settings)
            result = run_race(request.steps(), step)
            done_before += len(runnable) * settings.frames_per_candidate
            recorded = False
            if not args.no_record and result.winner is not None:
                record_result(result, cache)
                recorded = True
                recorded_bands.append(band.name)
            out.append((result, recorded))
        prog.close()
    if args.json:
        print_json([result_json(r, fp, rec) for r, rec in out])
    else:
        print(f"# {fp}; {settings.rounds} rounds x ({settings.warmup} warm-up + {settings.frames} "
              f"timed frames); margin {args.margin:g} %; * = winner")
        print_table([row for r, _ in out for row in result_rows(r)],
                    ["band", "path", "status", "median_ms", "spread_ms", "compile_s", "vs_default",
                     "note"])
        for r, rec in out:
            print(f"{r.band}: {r.winner or 'no winner'} -- {r.reason}"
                  + (" [recorded]" if rec else ""))
    if not args.no_record:
        where = cache.path
        print(f"measure: recorded {len(recorded_bands)} verdict(s) in {where}", file=sys.stderr)
    return 0 if all(r.winner for r, _ in out) else 1
