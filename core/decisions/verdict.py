"""The verdict rules, pure: which finished candidate a race chooses, and one sentence why.

Both forms start from the first ``ok`` candidate in preference order (numpy, torch-eager,
torch-compiled, torch-cudagraphs) and let each later one, in that order, challenge the current
choice with paired per-round figures; ties keep the simpler, more precise path.

Every ratio is challenger/choice, round by round, the median over rounds
(:func:`core.decisions.figures.paired_ratio`: below 1 faster), printed as ``challenger/choice
FIGURE ratio +/- half-IQR`` with the figure named as every view names it
(:data:`core.decisions.figures.RANKED`).

- ``render`` (:func:`decide`): a challenger wins when its paired median render time ratio
  against the choice, median plus half-IQR, is below ``1 - margin``.
- ``live`` (:func:`decide_live`): fewer late frames first.  A challenger wins on late frames
  when its paired per-round difference in late frames, median plus half-IQR, is below zero
  (fewer beyond the measured spread) and its total is below ``1 - margin`` of the choice's
  (fewer by more than the margin); it loses on them in the mirror case.  Otherwise the late
  frames are a tie and the lower p99 frame cost (each round's p99 of render + transfer +
  upload) decides, by the render form's ratio rule over the per-round p99 costs.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from typing import Protocol

from core.decisions.figures import RANKED, half_iqr, paired_ratio, ratio_text
from core.engine import PATHS

_RENDER, _LIVE = RANKED["render"].name, RANKED["live"].name


class Raced(Protocol):
    """What a verdict reads of a candidate (a :class:`~core.decisions.racing.CandidateResult`)."""

    status: str
    round_ms: list[float]     # per round: median render time, or p99 frame cost in a live race
    round_late: list[int]     # per round: late frames (a live race)


def order_by_preference(names: Iterable[str]) -> list[str]:
    names = list(names)
    rank = {n: i for i, n in enumerate(PATHS)}
    return sorted(names, key=lambda n: (rank.get(n, len(PATHS)), names.index(n)))


def _chain(results: Mapping[str, Raced], duel, limit: str) -> tuple[str | None, str]:
    ok = order_by_preference(n for n, r in results.items() if r.status == "ok")
    if not ok:
        return None, "no candidate finished the race"
    best = ok[0]
    won = None
    kept = []
    for challenger in ok[1:]:
        wins, line = duel(challenger, best)
        if wins is None:
            continue
        if wins:
            won, best = line, challenger
        else:
            kept.append(line)
    if won is None:
        return best, (f"{best} kept as the default: " + "; ".join(kept or ["no challenger"])
                      + f"; {limit}")
    tail = f"; not beaten by: {'; '.join(kept)}" if kept else ""
    return best, f"{won}{tail}; {limit}"


def decide(results: Mapping[str, Raced], margin: float) -> tuple[str | None, str]:
    """The render form's winner among ``ok`` candidates and why (see the module doc)."""

    def duel(challenger, best):
        got = paired_ratio(results[challenger].round_ms, results[best].round_ms)
        if got is None:
            return None, ""
        ratio, spread = got
        paired = f"{challenger}/{best} {_RENDER} {ratio_text(ratio, spread)}"
        if ratio + spread < 1.0 - margin:
            return True, f"{challenger} beats {best}: {paired}"
        return False, paired

    return _chain(results, duel,
                  f"a challenger needs a {_RENDER} ratio below {1.0 - margin:.3f} (margin {margin:.0%})")


def decide_live(results: Mapping[str, Raced], margin: float) -> tuple[str | None, str]:
    """The live form's winner among ``ok`` candidates and why: fewer late frames, then the
    lower p99 frame cost, each beyond the measured spread and the margin (module doc)."""

    def duel(challenger, best):
        c, b = results[challenger], results[best]
        diffs = [x - y for x, y in zip(c.round_late, b.round_late, strict=True)]
        if not diffs:
            return None, ""
        mid, spread = statistics.median(diffs), half_iqr(diffs)
        late_c, late_b = sum(c.round_late), sum(b.round_late)
        late = (f"late frames {late_c} vs {late_b}, per round {mid:+.1f} +/- {spread:.1f}")
        if mid + spread < 0 and late_c < (1.0 - margin) * late_b:
            return True, f"{challenger} beats {best}: fewer late frames ({late})"
        if mid - spread > 0 and late_c * (1.0 - margin) > late_b:
            return False, f"{challenger} has more late frames than {best} ({late})"
        got = paired_ratio(c.round_ms, b.round_ms)
        if got is None:
            return False, f"{challenger}/{best}: {late}; no {_LIVE} to compare"
        ratio, rs = got
        cost = f"{challenger}/{best} {_LIVE} {ratio_text(ratio, rs)}"
        if ratio + rs < 1.0 - margin:
            return True, f"{challenger} beats {best}: as few late frames ({late}), {cost}"
        return False, f"{cost}, as few late frames ({late})"

    return _chain(results, duel,
                  f"fewer late frames win beyond the per-round spread and by more than {margin:.0%}; "
                  f"as few win on a {_LIVE} ratio below {1.0 - margin:.3f}")
