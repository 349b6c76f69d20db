"""The metric families: Prometheus names and units, bounded labels, and the frame loop's own
verdicts passed on by the totals feed (never judged a second way)."""

import math

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from core.metrics import CaptureMetrics, OutputMetrics, ServeMetrics, TotalsFeed, period_buckets
from core.timing import RunningTotals


def samples(registry) -> dict:
    out = {}
    for fam in text_string_to_metric_families(generate_latest(registry).decode()):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(registry, name, **labels):
    return samples(registry)[(name, tuple(sorted(labels.items())))]


def test_names_follow_prometheus_conventions():
    reg = CollectorRegistry()
    OutputMetrics(reg)
    ServeMetrics(reg)
    CaptureMetrics(reg)
    names = {fam.name for fam in text_string_to_metric_families(generate_latest(reg).decode())}
    for n in names:
        assert n.startswith("testcard_") and n == n.lower()
    got = {name for name, _ in samples(reg)}
    for counter in ("testcard_frames_presented_total", "testcard_frames_late_total",
                    "testcard_vblanks_missed_total", "testcard_patches_received_total",
                    "testcard_capture_frames_total"):
        assert counter in got
    for hist in ("testcard_present_interval_seconds", "testcard_frame_work_seconds",
                 "testcard_latency_seconds"):
        assert f"{hist}_bucket" in got and f"{hist}_count" in got
    assert "testcard_refresh_rate_hertz" in got and "testcard_frame_budget_seconds" in got


def test_interval_buckets_sit_around_the_budget_and_the_late_rule():
    b = period_buckets(1 / 60, (0.9, 1.1, 1.5))
    assert b == (round(0.9 / 60, 6), round(1.1 / 60, 6), 0.025)
    with pytest.raises(ValueError, match="frame period"):
        period_buckets(math.inf, (1.0,))
    reg = CollectorRegistry()
    OutputMetrics(reg, period_s=1 / 120)
    bounds = sorted(float(dict(lb)["le"]) for (n, lb) in samples(reg)
                    if n == "testcard_present_interval_seconds_bucket" and dict(lb)["le"] != "+Inf")
    assert any(abs(x - 1.5 / 120) < 1e-6 for x in bounds)          # the late rule is a bound
    assert value(reg, "testcard_refresh_rate_hertz") == pytest.approx(120)


def test_info_labels_carry_the_output_and_replace_the_old_ones():
    reg = CollectorRegistry()
    m = OutputMetrics(reg)
    m.set_output(pattern="bars", width=1920, height=1080, bit_depth=10, transfer="pq",
                 render_path="numpy", path_source="default", presenter="opengl")
    m.set_output(pattern="checkerboard", width=640, height=480, bit_depth=8, transfer="sdr",
                 render_path="torch-compiled", path_source="cache", presenter="raster")
    infos = [dict(lb) for (n, lb) in samples(reg) if n == "testcard_output_info"]
    assert infos == [{"pattern": "checkerboard", "width": "640", "height": "480", "bit_depth": "8",
                      "transfer": "sdr", "render_path": "torch-compiled", "path_source": "cache",
                      "presenter": "raster"}]


