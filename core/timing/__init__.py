"""Frame timing, pure: statistics over timestamp arrays, the live loop's timeline, and
pacing decisions with an injected clock.  No Qt."""

from core.timing.pacing import TIMER, VSYNC, DeadlineSchedule, PacingMonitor
from core.timing.stats import frame_stats, late_mask, measured_period, missed_vsyncs, summary
from core.timing.timeline import CSV_COLUMNS, Timeline
from core.timing.view import counter_texts, timeline_columns, timing_view

__all__ = [
    "CSV_COLUMNS",
    "DeadlineSchedule",
    "PacingMonitor",
    "TIMER",
    "Timeline",
    "VSYNC",
    "counter_texts",
    "frame_stats",
    "late_mask",
    "measured_period",
    "missed_vsyncs",
    "summary",
    "timeline_columns",
    "timing_view",
]
