"""Did every frame reach the screen: find and read counter panels in captured frames.

``locate`` and ``sampler`` find and read the robust panel, ``reader`` follows it from frame to
frame, ``exact`` reads a panel at a known geometry, ``hint`` checks a manifest's geometry before
the decoder uses it, ``job`` decodes a whole capture (``DecodeJob``, ``DecodeRequest``,
``FrameReading``), ``sequence`` finds drops, gaps, freezes and repeats (its drop rules are
``drops``, its hold rules ``holds``),
``report`` writes the results, ``verdict`` says whether a report passes its checks, failed
them or cannot tell (``verdict``), ``bench`` times decoding.  ``scale`` measures how the chain
scaled the frame from a captured zone plate (``zone_plate_scale``, ``PlateGeometry``).
``live`` decodes a live source as it arrives (``LiveDecode``, ``LiveRequest``); ``latency``
joins testcard's present log to a capture log (``latency_report``; ``latency_join`` matches
the frames), ``latency_files`` reads the present log and writes the latency CSV and plots.
"""

from core.decode.bench import bench_decode
from core.decode.exact import decode_counter, read_robust_exact
from core.decode.hint import Hint, load_hint
from core.decode.job import STATUSES, CaptureDecoder, DecodeJob, DecodeRequest, FrameReading, decode_path
from core.decode.latency import (
    AHEAD,
    CaptureLog,
    CaptureSample,
    Correction,
    PresentLog,
    end_of_frame_correction,
    joinable,
    latency_report,
    latency_stats,
    offset_correction,
)
from core.decode.latency_clock import place_capture
from core.decode.latency_files import (
    check_png,
    parse_present_log,
    read_present_log,
    write_histogram,
    write_latency_csv,
    write_latency_plot,
)
from core.decode.live import LiveBatch, LiveDecode, LiveRequest
from core.decode.report import (
    check_plot_path,
    format_event,
    summary_lines,
    unseen_text,
    unwrap,
    write_csv,
    write_plot,
    write_report,
)
from core.decode.scale import (
    PlateGeometry,
    ScaleReading,
    geometry_from_manifest,
    load_geometry,
    measure_scale,
    open_scale,
    scale_report,
    scale_steps,
    zone_plate_scale,
)
from core.decode.sequence import analyse
from core.decode.verdict import CHECKS, Verdict, headline, verdict, with_verdict

__all__ = [
    "AHEAD",
    "CHECKS",
    "CaptureDecoder",
    "CaptureLog",
    "CaptureSample",
    "Correction",
    "LiveBatch",
    "LiveDecode",
    "LiveRequest",
    "PresentLog",
    "DecodeJob",
    "DecodeRequest",
    "FrameReading",
    "Hint",
    "PlateGeometry",
    "STATUSES",
    "ScaleReading",
    "analyse",
    "bench_decode",
    "check_plot_path",
    "check_png",
    "decode_counter",
    "decode_path",
    "end_of_frame_correction",
    "format_event",
    "headline",
    "joinable",
    "latency_report",
    "latency_stats",
    "load_hint",
    "geometry_from_manifest",
    "load_geometry",
    "measure_scale",
    "offset_correction",
    "open_scale",
    "parse_present_log",
    "read_present_log",
    "read_robust_exact",
    "scale_report",
    "scale_steps",
    "summary_lines",
    "unseen_text",
    "unwrap",
    "Verdict",
    "verdict",
    "with_verdict",
    "write_csv",
    "write_histogram",
    "write_latency_csv",
    "write_latency_plot",
    "write_plot",
    "write_report",
    "zone_plate_scale",
    "place_capture",
]
