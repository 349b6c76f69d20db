"""Patterns: what a frame is.

The registry (``Param``, ``Pattern``), the validated frame description (``Spec``,
``make_spec``, ``parse_size``), the pattern bodies (``fills``, ``resolution``, the counter
panel in ``counter_overlay``), rendering a spec to code values (``render``), presets and the
pattern benchmark.  Importing this package registers every built-in pattern.
"""

# The bodies register themselves on import, in catalog order; the registry knows nothing of them.
# isort: off
from core.patterns import fills, resolution, counter_overlay  # noqa: F401
# isort: on
from core.patterns.bench import bench_patterns
from core.patterns.counter_overlay import overlay_robust, robust_columns
from core.patterns.fills import window_geometry
from core.patterns.presets import (
    SCHEMA,
    builtin_presets,
    get_preset,
    load_preset_file,
    load_presets,
    parse_preset,
)
from core.patterns.registry import ANIMATION_PARAMS, catalog, get_pattern
from core.patterns.render import render, render_pattern, render_plan
from core.patterns.spec import SIZE_ALIASES, Spec, make_spec, parse_size

__all__ = [
    "ANIMATION_PARAMS",
    "SCHEMA",
    "SIZE_ALIASES",
    "Spec",
    "bench_patterns",
    "builtin_presets",
    "catalog",
    "get_pattern",
    "get_preset",
    "load_preset_file",
    "load_presets",
    "make_spec",
    "overlay_robust",
    "parse_preset",
    "parse_size",
    "render",
    "render_pattern",
    "render_plan",
    "robust_columns",
    "window_geometry",
]
