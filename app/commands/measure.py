"""``testcard measure``: race the render paths on bands of work and record the verdicts.

Two forms: ``--form live`` races inside the real presenter (:mod:`app.commands.measure_live`;
the default where a display is available), ``--form render`` times each render in isolation
(headless boxes, CI; the default where there is no display)."""

from __future__ import annotations

import sys

from app.commands.common import Number, Progress, check_output, print_json, print_table
from app.commands.measure_live import live_display_problem, run_live

DEFAULT_BANDS = ("animated@1080p/rgb10", "animated@2160p/rgb10")
FORMS = ("live", "render")


def register(sub) -> None:
    p = sub.add_parser(
        "measure", help="race the render paths on bands of work and record the winners",
        description="Race the render paths (numpy, torch-eager, torch-compiled, torch-cudagraphs) "
                    "on each band: parity with numpy first, then paired rounds in rotated order. "
                    "--form live presents every candidate in the real output window at the "
                    "screen's cadence: fewer late frames win, then the lower p99 frame cost "
                    "(render + transfer + upload), each beyond the spread and the margin; compile "
                    "and warm-up frames are reported and never counted. --form render times each "
                    "render in isolation: a path replaces the simpler default only when it is "
                    "faster by more than the margin beyond the measured spread. Verdicts go to "
                    "the decision cache unless --no-record; a live verdict outranks a render one.")
    p.add_argument("--band", action="append", metavar="NAME",
                   help="FAMILY@RESOLUTION/FORMAT, e.g. counter@2160p/rgb10 (repeatable; default "
                        + ", ".join(DEFAULT_BANDS) + "); a live race records the band in the "
                        "format the output surface shows")
    p.add_argument("--candidates", action="append", metavar="PATHS",
                   help="render paths to race, comma-separated or repeated (default: every path)")
    p.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N or mps (default cpu)")
    p.add_argument("--form", choices=FORMS, default=None,
                   help="live: in the real presenter on a screen; render: renders in isolation "
                        "(default: live where a display is available, else render)")
    p.add_argument("--screen", type=int, default=None, metavar="N",
                   help="the screen a live race presents on, by index (default: the primary); the index "
                        "counts the screens of the display connection, as --screen of testcard show does")
    p.add_argument("--rounds", type=int, default=9, help="rounds, candidates rotated (default 9)")
    p.add_argument("--frames", type=int, default=50, help="timed frames per round (default 50)")
    p.add_argument("--warmup", type=int, default=5, help="untimed frames per round (default 5)")
    p.add_argument("--margin", type=Number(0, 100, "%", below=True), default=3.0, metavar="PCT",
                   help="how much faster (render), or how many fewer late frames and how much "
                        "cheaper (live), in %% beyond the spread, a challenger must be (default 3)")
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

    out = {"band": result.band, "device": result.device, "fingerprint": fp, "form": result.form,
           "winner": result.winner, "reason": result.reason, "recorded": recorded,
           "rounds": result.settings.rounds, "frames": result.settings.frames,
           "margin_pct": round(result.settings.margin * 100, 3),
           "candidates": candidate_figures(result)}
    if result.form == "live":
        out["period_ms"] = result.period_ms
    return out


def result_rows(result) -> list[dict]:
    """The race's rows (:func:`core.decisions.race_rows`, as the Measure panel shows them) under
    :func:`table_columns`, each with its band."""
    from core.decisions import race_rows

    rows = [{"band": result.band, **row.cells(result.form)} for row in race_rows(result)]
    for row in rows:
        row["note"] = row["note"][:60]     # the verdict below says it whole
    return rows


def table_columns(form: str) -> list[str]:
    from core.decisions import columns

    return ["band", *columns(form)]


def table_note(form: str, default: str | None) -> str:
    """What the table's figures are, in one line: the ranked figure and the ratio's meaning."""
    from core.decisions import VS_DEFAULT, ranked

    fig = ranked(form)
    base = f" ({default})" if default else ""
    return (f"{fig.name} = {fig.means}; vs default{base} = {VS_DEFAULT.means}; * = winner")


def resolve_form(form: str | None) -> str:
    """``--form`` as given, else live where a display is available and render elsewhere."""
    if form is not None:
        return form
    return "render" if live_display_problem() else "live"


