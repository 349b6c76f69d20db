"""The latency join on synthetic present and capture logs, where every latency is known."""

import json
import math

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from core.capture import ClockMapping
from core.decode import (
    CaptureLog,
    CaptureSample,
    Correction,
    PresentLog,
    end_of_frame_correction,
    latency_report,
    latency_stats,
    offset_correction,
    parse_present_log,
    read_present_log,
    write_histogram,
    write_latency_csv,
    write_latency_plot,
)
from core.decode.latency import AHEAD, band_names, unwrap_index
from core.timing import Timeline
from tests.helpers.latency_sim import Run, sample


def recovered(report) -> dict[int, float]:
    return {f["index"]: f["latency_ms"] for f in report["frames"] if f["latency_ms"] is not None}


def assert_within_capture_period(report, run: Run, slack_ms: float = 1e-4):
    """Each recovered latency is the injected one, late by at most one capture period (reported
    to 1e-4 ms)."""
    period_ms = 1000.0 / run.capture_hz
    got = recovered(report)
    assert got, "nothing matched"
    for index, ms in got.items():
        true_ms = run.truth["latency_s"][index] * 1e3
        assert true_ms - slack_ms <= ms <= true_ms + period_ms + slack_ms, (index, ms, true_ms)


def test_constant_latency_every_frame_matched():
    run = Run(latency_s=0.030)
    rep = latency_report(*run.build())
    assert rep["presented"] == 240 and rep["matched"] == 240
    assert (rep["display_drops"], rep["repeats"], rep["torn"], rep["capture_drops"]) == (0, 0, 0, 0)
    assert rep["unmatched_captures"] == 0
    assert_within_capture_period(rep, run)
    s = rep["latency_ms"]
    assert s["n"] == 240 and 30.0 <= s["min"] <= s["median"] <= s["max"] < 30.0 + 1000 / 240
    assert set(s) == {"n", "min", "p5", "median", "mean", "p95", "p99", "max", "sd"}
    assert rep["capture_rate_hz"] == pytest.approx(240.0)
    assert rep["display_rate_hz"] == pytest.approx(60.0)
    assert "4.17 ms" in rep["precision"] and "genlocked" in rep["precision"]
    json.dumps(rep)   # JSON-ready


def test_jittered_latency_recovered_per_frame():
    rng = np.random.default_rng(3)
    run = Run(latency_s=0.040 + rng.normal(0, 0.002, 240), present_jitter_s=0.003, capture_hz=500)
    rep = latency_report(*run.build())
    assert rep["matched"] == 240 and rep["display_drops"] == 0
    assert_within_capture_period(rep, run)
    assert rep["latency_ms"]["sd"] == pytest.approx(2.0, abs=0.6)


def test_bimodal_latency_shows_both_modes():
    # two pipelines 10 ms apart, taken at random frame by frame (less than a period apart, so
    # frames still reach the screen in order)
    lat = np.where(np.random.default_rng(5).random(240) < 0.5, 0.020, 0.030)
    run = Run(latency_s=lat, capture_hz=1000)
    rep = latency_report(*run.build())
    assert rep["matched"] == 240 and rep["display_drops"] == 0
    assert_within_capture_period(rep, run)
    s = rep["latency_ms"]
    assert 20.0 <= s["p5"] <= 21.0 and 30.0 <= s["p95"] <= 31.0
    assert [v for v in recovered(rep).values() if 21.5 < v < 29.5] == []


def test_drops_are_listed_and_repeats_counted_once():
    run = Run(drops=(50, 120, 121), repeats=(80,))
    rep = latency_report(*run.build())
    assert rep["display_drops"] == 3 and rep["dropped"] == [50, 120, 121]
    assert rep["repeats"] == 1
    assert [e["index"] for e in rep["events"] if e["kind"] == "repeat"] == [80]
    statuses = {f["index"]: f["status"] for f in rep["frames"]}
    assert statuses[50] == statuses[120] == "dropped" and statuses[49] == "matched"
    assert_within_capture_period(rep, run)


def test_tears_counted_and_bands_give_scan_position():
    # a 10 ms scan: a 1000 Hz capture catches the bands mid-change
    run = Run(scan_s=0.010, capture_hz=1000)
    rep = latency_report(*run.build())
    assert rep["torn"] > 0 and rep["display_drops"] == 0 and rep["repeats"] == 0
    bands = rep["bands"]
    assert list(bands) == ["top", "middle", "bottom"]
    assert [bands[n]["position"] for n in bands] == [0.2, 0.5, 0.8]
    for name, y in zip(bands, (0.2, 0.5, 0.8), strict=True):
        assert bands[name]["latency_ms"]["median"] == pytest.approx(30.0 + 10.0 * y, abs=1.0)
    assert rep["top_to_bottom_ms"] == pytest.approx(6.0, abs=1.0)
    # the overall latency is the first band to show a frame: the top one
    assert rep["latency_ms"]["median"] == pytest.approx(bands["top"]["latency_ms"]["median"], abs=1e-6)