def test_serve_protocols_are_bounded_and_exist_from_the_start():
    reg = CollectorRegistry()
    s = ServeMetrics(reg)
    assert value(reg, "testcard_patches_received_total", protocol="pgenerator") == 0
    s.patch_received("PGenerator")
    s.patch_received("made-up protocol from a client")       # never a new label value
    s.patch_acknowledged("upgci")
    s.set_clients("resolve", 2)
    for record in ({"kind": "patch", "source": "argyll-web"}, {"kind": "shown", "source": "argyll-web"},
                   {"kind": "shown", "source": "upgci", "acknowledged": False},
                   {"kind": "not-shown", "source": "upgci"}, {"kind": "connected", "source": "upgci"},
                   {"kind": "disconnected", "source": "upgci"}, {"kind": "disconnected", "source": "upgci"}):
        s.record(record)
    assert value(reg, "testcard_patches_received_total", protocol="pgenerator") == 1
    assert value(reg, "testcard_patches_received_total", protocol="other") == 1
    assert value(reg, "testcard_patches_acknowledged_total", protocol="upgci") == 1   # not the late one
    assert value(reg, "testcard_patches_refused_total", protocol="upgci") == 1
    assert value(reg, "testcard_patches_received_total", protocol="argyll-web") == 1
    assert value(reg, "testcard_patches_acknowledged_total", protocol="argyll-web") == 1
    assert value(reg, "testcard_clients_connected", protocol="upgci") == 0          # never below 0
    assert value(reg, "testcard_clients_connected", protocol="resolve") == 2
    protocols = {dict(lb)["protocol"] for (n, lb) in samples(reg) if "protocol" in dict(lb)}
    assert protocols == {"resolve", "pgenerator", "upgci", "argyll-web", "other"}


def test_feed_passes_on_the_totals_verdicts_frame_by_frame():
    reg = CollectorRegistry()
    m = OutputMetrics(reg)
    feed = TotalsFeed(m, wall=lambda: 1234.5)
    totals = RunningTotals(1000 / 60)
    times = [0.0, 1 / 60, 2 / 60, 5 / 60, 6 / 60]      # one interval of 3 periods: late, 2 missed
    for t in times:
        totals.add(t, 1.0, False)
        feed.update(totals, work_ms=2.0)
    assert value(reg, "testcard_frames_presented_total") == 5
    assert value(reg, "testcard_frames_late_total") == totals.late == 1
    assert value(reg, "testcard_vblanks_missed_total") == totals.missed_vsyncs == 2
    assert value(reg, "testcard_present_interval_seconds_count") == 4
    assert value(reg, "testcard_present_interval_seconds_sum") == pytest.approx(6 / 60)
    assert value(reg, "testcard_frame_work_seconds_count") == 5
    assert value(reg, "testcard_frame_work_seconds_sum") == pytest.approx(0.010)
    assert value(reg, "testcard_last_present_timestamp_seconds") == 1234.5


def test_clearing_the_totals_never_makes_a_counter_go_down():
    reg = CollectorRegistry()
    feed = TotalsFeed(OutputMetrics(reg))
    totals = RunningTotals(1000 / 60)
    for t in (0.0, 0.1, 0.2):                           # two late intervals
        totals.add(t, 1.0, False)
        feed.update(totals, 1.0)
    totals.clear()                                      # the operator resets the timing
    for t in (1.0, 1 + 1 / 60):
        totals.add(t, 1.0, False)
        feed.update(totals, 1.0)
    assert value(reg, "testcard_frames_presented_total") == 5
    assert value(reg, "testcard_frames_late_total") == 2
    # the first interval after the clear is not measured across it
    assert value(reg, "testcard_present_interval_seconds_count") == 3


def test_capture_totals_move_the_counters_by_what_grew():
    reg = CollectorRegistry()
    c = CaptureMetrics(reg)
    for totals in ((10, 0, 0), (25, 1, 2), (25, 1, 2), (40, 3, 2), (5, 0, 0)):   # the last: a new run
        c.totals(*totals)
    assert value(reg, "testcard_capture_frames_total") == 45
    assert value(reg, "testcard_capture_drops_total") == 3
    assert value(reg, "testcard_display_drops_total") == 2


def test_capture_metrics_count_only_what_happened():
    reg = CollectorRegistry()
    c = CaptureMetrics(reg)
    c.frames(captured=10, capture_drops=1, display_drops=0)
    c.observe_latency(0.030)
    c.observe_latency(math.nan)                         # a frame with no latency is not a sample
    assert value(reg, "testcard_capture_frames_total") == 10
    assert value(reg, "testcard_display_drops_total") == 0
    assert value(reg, "testcard_latency_seconds_count") == 1
