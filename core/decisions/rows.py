"""A race's table rows, built once for every view (``testcard measure``'s table, the Measure
panel's table and chart): each candidate's figures under the names of
:mod:`core.decisions.figures`, formatted the same everywhere.

:func:`race_rows` reads a finished :class:`~core.decisions.racing.RaceResult`; :func:`running_rows`
the running figures of a race in progress.  :func:`columns` are the headers of a form's table
and :meth:`RaceRow.cells` a row's text under them; :func:`progress_step` and :func:`time_left`
say where a race in progress is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from core.decisions.figures import COMPILE, INTERVAL, LATE, SPREAD, VS_DEFAULT, ms_text, paired_ratio, ranked
from core.decisions.racing import RaceProgress, RaceResult
from core.decisions.verdict import order_by_preference

PATH, STATUS, NOTE = "path", "status", "note"


@dataclass(frozen=True)
class RaceRow:
    """One candidate's figures: ``figure_ms`` is the ranked figure of the race's form
    (:func:`core.decisions.figures.ranked`), ``vs_default`` its paired ratio to the default's
    (``(median, half-IQR)``, candidate/default, below 1 faster; None before the race ends)."""

    path: str
    status: str                    # ok | disqualified | error | unavailable | running | waiting
    figure_ms: float | None = None
    spread_ms: float | None = None
    winner: bool = False
    late: int | None = None
    timed_frames: int = 0
    interval_p99_ms: float | None = None
    compile_s: float | None = None
    vs_default: tuple[float, float] | None = None
    note: str = ""

    def cells(self, form: str, winner_mark: str = " *") -> dict[str, str]:
        """This row's text under :func:`columns` ``(form)``; the winner's path ends in ``winner_mark``."""
        out = {PATH: self.path + (winner_mark if self.winner else ""), STATUS: self.status}
        if form == "live":
            out[LATE.label] = "" if self.late is None else f"{self.late}/{self.timed_frames}"
            out[INTERVAL.label] = ms_text(self.interval_p99_ms)
        out[ranked(form).label] = ms_text(self.figure_ms)
        out[SPREAD.label] = ms_text(self.spread_ms)
        out[COMPILE.label] = "" if self.compile_s is None else f"{self.compile_s:.2f}"
        out[VS_DEFAULT.label] = "" if self.vs_default is None else f"{self.vs_default[0]:.3f}"
        out[NOTE] = self.note
        return out


def columns(form: str) -> list[str]:
    """The headers of a ``form`` race's table, in order."""
    live = [LATE.label, INTERVAL.label] if form == "live" else []
    return [PATH, STATUS, *live, ranked(form).label, SPREAD.label, COMPILE.label, VS_DEFAULT.label, NOTE]


def default_path(result: RaceResult) -> str | None:
    """The path the race's ratios compare with: the most preferred candidate that finished
    ``ok`` (the path this box takes without a verdict, where the verdict starts from)."""
    ok = order_by_preference(n for n, c in result.candidates.items() if c.status == "ok")
    return ok[0] if ok else None


def race_rows(result: RaceResult) -> list[RaceRow]:
    """Every candidate of a finished race, in the result's order."""
    default = default_path(result)
    base = result.candidates[default].round_ms if default is not None else None
    rows = []
    for name, c in result.candidates.items():
        ratio = None
        if base is not None and c.status == "ok" and len(c.round_ms) == len(base):
            ratio = paired_ratio(c.round_ms, base)
        rows.append(RaceRow(name, c.status, c.median_ms, c.spread_ms, name == result.winner, c.late,
                            c.timed_frames, c.interval_p99_ms, c.compile_s, ratio, c.reason))
    return rows


def running_rows(order: Iterable[str], figures_ms: Mapping[str, float]) -> list[RaceRow]:
    """A race in progress: the candidates timed so far (their running ranked figure) first,
    then those still waiting, each in ``order``."""
    order = list(order)
    timed = [RaceRow(n, "running", figures_ms[n]) for n in order if n in figures_ms]
    return timed + [RaceRow(n, "waiting") for n in order if n not in figures_ms]


def progress_step(p: RaceProgress, rounds: int) -> str:
    """What a race is doing at ``p``, as every view says it."""
    return {"open": f"starting {p.candidate} (compiling where it compiles)",
            "parity": "checking parity with numpy",
            "round": f"round {p.round + 1}/{rounds}: {p.candidate}",
            "done": "deciding"}[p.phase]


def time_left(p: RaceProgress) -> str:
    """The time left at ``p``, or that it is not known yet (opening, compiling)."""
    if p.remaining_s is None:
        return "time left unknown"
    s = max(0.0, p.remaining_s)
    return f"about {s:.0f} s left" if s < 60 else f"about {int(s // 60)} min {int(s % 60):02d} s left"


__all__ = ["RaceRow", "columns", "default_path", "progress_step", "race_rows", "running_rows", "time_left"]
