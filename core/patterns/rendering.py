"""A spec to a frame: the body's plan, the region, the counter overlay, the dtype cast."""

from __future__ import annotations

import numpy as np

from core import xp as X
from core.patterns.counter_overlay import overlay_counter
from core.patterns.registry import get_pattern
from core.patterns.spec import Ctx, Spec, make_spec
from core.plan import Rows, apply_roi, map_rows, materialize


def render_plan(spec: Spec, frame=0, xp=np, device=None, into=None) -> Rows:
    """The frame as rows plus a gather, code values in int64, before any dtype cast.

    ``into`` (numpy, ``(H, W, 3)``): a buffer the body may write its rows into (see ``Ctx``);
    the frame then ends in it when the plan keeps its ``frame``.
    """

    pat = get_pattern(spec.pattern)
    params = spec.param_dict
    origin = (0, 0)
    if spec.roi is not None:
        origin = (spec.roi[0], spec.roi[1])
        params = dict(params, _roi_w=max(spec.roi[2], 1), _roi_h=max(spec.roi[3], 1))
    geom = spec.counter_geometry()
    # offered only when the body's plan is the frame: a region or a counter would copy its
    # rows anyway, and a failure there would leave the buffer half written
    bare = not X.is_torch(xp) and spec.roi is None and geom is None
    ctx = Ctx(xp, device, spec.width, spec.height, spec.levels, frame, origin,
              into if bare else None)
    plan = pat.body(ctx, params)
    plan = apply_roi(xp, plan, spec.roi, device=device)
    if geom is not None:
        plan = overlay_counter(xp, plan, geom, frame, spec.levels.white, spec.levels.black, device)
    return plan


def render(spec: Spec, frame=0, xp=np, device=None):
    """Frame ``frame`` of ``spec`` as ``(height, width, 3)`` code values in ``spec.dtype``."""
    dtype = _dtype_name(xp, spec.dtype)
    into = None if X.is_torch(xp) else np.empty((spec.height, spec.width, 3), dtype)
    plan = render_plan(spec, frame, xp, device, into)
    return materialize(xp, map_rows(plan, lambda rows: X.astype(xp, rows, dtype)))


def _dtype_name(xp, name: str) -> str:
    X.dtype_of(xp, name)  # refuses what this namespace cannot hold
    return name


def render_pattern(name: str, width: int, height: int, *, frame=0, xp=np, device=None,
                   bit_depth: int = 10, dtype: str = "uint16", limited: bool = False, roi=None,
                   counter_bits: int | None = None, **params):
    """One-call form: ``render_pattern("checkerboard", 1920, 1080, palette="940;64")``."""
    spec = make_spec(name, params, width=width, height=height, bit_depth=bit_depth, dtype=dtype,
                     limited=limited, roi=roi, counter_bits=counter_bits)
    return render(spec, frame, xp, device)
