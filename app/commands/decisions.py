"""``testcard decisions ...``: show, export, import, clear the decision cache; say which path
a band gets and which source decided."""

from __future__ import annotations

import contextlib
import sys
import warnings

from app.commands.common import print_json, print_table


def register(sub) -> None:
    p = sub.add_parser("decisions", help="the render-path decision cache: show, which, export, "
                                         "import, clear",
                       description="Verdicts measured by `testcard measure`, keyed by device "
                                   "fingerprint, band and form (live: raced in the real presenter; "
                                   "render: renders in isolation). Lookup order: the "
                                   "TESTCARD_RENDER_PATH pin, then this device's cached verdict "
                                   "(for each band its live verdict first, then its render one), "
                                   "then the default.")
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])
    ds = p.add_subparsers(dest="decisions", metavar="ACTION")

    s = ds.add_parser("show", help="every entry in the cache")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run_show)

    w = ds.add_parser("which", help="the path a band gets here, and which source decided")
    w.add_argument("band", metavar="BAND")
    w.add_argument("--device", default="cpu")
    w.add_argument("--json", action="store_true")
    w.set_defaults(func=run_which)

    e = ds.add_parser("export", help="write this box's verdicts to a decision file")
    e.add_argument("file", metavar="FILE")
    e.add_argument("--band", action="append", metavar="NAME", help="only these bands (repeatable)")
    e.add_argument("--device", action="append", metavar="DEVICE",
                   help="only this device (cpu, cuda:0, mps, or a fingerprint; repeatable; "
                        "default: every device of this box)")
    e.set_defaults(func=run_export)

    i = ds.add_parser("import", help="merge a decision file (validated whole; local entries win)")
    i.add_argument("file", metavar="FILE")
    i.add_argument("--json", action="store_true", help="print the receipt as JSON")
    i.set_defaults(func=run_import)

    c = ds.add_parser("clear", help="remove verdicts (all, or only some bands / devices)")
    c.add_argument("--band", action="append", metavar="NAME")
    c.add_argument("--device", action="append", metavar="DEVICE")
    c.set_defaults(func=run_clear)


@contextlib.contextmanager
def report_warnings():
    """Cache warnings (a corrupt file moved aside...) as one ``testcard: warning:`` line each;
    other warnings are passed on unchanged once the block has ended."""
    from core.decisions import DecisionCacheWarning

    caught = []
    try:
        with warnings.catch_warnings(record=True) as recorded:
            warnings.simplefilter("always", DecisionCacheWarning)
            try:
                yield
            finally:
                caught = list(recorded)
    finally:
        for w in caught:
            if issubclass(w.category, DecisionCacheWarning):
                print(f"testcard: warning: {w.message}", file=sys.stderr)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def run_show(args) -> int:
    from core.decisions import DecisionCache, list_entries, ms_text, ranked
    from core.engine import PATHS

    cache = DecisionCache()
    with report_warnings():
        rows = list_entries(cache, here=_here(cache))
    if args.json:
        print_json(rows)
        return 0
    print(f"# {cache.path}: {len(rows)} entr{'y' if len(rows) == 1 else 'ies'}; "
          "here = measured for a device of this box", file=sys.stderr)
    flat = []
    for r in rows:
        late = r["late"] or {}
        row = {"device": r["device"], "here": "yes" if r["here"] else "", "band": r["band"],
               "form": r["form"], "winner": r["winner"],
               "winner_late": late.get(r["winner"]) if r["late"] is not None else "",
               "figure": ranked(r["form"]).label, "measured_at": r["measured_at"], "torch": r["torch"]}
        for p in PATHS:
            row[p] = ms_text(r["median_ms"].get(p))
        flat.append(row)
    print_table(flat, ["device", "here", "band", "form", "winner", "winner_late", "figure", *PATHS,
                       "measured_at", "torch"])
    for form in dict.fromkeys(r["form"] for r in rows):
        fig = ranked(form)
        print(f"# {form} rows: per-path figures are the {fig.name} in {fig.unit} ({fig.means})"
              + ("; winner_late = the winner's late frames" if form == "live" else ""), file=sys.stderr)
    return 0


def _here(cache) -> set[str]:
    """This box's fingerprints, as far as ``cache``'s entries need them: the cpu's alone (no
    torch import) unless an entry is for a GPU, whose fingerprint only torch can tell."""
    from core.decisions import box_fingerprints, fingerprint, split_key

    if all(split_key(key)[0].startswith("cpu:") for key in cache.load()):
        return {fingerprint("cpu")}
    return set(box_fingerprints().values())


def run_which(args) -> int:
    from core.decisions import choose_path, format_band, ms_text, ranked
    from core.engine import check_device

    band = format_band(args.band)
    if args.device != "cpu":   # the cpu is always here: asking torch about it costs 1.5 s
        check_device(args.device)
    with report_warnings():
        d = choose_path(band, args.device)
    if args.json:
        print_json(d.to_dict())
        return 0
    print(f"{band} on {d.device} ({d.fingerprint}): {d.path}")
    how = {"live": " (live race)", "render": " (render race)"}.get(d.form, "")
    print(f"source: {d.source}{how} -- {d.reason}")
    if d.form in ("live", "render") and d.entry is not None:
        e = d.entry
        c = e["candidates"][d.path]
        fig = ranked(d.form)
        figure = (f"{d.path}: {fig.name} {ms_text(c['median_ms'])} {fig.unit} "
                  f"(spread {ms_text(c['spread_ms'])} ms)")
        if d.form == "live":
            print(f"form: live at {1000.0 / e['period_ms']:.2f} Hz; {figure}, {c['late']} late frame(s) "
                  f"of {e['rounds'] * e['frames']}, p99 present interval {ms_text(c['interval_p99_ms'])} ms")
        else:
            print(f"form: render (renders in isolation; `testcard measure --form live` races in the "
                  f"real presenter); {figure}")
    for why in d.fallthrough:
        print(f"fell through: {why}")
    return 0


def _fingerprints(args) -> set[str] | None:
    """``--device`` as fingerprints (``None``: every device of this box); ``ValueError`` naming it."""
    from core.decisions import resolve_devices

    try:
        return resolve_devices(args.device) if args.device else None
    except ValueError as exc:
        raise ValueError(f"--device: {exc}") from None


def run_export(args) -> int:
    from core.decisions import export_decisions

    fps = _fingerprints(args)
    with report_warnings():
        n = export_decisions(args.file, bands=args.band, devices=fps)
    print(f"exported {n} decision(s) to {args.file}")
    return 0


def run_import(args) -> int:
    from core.decisions import DecisionCache, import_decisions

    cache = DecisionCache()
    with report_warnings():
        receipt = import_decisions(args.file, cache)
    if args.json:
        print_json(receipt.to_dict())
        return 0
    print(f"{args.file}: {receipt.summary()}")
    if receipt.entries:
        print_table(receipt.entries, ["action", "device", "band", "form", "winner"])
    for w in receipt.warnings:
        print(f"warning: {w}")
    return 0


def run_clear(args) -> int:
    from core.decisions import DecisionCache

    fps = _fingerprints(args)
    with report_warnings():
        n = DecisionCache().clear(bands=args.band, fingerprints=fps)
    print(f"removed {n} decision(s)")
    return 0
