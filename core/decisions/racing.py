"""The band race: which render path serves a band fastest on this box, measured fairly.

Method (after paired benchmarking and the autotuners in the reference):

1. Open every candidate and warm it up until it serves its own path (compile
   and warm-up are excluded from the timing and reported per candidate).
2. Parity: every candidate renders the same frames as the numpy reference; any
   code value that differs disqualifies it, and the result says where.
3. Rounds: in round ``r`` the candidates run in an order rotated by ``r``; each
   renders ``warmup`` untimed frames and then ``frames`` timed ones, the same
   frame indices for all.  A frame's time is taken with an injected clock around
   a device-synchronised render (the output is on the host when it returns).
   A candidate's round time is the median of its frames; its median and spread
   are the median and half the interquartile range of its round times.
4. Verdict: the first eligible candidate in preference order (numpy, torch-eager,
   torch-compiled, torch-cudagraphs) is the default.  Each later candidate, in
   that order, replaces the current choice only when its paired per-round time
   ratio against it, median plus half-IQR, is below ``1 - margin``: faster by more
   than the margin beyond the measured spread.  Ties keep the simpler, more precise
   path (:func:`core.decisions.verdict.decide`).

This is the race in the ``render`` form (each render in isolation).  The ``live`` form
(:mod:`core.decisions.live`) shares steps 1 and 2 (:class:`RaceState`, :func:`open_runners`,
:func:`check_parity`) and races step 3 inside the real presenter.

:func:`race` is a generator that yields :class:`RaceProgress` and returns a
:class:`RaceResult`; stop iterating (``close()``) or set ``cancel`` to abandon it.
It records nothing: recording is the caller's step (``core.decisions.cache``).

One module, a little over 400 lines, because its three steps share :class:`RaceState`, which
the live form builds on as well; the verdict and the rows already stand apart
(:mod:`core.decisions.verdict`, :mod:`core.decisions.rows`).
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from core.decisions.figures import half_iqr
from core.decisions.verdict import decide, order_by_preference

REFERENCE = "numpy"
STATUSES = ("ok", "disqualified", "error", "unavailable")
FORMS = ("render", "live")   # isolated renders; the live loop at the screen's cadence


class Runner(Protocol):
    """What a candidate opens: renders frame N to a host array (device-synchronised).

    ``ready`` turns true once frames come from the runner's own path (a compiled path serves
    eager frames while it compiles); ``wait_ready`` waits for that instead of rendering;
    ``compile_seconds`` is the runner's own compile time (None: the race takes the time to
    the first frame).
    """

    ready: bool

    @property
    def compile_seconds(self) -> float | None: ...   # read-only: an attribute or a property

    def render(self, index: int) -> np.ndarray: ...

    def sync(self) -> None: ...

    def wait_ready(self, timeout: float) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Candidate:
    """A render path under test.  ``open`` builds its runner (and may compile)."""

    name: str
    open: Callable[[], Runner]


@dataclass(frozen=True)
class RaceSettings:
    rounds: int = 9
    frames: int = 50
    warmup: int = 5
    margin: float = 0.03
    parity_frames: tuple[int, ...] = (0, 1, 2, 3, 61, 4099)
    ready_timeout_s: float = 900.0   # longest a candidate may take to serve its own path
    ready_poll_s: float = 0.25       # wait between warm-up frames while it compiles

    def __post_init__(self):
        for name, low in (("rounds", 1), ("frames", 1), ("warmup", 0)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= 100000:
                raise ValueError(f"{name} must be an integer {low}..100000, got {v!r}")
        if not isinstance(self.margin, (int, float)) or not 0.0 <= self.margin < 1.0:
            raise ValueError(f"margin must be a fraction in [0, 1), got {self.margin!r}")

    @property
    def frames_per_candidate(self) -> int:
        return len(self.parity_frames) + self.rounds * (self.warmup + self.frames)

    @property
    def live_frames_per_candidate(self) -> int:
        """What a live race counts per candidate: parity, its live warm-up, its rounds."""
        return self.frames_per_candidate + self.warmup


@dataclass
class CandidateResult:
    name: str
    status: str = "ok"                 # ok | disqualified | error | unavailable
    reason: str = ""
    median_ms: float | None = None     # render: median round time; live: median round p99 frame cost
    spread_ms: float | None = None
    compile_s: float | None = None     # the runner's own compile time, else time to first frame
    warmup_s: float | None = None      # opening + warm-up until it served its own path
    warmup_frames: int = 0
    round_ms: list[float] = field(default_factory=list)
    # the live form only (None in a render race): over every timed frame of every round
    late: int | None = None            # frames whose present interval exceeded 1.5 periods
    timed_frames: int = 0
    interval_p99_ms: float | None = None   # p99 present interval
    cost_p99_ms: float | None = None       # p99 render + transfer + upload
    round_late: list[int] = field(default_factory=list)


@dataclass
class RaceResult:
    """A finished race; written out by :func:`core.decisions.schema.entry_from_result` and
    :func:`~core.decisions.schema.candidate_figures` (the one serialisation).  ``form`` says
    how it was raced (:data:`FORMS`); ``period_ms`` is the screen period a live race judged
    late frames by (None in a render race)."""

    band: str
    device: str
    winner: str | None
    reason: str
    candidates: dict[str, CandidateResult]
    settings: RaceSettings
    form: str = "render"
    period_ms: float | None = None


@dataclass(frozen=True)
class RaceProgress:
    done: int                  # frames rendered in parity and rounds, all candidates
    total: int
    phase: str                 # open | parity | round | done
    candidate: str
    round: int                 # 0-based; -1 outside the rounds
    elapsed_s: float
    remaining_s: float | None  # None while unknown (opening, compiling, nothing counted yet);
    # from the rate of the frames counted so far, and never growing while none is counted
    medians_ms: dict[str, float]  # running medians of the candidates timed so far

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0


class RaceCancelled(Exception):
    """The race was cancelled; nothing was decided and nothing is recorded."""


def _first_difference(ref: np.ndarray, out) -> str | None:
    out = np.asarray(out)
    if out.shape != ref.shape:
        return f"shape {out.shape} != numpy's {ref.shape}"
    if out.dtype != ref.dtype:
        return f"dtype {out.dtype} != numpy's {ref.dtype}"
    diff = out != ref
    if not diff.any():
        return None
    where = tuple(int(i) for i in np.argwhere(diff)[0])
    return f"{int(diff.sum())} of {diff.size} values differ, first at {where}"


class RaceState:
    """One race's bookkeeping, shared by both forms: the results, the open runners and the
    progress count (``done`` of ``total`` frames, and the time left once frames are counted)."""

    def __init__(self, band: str, candidates: Sequence[Candidate], unavailable: dict[str, str] | None,
                 per_candidate: int, clock: Callable[[], float], cancel: threading.Event | None):
        names = [c.name for c in candidates]
        if len(set(names)) != len(names):
            raise ValueError(f"candidates named twice: {names}")
        self.band, self.clock, self.cancel = band, clock, cancel
        self.by_name = {c.name: c for c in candidates}
        self.order = order_by_preference(names)
        self.results = {n: CandidateResult(n) for n in self.order}
        for n, why in (unavailable or {}).items():
            if n not in self.results:
                self.results[n] = CandidateResult(n, status="unavailable", reason=why)
        self.total = len(self.order) * per_candidate
        self.done = 0
        self.runners: dict[str, Any] = {}
        self.t_start = clock()
        self.t_timed: float | None = None   # when the counted frames began
        self.done_at_timed = 0
        self._counted: tuple[float, int] | None = None   # (when, done) at the last frame counted

    def progress(self, phase: str, cand: str, rnd: int = -1) -> RaceProgress:
        """The progress now; raises :class:`RaceCancelled` once ``cancel`` is set."""
        if self.cancel is not None and self.cancel.is_set():
            raise RaceCancelled(f"race for {self.band} cancelled")
        now = self.clock()
        if self.t_timed is not None and self.done > self.done_at_timed and \
                (self._counted is None or self._counted[1] != self.done):
            self._counted = (now, self.done)
        remaining = None
        if phase != "open" and self._counted is not None and self.t_timed is not None:   # counted: timed
            # the rate of the frames counted so far, from the last one counted on: time spent
            # since then waiting (a compile, a path not yet serving) counts down, never up
            at, done = self._counted
            rate = (at - self.t_timed) / (done - self.done_at_timed)
            remaining = max(0.0, rate * (self.total - self.done) - (now - at))
        medians = {n: statistics.median(r.round_ms) for n, r in self.results.items() if r.round_ms}
        return RaceProgress(self.done, self.total, phase, cand, rnd, now - self.t_start, remaining,
                            medians)

    def start_timing(self) -> None:
        """The counted frames (re)start now: the time left is estimated from those after it."""
        self.t_timed, self.done_at_timed, self._counted = self.clock(), self.done, None

    def fail(self, name: str, status: str, why: str) -> None:
        r = self.results[name]
        r.status, r.reason = status, why
        runner = self.runners.pop(name, None)
        if runner is not None:
            close_quietly(runner)

    def close(self) -> None:
        for runner in self.runners.values():
            close_quietly(runner)
        self.runners.clear()

    def finish(self) -> None:
        """Every candidate counted in; medians and spreads of those still ``ok``."""
        self.done = self.total
        for r in self.results.values():
            if r.status == "ok" and r.round_ms:
                r.median_ms, r.spread_ms = statistics.median(r.round_ms), half_iqr(r.round_ms)

    def ordered(self) -> dict[str, CandidateResult]:
        return {n: self.results[n] for n in order_by_preference(self.results)}


def open_runners(state: RaceState, s: RaceSettings) -> Generator[RaceProgress, None, None]:
    """Step 1: open each candidate in preference order and render until it serves its own
    path; one that fails to open loses and the race goes on."""
    clock = state.clock
    for name in state.order:
        yield state.progress("open", name)
        t0 = clock()
        try:
            runner = state.by_name[name].open()
            state.runners[name] = runner
            first = None
            n = 0
            while True:
                runner.render(n)
                runner.sync()
                n += 1
                if first is None:
                    first = clock() - t0
                if runner.ready and n >= max(1, s.warmup):
                    break
                if clock() - t0 > s.ready_timeout_s:
                    raise RuntimeError(f"still not serving {name} after {s.ready_timeout_s:.0f} s")
                if not runner.ready:
                    yield state.progress("open", name)
                    runner.wait_ready(s.ready_poll_s)
        except RaceCancelled:
            raise
        except Exception as exc:  # a path that fails to open loses; the race goes on
            state.fail(name, "error", f"could not start: {exc}")
            continue
        r = state.results[name]
        own = runner.compile_seconds
        r.compile_s = float(own) if own is not None else first
        r.warmup_s = clock() - t0
        r.warmup_frames = n


def check_parity(state: RaceState, s: RaceSettings, reference: Candidate | None
                 ) -> Generator[RaceProgress, None, Runner | None]:
    """Step 2: every open candidate against the numpy reference on ``parity_frames``; returns
    a reference runner the caller must close (None when numpy itself is racing)."""
    own = None
    if REFERENCE in state.runners:
        ref_runner = state.runners[REFERENCE]
    elif REFERENCE in state.results and state.results[REFERENCE].status != "ok":
        raise ValueError(f"the numpy reference failed on {state.band}: "
                         f"{state.results[REFERENCE].reason}")
    else:
        if reference is None:
            raise ValueError("no numpy reference to check parity against")
        ref_runner = own = reference.open()
    try:
        state.start_timing()
        for f in s.parity_frames:
            expected = np.array(ref_runner.render(f), copy=True)
            for name in list(state.runners):
                if name != REFERENCE:
                    try:
                        why = _first_difference(expected, state.runners[name].render(f))
                    except Exception as exc:
                        state.fail(name, "error", f"frame {f} failed: {exc}")
                        continue
                    if why:
                        state.fail(name, "disqualified", f"output differs from numpy at frame {f}: {why}")
            state.done += len(state.order)
            yield state.progress("parity", "")
    except BaseException:
        if own is not None:
            close_quietly(own)
        raise
    return own


def rotated(order: Sequence[str], rnd: int) -> list[str]:
    """Round ``rnd``'s running order: ``order`` rotated by ``rnd``."""
    k = rnd % len(order)
    return list(order[k:]) + list(order[:k])


