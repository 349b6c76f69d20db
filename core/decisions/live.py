"""The band race in the production form: every candidate inside the real presenter, at the
screen's cadence, judged by whether its frames are on time.

The Qt side supplies one callable, :class:`PresentFrames`: ``present(path, count)`` shows
``count`` consecutive frames of the band rendered on ``path`` in the live loop and returns
their timing records (:class:`LiveFrames`: when each present completed, what its render,
transfer and upload cost, which path served it, whether it was a warm-up frame, and the
screen period it ran at).  :class:`LiveRunner` is the adapter that turns it into one
candidate's rounds.  Nothing here knows about Qt, windows or screens.

Method (the render form's, :mod:`core.decisions.racing`, with the rounds moved on screen):

1. Open and parity exactly as the render form: each path opened in isolation, compiled, and
   checked against numpy on the parity frames, so a path that renders other code values never
   reaches the screen.  Its compile time is reported; the isolated runners are closed.
2. Live warm-up: each path is presented until its frames come from that path (a compiled path
   serves eager frames while the loop compiles it), then ``warmup`` frames more; reported in
   ``warmup_s`` / ``warmup_frames`` and never counted.  The wait is bounded
   (:func:`live_ready_s`: a few times the path's warm-up in isolation), and a loop that serves
   another path without warming this one up is reported within :data:`STAND_IN_S`: the
   candidate loses with the reason, and the race goes on.  The Qt side renders every frame it
   presents during a race (a still frame is not presented again from its render cache), so a
   still band races as an animated one does.
3. Rounds in rotated order: a candidate is switched in, presented until it serves its own path
   again (a switch may compile again; excluded too), then ``warmup`` untimed and ``frames``
   timed frames.  Per round: its late frames (present interval over 1.5 periods,
   :func:`core.timing.late_mask`) and its p99 frame cost (render + transfer + upload).
4. Verdict: :func:`core.decisions.verdict.decide_live` -- fewer late frames, then the lower
   p99 frame cost, each beyond the measured spread and the margin.

A candidate's ``median_ms`` / ``spread_ms`` are the median and half-IQR of its per-round p99
frame costs; ``late``, ``interval_p99_ms`` and ``cost_p99_ms`` are over all its timed frames.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from core.decisions.racing import (
    Candidate,
    RaceCancelled,
    RaceProgress,
    RaceResult,
    RaceSettings,
    RaceState,
    check_parity,
    close_quietly,
    open_runners,
    rotated,
)
from core.decisions.verdict import decide_live
from core.timing import late_mask

MAX_ROUND_FRAMES = 4000     # warm-up + timed frames of one live round (the loop's timeline holds 4096)
SERVE_CHUNK = 10            # frames presented at a time while a path is not yet serving its own
PERIOD_TOLERANCE = 0.01     # a screen period that moves more than this during a race ends it
STAND_IN_S = 2.0            # another path's frames, none a warm-up, this long: the loop will not switch
LIVE_READY_MIN_S = 30.0     # the live ready wait: at least this, ...
LIVE_READY_FACTOR = 3.0     # ... or this many times the path's open + warm-up in isolation


class LiveOutputLost(RuntimeError):
    """The live output cannot go on (closed, its pattern or screen changed): the race ends,
    nothing is decided."""


@dataclass(frozen=True)
class LiveFrames:
    """Timing records of consecutive presented frames (the live loop's timeline rows)."""

    present_s: np.ndarray      # when each present completed (seconds, monotonic)
    render_ms: np.ndarray
    transfer_ms: np.ndarray
    upload_ms: np.ndarray
    warmup: np.ndarray         # bool: served while its path compiled, or a path's first frame
    path: tuple[str, ...]      # the path that served each frame
    period_ms: float           # the screen period the frames were presented at
    errors: dict[int, str] = field(default_factory=dict)   # row -> render error

    def __post_init__(self):
        n = len(self.present_s)
        for name in ("render_ms", "transfer_ms", "upload_ms", "warmup", "path"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name} has {len(getattr(self, name))} rows for {n} frames")
        if not (isinstance(self.period_ms, (int, float)) and math.isfinite(self.period_ms)
                and self.period_ms > 0):
            raise ValueError(f"period_ms must be a positive number, got {self.period_ms!r}")

    def __len__(self) -> int:
        return len(self.present_s)

    @classmethod
    def from_snapshot(cls, snap, period_ms: float, last: int | None = None) -> LiveFrames:
        """The last ``last`` rows (default: all) of a :class:`core.timing.TimelineSnapshot`."""
        n = len(snap)
        start = n - min(n, last if last is not None else n)

        def col(a):
            return np.asarray(a[start:], dtype=np.float64)

        return cls(col(snap.present_s), col(snap.render_ms), col(snap.transfer_ms), col(snap.upload_ms),
                   np.asarray(snap.warmup[start:], dtype=bool), tuple(snap.path[start:]), float(period_ms),
                   {r - start: e for r, e in snap.errors.items() if r >= start})

    @property
    def cost_ms(self) -> np.ndarray:
        """Render + transfer + upload per frame: what must fit before the swap."""
        return self.render_ms + self.transfer_ms + self.upload_ms

    def serving(self, path: str) -> bool:
        """Whether the last frame came from ``path`` itself (not a stand-in, not warm-up)."""
        return len(self) > 0 and self.path[-1] == path and not bool(self.warmup[-1]) \
            and (len(self) - 1) not in self.errors


class PresentFrames(Protocol):
    """The Qt side of a live race: show ``count`` consecutive frames of the band on ``path``
    in the live loop at the screen's cadence and return their records (blocking the caller).
    Raises :class:`LiveOutputLost` when the output cannot go on."""

    def __call__(self, path: str, count: int) -> LiveFrames: ...


@dataclass(frozen=True)
class LiveRound:
    """One candidate's timed frames in one round."""

    late: int
    frames: int
    intervals_ms: np.ndarray   # the timed frames' present intervals
    cost_ms: np.ndarray        # the timed frames' render + transfer + upload

    @property
    def cost_p99_ms(self) -> float:
        return float(np.percentile(self.cost_ms, 99))


def round_figures(frames: LiveFrames, warmup: int, path: str) -> LiveRound:
    """The figures of a round whose first ``warmup`` frames are untimed.  ``RuntimeError`` when
    a timed frame did not come from ``path`` itself or failed to render."""
    if len(frames) <= warmup:
        raise RuntimeError(f"presented {len(frames)} frames, expected more than {warmup}")
    for row in range(warmup, len(frames)):
        if row in frames.errors:
            raise RuntimeError(frames.errors[row])
        if frames.path[row] != path or frames.warmup[row]:
            raise RuntimeError(f"stopped serving its own path (a timed frame came from "
                               f"{frames.path[row]}{', warming up' if frames.warmup[row] else ''})")
    t = frames.present_s[max(0, warmup - 1):]
    iv = np.diff(t) * 1e3
    if np.any(iv < 0):
        raise RuntimeError("present timestamps went backwards")
    return LiveRound(int(late_mask(iv, frames.period_ms).sum()), len(frames) - warmup, iv,
                     frames.cost_ms[warmup:])


class LiveRunner:
    """One candidate's path in the live loop, presented through ``present``.

    ``ready_timeout_s`` bounds the wait for the loop to serve the path's own frames (a compile in
    the loop shows as warm-up frames of a stand-in); a loop that serves another path's frames
    with no warm-up among them for ``stand_in_s`` is not switching at all and is reported then."""

    def __init__(self, path: str, present: PresentFrames, *, clock: Callable[[], float],
                 ready_timeout_s: float, stand_in_s: float = STAND_IN_S):
        self.path, self.present, self.clock = path, present, clock
        self.ready_timeout_s, self.stand_in_s = ready_timeout_s, stand_in_s
        self.period_ms: float | None = None
        self.frames_presented = 0

    def _show(self, count: int) -> LiveFrames:
        frames = self.present(self.path, count)
        if not isinstance(frames, LiveFrames):
            raise TypeError(f"present returned {type(frames).__name__}, not LiveFrames")
        self.frames_presented += len(frames)
        self.period_ms = frames.period_ms
        return frames

    def until_serving(self) -> Generator[None, None, float]:
        """Present chunks until the path serves its own frames; yields between chunks (a cancel
        point) and returns the seconds it took.  ``RuntimeError`` saying what the loop served
        instead: past ``ready_timeout_s``, once it has served a stand-in that is not warming
        the path up for ``stand_in_s``, or at once when every frame of a chunk failed."""
        t0 = self.clock()
        stand_in_since = None
        while True:
            frames = self._show(SERVE_CHUNK)
            if frames.serving(self.path):
                return self.clock() - t0
            now = self.clock()
            if len(frames) and len(frames.errors) == len(frames):
                raise RuntimeError(f"every frame failed in the live loop: {frames.errors[len(frames) - 1]}")
            served = ", ".join(sorted(set(frames.path))) or "no"
            if frames.warmup.any() or self.path in frames.path:
                stand_in_since = None
            elif stand_in_since is None:
                stand_in_since = now
            elif now - stand_in_since >= self.stand_in_s:
                raise RuntimeError(f"the live loop kept serving {served} frames, none of them a "
                                   f"warm-up of {self.path}, for {now - stand_in_since:.1f} s: it is "
                                   f"not switching to {self.path}")
            if now - t0 > self.ready_timeout_s:
                warming = " warm-up" if frames.warmup.any() else ""
                raise RuntimeError(f"not serving its own frames in the live loop within "
                                   f"{self.ready_timeout_s:.0f} s (the loop served {served}{warming} "
                                   "frames)")
            yield

    def round(self, warmup: int, frames: int) -> tuple[LiveRound, float]:
        """``warmup`` untimed and ``frames`` timed frames: the round and its screen period."""
        got = self._show(warmup + frames)
        return round_figures(got, warmup, self.path), got.period_ms

    def close(self) -> None:
        """The live loop belongs to the Qt side: nothing to close here."""


def live_ready_s(isolated_s: float | None, settings: RaceSettings) -> float:
    """How long the live loop may take to serve a path's own frames: :data:`LIVE_READY_FACTOR`
    times what opening and warming it up took in isolation (where it compiled already), at least
    :data:`LIVE_READY_MIN_S`, never more than the settings' ``ready_timeout_s``."""
    return min(settings.ready_timeout_s, max(LIVE_READY_MIN_S, LIVE_READY_FACTOR * (isolated_s or 0.0)))


def _serve(state: RaceState, runner: LiveRunner, phase: str, rnd: int = -1
           ) -> Generator[RaceProgress, None, float]:
    """Present ``runner``'s path until it serves its own frames, with progress (and a cancel
    point) between chunks; the seconds it took."""
    gen = runner.until_serving()
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value
        yield state.progress(phase, runner.path, rnd)


def _check_period(seen: list[float], period: float) -> None:
    if not seen:
        seen.append(period)
    elif abs(period - seen[0]) > PERIOD_TOLERANCE * seen[0]:
        raise LiveOutputLost(f"the output's refresh changed during the race ({1000 / seen[0]:.2f} Hz "
                             f"-> {1000 / period:.2f} Hz)")


def live_race(band: str, device: str, candidates: Sequence[Candidate], present: PresentFrames, *,
              reference: Candidate | None = None, settings: RaceSettings = RaceSettings(),
              unavailable: dict[str, str] | None = None,
              clock: Callable[[], float] = time.perf_counter,
              cancel: threading.Event | None = None) -> Generator[RaceProgress, None, RaceResult]:
    """Race ``candidates`` on one band in the live loop (module doc).  ``candidates`` open the
    isolated runners used for parity (as :func:`core.decisions.racing.race`); ``present`` shows
    their paths on screen.  Yields progress, returns a :class:`RaceResult` with ``form`` live.
    Raises :class:`RaceCancelled`, :class:`LiveOutputLost`, and ``ValueError`` for settings the
    live loop cannot hold or a reference that cannot render the band."""
    s = settings
    if s.warmup + s.frames > MAX_ROUND_FRAMES:
        raise ValueError(f"a live round holds at most {MAX_ROUND_FRAMES} frames (warm-up + timed), "
                         f"got {s.warmup + s.frames}")
    slot = s.warmup + s.frames
    state = RaceState(band, candidates, unavailable, s.live_frames_per_candidate, clock, cancel)
    order, results = state.order, state.results
    ref_runner = None
    periods: list[float] = []
    intervals: dict[str, list[np.ndarray]] = {n: [] for n in order}
    costs: dict[str, list[np.ndarray]] = {n: [] for n in order}
    try:
        yield from open_runners(state, s)
        ref_runner = yield from check_parity(state, s, reference)
        if ref_runner is not None:
            close_quietly(ref_runner)
            ref_runner = None
        # the isolated runners have done their part: the live loop renders from here on
        for name in list(state.runners):
            close_quietly(state.runners[name])
            state.runners[name] = LiveRunner(name, present, clock=clock,
                                             ready_timeout_s=live_ready_s(results[name].warmup_s, s))
        live: dict[str, LiveRunner] = state.runners
        parity_units = len(order) * len(s.parity_frames)
        for name in order:   # live warm-up, in preference order
            if name not in live:
                continue
            yield state.progress("open", name)
            try:
                waited = yield from _serve(state, live[name], "open")
                live[name].round(s.warmup, 1)
                shown_at = live[name].period_ms
                assert shown_at is not None   # a round shows frames, which set it
                _check_period(periods, shown_at)
            except (RaceCancelled, LiveOutputLost):
                raise
            except Exception as exc:
                state.fail(name, "error", f"live warm-up: {exc}")
                continue
            r = results[name]
            r.warmup_s = (r.warmup_s or 0.0) + waited
            r.warmup_frames += live[name].frames_presented
        state.done = parity_units + len(order) * s.warmup   # the live warm-up, counted whole
        state.start_timing()
        for rnd in range(s.rounds):
            for j, name in enumerate(rotated(order, rnd)):
                state.done = parity_units + len(order) * s.warmup + (rnd * len(order) + j) * slot
                if name not in live:
                    continue
                runner = live[name]
                try:
                    waited = yield from _serve(state, runner, "round", rnd)
                    fig, period = runner.round(s.warmup, s.frames)
                    _check_period(periods, period)
                except (RaceCancelled, LiveOutputLost):
                    raise
                except Exception as exc:
                    state.fail(name, "error", f"round {rnd + 1}: {exc}")
                    continue
                r = results[name]
                r.warmup_s = (r.warmup_s or 0.0) + waited
                r.round_ms.append(fig.cost_p99_ms)
                r.round_late.append(fig.late)
                intervals[name].append(fig.intervals_ms)
                costs[name].append(fig.cost_ms)
                state.done += slot
                yield state.progress("round", name, rnd)
        state.finish()
        for name in order:
            r = results[name]
            if r.status == "ok" and r.round_ms:
                iv, cost = np.concatenate(intervals[name]), np.concatenate(costs[name])
                r.late, r.timed_frames = sum(r.round_late), int(cost.size)
                r.interval_p99_ms = float(np.percentile(iv, 99)) if iv.size else None
                r.cost_p99_ms = float(np.percentile(cost, 99))
        winner, reason = decide_live(results, s.margin)
        yield state.progress("done", winner or "")
        return RaceResult(band, device, winner, reason, state.ordered(), s, form="live",
                          period_ms=periods[0] if periods else None)
    finally:
        state.close()
        if ref_runner is not None:
            close_quietly(ref_runner)
