"""The ``--fail-on-*`` options of ``testcard decode`` (file and ``--live``) and the exit status
they give: 0 verified and passed, 1 failed, 3 could not be verified (the rule is
:mod:`core.decode.verdict`'s)."""

from __future__ import annotations

import sys

from app.commands.common import one_line

STATUSES = ("With --fail-on-drop or --fail-on-gap the exit status is 0 when every check asked for was "
            "verified and passed, 1 when one failed, and 3 when one could not be verified and none "
            "failed (one line on stderr says why).")


def add_check_arguments(p) -> None:
    p.add_argument("--fail-on-drop", action="store_true",
                   help="check that no frame was dropped: exit 1 when the display dropped a frame "
                        "(proven: at a capture slower than the display, a jump beyond what the rate "
                        "ratio allows), or froze for the whole capture (told only with both rates); "
                        "exit 3 when that cannot be verified (fewer than two frames decoded, one "
                        "index throughout at unknown rates, indices unseen across gaps, indices the "
                        "capture could not have seen: unobservable or capture misses); exit 0 only "
                        "when verified. Gaps, unobservable indices and capture misses are never drops")
    p.add_argument("--fail-on-gap", action="store_true",
                   help="check that every captured frame was read and decoded: exit 1 when one "
                        "could not be (a gap of unknown content), 0 when all were; a failure wins "
                        "over a check that cannot be verified (1, not 3)")


def requested_checks(args) -> tuple[str, ...]:
    return tuple(name for name, on in (("drop", args.fail_on_drop), ("gap", args.fail_on_gap)) if on)


def set_checks(report: dict, args):
    """The report's ``verified`` and ``verdict`` for the checks asked for (none asked: the
    report's own, did every frame show); returns the verdict."""
    from core.decode import with_verdict

    checks = requested_checks(args)
    return with_verdict(report, checks) if checks else None


def exit_status(verdict) -> int:
    """0, 1 or 3 for the checks asked for (0 when none were); at 3, one line on stderr says why."""
    if verdict is None:
        return 0
    status = verdict.exit_status
    if status == 3:
        print(f"testcard: could not verify: {one_line(verdict.why_unverified())}", file=sys.stderr)
    return status