def race(band: str, device: str, candidates: Sequence[Candidate], *,
         reference: Candidate | None = None, settings: RaceSettings = RaceSettings(),
         unavailable: dict[str, str] | None = None,
         clock: Callable[[], float] = time.perf_counter,
         cancel: threading.Event | None = None) -> Generator[RaceProgress, None, RaceResult]:
    """Race ``candidates`` on one band.  Yields progress; returns the :class:`RaceResult`.

    ``reference`` renders the frames parity is checked against (the numpy path);
    when a candidate is named ``numpy`` it serves as the reference itself.
    ``unavailable`` lists paths that cannot run here, with their reasons (reported,
    never raced).  Raises :class:`RaceCancelled` when ``cancel`` is set, and
    ``ValueError`` when the reference cannot render the band.
    """
    s = settings
    state = RaceState(band, candidates, unavailable, s.frames_per_candidate, clock, cancel)
    order, results, runners = state.order, state.results, state.runners
    ref_runner = None
    try:
        yield from open_runners(state, s)
        ref_runner = yield from check_parity(state, s, reference)
        # 3. rounds, rotated order, same frame indices for every candidate
        parity_units = len(order) * len(s.parity_frames)
        slot = s.warmup + s.frames
        for rnd in range(s.rounds):
            for j, name in enumerate(rotated(order, rnd)):
                state.done = parity_units + (rnd * len(order) + j) * slot
                if name not in runners:
                    continue
                runner = runners[name]
                base = 100 + rnd * slot
                times = []
                try:
                    for i in range(s.warmup):
                        runner.render(base + i)
                        state.done += 1
                    runner.sync()
                    for i in range(s.frames):
                        t0 = clock()
                        runner.render(base + s.warmup + i)
                        runner.sync()
                        times.append((clock() - t0) * 1e3)
                        if not runner.ready:
                            raise RuntimeError("stopped serving its own path")
                        state.done += 1
                        yield state.progress("round", name, rnd)
                except RaceCancelled:
                    raise
                except Exception as exc:
                    state.fail(name, "error", f"round {rnd + 1}: {exc}")
                    continue
                results[name].round_ms.append(statistics.median(times))
        state.finish()
        winner, reason = decide(results, s.margin)
        yield state.progress("done", winner or "")
        return RaceResult(band, device, winner, reason, state.ordered(), s)
    finally:
        state.close()
        if ref_runner is not None:
            close_quietly(ref_runner)


def close_quietly(runner) -> None:
    try:
        runner.close()
    except Exception:  # closing a broken runner must not hide the race's outcome
        pass


def run_race(gen: Generator[RaceProgress, None, RaceResult],
             on_progress: Callable[[RaceProgress], None] | None = None) -> RaceResult:
    """Drive a race generator to its end, passing each progress step on."""
    while True:
        try:
            p = next(gen)
        except StopIteration as stop:
            return stop.value
        if on_progress is not None:
            on_progress(p)
