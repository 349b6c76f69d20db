"""How long a capture held each index, and which holds are repeats (:mod:`core.decode.sequence`).

A hold is a run of whole (``ok``) frames showing one index, in capture order.  Undecodable or
unreadable frames between two frames of the same index are counted in its hold; a torn frame
ends a hold and starts none (it shows two presentations, neither of them whole).

A presentation lasts ``k`` captures: ``capture_fps / display_fps`` when both rates are known,
else read from the holds themselves (:func:`captures_per_presentation`).  A hold longer than
both 1.5k and ceil(k) captures (:func:`repeat_threshold`) is a repeat of round(hold / k) - 1
extra presentations, at least 1 (:func:`extra_presentations`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any, NamedTuple


class Hold(NamedTuple):
    """One hold: the (unwrapped) index shown, for how many captures, and the first reading."""

    shown: int   # the unwrapped index
    captures: int
    first: Any   # the reading, as the caller's sequence holds it


def find_holds(results: Sequence, unwrapped: Sequence[int | None]) -> list[Hold]:
    """Every hold of whole frames, in capture order; ``unwrapped`` is each reading's unwrapped
    (top) index, None where it shows none."""
    holds: list[Hold] = []
    cur_u, cur_n, cur_first, gap = None, 0, None, 0
    for r, u in zip(results, unwrapped, strict=True):
        if r.status == "ok":
            if u == cur_u:
                cur_n += gap + 1
            else:
                if cur_u is not None:
                    holds.append(Hold(cur_u, cur_n, cur_first))
                cur_u, cur_n, cur_first = u, 1, r
            gap = 0
        elif r.status == "torn":
            if cur_u is not None:
                holds.append(Hold(cur_u, cur_n, cur_first))
            cur_u, cur_n, cur_first, gap = None, 0, None, 0
        else:
            gap += 1
    if cur_u is not None:
        holds.append(Hold(cur_u, cur_n, cur_first))
    return holds


def captures_per_presentation(holds: Sequence[Hold], capture_fps: float | None,
                              display_fps: float | None) -> tuple[float, str]:
    """``k``, the captures per presentation, and where it came from (``rates`` or ``holds``)."""
    if capture_fps and display_fps:
        return capture_fps / display_fps, "rates"
    return typical_hold([h.captures for h in holds]), "holds"


def typical_hold(lengths: list[int]) -> float:
    """Typical hold in captures, from the holds themselves (repeats are what is looked for).

    Normal holds are floor(k) or ceil(k) captures.  When one length, the lower
    quartile, makes up 60 % or more of the holds, the capture is taken as locked
    to a whole multiple of the display rate and k is that length; otherwise
    (holds of 2 and 3 alternating at 2.5x) k is the mean of the holds no more
    than one capture longer.  A ratio between 1 and 1.5 cannot be told from
    repeats this way: give both rates.
    """
    if not lengths:
        return 1.0
    ordered = sorted(lengths)
    q = ordered[(len(ordered) - 1) // 4]
    if sum(1 for n in lengths if n == q) >= 0.6 * len(lengths):
        return float(max(1, q))
    kept = [n for n in lengths if n <= q + 1]
    return max(1.0, statistics.fmean(kept))


def repeat_threshold(k: float) -> float:
    """Captures above which a hold is a repeat: 1.5k, and past the longer normal hold ceil(k)."""
    return max(1.5 * k, math.ceil(k - 1e-9) + 0.5)


def extra_presentations(captures: int, k: float) -> int:
    """How many presentations more than one a hold of ``captures`` stands for (0: not a repeat)."""
    if captures > repeat_threshold(k):
        return max(1, round(captures / k) - 1)
    return 0


def holds_unknown(decoded: int, distinct: int, holds: bool) -> str | None:
    """Why the captures per presentation cannot be read from the holds (None: they can)."""
    if decoded < 2:
        return "no frame decoded" if decoded == 0 else "only one frame decoded"
    if not holds:
        return "no whole frame decoded"
    if distinct <= 1:
        return "one index held for the whole capture: no presentation is seen to end"
    return None