def run(args) -> int:
    from app.commands.decisions import report_warnings
    from core.decisions import (
        DecisionCache,
        RaceRequest,
        RaceSettings,
        band_candidates,
        default_path,
        fingerprint,
        parse_band,
        progress_step,
        record_result,
        run_race,
    )
    from core.engine import check_device

    bands = [parse_band(b) for b in (args.band or DEFAULT_BANDS)]
    bands = list(dict.fromkeys(bands))
    paths = parse_candidates(args.candidates)
    check_device(args.device)
    form = resolve_form(args.form)
    if not 0 <= args.margin < 100:
        raise ValueError(f"--margin is a percentage 0..100, got {args.margin:g}")
    if args.screen is not None and form != "live":
        raise ValueError("--screen is where a live race presents; it needs --form live")
    settings = RaceSettings(rounds=args.rounds, frames=args.frames, warmup=args.warmup,
                            margin=args.margin / 100.0)
    fp = fingerprint(args.device)
    plans = []   # what each band's race will run: for the progress total and the checks
    for band in bands:
        runnable, unavailable, _ = band_candidates(band, args.device, paths)
        band.spec()  # refuses a band whose representative frame cannot be built here
        if not runnable:
            raise ValueError(f"no candidate can run on {args.device} for {band.name}: "
                             + "; ".join(f"{k}: {v}" for k, v in unavailable.items()))
        plans.append((band, runnable, unavailable))
    per = settings.live_frames_per_candidate if form == "live" else settings.frames_per_candidate
    total = sum(len(r) * per for _, r, _ in plans)
    prog = Progress(total, "measure")
    out, recorded_bands = [], []
    cache = DecisionCache()
    if not args.no_record:
        check_output(cache.path, "the decision cache", "--no-record measures without recording",
                     make_parent=True)
        cache.check_writable()   # also a cache from a newer testcard, or one it cannot read
    base = {}

    def announce(band, raced=None, setup=None):
        names = ", ".join(c.name for b, r, _ in plans if b == band for c in r) or "none"
        print(f"measure: {band.name} on {args.device} ({fp}): {names}", file=sys.stderr)
        if raced is not None:
            print(f"measure: live on screen {setup['screen']} at {setup['refresh_hz']:.2f} Hz, "
                  f"{setup['presenter']} presenter, {setup['surface_bits']}-bit surface, "
                  f"{setup['pacing']} pacing: racing {raced.name}", file=sys.stderr)
        i = [b for b, _, _ in plans].index(band)
        base[(raced or band).name] = sum(len(r) * per for _, r, _ in plans[:i])   # frames before it

    def step(name, p):
        prog.update(base.get(name, 0) + p.done, f"{name} {progress_step(p, settings.rounds)}")

    def finished(result):
        recorded = False
        if not args.no_record and result.winner is not None:
            record_result(result, cache)
            recorded = True
            recorded_bands.append(result.band)
        out.append((result, recorded))

    with report_warnings():
        try:
            if form == "live":
                run_live(args, plans, settings, paths, announce, lambda b, p: step(b.name, p), finished)
            else:
                for band, _runnable, _unavailable in plans:
                    announce(band)
                    request = RaceRequest(band, args.device, tuple(paths or ()), settings)
                    finished(run_race(request.steps(), lambda p, b=band: step(b.name, p)))
        finally:
            prog.close()     # Ctrl-C or an error too: the shell's prompt starts on a line of its own
    if args.json:
        print_json([result_json(r, fp, rec) for r, rec in out])
    else:
        how = ("live in the real presenter: fewer late frames win, then the lower p99 frame cost"
               if form == "live" else "render form (isolated renders)")
        defaults = sorted({d for d in (default_path(r) for r, _ in out) if d})
        print(f"# {fp}; {settings.rounds} rounds x ({settings.warmup} warm-up + {settings.frames} "
              f"timed frames); margin {args.margin:g} %; {how}")
        print(f"# {table_note(form, ', '.join(defaults))}")
        print_table([row for r, _ in out for row in result_rows(r)], table_columns(form))
        for r, rec in out:
            print(f"{r.band}: {r.winner or 'no winner'} -- {r.reason}"
                  + (" [recorded]" if rec else ""))
    if not args.no_record:
        where = cache.path
        print(f"measure: recorded {len(recorded_bands)} verdict(s) in {where}", file=sys.stderr)
    return 0 if all(r.winner for r, _ in out) else 1
