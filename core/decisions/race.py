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
   path.

:func:`race` is a generator that yields :class:`RaceProgress` and returns a
:class:`RaceResult`; stop iterating (``close()``) or set ``cancel`` to abandon it.
It records nothing: recording is the caller's step (``core.decisions.cache``).
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from core.engine import PATHS

REFERENCE = "numpy"
STATUSES = ("ok", "disqualified", "error", "unavailable")


class Runner(Protocol):
    """What a candidate opens: renders frame N to a host array (device-synchronised).

    ``ready`` turns true once frames come from the runner's own path (a compiled path serves
    eager frames while it compiles); ``wait_ready`` waits for that instead of rendering;
    ``compile_seconds`` is the runner's own compile time (None: the race takes the time to
    the first frame).
    """

    ready: bool
    compile_seconds: float | None

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


@dataclass
class CandidateResult:
    name: str
    status: str = "ok"                 # ok | disqualified | error | unavailable
    reason: str = ""
    median_ms: float | None = None
    spread_ms: float | None = None
    compile_s: float | None = None     # the runner's own compile time, else time to first frame
    warmup_s: float | None = None      # opening + warm-up until it served its own path
    warmup_frames: int = 0
    round_ms: list[float] = field(default_factory=list)


@dataclass
class RaceResult:
    """A finished race; written out by :func:`core.decisions.schema.entry_from_result` and
    :func:`~core.decisions.schema.candidate_figures` (the one serialisation)."""

    band: str
    device: str
    winner: str | None
    reason: str
    candidates: dict[str, CandidateResult]
    settings: RaceSettings

    @property
    def default_ms(self) -> float | None:
        """The median of the most preferred candidate that finished ``ok`` (the path a box
        would take without a verdict): what "vs default" compares against."""
        ok = order_by_preference(n for n, c in self.candidates.items() if c.status == "ok")
        return self.candidates[ok[0]].median_ms if ok else None


@dataclass(frozen=True)
class RaceProgress:
    done: int                  # frames rendered in parity and rounds, all candidates
    total: int
    phase: str                 # open | parity | round | done
    candidate: str
    round: int                 # 0-based; -1 outside the rounds
    elapsed_s: float
    remaining_s: float | None  # None while unknown (opening / compiling)
    medians_ms: dict[str, float]  # running medians of the candidates timed so far

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0


class RaceCancelled(Exception):
    """The race was cancelled; nothing was decided and nothing is recorded."""


