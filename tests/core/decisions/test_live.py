"""The race in the production form (core.decisions.live) on a fake live loop with an injected
clock: every interval below is an exact number of milliseconds."""

import threading

import numpy as np
import pytest

from core.decisions import (
    CandidateResult,
    LiveFrames,
    LiveOutputLost,
    RaceCancelled,
    RaceProgress,
    RaceRequest,
    RaceSettings,
    decide_live,
    live_race,
    parse_band,
    race,
    round_figures,
    run_race,
)
from core.timing import Timeline
from tests.helpers.live_race import FakeClock, FakeLoop, isolated

BAND = "animated@64x36/rgb8"
FAST = RaceSettings(rounds=5, frames=20, warmup=3, margin=0.03, parity_frames=(0, 7))


def live(isolated_ms, loop_kw, settings=FAST, **kw):
    clock = FakeClock()
    loop = FakeLoop(clock, **loop_kw)
    result = run_race(live_race(BAND, "cpu", isolated(clock, isolated_ms), loop, settings=settings,
                                clock=clock, **kw))
    return result, loop


def test_fewer_late_frames_win_even_when_the_isolated_render_is_slower():
    # in isolation numpy renders in 2 ms and torch-eager in 8 ms: the render race keeps numpy
    clock = FakeClock()
    cands = {"numpy": 2.0, "torch-eager": 8.0}
    rendered = run_race(race(BAND, "cpu", isolated(clock, cands), settings=FAST, clock=clock))
    assert rendered.winner == "numpy" and rendered.form == "render"
    # in the live loop numpy's frames cost 20 ms (its upload, its copies): every one misses a
    # 16 ms vblank; torch-eager's cost 9 ms and make every one
    result, _ = live(cands, {"cost_ms": {"numpy": 20, "torch-eager": 9}})
    assert result.form == "live" and result.period_ms == 16.0
    assert result.winner == "torch-eager"
    n, e = result.candidates["numpy"], result.candidates["torch-eager"]
    assert n.late == FAST.rounds * FAST.frames and e.late == 0      # every numpy frame late
    assert n.round_late == [FAST.frames] * FAST.rounds
    assert n.timed_frames == e.timed_frames == FAST.rounds * FAST.frames
    assert n.interval_p99_ms == pytest.approx(32.0) and e.interval_p99_ms == pytest.approx(16.0)
    assert e.cost_p99_ms == pytest.approx(9.0) and e.median_ms == pytest.approx(9.0)
    assert "torch-eager beats numpy: fewer late frames (late frames 0 vs 100" in result.reason


def test_late_frames_outrank_a_lower_frame_cost():
    # torch-compiled's frames cost less, but every 4th waits 20 ms for the display server: late
    stall = {"torch-compiled": lambda n: 20 if n % 4 == 0 else 0}
    result, _ = live({"numpy": 5.0, "torch-compiled": 1.0},
                     {"cost_ms": {"numpy": 6, "torch-compiled": 3, "torch-eager": 3}, "stall": stall})
    c = result.candidates["torch-compiled"]
    assert c.cost_p99_ms == pytest.approx(3.0)
    assert result.candidates["numpy"].cost_p99_ms == pytest.approx(6.0)
    assert c.late == 25 and result.candidates["numpy"].late == 0
    assert result.winner == "numpy"
    assert "torch-compiled has more late frames than numpy" in result.reason


def test_as_few_late_frames_then_the_lower_p99_cost_wins_beyond_the_margin():
    result, _ = live({"numpy": 5.0, "torch-eager": 5.0, "torch-compiled": 5.0},
                     {"cost_ms": {"numpy": 8, "torch-eager": 4, "torch-compiled": 4}})
    assert all(c.late == 0 for c in result.candidates.values())
    # eager halves the cost; compiled matches eager, inside the margin: the simpler eager stands
    assert result.winner == "torch-eager"
    assert ("torch-eager beats numpy: as few late frames (late frames 0 vs 0, per round +0.0 +/- 0.0), "
            "torch-eager/numpy p99 frame cost 0.500 +/- 0.000") in result.reason
    assert ("torch-compiled/torch-eager p99 frame cost 1.000 +/- 0.000, as few late frames (late frames "
            "0 vs 0, per round +0.0 +/- 0.0)") in result.reason