def test_counter_wrap_unwrapped_against_the_present_log():
    run = Run(frames=300, modulus=16, first_index=1000)
    present, captures = run.build()
    rep = latency_report(present, captures)
    assert rep["matched"] == 300 and rep["unmatched_captures"] == 0
    assert rep["frames"][0]["index"] == 1000 and rep["frames"][-1]["index"] == 1299
    assert rep["frames"][5]["counter"] == 1005 % 16
    assert_within_capture_period(rep, run)


def test_unwrap_allows_a_little_ahead_and_wraps_back():
    assert unwrap_index(3, 1000, 16) == 995          # 995 % 16 == 3, the nearest at or below
    assert unwrap_index(1001 % 16, 1000, 16) == 1001  # one ahead: clock error, allowed
    assert unwrap_index(1005 % 16, 1000, 16) == 989   # five ahead is the past, not the future


def test_stale_content_is_an_unmatched_capture_never_a_match():
    present, captures = Run(frames=60).build()
    stale = CaptureSample(present.t_s[0] + 0.001, "ok", (40000,), (40000, 40000, 40000))
    rep = latency_report(present, CaptureLog([stale, *captures.samples], captures.modulus,
                                             captures.band_y, captures.rate_hz))
    assert rep["unmatched_captures"] == 1 and rep["matched"] == 60


def test_capture_gaps_are_never_blamed_on_the_display():
    run = Run()
    present, captures = run.build()
    samples = list(captures.samples)
    # the capture lost 40 frames (1/6 s): the ten presented frames in it were seen by nobody
    kept = samples[:400] + [CaptureSample(samples[440].t_s, samples[440].status, samples[440].indices,
                                          samples[440].bands, lost_before=40)] + samples[441:]
    rep = latency_report(present, CaptureLog(kept, captures.modulus, captures.band_y, captures.rate_hz))
    unseen = rep["unseen_in_capture_gaps"]
    assert rep["display_drops"] == 0 and rep["dropped"] == [] and unseen in (9, 10)
    assert rep["capture_drops"] == 40
    assert [e["kind"] for e in rep["events"]] == ["gap"]
    assert sum(f["status"] == "unseen" for f in rep["frames"]) == unseen
    # the same hole with no loss reported by the capture: the display is blamed for it
    blind = samples[:400] + samples[440:]
    rep2 = latency_report(present, CaptureLog(blind, captures.modulus, captures.band_y, captures.rate_hz))
    assert rep2["display_drops"] == unseen and rep2["capture_drops"] == 0


def test_undecodable_captures_hide_an_index_each_at_most():
    run = Run(capture_hz=60.0, phase_s=0.001, drops=(100, 101, 102))
    present, captures = run.build()
    samples = list(captures.samples)
    k = next(i for i, s in enumerate(samples) if s.index == 103 % captures.modulus)
    samples[k - 1] = CaptureSample(samples[k - 1].t_s, "undecodable")
    rep = latency_report(present, CaptureLog(samples, captures.modulus, captures.band_y, 60.0))
    assert rep["unseen_in_capture_gaps"] == 1 and rep["display_drops"] == 2


def test_wall_clock_source_with_drifting_offset_maps_onto_monotonic():
    """A source stamping CLOCK_REALTIME, whose offset from CLOCK_MONOTONIC drifts 200 ppm and
    starts 1.7e9 s away: mapped through bracketed readings refreshed as it runs."""
    run = Run(frames=600, capture_hz=240)
    present, captures = run.build()
    now = {"t": run.t0 - 1.0}

    def monotonic():
        return now["t"]

    def realtime():
        return 1.7e9 + now["t"] * (1 + 200e-6)

    mapping = ClockMapping(monotonic, realtime, refresh_s=1.0)
    mapped = []
    for s in captures.samples:
        now["t"] = s.t_s + 0.002           # the frame arrives 2 ms after it was taken
        mapping.refresh()
        raw = 1.7e9 + s.t_s * (1 + 200e-6)
        mapped.append(CaptureSample(mapping.to_monotonic(raw), s.status, s.indices, s.bands))
    assert mapping.total_readings >= 10 and mapping.drift_ppm == pytest.approx(200, rel=0.01)
    # without refreshing, 200 ppm over the run is off by more than the capture period
    stale = ClockMapping(lambda: run.t0, lambda: 1.7e9 + run.t0 * (1 + 200e-6))
    drift_ms = abs(stale.to_monotonic(1.7e9 + (run.t0 + 20) * (1 + 200e-6)) - (run.t0 + 20)) * 1e3
    assert drift_ms > 3.0
    rep = latency_report(present, CaptureLog(mapped, captures.modulus, captures.band_y, 240,
                                             clock="realtime-mapped", mapping=mapping.describe()))
    assert rep["matched"] == 600 and rep["capture_clock"] == "realtime-mapped"
    assert rep["clock_mapping"]["drift_ppm"] == pytest.approx(200, rel=0.01)
    assert_within_capture_period(rep, run, slack_ms=0.2)


