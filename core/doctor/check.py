"""The doctor's vocabulary: a check's verdict, what it measured and why it matters, and the one
generator that runs a list of steps, yielding as it goes.

A :class:`Step` is a check not yet run (its group, its name, the function that runs it); running
it gives a :class:`Check`.  :func:`run_steps` yields :class:`Running` before each step and the
step's :class:`Check` after it, and returns every check; a step that raises is a ``fail`` check
naming the exception (the doctor never stops on one).  Verdicts: ``ok`` only for what was
measured and found right; ``warning`` for what works but not as well as it could; ``fail`` for
what is wrong; ``not available`` for what this box cannot do (with why); ``not run`` for what was
skipped (``--quick``, cancelled), which is never ``ok``.
"""

from __future__ import annotations

import dataclasses
import threading
import time
import warnings
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field

OK = "ok"
WARNING = "warning"
FAIL = "fail"
NOT_AVAILABLE = "not available"
NOT_RUN = "not run"
VERDICTS = (OK, WARNING, FAIL, NOT_AVAILABLE, NOT_RUN)
_QUIET = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)


@dataclass(frozen=True)
class Check:
    """One check's outcome.

    ``figure``: what was measured, short (``"9.8 ms, 1.02x the fill"``), or for a check that is
    not available or not run, why; ``why``: one line on why it matters; ``detail``: what an
    operator needs beyond the figure (the first differing pixel, the reason a path fell through);
    ``data``: the figures, machine-readable (``--json``)."""

    group: str
    name: str
    verdict: str
    figure: str
    why: str
    detail: str = ""
    data: dict = field(default_factory=dict)
    seconds: float = 0.0

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r}: expected one of {', '.join(VERDICTS)}")

    @property
    def label(self) -> str:
        return f"{self.group}: {self.name}"

    def to_dict(self) -> dict:
        return {"group": self.group, "name": self.name, "verdict": self.verdict, "figure": self.figure,
                "why": self.why, "detail": self.detail, "data": self.data,
                "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class Running:
    """A step about to run: ``index`` (from 1) of ``total``."""

    index: int
    total: int
    group: str
    name: str

    @property
    def label(self) -> str:
        return f"{self.group}: {self.name}"


@dataclass(frozen=True)
class Step:
    """A check to run: ``run()`` returns its :class:`Check` (``seconds`` is filled in)."""

    group: str
    name: str
    run: Callable[[], Check]
    skip: str | None = None      # set: not run, and this says why (``--quick``)
    why: str = ""                # the line a skipped or failed check carries


def run_steps(steps: Iterable[Step], cancel: threading.Event | None = None,
              clock: Callable[[], float] = time.perf_counter
              ) -> Generator[Running | Check, None, list[Check]]:
    """Run ``steps`` in order: ``Running`` before each, its ``Check`` after; returns the checks.

    A step that raises is a ``fail`` check naming the exception; warnings it issues are kept in
    the check's ``detail`` rather than printed.  Once ``cancel`` is set the steps left are
    ``not run (cancelled)``, each still yielded, so a table always has every row."""
    steps = list(steps)
    done: list[Check] = []
    for i, step in enumerate(steps, 1):
        yield Running(i, len(steps), step.group, step.name)
        t0 = clock()
        if cancel is not None and cancel.is_set():
            check = Check(step.group, step.name, NOT_RUN, "not run (cancelled)", step.why)
        elif step.skip:
            check = Check(step.group, step.name, NOT_RUN, step.skip, step.why)
        else:
            check = _run_one(step)
        check = dataclasses.replace(check, seconds=clock() - t0)
        done.append(check)
        yield check
    return done


def _run_one(step: Step) -> Check:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            check = step.run()
        except Exception as exc:  # a check that breaks is a failed check, never a stopped doctor
            check = Check(step.group, step.name, FAIL, f"the check itself failed: {type(exc).__name__}",
                          step.why, f"{type(exc).__name__}: {exc}")
    # what a check's own code warns of (a bad decision cache); not libraries' deprecations
    notes = sorted({str(w.message).splitlines()[0] for w in caught
                    if not issubclass(w.category, _QUIET) and str(w.message).strip()})
    if notes:
        detail = "; ".join(([check.detail] if check.detail else []) + notes)
        check = dataclasses.replace(check, detail=detail)
    return check


def counts(checks: Iterable[Check]) -> dict[str, int]:
    """How many checks got each verdict (every verdict present, zeros included)."""
    out = dict.fromkeys(VERDICTS, 0)
    for c in checks:
        out[c.verdict] += 1
    return out


def exit_status(checks: Iterable[Check]) -> int:
    """0 when no check failed, 1 when one did (warnings, not available and not run pass)."""
    return 1 if any(c.verdict == FAIL for c in checks) else 0
