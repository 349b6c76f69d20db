"""Frame timing, pure: statistics over timestamp arrays, the live loop's timeline, and
pacing decisions with an injected clock.  No Qt."""

from core.timing.pacing import TIMER, VSYNC, DeadlineSchedule, PacingMonitor
from core.timing.stats import frame_stats, late_mask, measured_period, missed_vsyncs, summary
from core.timing.timeline import CSV_COLUMNS, Timeline

__all__ = [
    "CSV_COLUMNS",
    "DeadlineSchedule",
    "PacingMonitor",
    "TIMER",
    "Timeline",
    "VSYNC",
    "frame_stats",
    "late_mask",
    "measured_period",
    "missed_vsyncs",
    "summary",
]
