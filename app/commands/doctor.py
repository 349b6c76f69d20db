"""``testcard doctor``: what this box can do, proved in one command.

The display checks first (the screens, the output's screen, HDR, the GL surface's granted format
and whether its presents wait for the vblank: :mod:`app.doctor`, Qt imported only here and only
when there is a display), then the headless ones (:mod:`core.doctor`: every render path exact
against numpy, a 2160p frame per path against filling it, the decision cache and the bands the
output resolves, the capture sources) for the output's size, granted format and refresh.  Each
check prints one line on stderr as it runs; the table (or ``--json``) goes to stdout.  With no
display at all the display is one line (``not available: no display``) and the headless checks
still run.  Exit status 0 when no check failed, 1 when one did, 2 for bad input (``--screen``).
"""

from __future__ import annotations

import logging
import sys
import time

from app.commands.common import SCREEN_HELP, CliError, one_line, print_json, print_table

DISPLAY_WHY = "the output, its surface and its presents need a display to be checked"


def register(sub) -> None:
    p = sub.add_parser(
        "doctor", help="check what this box can do: render paths, speed, surface, presents, screens",
        description="Run every check of what this box can do, each with a verdict (ok, warning, fail, "
                    "not available, not run), the figure it measured and why it matters: every render "
                    "path exact against numpy, a 2160p frame per path against filling it, the GL "
                    "surface's granted depth and swap interval, whether presents wait for the vblank, "
                    "the screens, HDR, the capture sources and the decision cache. Progress goes to "
                    "stderr; exit status 1 when a check failed.")
    p.add_argument("--json", action="store_true", help="print every check as one JSON document")
    p.add_argument("--screen", metavar="INDEX|NAME",
                   help="the screen to check (default: the one testcard would use): " + SCREEN_HELP)
    p.add_argument("--quick", action="store_true",
                   help="skip the compiled paths (each compile costs seconds) and present fewer frames")
    p.set_defaults(func=run)


def display_steps(screen: str | None, quick: bool):
    """The display's steps and a function giving the output (size, format, period) once they ran;
    ``None`` and the reason when there is no display (or no Qt)."""
    try:
        from app.qapp import display_problem
    except ImportError as exc:
        return None, f"PySide6 cannot be imported ({exc})"
    from app.display_check import display_refusal

    why = display_problem() or display_refusal()     # a dead display is a finding, not an abort
    if why is not None:
        return None, why
    from app.doctor import PresentProbe, check_hdr, output_target, screen_checks, wait_for
    from app.qapp import ensure_qapplication
    from core.doctor import Step

    ensure_qapplication()
    try:
        target = output_target(screen)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    probe = PresentProbe(target, frames=60 if quick else 120)
    steps = [Step(c.group, c.name, lambda c=c: c) for c in screen_checks(target)]
    steps += [Step("hdr", "PQ signal", lambda: check_hdr(target)),
              Step("surface", "format", lambda: wait_for(probe.surface_known, probe.start)),
              Step("surface", "presents", lambda: wait_for(probe.finished, probe.run_presents))]

    def fmt() -> str:
        return "rgb10" if probe.format is not None and probe.format.data.get("ten_bit") else "rgb8"

    return (steps, target.screen.native_size, fmt, target.period_ms), None


def run(args) -> int:
    from core import version
    from core.doctor import (
        DEFAULT_PERIOD_MS,
        DEFAULT_SIZE,
        NOT_AVAILABLE,
        Check,
        Step,
        counts,
        exit_status,
        headless_steps,
        run_steps,
    )

    # the decision cache's own warnings are kept in the checks, not printed through the line
    logging.getLogger("testcard").addHandler(logging.NullHandler())
    t0 = time.monotonic()
    display, why = display_steps(args.screen, args.quick)
    if display is None:
        if args.screen is not None:
            raise CliError(f"--screen {args.screen}: {why}")
        steps = [Step("display", "display", lambda: Check(
            "display", "display", NOT_AVAILABLE, "not available: no display", DISPLAY_WHY, why))]
        size, fmt, period = DEFAULT_SIZE, "rgb10", DEFAULT_PERIOD_MS
    else:
        steps, size, fmt, period = display
    steps = steps + headless_steps(quick=args.quick, size=size, fmt=fmt, period_ms=period)
    checks = []
    for item in run_steps(steps):
        if isinstance(item, Check):
            checks.append(item)
            _say(f"{item.verdict} ({item.seconds:.1f} s)\n")
        else:
            _say(f"doctor [{item.index:2}/{item.total}] {item.label} ... ")
    elapsed = time.monotonic() - t0
    n = counts(checks)
    rc = exit_status(checks)
    _say(f"doctor: {len(checks)} checks in {elapsed:.1f} s: "
         + ", ".join(f"{v} {k}" for k, v in n.items() if v) + "\n")
    if args.json:
        print_json({"testcard": version(), "quick": bool(args.quick), "elapsed_s": round(elapsed, 1),
                    "exit_status": rc, "counts": n, "checks": [c.to_dict() for c in checks]})
    else:
        print_report(checks)
    return rc


def print_report(checks) -> None:
    """The table (check, verdict, figure, why), then the details of what is not ok."""
    rows = [{"check": c.label, "verdict": c.verdict, "figure": one_line(c.figure), "why it matters": c.why}
            for c in checks]
    print_table(rows, ["check", "verdict", "figure", "why it matters"])
    notes = [c for c in checks if c.detail and c.verdict != "ok"]
    if notes:
        print()
        for c in notes:
            print(f"{c.label}: {one_line(c.detail)}")


def _say(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()
