"""The race's logic with an injected clock: every time below is exact."""

import threading

import numpy as np
import pytest

from core.decisions import Candidate, CandidateResult, RaceCancelled, RaceSettings, decide, race, run_race


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class FakeRunner:
    """Renders a frame-dependent array; each render advances the clock by ``cost(index)`` ms."""

    def __init__(self, clock, cost_ms, *, corrupt_at=None, compile_s=None, not_ready_frames=0,
                 log=None, name=""):
        self.clock, self.cost_ms = clock, cost_ms
        self.corrupt_at = corrupt_at
        self.compile_seconds = compile_s
        self.not_ready = not_ready_frames
        self.ready = not_ready_frames == 0
        self.log = log if log is not None else []
        self.name = name
        self.closed = False
        self.rendered = 0

    def render(self, index):
        self.rendered += 1
        self.log.append((self.name, index))
        cost = self.cost_ms(index) if callable(self.cost_ms) else self.cost_ms
        self.clock.now += cost / 1e3
        if self.not_ready:
            self.not_ready -= 1
        self.ready = self.not_ready == 0
        out = np.full((4, 6, 3), index % 1024, dtype=np.uint16)
        if self.corrupt_at is not None and index == self.corrupt_at:
            out = out.copy()
            out[1, 2, 0] += 1
        return out

    def sync(self):
        pass

    def wait_ready(self, timeout):
        pass

    def close(self):
        self.closed = True


def cands(clock, costs, log=None, **kw):
    runners = {}

    def opener(name, cost):
        def open_():
            r = FakeRunner(clock, cost, log=log, name=name, **kw.get(name, {}))
            runners[name] = r
            return r
        return open_

    return [Candidate(n, opener(n, c)) for n, c in costs.items()], runners


FAST = RaceSettings(rounds=5, frames=4, warmup=2, margin=0.03, parity_frames=(0, 7))


def run(costs, settings=FAST, **kw):
    clock = FakeClock()
    cs, runners = cands(clock, costs, **kw)
    result = run_race(race("animated@64x36/rgb10", "cpu", cs, settings=settings, clock=clock))
    return result, runners


def test_clear_winner_wins():
    result, runners = run({"numpy": 10.0, "torch-eager": 8.0, "torch-compiled": 2.0})
    assert result.winner == "torch-compiled"
    c = result.candidates
    assert c["numpy"].median_ms == pytest.approx(10.0)
    assert c["torch-compiled"].median_ms == pytest.approx(2.0)
    assert c["torch-compiled"].spread_ms == pytest.approx(0.0)
    assert len(c["numpy"].round_ms) == FAST.rounds
    assert "torch-compiled beats torch-eager" in result.reason
    assert all(r.closed for r in runners.values())


def test_tie_inside_margin_keeps_default():
    # 2 % faster is inside the 3 % margin: the simpler numpy path stands.
    result, _ = run({"numpy": 10.0, "torch-eager": 9.8, "torch-compiled": 9.75})
    assert result.winner == "numpy"
    assert "kept as the default" in result.reason


def test_margin_is_a_setting():
    s = RaceSettings(rounds=3, frames=2, warmup=0, margin=0.01, parity_frames=(0,))
    result, _ = run({"numpy": 10.0, "torch-eager": 9.8}, settings=s)
    assert result.winner == "torch-eager"


def test_spread_widens_the_bar():
    # torch-eager is 5 % faster on median, but its round ratios swing by +/- 4 %:
    # 0.95 + 0.04 is not below 0.97, so numpy stays.
    ratios = iter([0.91, 0.99, 0.95, 0.91, 0.99])
    rnd_cost = {}

    def eager_cost(index):
        rnd = (index - 100) // (FAST.warmup + FAST.frames) if index >= 100 else -1
        if rnd not in rnd_cost:
            rnd_cost[rnd] = 10.0 * next(ratios) if rnd >= 0 else 10.0
        return rnd_cost[rnd]

    result, _ = run({"numpy": 10.0, "torch-eager": eager_cost})
    ce = result.candidates["torch-eager"]
    assert ce.median_ms == pytest.approx(9.5)
    assert ce.spread_ms == pytest.approx(0.4)
    assert result.winner == "numpy"


def test_parity_failure_disqualifies_even_the_fastest():
    result, runners = run({"numpy": 10.0, "torch-eager": 9.0, "torch-compiled": 1.0},
                          **{"torch-compiled": {"corrupt_at": 7}})
    c = result.candidates["torch-compiled"]
    assert c.status == "disqualified"
    assert "frame 7" in c.reason and "1 of 72 values differ, first at (1, 2, 0)" in c.reason
    assert c.median_ms is None
    assert result.winner == "torch-eager"
    assert runners["torch-compiled"].closed
    # a disqualified candidate is never timed
    assert runners["torch-compiled"].rendered < runners["torch-eager"].rendered


