"""Did every frame reach the screen: find and read counter panels in captured frames.

``locate`` and ``sampler`` find and read the robust panel, ``reader`` follows it from frame to
frame, ``exact`` reads a panel at a known geometry, ``job`` decodes a whole capture
(``DecodeJob``, ``DecodeRequest``, ``FrameReading``), ``sequence`` finds drops and repeats,
``report`` writes the results, ``bench`` times decoding.
"""

from core.decode.bench import bench_decode
from core.decode.exact import decode_counter, read_robust_exact
from core.decode.job import STATUSES, CaptureDecoder, DecodeJob, DecodeRequest, FrameReading, decode_path
from core.decode.report import (
    check_plot_path,
    format_event,
    summary_lines,
    unwrap,
    write_csv,
    write_plot,
    write_report,
)
from core.decode.sequence import analyse

__all__ = [
    "CaptureDecoder",
    "DecodeJob",
    "DecodeRequest",
    "FrameReading",
    "STATUSES",
    "analyse",
    "bench_decode",
    "check_plot_path",
    "decode_counter",
    "decode_path",
    "format_event",
    "read_robust_exact",
    "summary_lines",
    "unwrap",
    "write_csv",
    "write_plot",
    "write_report",
]