def test_compile_frames_are_excluded_and_reported():
    # every switch to torch-compiled serves 12 eager warm-up frames first (it compiles again)
    result, loop = live({"numpy": 5.0, "torch-compiled": 1.0},
                        {"cost_ms": {"numpy": 8, "torch-compiled": 4, "torch-eager": 30},
                         "compile_frames": {"torch-compiled": 12}})
    c = result.candidates["torch-compiled"]
    assert c.status == "ok" and c.late == 0 and c.cost_p99_ms == pytest.approx(4.0)
    assert result.winner == "torch-compiled"
    assert c.warmup_frames > 12 and c.warmup_s > 0
    # the timed batches came after the path served its own frames: 3 + 20 each, once per round
    timed = [n for p, n in loop.calls if p == "torch-compiled" and n == FAST.warmup + FAST.frames]
    assert len(timed) == FAST.rounds


def test_rounds_alternate_in_rotated_order():
    _, loop = live({"numpy": 1.0, "torch-eager": 1.0, "torch-compiled": 1.0},
                   {"cost_ms": {"numpy": 4, "torch-eager": 4, "torch-compiled": 4}},
                   settings=RaceSettings(rounds=3, frames=5, warmup=0, parity_frames=()))
    timed = [p for p, n in loop.calls if n == 5]
    assert timed == ["numpy", "torch-eager", "torch-compiled",
                     "torch-eager", "torch-compiled", "numpy",
                     "torch-compiled", "numpy", "torch-eager"]


def test_a_path_that_stops_serving_itself_loses_the_race():
    # the 40th frame torch-eager presents comes from numpy: a timed frame not its own
    result, _ = live({"numpy": 1.0, "torch-eager": 1.0},
                     {"cost_ms": {"numpy": 8, "torch-eager": 4}, "stray": {"torch-eager": 40}})
    e = result.candidates["torch-eager"]
    assert e.status == "error" and "stopped serving its own path" in e.reason
    assert result.winner == "numpy"


def test_a_lost_output_ends_the_race():
    clock = FakeClock()
    loop = FakeLoop(clock, {"numpy": 8, "torch-eager": 4})

    def present(path, count):
        if len(loop.calls) > 6:
            raise LiveOutputLost("the output window was closed during the live race")
        return loop(path, count)

    with pytest.raises(LiveOutputLost, match="closed"):
        run_race(live_race(BAND, "cpu", isolated(clock, {"numpy": 1.0, "torch-eager": 1.0}), present,
                           settings=FAST, clock=clock))


def test_a_refresh_change_ends_the_race():
    clock = FakeClock()
    loop = FakeLoop(clock, {"numpy": 8, "torch-eager": 4})

    def present(path, count):
        if len(loop.calls) > 6:
            loop.period = 20
        return loop(path, count)

    with pytest.raises(LiveOutputLost, match=r"refresh changed during the race \(62.50 Hz -> 50.00 Hz\)"):
        run_race(live_race(BAND, "cpu", isolated(clock, {"numpy": 1.0, "torch-eager": 1.0}), present,
                           settings=FAST, clock=clock))


def test_cancel_stops_the_live_race():
    clock = FakeClock()
    cancel = threading.Event()
    gen = live_race(BAND, "cpu", isolated(clock, {"numpy": 1.0, "torch-eager": 1.0}),
                    FakeLoop(clock, {"numpy": 8, "torch-eager": 4}), settings=FAST, clock=clock,
                    cancel=cancel)
    with pytest.raises(RaceCancelled):
        for p in gen:
            if p.phase == "round":
                cancel.set()


def test_progress_reaches_its_total_also_while_a_path_compiles():
    clock = FakeClock()
    steps = []
    loop = FakeLoop(clock, {"numpy": 8, "torch-eager": 4, "torch-compiled": 3},
                    compile_frames={"torch-compiled": 25})
    run_race(live_race(BAND, "cpu", isolated(clock, {"numpy": 1.0, "torch-compiled": 1.0}), loop,
                       settings=FAST, clock=clock), steps.append)
    assert all(isinstance(p, RaceProgress) for p in steps)
    waiting = [p for p in steps if p.candidate == "torch-compiled" and p.phase in ("open", "round")]
    assert len(waiting) > FAST.rounds          # a step per chunk while it compiled, a cancel point
    assert steps[-1].phase == "done" and steps[-1].done == steps[-1].total
    dones = [p.done for p in steps]
    assert dones == sorted(dones)