def test_compile_and_warmup_excluded_and_reported():
    # torch-compiled serves 3 slow (compiling) frames before it is ready; they cost 1000 ms each
    slow = {"n": 0}

    def compiled_cost(index):
        slow["n"] += 1
        return 1000.0 if slow["n"] <= 3 else 2.0

    result, _ = run({"numpy": 10.0, "torch-compiled": compiled_cost},
                    **{"torch-compiled": {"not_ready_frames": 3, "compile_s": 2.5}})
    c = result.candidates["torch-compiled"]
    assert c.compile_s == 2.5                      # the runner's own figure
    assert c.warmup_frames == 3                    # rendered until ready (and >= warmup)
    assert c.warmup_s == pytest.approx(3.0)
    assert c.median_ms == pytest.approx(2.0)       # no compile frame in the timing
    n = result.candidates["numpy"]
    assert n.compile_s == pytest.approx(0.010)     # time to first frame when the runner has none
    assert n.warmup_frames == FAST.warmup


def test_rounds_alternate_in_rotated_order_with_the_same_frames():
    log = []
    s = RaceSettings(rounds=3, frames=1, warmup=0, margin=0.03, parity_frames=())
    run({"numpy": 1.0, "torch-eager": 1.0, "torch-compiled": 1.0}, settings=s, log=log)
    timed = [(n, i) for n, i in log if i >= 100]
    assert timed == [("numpy", 100), ("torch-eager", 100), ("torch-compiled", 100),
                     ("torch-eager", 101), ("torch-compiled", 101), ("numpy", 101),
                     ("torch-compiled", 102), ("numpy", 102), ("torch-eager", 102)]


def test_a_candidate_that_fails_to_open_loses_and_the_race_goes_on():
    clock = FakeClock()
    cs, _ = cands(clock, {"numpy": 10.0})

    def broken():
        raise RuntimeError("no C++ compiler")

    cs.append(Candidate("torch-compiled", broken))
    result = run_race(race("static@64x36/rgb8", "cpu", cs, settings=FAST, clock=clock,
                           unavailable={"torch-cudagraphs": "no CUDA device on this box"}))
    assert result.winner == "numpy"
    assert result.candidates["torch-compiled"].status == "error"
    assert "no C++ compiler" in result.candidates["torch-compiled"].reason
    assert result.candidates["torch-cudagraphs"].status == "unavailable"
    assert list(result.candidates) == ["numpy", "torch-compiled", "torch-cudagraphs"]


def test_separate_reference_when_numpy_is_not_racing():
    clock = FakeClock()
    cs, _ = cands(clock, {"torch-eager": 5.0, "torch-compiled": 1.0},
                  **{"torch-eager": {"corrupt_at": 0}})
    ref = Candidate("numpy", lambda: FakeRunner(clock, 0.0))
    result = run_race(race("animated@64x36/rgb10", "cpu", cs, reference=ref, settings=FAST,
                           clock=clock))
    assert result.candidates["torch-eager"].status == "disqualified"
    assert result.winner == "torch-compiled"
    assert "numpy" not in result.candidates


def test_progress_counts_up_to_total_with_time_remaining():
    clock = FakeClock()
    cs, _ = cands(clock, {"numpy": 10.0, "torch-eager": 5.0})
    steps = []
    run_race(race("animated@64x36/rgb10", "cpu", cs, settings=FAST, clock=clock), steps.append)
    assert steps[-1].phase == "done" and steps[-1].done == steps[-1].total
    assert steps[-1].total == 2 * FAST.frames_per_candidate
    dones = [p.done for p in steps]
    assert dones == sorted(dones)
    timed = [p for p in steps if p.phase == "round"]
    assert all(p.remaining_s is not None and p.remaining_s >= 0 for p in timed)
    assert set(timed[-1].medians_ms) == {"numpy", "torch-eager"}


def test_cancel_event_stops_the_race_and_closes_runners():
    clock = FakeClock()
    cs, runners = cands(clock, {"numpy": 10.0, "torch-eager": 5.0})
    cancel = threading.Event()
    gen = race("animated@64x36/rgb10", "cpu", cs, settings=FAST, clock=clock, cancel=cancel)
    seen = 0
    with pytest.raises(RaceCancelled):
        for p in gen:
            seen += 1
            if p.phase == "round":
                cancel.set()
    assert seen > 0 and all(r.closed for r in runners.values())


def test_closing_the_generator_closes_runners():
    clock = FakeClock()
    cs, runners = cands(clock, {"numpy": 10.0, "torch-eager": 5.0})
    gen = race("animated@64x36/rgb10", "cpu", cs, settings=FAST, clock=clock)
    for p in gen:
        if p.phase == "parity":
            break
    gen.close()
    assert runners and all(r.closed for r in runners.values())


def test_decide_preference_chain():
    def res(name, rounds):
        return CandidateResult(name, round_ms=rounds)

    r = {"numpy": res("numpy", [10, 10, 10]), "torch-eager": res("torch-eager", [5, 5, 5]),
         "torch-compiled": res("torch-compiled", [4.95, 4.95, 4.95])}
    winner, why = decide(r, 0.03)
    # compiled is faster than numpy by far, but not clearly faster than eager: eager stands
    assert winner == "torch-eager"
    assert "torch-eager beats numpy" in why and "torch-compiled/torch-eager" in why
    assert decide({}, 0.03) == (None, "no candidate finished the race")


@pytest.mark.parametrize("kw", [{"rounds": 0}, {"frames": -1}, {"margin": 1.5}, {"warmup": -1},
                                {"rounds": True}])
def test_settings_refuse_nonsense(kw):
    with pytest.raises(ValueError):
        RaceSettings(**kw)
