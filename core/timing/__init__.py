"""Frame timing, pure: statistics over timestamp arrays, the live loop's bounded timeline and
its running totals, the timing view's numbers, a streaming CSV record, pacing decisions with an
injected clock, the schedule of frames rendered ahead of their presents, and clock pairs (the
wall clock read around the present clock).  No Qt."""

from core.timing.bench import bench_timing
from core.timing.clocks import ClockPair, take_clock_pair
from core.timing.pacing import TIMER, VSYNC, DeadlineSchedule, PacingMonitor
from core.timing.record import CLOCK_COLUMNS, CSV_COLUMNS, RecordResult, TimelineRecorder
from core.timing.render_ahead import Handed, Job, RenderAhead
from core.timing.stats import frame_stats, late_mask, measured_period, missed_vsyncs, summary
from core.timing.timeline import HISTORY_S, Timeline, TimelineSnapshot, history_rows
from core.timing.totals import RunningTotals
from core.timing.view import (
    WINDOWS_S,
    counter_texts,
    coverage_texts,
    span_text,
    timeline_columns,
    timing_view,
)

__all__ = [
    "CLOCK_COLUMNS",
    "CSV_COLUMNS",
    "ClockPair",
    "DeadlineSchedule",
    "Handed",
    "HISTORY_S",
    "Job",
    "PacingMonitor",
    "RecordResult",
    "RenderAhead",
    "RunningTotals",
    "TIMER",
    "Timeline",
    "TimelineRecorder",
    "TimelineSnapshot",
    "VSYNC",
    "WINDOWS_S",
    "bench_timing",
    "counter_texts",
    "coverage_texts",
    "frame_stats",
    "history_rows",
    "late_mask",
    "measured_period",
    "missed_vsyncs",
    "span_text",
    "summary",
    "take_clock_pair",
    "timeline_columns",
    "timing_view",
]