def test_corrections_listed_and_applied_never_silently():
    run = Run()
    present, captures = run.build()
    plain = latency_report(present, captures)
    fixes = [end_of_frame_correction(240.0), offset_correction(5.0)]
    rep = latency_report(present, captures, corrections=fixes)
    names = [c["name"] for c in rep["corrections"]]
    assert names == ["capture end-of-frame timestamp", "capture chain offset"]
    assert [c["ms"] for c in rep["corrections"]] == [pytest.approx(-1000 / 240, abs=1e-4), -5.0]
    assert rep["corrections_total_ms"] == pytest.approx(-5.0 - 1000 / 240, abs=1e-4)
    assert rep["uncorrected_latency_ms"] == plain["latency_ms"]
    assert rep["latency_ms"]["median"] == pytest.approx(plain["latency_ms"]["median"] - 5 - 1000 / 240,
                                                        abs=1e-3)
    assert plain["corrections"] == [] and plain["corrections_total_ms"] == 0.0
    with pytest.raises(ValueError, match="offset-ms"):
        offset_correction(math.nan)
    with pytest.raises(ValueError, match="capture rate"):
        end_of_frame_correction(0)
    with pytest.raises(ValueError, match="needs a name"):
        Correction("", 1.0)


def test_negative_latencies_flagged():
    run = Run(latency_s=0.002, capture_hz=1000)
    present, captures = run.build()
    rep = latency_report(present, captures, corrections=[offset_correction(10.0)])
    assert rep["negative_latencies"] == rep["matched"]
    assert any("below zero" in n for n in rep["notes"])


