"""``testcard patterns``: the catalog with every parameter."""

from __future__ import annotations

from app.commands.common import print_json


def register(sub) -> None:
    p = sub.add_parser("patterns", help="list the pattern catalog and its parameters")
    p.add_argument("--json", action="store_true", help="print the catalog as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    from core.patterns import catalog

    pats = catalog()
    if args.json:
        print_json([p.to_dict() for p in pats])
        return 0
    for pat in pats:
        anim = " (animates)" if pat.can_animate else ""
        print(f"{pat.name} [{pat.group}]{anim}: {pat.description}")
        for prm in pat.params:
            rng = ""
            if prm.choices:
                rng = " {" + "|".join(prm.choices) + "}"
            elif prm.min is not None:
                rng = f" [{prm.min:g}..{prm.max:g}]"
            print(f"    {prm.name} ({prm.kind}{rng}, default {prm.default}): {prm.description}")
    return 0
