"""Which clock a recording is on, recognised against the present log and its clock pairs, and
the clock pairs read back from the timeline's CSV (old logs without them still read)."""

from dataclasses import replace

import numpy as np
import pytest

from core.decode import CaptureLog, latency_report, parse_present_log, read_present_log
from core.decode.latency_clock import KEEP_CLOCK_FLAGS, place_capture, wall_to_present
from core.timing import Timeline
from core.timing.clocks import ClockPair
from tests.helpers.latency_sim import Run, wall_clock


def placed_log(captures: CaptureLog, times, correction) -> CaptureLog:
    samples = [replace(s, t_s=float(t)) for s, t in zip(captures.samples, times, strict=True)]
    return replace(captures, samples=samples, placed=correction)


def times(captures: CaptureLog) -> np.ndarray:
    return np.array([s.t_s for s in captures.samples])


def assert_latencies_are_the_truth(report, run: Run, slack_ms: float = 1e-3):
    period_ms = 1000.0 / run.capture_hz
    got = {f["index"]: f["latency_ms"] for f in report["frames"] if f["latency_ms"] is not None}
    assert len(got) == run.frames
    for i, ms in got.items():
        truth = run.truth["latency_s"][i] * 1e3
        assert truth - slack_ms <= ms <= truth + period_ms + slack_ms, (i, ms, truth)


def test_a_monotonic_capture_is_taken_as_it_is():
    run = Run(frames=300)
    present, captures = run.build()
    with_pairs, _, _ = wall_clock(present, captures)
    placed, how = place_capture(with_pairs, times(captures))
    assert np.array_equal(placed, times(captures))
    assert (how.clock, how.offset_s, how.uncertainty_ms) == ("monotonic", 0.0, 0.0)
    rep = latency_report(with_pairs, placed_log(captures, placed, how))
    assert rep["corrections"][0]["kind"] == "clock" and rep["corrections"][0]["clock"] == "monotonic"
    assert rep["corrections_total_ms"] == 0.0
    assert_latencies_are_the_truth(rep, run)


def test_a_wall_clock_capture_is_mapped_through_the_pairs_following_a_slew():
    """20 s at 60 Hz, the wall clock slewed 300 ppm (6 ms over the run, more than the 4.2 ms
    capture period): interpolating between the pairs keeps every latency right."""
    run = Run(frames=1200, capture_hz=240.0)
    present, captures = run.build()
    logged, stamped, _wall = wall_clock(present, captures, slew_ppm=300.0, every_s=2.0)
    placed, how = place_capture(logged, times(stamped))
    # exact between the first and last pairs; past the last one its offset goes on (0.25 s of
    # captures after the last present: 75 us of slew)
    within = times(captures) <= logged.clock_pairs[-1].monotonic_s
    np.testing.assert_allclose(placed[within], times(captures)[within], rtol=0, atol=2e-6)
    np.testing.assert_allclose(placed, times(captures), rtol=0, atol=80e-6)
    assert how.clock == "realtime" and how.pairs == len(logged.clock_pairs) == 11
    assert how.offset_s == pytest.approx(-1.7e9 - 0.003, abs=1e-3)
    # the pairs' 1 us, and what a slew may have moved the last 0.25 s past the last pair
    assert how.uncertainty_ms == pytest.approx(1e-3 + 0.25 * 500e-6 * 1e3, rel=0.02) and how.steps == 0
    assert how.offset_span_s * 1e3 == pytest.approx(6.0, abs=0.1)
    rep = latency_report(logged, placed_log(stamped, placed, how))
    clock = rep["corrections"][0]
    assert clock["name"] == "capture clock" and clock["clock"] == "realtime"
    assert clock["uncertainty_ms"] == round(how.uncertainty_ms, 4) and clock["clock_pairs"] == 11
    assert rep["corrections_total_ms"] == 0.0 and rep["uncorrected_latency_ms"] == rep["latency_ms"]
    assert_latencies_are_the_truth(rep, run)
    # one pair alone (no refresh) is off by the slew: more than a capture period by the end
    first_only = replace(logged, clock_pairs=logged.clock_pairs[:1])
    stale, _, _ = wall_to_present(first_only, times(stamped))
    assert abs(stale[-1] - times(captures)[-1]) * 1e3 > 1000.0 / run.capture_hz


def test_a_wall_clock_step_between_pairs_takes_the_nearer_pair_and_says_how_far_off():
    run = Run(frames=600)
    present, captures = run.build()
    at = float(present.t_s[300]) + 0.3
    logged, stamped, _ = wall_clock(present, captures, every_s=2.0, step_at_s=at, step_s=0.5)
    mapped, unc, steps = wall_to_present(logged, times(stamped))
    assert steps == 1
    pair_m = np.array([p.monotonic_s for p in logged.clock_pairs])
    k = np.searchsorted(pair_m, at)
    inside = (times(captures) > pair_m[k - 1]) & (times(captures) < pair_m[k])
    # outside the step's interval: exact; inside it: within the uncertainty it states (the jump)
    np.testing.assert_allclose(mapped[~inside], times(captures)[~inside], atol=2e-6)
    assert (np.abs(mapped - times(captures)) <= unc + 1e-9).all()
    assert unc[inside].min() >= 0.5 and unc[~inside].max() < 1e-6 + 0.26 * 500e-6
    _, how = place_capture(logged, times(stamped))
    assert how.steps == 1 and how.uncertainty_ms >= 500.0