def test_stats_and_band_names():
    assert latency_stats([])["n"] == 0 and latency_stats([])["median"] is None
    one = latency_stats([5.0])
    assert one["sd"] is None and one["min"] == one["max"] == 5.0
    s = latency_stats(np.arange(101, dtype=float))
    assert (s["p5"], s["median"], s["p95"], s["p99"]) == (5.0, 50.0, 95.0, 99.0)
    assert s["sd"] == pytest.approx(np.std(np.arange(101), ddof=1), abs=1e-3)
    assert band_names(3) == ["top", "middle", "bottom"]
    assert band_names(2) == ["top", "bottom"]
    assert band_names(5) == ["top", "band 1", "middle", "band 3", "bottom"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(latency_ms=st.floats(0.0, 200.0), display_hz=st.sampled_from([24.0, 30.0, 60.0, 120.0, 144.0]),
       ratio=st.floats(1.2, 8.0), phase=st.floats(0.0, 1.0), jitter_ms=st.floats(0.0, 3.0),
       modulus_bits=st.integers(4, 16))
def test_recovered_latency_is_the_injected_one_within_a_capture_period(latency_ms, display_hz, ratio, phase,
                                                                      jitter_ms, modulus_bits):
    capture_hz = display_hz * ratio
    # a counter shorter than the latency (in frames) cannot tell its wraps apart
    assume(latency_ms / 1e3 * display_hz + jitter_ms / 1e3 * display_hz + AHEAD + 1 < 1 << modulus_bits)
    # every frame must stay on screen longer than a capture period (a present up to jitter_ms
    # late shortens the frame before it by as much), or no capture can see it
    assume(1.0 / display_hz - jitter_ms / 1e3 > 1.0 / capture_hz)
    run = Run(frames=90, display_hz=display_hz, capture_hz=capture_hz, latency_s=latency_ms / 1e3,
              phase_s=phase / capture_hz, present_jitter_s=jitter_ms / 1e3, modulus=1 << modulus_bits,
              capture_until_s=latency_ms / 1e3 + 0.1)
    rep = latency_report(*run.build())
    assert rep["matched"] == 90 and rep["display_drops"] == 0
    assert_within_capture_period(rep, run)


# ---------------------------------------------------------------- the present log's file
def test_present_log_read_from_the_timeline_export(tmp_path):
    tl = Timeline(capacity=64)
    for i in range(10):
        tl.append(100 + i, 50.0 + i / 60, 1.0, 0.1, 0.1, 0.2, "numpy",
                  error="render failed" if i == 4 else None)
    path = tmp_path / "present.csv"
    tl.snapshot().write_csv(path)
    log = read_present_log(path)
    assert log.index.tolist() == [100, 101, 102, 103, 105, 106, 107, 108, 109]   # the failed row left out
    assert log.t_s[0] == pytest.approx(50.0, abs=1e-6)
    snap_log = PresentLog.from_snapshot(tl.snapshot())
    assert snap_log.index.tolist() == log.index.tolist()


@pytest.mark.parametrize(("text", "message"), [
    ("", "is empty"),
    ("frame,when\n1,2\n", "no index or present_s column"),
    ("index,present_s\n", "no presented frames"),
    ("index,present_s\nx,1.0\n", "line 2: index must be a whole number"),
    ("index,present_s\n1,nan\n", "line 2: present_s must be a finite"),
    ("index,present_s\n1,2\n3\n", "line 3: expected 2 columns"),
    ("index,present_s\n" + "9" * 30 + ",1\n", "index must be a whole number"),
])
def test_present_log_refuses_bad_input_naming_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        parse_present_log(text, "present.csv")


def test_present_log_file_errors(tmp_path):
    with pytest.raises(ValueError, match="cannot read"):
        read_present_log(tmp_path / "missing.csv")
    bad = tmp_path / "bin.csv"
    bad.write_bytes(b"\xff\xfe\x00index")
    with pytest.raises(ValueError, match="not UTF-8"):
        read_present_log(bad)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_present_log_parser_only_ever_says_valueerror(text):
    try:
        log = parse_present_log("index,present_s\n" + text)
    except ValueError:
        return
    assert len(log) >= 1 and np.isfinite(log.t_s).all()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-2**62, 2**62), st.floats(-1e9, 1e9, allow_nan=False)), min_size=1,
                max_size=30))
def test_present_log_round_trips(rows):
    text = "index,present_s,error\n" + "".join(f"{i},{t!r},\n" for i, t in rows)
    log = parse_present_log(text)
    assert log.index.tolist() == [i for i, _ in rows]
    assert log.t_s.tolist() == [t for _, t in rows]


# ---------------------------------------------------------------- the files
def test_csv_and_plots_written(tmp_path):
    run = Run(drops=(30,), repeats=(60,), scan_s=0.008, capture_hz=480)
    rep = latency_report(*run.build())
    csv_path = write_latency_csv(tmp_path / "lat.csv", rep)
    lines = csv_path.read_text().splitlines()
    assert lines[0] == "index,counter,present_s,capture_s,latency_ms,status,top_ms,middle_ms,bottom_ms"
    assert len(lines) == 1 + rep["presented"]
    assert lines[31].split(",")[5] == "dropped" and lines[31].split(",")[4] == ""
    for writer, name in ((write_histogram, "hist.png"), (write_latency_plot, "time.png")):
        img = cv2.imread(str(writer(tmp_path / name, rep)))
        assert img.shape == (640, 1280, 3) and (img != 255).any()
    with pytest.raises(ValueError, match="--histogram writes a PNG"):
        write_histogram(tmp_path / "hist.jpg", rep)
    empty = latency_report(PresentLog([1, 2], [0.0, 0.1]), CaptureLog([], 1 << 16))
    assert empty["matched"] == 0 and empty["latency_ms"]["n"] == 0
    assert cv2.imread(str(write_latency_plot(tmp_path / "empty.png", empty))) is not None
    assert cv2.imread(str(write_histogram(tmp_path / "empty_h.png", empty))) is not None


def test_torn_capture_without_band_info_still_matches():
    present = PresentLog(np.arange(10), 1.0 + np.arange(10) / 60)
    caps = [sample(1.0 + i / 60 + 0.02, [i, i, i]) for i in range(10)]
    caps[3] = CaptureSample(caps[3].t_s, "torn", (4, 3))
    rep = latency_report(present, CaptureLog(caps, 16, (), 60.0))
    assert rep["torn"] == 1 and rep["matched"] == 10
    assert recovered(rep)[4] == pytest.approx((caps[3].t_s - present.t_s[4]) * 1e3, abs=1e-3)
