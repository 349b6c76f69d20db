"""A frame's average picture level, and whether a pattern's APL target can be reached.

:func:`frame_apl` reads the APL from the frame's plan (:func:`core.plan.plan_apl`: exact
integer sums of the few distinct rows, nothing materialised), so the editor and the status
bar can show it on every edit at no cost per frame.  Patterns that hold an APL (the window
in ``apl`` mode) also report the colour they compute (the window's background), the target,
and, when the target is out of reach, one sentence saying why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.levels import Levels
from core.patterns.fills import window_background, window_patch
from core.patterns.rendering import render_plan
from core.patterns.spec import Ctx, Spec
from core.plan import plan_apl

CHANNELS = ("red", "green", "blue")


@dataclass(frozen=True)
class FrameApl:
    """The APL of one frame of a spec.

    ``mean_code``: mean code value over every pixel and channel (exact, from integer sums);
    ``percent``: that mean as a percentage of the black..white span; ``top``: the largest
    code value at the spec's depth.  ``target``: the APL the pattern asks for, in percent, or
    None; ``computed``: colours the pattern computes instead of using a typed parameter
    (``(("background", (r, g, b)),)`` for a window in ``apl`` mode); ``problem``: why the
    target cannot be reached, or None.
    """

    mean_code: float
    percent: float
    top: int
    target: float | None = None
    computed: tuple[tuple[str, tuple[int, int, int]], ...] = ()
    problem: str | None = None

    @property
    def reachable(self) -> bool:
        return self.problem is None

    def text(self) -> str:
        """``APL 18.0 % (mean code 184.1 of 1023)``, plus the target when there is one."""
        out = f"APL {self.percent:.1f} % (mean code {self.mean_code:.1f} of {self.top})"
        if self.target is not None:
            out += f", target {self.target:g} %"
        return out


def frame_apl(spec: Spec, frame: int = 0) -> FrameApl:
    """The APL of frame ``frame`` of ``spec`` (region and counter overlay included)."""
    apl = plan_apl(render_plan(spec, frame), spec.levels)
    target, computed, problem = None, (), None
    if spec.pattern == "window" and spec.param_dict["background_mode"] == "apl":
        target, computed, problem = _window_target(spec, apl.percent)
    return FrameApl(apl.mean_code, apl.percent, spec.levels.top, target, computed, problem)


def _window_target(spec: Spec, shown: float):
    """The window's computed background, and whether it holds the APL in every channel.

    Each channel's background is ``(target * total - colour * patch) / (total - patch)``
    rounded; the target is out of reach when that falls outside ``0..top`` (it is clamped
    there), or when the patch covers the whole frame in a colour other than the target.
    """
    p = spec.param_dict
    lv: Levels = spec.levels
    width, height = spec.width, spec.height
    _, _, pw, ph = window_patch(width, height, p)
    patch, total = pw * ph, width * height
    ctx = Ctx(np, None, width, height, lv, 0)
    background = tuple(int(v) for v in window_background(ctx, p, patch))
    target = lv.level(p["apl"])
    failing = []
    for name, c in zip(CHANNELS, p["color"], strict=True):
        if patch >= total:
            ok = c == target
        else:
            exact = (target * total - c * patch) / (total - patch)
            ok = 0 <= math.floor(exact + 0.5) <= lv.top
        if not ok:
            lo = lv.percent_of(c * patch / total)
            hi = lv.percent_of((c * patch + lv.top * (total - patch)) / total)
            failing.append((name, lo, hi))
    problem = None
    if failing:
        names = ", ".join(f[0] for f in failing)
        _, lo, hi = failing[0]
        colour = ",".join(str(c) for c in p["color"])
        problem = (f"APL {p['apl']:g} % cannot be reached in {names}: a window of {colour} over "
                   f"{100.0 * patch / total:.1f} % of the frame allows {lo:.1f}..{hi:.1f} % "
                   f"there; the frame shows {shown:.1f} %")
    return float(p["apl"]), (("background", background),), problem