def test_a_capture_counting_from_zero_is_refused_with_the_ffmpeg_flags_that_keep_the_clock():
    run = Run()
    present, captures = run.build()
    logged, _, _ = wall_clock(present, captures)
    relative = times(captures) - times(captures)[0]
    with pytest.raises(ValueError) as err:
        place_capture(logged, relative)
    msg = str(err.value)
    assert "start at 0.000 s" in msg and f"`{KEEP_CLOCK_FLAGS}`" in msg
    assert KEEP_CLOCK_FLAGS == "-copyts -fps_mode passthrough"
    assert "--capture-offset-s" in msg and "\n" not in msg


def test_an_old_log_without_pairs_still_joins_monotonic_and_says_why_it_cannot_map_the_wall():
    run = Run()
    present, captures = run.build()
    assert present.clock_pairs == ()
    placed, how = place_capture(present, times(captures))
    assert how.clock == "monotonic" and np.array_equal(placed, times(captures))
    _, stamped, _ = wall_clock(present, captures)
    with pytest.raises(ValueError, match="look like wall-clock times.*no clock pairs"):
        place_capture(present, times(stamped))


def test_a_capture_on_neither_clock_is_refused_naming_both_spans():
    run = Run()
    present, captures = run.build()
    logged, _, _ = wall_clock(present, captures)
    with pytest.raises(ValueError, match="do not overlap the present log's .* nor on its wall clock"):
        place_capture(logged, times(captures) + 5000.0)


def test_a_given_offset_overrides_recognition():
    run = Run(frames=120)
    present, captures = run.build()
    logged, stamped, _ = wall_clock(present, captures)
    start = times(captures)[0]
    placed, how = place_capture(logged, times(captures) - start, offset_s=start)
    np.testing.assert_allclose(placed, times(captures))
    assert how.clock == "offset" and how.uncertainty_ms is None and how.offset_s == start
    with pytest.raises(ValueError, match="plus --capture-offset-s 3"):
        place_capture(logged, times(stamped), offset_s=3.0)      # taken as given, not recognised


def test_clocks_close_together_are_read_as_monotonic_and_say_so():
    run = Run()
    present, captures = run.build()
    logged, _, _ = wall_clock(present, captures, offset_s=0.5)     # a board with no real-time clock
    _, how = place_capture(logged, times(captures))
    assert how.clock == "monotonic" and "fit the wall clock too" in how.why


# ---------------------------------------------------------------- the pairs in the present log's file
def test_clock_pairs_round_trip_through_the_timeline_csv(tmp_path):
    made = iter([ClockPair(1.7e9 + 10.25, 10.25, 4e-7), ClockPair(1.7e9 + 12.5, 12.5000001, 3e-7)])
    tl = Timeline(capacity=512, clock_pair=lambda: next(made), clock_refresh_s=2.0)
    for i in range(130):
        tl.append(i, 10.0 + i / 60, 1.0, 0.0, 0.0, 0.0, "numpy", error="boom" if i == 120 else None)
    path = tmp_path / "present.csv"
    tl.snapshot().write_csv(path)
    log = read_present_log(path)
    assert len(log) == 129                                     # the failed render is no present
    assert len(log.clock_pairs) == 2                           # rows 0 and 120 (failed, still read)
    for got, want in zip(log.clock_pairs, tl.clock_pairs, strict=True):
        assert got == pytest.approx(want, abs=1e-7)


def test_an_old_log_reads_as_before_and_bad_pairs_are_refused_naming_the_line():
    old = ("frame,index,present_s,interval_ms,render_ms,transfer_ms,upload_ms,present_ms,path,warmup,"
           "paused,error\n0,0,1.000000,,1.0,0,0,0,numpy,0,0,\n1,1,1.016667,16.7,1.0,0,0,0,numpy,0,0,\n")
    log = parse_present_log(old)
    assert len(log) == 2 and log.clock_pairs == ()
    head = "index,present_s,clock_realtime_s,clock_monotonic_s,clock_uncertainty_s\n"
    ok = parse_present_log(head + "0,1.0,1700000001.5,1.5,0.000001\n1,1.1,,,\n")
    assert ok.clock_pairs == (ClockPair(1700000001.5, 1.5, 1e-6),)
    with pytest.raises(ValueError, match="line 2: clock_monotonic_s must be a finite number"):
        parse_present_log(head + "0,1.0,1700000001.5,,0.000001\n", "p.csv")
    with pytest.raises(ValueError, match="line 3: clock_uncertainty_s must be 0 or more"):
        parse_present_log(head + "0,1.0,,,\n1,1.1,1700000001.5,1.5,-1\n", "p.csv")
