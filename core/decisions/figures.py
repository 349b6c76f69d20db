"""What every race figure is called, in every view: one statistic under each name, with its unit.

A race ranks its candidates on one figure per form (:data:`RANKED`), and every view -- ``testcard
measure``, ``decisions show`` and ``decisions which``, the Measure panel's table and its chart's
axis -- shows that figure under the same name:

- ``render``: **median render time** (ms): each round's median time to render one frame in
  isolation, and the median of those over the rounds;
- ``live``: **p99 frame cost** (ms): each round's 99th percentile of render + transfer + upload
  in the live loop, and the median of those over the rounds.

The cache, decision files and ``--json`` hold it in a candidate's ``median_ms`` (a median over
rounds in both forms), its spread in ``spread_ms`` (:data:`SPREAD`).  A live candidate also
holds ``cost_p99_ms``, the 99th percentile of every timed frame's cost pooled: a different
statistic, kept in the record and never shown under the ranked figure's name.

``vs default`` (:func:`paired_ratio`) is the ratio the verdict compares: per round, the
candidate's figure over the default's (the most preferred candidate that finished), the median
over rounds -- candidate/default, below 1 faster.  The verdict's sentences
(:mod:`core.decisions.verdict`) print it the same way, so a table and its verdict never disagree.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    """One named statistic: the field that holds it, its name in every view, its unit."""

    key: str       # the candidate field in the cache, decision files and --json
    name: str      # what every view calls it
    unit: str
    means: str     # how it is computed, in one phrase

    @property
    def label(self) -> str:
        """``name (unit)``: a column header, an axis label."""
        return f"{self.name} ({self.unit})"


RANKED: dict[str, Figure] = {
    "render": Figure("median_ms", "median render time", "ms",
                     "each round's median render time in isolation, the median over rounds"),
    "live": Figure("median_ms", "p99 frame cost", "ms",
                   "each round's p99 of render + transfer + upload in the live loop, "
                   "the median over rounds"),
}
SPREAD = Figure("spread_ms", "spread", "ms", "half the interquartile range of the per-round figures")
LATE = Figure("late", "late frames", "of timed",
              "timed frames presented over 1.5 screen periods after the one before")
INTERVAL = Figure("interval_p99_ms", "p99 present interval", "ms",
                  "the p99 of the intervals between presents, over every timed frame")
COMPILE = Figure("compile_s", "compile", "s", "the path's own compile time, else its time to a first frame")
VS_DEFAULT = Figure("vs_default", "vs default", "x",
                    "per round, this path's figure over the default's, the median over rounds: "
                    "below 1 faster")


def ranked(form: str) -> Figure:
    """The figure a race of ``form`` ranks on (``ValueError`` for an unknown form)."""
    try:
        return RANKED[form]
    except KeyError:
        raise ValueError(f"form must be one of {', '.join(RANKED)}, got {form!r:.40}") from None


def half_iqr(values: Sequence[float]) -> float:
    """Half the interquartile range (0 for fewer than two values): the race's spread."""
    if len(values) < 2:
        return 0.0
    q = statistics.quantiles(values, n=4, method="inclusive")
    return (q[2] - q[0]) / 2.0


def paired_ratio(a: Sequence[float], b: Sequence[float]) -> tuple[float, float] | None:
    """``a`` over ``b`` round by round: the median of the ratios and their half-IQR (None when
    no round of ``b`` is above 0).  ``a`` is the candidate, ``b`` what it is compared with."""
    ratios = [x / y for x, y in zip(a, b, strict=True) if y > 0]
    return (statistics.median(ratios), half_iqr(ratios)) if ratios else None


def ratio_text(ratio: float, spread: float) -> str:
    """A paired ratio as every view prints it."""
    return f"{ratio:.3f} +/- {spread:.3f}"


def ms_text(value: float | None) -> str:
    """A figure in milliseconds as every view prints it (three decimals; empty for none)."""
    return "" if value is None else f"{value:.3f}"


__all__ = ["COMPILE", "Figure", "INTERVAL", "LATE", "RANKED", "SPREAD", "VS_DEFAULT", "half_iqr",
           "ms_text", "paired_ratio", "ranked", "ratio_text"]