def _half_iqr(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    q = statistics.quantiles(values, n=4, method="inclusive")
    return (q[2] - q[0]) / 2.0


def order_by_preference(names: Iterable[str]) -> list[str]:
    names = list(names)
    rank = {n: i for i, n in enumerate(PATHS)}
    return sorted(names, key=lambda n: (rank.get(n, len(PATHS)), names.index(n)))


def decide(results: dict[str, CandidateResult], margin: float) -> tuple[str | None, str]:
    """The winner among ``ok`` candidates and one sentence saying why (see module doc)."""
    ok = order_by_preference(n for n, r in results.items() if r.status == "ok")
    if not ok:
        return None, "no candidate finished the race"
    best = ok[0]
    won = None
    kept = []
    for challenger in ok[1:]:
        a, b = results[challenger].round_ms, results[best].round_ms
        ratios = [x / y for x, y in zip(a, b, strict=True) if y > 0]
        if not ratios:
            continue
        ratio, spread = statistics.median(ratios), _half_iqr(ratios)
        line = f"{challenger}/{best} {ratio:.3f} +/- {spread:.3f}"
        if ratio + spread < 1.0 - margin:
            won = f"{challenger} beats {best}: paired time ratio {ratio:.3f} +/- {spread:.3f}"
            best = challenger
        else:
            kept.append(line)
    limit = f"a challenger needs a ratio below {1.0 - margin:.3f} (margin {margin:.0%})"
    if won is None:
        return best, (f"{best} kept as the default: " + "; ".join(kept or ["no challenger"])
                      + f"; {limit}")
    tail = f"; not beaten by: {'; '.join(kept)}" if kept else ""
    return best, f"{won}{tail}; {limit}"


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
    names = [c.name for c in candidates]
    if len(set(names)) != len(names):
        raise ValueError(f"candidates named twice: {names}")
    by_name = {c.name: c for c in candidates}
    order = order_by_preference(names)
    results = {n: CandidateResult(n) for n in order}
    for n, why in (unavailable or {}).items():
        if n not in results:
            results[n] = CandidateResult(n, status="unavailable", reason=why)
    s = settings
    total = len(order) * s.frames_per_candidate
    done = 0
    runners: dict[str, Any] = {}
    t_start = clock()
    t_timed: float | None = None   # when rendering of counted frames began
    done_at_timed = 0

    def progress(phase, cand, rnd=-1) -> RaceProgress:
        if cancel is not None and cancel.is_set():
            raise RaceCancelled(f"race for {band} cancelled")
        now = clock()
        remaining = None
        if t_timed is not None and done > done_at_timed:
            remaining = (now - t_timed) / (done - done_at_timed) * (total - done)
        medians = {n: statistics.median(r.round_ms) for n, r in results.items() if r.round_ms}
        return RaceProgress(done, total, phase, cand, rnd, now - t_start, remaining, medians)

    def fail(name, status, why):
        r = results[name]
        r.status, r.reason = status, why
        runner = runners.pop(name, None)
        if runner is not None:
            _close(runner)

    ref_runner = None
    try:
        # 1. open and warm up, in preference order
        for name in order:
            yield progress("open", name)
            t0 = clock()
            try:
                runner = by_name[name].open()
                runners[name] = runner
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
                        yield progress("open", name)
                        runner.wait_ready(s.ready_poll_s)
            except RaceCancelled:
                raise
            except Exception as exc:  # a path that fails to open loses; the race goes on
                fail(name, "error", f"could not start: {exc}")
                continue
            r = results[name]
            own = runner.compile_seconds
            r.compile_s = float(own) if own is not None else first
            r.warmup_s = clock() - t0
            r.warmup_frames = n
        # 2. parity against the numpy reference
        if REFERENCE in runners:
            ref_runner = runners[REFERENCE]
        elif REFERENCE in results and results[REFERENCE].status != "ok":
            raise ValueError(f"the numpy reference failed on {band}: {results[REFERENCE].reason}")
        else:
            if reference is None:
                raise ValueError("no numpy reference to check parity against")
            ref_runner = reference.open()
        t_timed, done_at_timed = clock(), done
        for f in s.parity_frames:
            expected = np.array(ref_runner.render(f), copy=True)
            for name in list(runners):
                if name != REFERENCE:
                    try:
                        why = _first_difference(expected, runners[name].render(f))
                    except Exception as exc:
                        fail(name, "error", f"frame {f} failed: {exc}")
                        continue
                    if why:
                        fail(name, "disqualified", f"output differs from numpy at frame {f}: {why}")
            done += len(order)
            yield progress("parity", "")
        # 3. rounds, rotated order, same frame indices for every candidate
        parity_units = len(order) * len(s.parity_frames)
        slot = s.warmup + s.frames
        for rnd in range(s.rounds):
            k = rnd % len(order)
            for j, name in enumerate(order[k:] + order[:k]):
                done = parity_units + (rnd * len(order) + j) * slot
                if name not in runners:
                    continue
                runner = runners[name]
                base = 100 + rnd * slot
                times = []
                try:
                    for i in range(s.warmup):
                        runner.render(base + i)
                        done += 1
                    runner.sync()
                    for i in range(s.frames):
                        t0 = clock()
                        runner.render(base + s.warmup + i)
                        runner.sync()
                        times.append((clock() - t0) * 1e3)
                        if not runner.ready:
                            raise RuntimeError("stopped serving its own path")
                        done += 1
                        yield progress("round", name, rnd)
                except RaceCancelled:
                    raise
                except Exception as exc:
                    fail(name, "error", f"round {rnd + 1}: {exc}")
                    continue
                results[name].round_ms.append(statistics.median(times))
        # every candidate that was dropped still counts toward the total
        done = total
        for name in order:
            r = results[name]
            if r.status != "ok":
                continue
            samples = r.round_ms
            r.median_ms = statistics.median(samples)
            r.spread_ms = _half_iqr(samples)
        winner, reason = decide(results, s.margin)
        yield progress("done", winner or "")
        ordered = {n: results[n] for n in order_by_preference(results)}
        return RaceResult(band, device, winner, reason, ordered, s)
    finally:
        for runner in runners.values():
            _close(runner)
        if ref_runner is not None and REFERENCE not in by_name:
            _close(ref_runner)


def _close(runner) -> None:
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


