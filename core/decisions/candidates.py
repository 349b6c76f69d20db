"""The engine's render paths as race candidates, and the race request the GUI and CLI build."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass

import numpy as np

from core.decisions.bands import Band, parse_band
from core.decisions.live import PresentFrames, live_race
from core.decisions.racing import (
    FORMS,
    REFERENCE,
    Candidate,
    RaceProgress,
    RaceResult,
    RaceSettings,
    order_by_preference,
    race,
)
from core.engine import PATHS, Engine, path_problem


# ------------------------------------------------------------ the engine's paths as candidates
class EngineRunner:
    """A candidate runner over ``core.engine.Engine``: compiles in the background while eager
    frames serve; ``ready`` once a frame comes from the requested path, past warm-up.
    Static content is rendered every frame here (a race times the per-frame cost)."""

    def __init__(self, spec, path: str, device: str, fmt: str):
        self.path = path
        self.engine = Engine(spec, path=path, device=device, fmt=fmt, background_compile=True,
                             reuse_static=False)
        self.ready = False

    def render(self, index: int) -> np.ndarray:
        res = self.engine.render(index)
        if res.error:
            raise RuntimeError(res.error)
        failed = self.engine.compile_error
        if failed:
            raise RuntimeError(f"compile failed: {failed}")
        self.ready = (not res.warmup) and res.path == self.path
        return res.data

    def wait_ready(self, timeout: float) -> None:
        """Wait (up to ``timeout`` s) for a background compile instead of rendering meanwhile."""
        self.engine.wait_compiled(timeout)

    @property
    def compile_seconds(self) -> float:
        return float(self.engine.compile_seconds or 0.0)

    def sync(self) -> None:
        """``render`` returns host data already synchronised with the device."""

    def close(self) -> None:
        self.engine.close()


def band_candidates(band, device: str = "cpu", paths: Sequence[str] | None = None
                    ) -> tuple[list[Candidate], dict[str, str], Candidate]:
    """Candidates for ``band`` on ``device``: (runnable, {unavailable: why}, numpy reference).

    ``paths`` limits the race to these paths (default: every path the engine has);
    an unknown name is refused with ``ValueError``."""
    band = parse_band(band)
    chosen = list(paths) if paths else list(PATHS)
    for p in chosen:
        if p not in PATHS:
            raise ValueError(f"unknown render path {p!r}: expected one of {', '.join(PATHS)}")
    spec = band.spec()
    runnable, unavailable = [], {}
    for p in order_by_preference(dict.fromkeys(chosen)):
        why = path_problem(p, device)
        if why:
            unavailable[p] = why
        else:
            runnable.append(Candidate(p, functools.partial(EngineRunner, spec, p, device, band.fmt)))
    reference = Candidate(REFERENCE, lambda: EngineRunner(spec, REFERENCE, "cpu", band.fmt))
    return runnable, unavailable, reference


def race_band(band, device: str = "cpu", paths: Sequence[str] | None = None, *,
              settings: RaceSettings = RaceSettings(), clock: Callable[[], float] = time.perf_counter,
              cancel: threading.Event | None = None) -> Generator[RaceProgress, None, RaceResult]:
    """:func:`race` over the engine's paths for one band (a generator, like ``race``)."""
    band = parse_band(band)
    runnable, unavailable, reference = band_candidates(band, device, paths)
    return race(band.name, device, runnable, reference=reference, settings=settings,
                unavailable=unavailable, clock=clock, cancel=cancel)


def live_race_band(band, present: PresentFrames, device: str = "cpu", paths: Sequence[str] | None = None,
                   *, settings: RaceSettings = RaceSettings(), clock: Callable[[], float] = time.perf_counter,
                   cancel: threading.Event | None = None) -> Generator[RaceProgress, None, RaceResult]:
    """:func:`~core.decisions.live.live_race` over the engine's paths for one band: parity on
    the engine in isolation, rounds through ``present`` (a generator, like ``race``)."""
    band = parse_band(band)
    runnable, unavailable, reference = band_candidates(band, device, paths)
    return live_race(band.name, device, runnable, present, reference=reference, settings=settings,
                     unavailable=unavailable, clock=clock, cancel=cancel)


@dataclass(frozen=True)
class RaceRequest:
    """Everything a race over the engine's paths needs, built on the caller's thread and never
    changed after; :meth:`steps` is the race itself (a generator, see :func:`race`).

    ``form`` is ``render`` (isolated renders) or ``live`` (``present`` shows each path in the
    live loop; required there, refused in a render race)."""

    band: Band
    device: str
    paths: tuple[str, ...]
    settings: RaceSettings = RaceSettings()
    form: str = "render"
    present: PresentFrames | None = None

    def __post_init__(self):
        if self.form not in FORMS:
            raise ValueError(f"form must be one of {', '.join(FORMS)}, got {self.form!r:.40}")
        if (self.form == "live") != (self.present is not None):
            raise ValueError("a live race needs the live output to present with" if self.form == "live"
                             else "a render race presents nothing")

    def steps(self, cancel: threading.Event | None = None,
              clock: Callable[[], float] = time.perf_counter
              ) -> Generator[RaceProgress, None, RaceResult]:
        if self.form == "live":
            assert self.present is not None   # __post_init__ refuses a live race without it
            return live_race_band(self.band, self.present, self.device, list(self.paths),
                                  settings=self.settings, clock=clock, cancel=cancel)
        return race_band(self.band, self.device, list(self.paths), settings=self.settings,
                         clock=clock, cancel=cancel)
