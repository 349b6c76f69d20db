"""What a 2160p frame costs on each path here, beside what merely filling the frame costs.

Each available path renders the counter at 3840x2160 in ``rgb10`` (the headline output:
10-bit words, one graph on the compiled paths) for a few frames through
:func:`core.engine.bench_frames`, which times a fill of a buffer of the same size and dtype on
the same device after every frame (numpy ``fill``, torch ``fill_``): the ratio is the frame's
cost over that floor, the figure the README's tables give.  ``ok`` when the median fits the
screen's frame period, ``warning`` when it does not (frames will be late at that size).
"""

from __future__ import annotations

from core.doctor.check import NOT_AVAILABLE, OK, WARNING, Check, Step
from core.doctor.exactness import targets
from core.engine import COMPILED_PATHS, bench_frames, path_problem
from core.patterns import make_spec

SIZE = (3840, 2160)
FORMAT = "rgb10"
FRAMES, WARMUP = 7, 2
WHY = "a frame that costs more than the refresh period is late on screen at this size"


def check_speed(path: str, device: str, period_ms: float, size=SIZE, frames: int = FRAMES,
                warmup: int = WARMUP) -> Check:
    """Median render of ``frames`` counter frames at ``size`` in rgb10, and its ratio to a fill."""
    name = f"{path} on {device}"
    why = path_problem(path, device)
    if why:
        return Check("speed", name, NOT_AVAILABLE, f"not available: {why}", WHY, data={"reason": why})
    spec = make_spec("counter", {}, width=size[0], height=size[1])
    got = bench_frames(spec, path=path, device=device, fmt=FORMAT, frames=frames, warmup=warmup)
    med, base = got["render_ms"]["median"], got["baseline_ms"]
    data = {"pattern": "counter", "size": got["size"], "format": FORMAT, "frames": frames,
            "render_ms": got["render_ms"], "fill_ms": base, "ratio": got["ratio"],
            "compile_s": got["compile_s"], "graphs": got["graphs"], "period_ms": round(period_ms, 3),
            "served": got["served"]}
    ratio = f"{got['ratio']:.2f}x the fill ({base:.2f} ms)" if got["ratio"] is not None else "no fill figure"
    figure = f"{med:.2f} ms per {got['size']} {FORMAT} frame, {ratio}"
    detail = f"compiled in {got['compile_s']:.1f} s" if path in COMPILED_PATHS else ""
    if got["errors"]:
        detail = "; ".join(d for d in (detail, f"{got['errors']} frames failed: {got['first_error']}") if d)
    verdict = OK if med <= period_ms and not got["errors"] else WARNING
    if med > period_ms:
        detail = "; ".join(d for d in (detail, f"over the {period_ms:.2f} ms frame period") if d)
    return Check("speed", name, verdict, figure, WHY, detail, data)


def speed_steps(period_ms: float, quick: bool = False) -> list[Step]:
    """One step per (path, device); under ``quick`` the compiled ones are not run."""
    steps = []
    for path, device in targets():
        skip = None
        if quick and path in COMPILED_PATHS and path_problem(path, device) is None:
            skip = "not run (--quick): a 2160p compile costs seconds"
        # mypy cannot infer a lambda with default arguments (they bind the loop's values)
        steps.append(Step("speed", f"{path} on {device}",
                          lambda p=path, d=device: check_speed(p, d, period_ms),  # type: ignore[misc]
                          skip=skip, why=WHY))
    return steps
