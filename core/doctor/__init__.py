"""``testcard doctor``: what this box can do, each answer a :class:`Check` with its verdict,
the figure measured and why it matters.

The headless checks live here (no Qt): ``paths`` (every render path on every device, exact
against numpy), ``speed`` (a 2160p frame per path against filling it), ``decisions`` (the
cache's health, the path each of the output's bands resolves to) and ``capture`` (the sources,
the screen grab).  ``presents`` judges present timestamps the Qt side collects.  The surface,
screen and HDR checks need Qt and live in ``app.doctor``.  :func:`run_steps` runs any list of
steps as a generator, one check at a time (the CLI prints them; the GUI runs it on its worker).
"""

from __future__ import annotations

from core.doctor.capture import capture_steps, check_screen_grab, check_sources
from core.doctor.check import (
    FAIL,
    NOT_AVAILABLE,
    NOT_RUN,
    OK,
    VERDICTS,
    WARNING,
    Check,
    Running,
    Step,
    counts,
    exit_status,
    run_steps,
)
from core.doctor.decisions import check_band, check_cache, decision_steps
from core.doctor.exactness import CORRUPT_ENV, check_path, first_difference, path_steps, targets
from core.doctor.presents import TIMER_PACED, VSYNC_LOCKED, judge_presents, no_vsync_surface
from core.doctor.presents import WHY as PRESENTS_WHY
from core.doctor.speed import check_speed, speed_steps

DEFAULT_SIZE = (3840, 2160)       # the output size the bands are resolved for with no screen
DEFAULT_PERIOD_MS = 1000.0 / 60.0


def headless_steps(*, quick: bool = False, size: tuple[int, int] = DEFAULT_SIZE, fmt="rgb10",
                   period_ms: float = DEFAULT_PERIOD_MS, device: str = "cpu", environ=None) -> list[Step]:
    """The checks that need no display, in the order they run: paths, speed, decisions,
    capture.  ``size``, ``fmt`` and ``period_ms`` describe the output (its screen's native size,
    the format its surface was granted, or a function saying it when the bands are resolved, its
    refresh); ``device`` is the output's render device."""
    return (path_steps(quick) + speed_steps(period_ms, quick) + decision_steps(size, fmt, device)
            + capture_steps(environ))


def gpu_steps(period_ms: float = DEFAULT_PERIOD_MS) -> list[Step]:
    """The CUDA part alone: every path on CUDA, exact and timed (``packaging/gpu_check.py``)."""
    return [s for s in path_steps() + speed_steps(period_ms) if s.name.endswith(" on cuda")]
__all__ = [
    "CORRUPT_ENV",
    "Check",
    "DEFAULT_PERIOD_MS",
    "DEFAULT_SIZE",
    "FAIL",
    "NOT_AVAILABLE",
    "NOT_RUN",
    "OK",
    "Running",
    "Step",
    "TIMER_PACED",
    "VERDICTS",
    "VSYNC_LOCKED",
    "WARNING",
    "capture_steps",
    "check_band",
    "check_cache",
    "check_path",
    "check_screen_grab",
    "check_sources",
    "check_speed",
    "counts",
    "decision_steps",
    "exit_status",
    "first_difference",
    "gpu_steps",
    "headless_steps",
    "judge_presents",
    "no_vsync_surface",
    "path_steps",
    "run_steps",
    "speed_steps",
    "targets",
    "PRESENTS_WHY",
]