def test_a_path_the_loop_never_switches_to_is_reported_within_seconds():
    # a still frame presented again from the loop's render cache: torch-compiled's frames keep
    # coming from torch-eager, none a warm-up, for as long as it is asked for
    clock = FakeClock()
    steps = []
    loop = FakeLoop(clock, {"numpy": 8, "torch-eager": 4, "torch-compiled": 3},
                    stand_in={"torch-compiled": "torch-eager"})
    result = run_race(live_race(BAND, "cpu", isolated(clock, {"numpy": 1.0, "torch-compiled": 1.0}),
                                loop, settings=FAST, clock=clock), steps.append)
    c = result.candidates["torch-compiled"]
    assert c.status == "error" and result.winner == "numpy"
    assert ("live warm-up: the live loop kept serving torch-eager frames, none of them a warm-up of "
            "torch-compiled, for 2.") in c.reason and "it is not switching to torch-compiled" in c.reason
    # told within seconds of the race clock: the 2 s rule and a chunk, not the 900 s ready timeout
    asked = sum(n for p, n in loop.calls if p == "torch-compiled")
    assert asked * 16 / 1000 <= 2.0 + 2 * 10 * 0.016
    # the race goes on: numpy raced every round
    assert result.candidates["numpy"].status == "ok" and len(result.candidates["numpy"].round_ms) == 5
    assert steps[-1].phase == "done" and steps[-1].done == steps[-1].total


def test_a_path_still_compiling_in_the_loop_is_given_up_on_a_bounded_wait():
    # torch-compiled warms up in the loop for ever (a compile that never ends): the wait is
    # bounded by a few times its warm-up in isolation, at least 30 s, not the 900 s ready timeout
    clock = FakeClock()
    steps = []
    loop = FakeLoop(clock, {"numpy": 8, "torch-eager": 4, "torch-compiled": 3},
                    compile_frames={"torch-compiled": 10**9})
    result = run_race(live_race(BAND, "cpu", isolated(clock, {"numpy": 1.0, "torch-compiled": 1.0}),
                                loop, settings=FAST, clock=clock), steps.append)
    c = result.candidates["torch-compiled"]
    assert c.status == "error" and result.winner == "numpy"
    assert ("not serving its own frames in the live loop within 30 s (the loop served torch-eager "
            "warm-up frames)") in c.reason
    asked = sum(n for p, n in loop.calls if p == "torch-compiled")
    assert 30.0 < asked * 16 / 1000 <= 30.0 + 2 * 10 * 0.016
    # while it waited the time left was unknown (a compile's length is), never a growing figure
    waiting = [p for p in steps if p.candidate == "torch-compiled" and p.phase == "open"]
    assert len(waiting) > 100 and all(p.remaining_s is None for p in waiting)


def test_the_live_ready_wait_follows_the_isolated_warm_up_within_the_ready_timeout():
    from core.decisions import live_ready_s

    assert live_ready_s(None, FAST) == 30.0 and live_ready_s(2.0, FAST) == 30.0
    assert live_ready_s(40.0, FAST) == 120.0
    assert live_ready_s(1000.0, FAST) == FAST.ready_timeout_s == 900.0


def test_the_time_left_never_grows_while_a_path_is_not_yet_serving():
    # every switch to torch-compiled in a round waits 60 frames of warm-up (it compiles again):
    # between two counted frames the time left counts down, it never grows
    clock = FakeClock()
    steps = []
    loop = FakeLoop(clock, {"numpy": 8, "torch-eager": 4, "torch-compiled": 3},
                    compile_frames={"torch-compiled": 60})
    run_race(live_race(BAND, "cpu", isolated(clock, {"numpy": 1.0, "torch-compiled": 1.0}), loop,
                       settings=FAST, clock=clock), steps.append)
    timed = [p for p in steps if p.phase == "round"]
    assert timed and all(p.remaining_s is not None for p in timed)
    for a, b in zip(timed, timed[1:], strict=False):
        if a.done == b.done:
            assert b.remaining_s <= a.remaining_s
    # and it is bounded by the whole race's pace: never above the elapsed time per counted frame
    # times the frames left
    end = steps[-1]
    for p in timed:
        assert p.remaining_s <= end.elapsed_s


