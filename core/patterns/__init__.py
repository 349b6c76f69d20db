"""Patterns: what a frame is.

The registry (``Param``, ``Pattern``), the validated frame description (``Spec``,
``make_spec``, ``parse_size``), the pattern bodies (``fills``, the BT.2111 bars in ``hdr``,
``resolution``, the ``scale_chart``, the counter panel in ``counter_overlay``), HDR static
metadata from a rendered frame (``hdr_metadata``), rendering a spec to code values
(``render``), presets, playing a preset entry by entry (``playback``) and the pattern
benchmark.  Importing this package registers every built-in pattern.
"""

# The bodies register themselves on import, in catalog order; the registry knows nothing of them.
# isort: off
from core.patterns import fills, hdr, resolution, scale_chart, counter_overlay  # noqa: F401
# isort: on
from core.patterns.apl import FrameApl, frame_apl
from core.patterns.bench import bench_patterns
from core.patterns.counter_overlay import overlay_robust, robust_columns
from core.patterns.fills import rect_geometry, window_geometry, window_patch
from core.patterns.frame_format import FrameFormat, respec
from core.patterns.hdr_metadata import (
    LightLevels,
    Mastering,
    hdr_output_metadata,
    light_levels,
    parse_mastering,
)
from core.patterns.playback import EntryChange, Playback, PlaybackLog, PlayRecord
from core.patterns.presets import (
    DEFAULT_DWELL_S,
    MAX_DWELL_S,
    SCHEMA,
    Preset,
    PresetEntry,
    builtin_presets,
    get_preset,
    load_preset_file,
    load_presets,
    parse_preset,
)
from core.patterns.registry import ANIMATION_PARAMS, catalog, get_pattern
from core.patterns.rendering import render, render_pattern, render_plan
from core.patterns.scale_chart import SCALE_CHART_MIN, chart_layout
from core.patterns.spec import SIZE_ALIASES, Spec, make_spec, parse_size

__all__ = [
    "FrameFormat",
    "respec",
    "ANIMATION_PARAMS",
    "DEFAULT_DWELL_S",
    "EntryChange",
    "MAX_DWELL_S",
    "PlayRecord",
    "Playback",
    "PlaybackLog",
    "Preset",
    "PresetEntry",
    "FrameApl",
    "LightLevels",
    "Mastering",
    "SCHEMA",
    "SCALE_CHART_MIN",
    "SIZE_ALIASES",
    "Spec",
    "bench_patterns",
    "builtin_presets",
    "catalog",
    "chart_layout",
    "frame_apl",
    "get_pattern",
    "get_preset",
    "hdr_output_metadata",
    "light_levels",
    "load_preset_file",
    "load_presets",
    "make_spec",
    "overlay_robust",
    "parse_mastering",
    "parse_preset",
    "parse_size",
    "rect_geometry",
    "render",
    "render_pattern",
    "render_plan",
    "robust_columns",
    "window_geometry",
    "window_patch",
]