def test_a_round_too_long_for_the_loop_is_refused():
    clock = FakeClock()
    with pytest.raises(ValueError, match="a live round holds at most 4000 frames"):
        next(live_race(BAND, "cpu", isolated(clock, {"numpy": 1.0}), FakeLoop(clock, {"numpy": 1}),
                       settings=RaceSettings(frames=4000, warmup=5), clock=clock))


# ---------------------------------------------------------------- the pieces, pure
def _frames(t_ms, path="numpy", period=16.0, warm=None, cost=1.0):
    n = len(t_ms)
    return LiveFrames(np.array(t_ms) / 1e3, np.full(n, cost), np.zeros(n), np.zeros(n),
                      np.array(warm if warm is not None else [False] * n), (path,) * n, period)


def test_round_figures_count_late_intervals_of_the_timed_frames_only():
    # warm-up frames 0..1; timed frames 2..5 have intervals 16, 40, 16, 33 (from frame 1 on)
    f = _frames([0, 50, 66, 106, 122, 155])
    r = round_figures(f, 2, "numpy")
    assert r.frames == 4 and list(r.intervals_ms) == pytest.approx([16, 40, 16, 33])
    assert r.late == 2                        # 40 and 33 are over 1.5 x 16 = 24
    with pytest.raises(RuntimeError, match="stopped serving its own path"):
        round_figures(_frames([0, 16, 32], warm=[False, False, True]), 1, "numpy")
    with pytest.raises(RuntimeError, match="came from numpy"):
        round_figures(_frames([0, 16, 32]), 0, "torch-eager")


def test_live_frames_refuse_ragged_records_and_take_a_timeline_tail():
    with pytest.raises(ValueError, match="render_ms has 1 rows for 2 frames"):
        LiveFrames(np.zeros(2), np.zeros(1), np.zeros(2), np.zeros(2), np.zeros(2, bool), ("a", "b"), 16.0)
    with pytest.raises(ValueError, match="period_ms must be a positive number"):
        _frames([0, 16], period=0.0)
    tl = Timeline()
    for i in range(10):
        tl.append(i, i / 60, 1.0 + i, 0.5, 0.25, 2.0, "torch-eager" if i < 8 else "numpy", i < 2, False,
                  "boom" if i == 9 else None)
    f = LiveFrames.from_snapshot(tl.snapshot(), 16.7, last=3)
    assert len(f) == 3 and f.path == ("torch-eager", "numpy", "numpy")
    assert list(f.cost_ms) == pytest.approx([8.75, 9.75, 10.75])
    assert f.errors == {2: "boom"} and not f.serving("numpy") and f.period_ms == 16.7


def _res(name, late, cost):
    return CandidateResult(name, round_ms=list(cost), round_late=list(late))


def test_decide_live_noise_level_late_frames_are_a_tie():
    # one late frame in one round of numpy's is noise, not a difference: the cost decides
    r = {"numpy": _res("numpy", [0, 0, 1, 0, 0], [8] * 5),
         "torch-eager": _res("torch-eager", [0] * 5, [4] * 5)}
    winner, why = decide_live(r, 0.03)
    assert winner == "torch-eager" and "as few late frames (late frames 0 vs 1, per round +0.0" in why
    # consistently fewer, by far: late frames decide even against a far lower cost
    r = {"numpy": _res("numpy", [3, 4, 3, 5, 3], [2] * 5),
         "torch-eager": _res("torch-eager", [0, 0, 1, 0, 0], [9] * 5)}
    assert decide_live(r, 0.03)[0] == "torch-eager"
    # fewer beyond the spread but not by the margin: 97 vs 100 at a 5 % margin is a tie
    r = {"numpy": _res("numpy", [20] * 5, [4] * 5),
         "torch-eager": _res("torch-eager", [19, 19, 20, 19, 20], [4] * 5)}
    assert decide_live(r, 0.05)[0] == "numpy"
    assert decide_live({}, 0.03) == (None, "no candidate finished the race")


def test_a_live_request_needs_something_to_present_with():
    band = parse_band(BAND)
    with pytest.raises(ValueError, match="needs the live output"):
        RaceRequest(band, "cpu", ("numpy",), form="live")
    with pytest.raises(ValueError, match="presents nothing"):
        RaceRequest(band, "cpu", ("numpy",), present=lambda p, n: None)
    with pytest.raises(ValueError, match="form must be one of render, live"):
        RaceRequest(band, "cpu", ("numpy",), form="fast")
