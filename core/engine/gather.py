"""The frame functions every path shares: a spec's plan in the display format, and the one
gather that writes it into the output buffer (plain, and as a compiled graph sees it)."""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

import numpy as np

from core import xp as X
from core.engine import formats as F
from core.patterns import Spec, render_plan
from core.plan import Patch, Rows, block_width, fill_after_lead, map_rows

_OPS: dict = {}


# ---------------------------------------------------------------- frame functions
def frame_rows(xp, spec: Spec, fmt: str, frame, device=None, into=None) -> Rows:
    """The spec's plan with its rows (and patch) already in the display format (``into``:
    the host buffer, offered to the body when the format is the rows' own, see ``Ctx``)."""
    plan = render_plan(spec, frame, xp, device, into)
    return map_rows(plan, lambda rows: F.convert_rows(xp, rows, fmt, spec.bit_depth, spec.dtype,
                                                       spec.limited))


def gather_into(xp, plan: Rows, out) -> None:
    """Write the plan's frame into ``out`` (no full-frame temporaries): ``rows[index]``
    widened to ``out``'s width, then the patch's few lines over their lines.  A plan whose
    rows the body already wrote over ``out``'s first lines (``plan.frame is out``) fills
    only the others."""
    if plan.frame is not None and plan.frame is out:
        fill_after_lead(plan)
    else:
        _gather_rows_into(xp, plan.rows, plan.index, out)
    patch = plan.patch
    if patch is None:
        return
    band = out[patch.y0:patch.y1]
    if X.is_torch(xp):
        band.copy_(patch.lines(xp))
        return
    # the lines' own values tiled along them, then the paint over its columns
    # (a run of columns is a block copy; numpy's broadcast where runs per element)
    tile_into(np, patch.values, band)
    cols = np.flatnonzero(patch.mask)
    if cols.size and cols[-1] - cols[0] + 1 == cols.size:
        run = slice(int(cols[0]), int(cols[-1]) + 1)
        np.copyto(band[:, run], patch.paint[:, run])
    elif cols.size:
        np.copyto(band, patch.paint, where=patch.mask.reshape(1, -1, *([1] * (band.ndim - 2))))


def _gather_rows_into(xp, rows, index, out) -> None:
    height, width = out.shape[0], out.shape[1]
    k, rw = rows.shape[0], rows.shape[1]
    torch_ns = X.is_torch(xp)
    if rw != width and k * 8 <= height:
        # few distinct rows: widen them (small), then gather straight into out
        rows = X.broadcast_copy(xp, rows, (k, width, *rows.shape[2:]))
        rw = width
    if rw == width:
        if torch_ns:
            xp.index_select(rows, 0, index, out=out)
        else:
            # mode="raise" buffers ``out`` (a hidden frame-sized copy); plan indices are in range
            np.take(rows, index, axis=0, out=out, mode="clip")
        return
    # one value per line (vertical ramps): gather the column, then tile it out
    tile_into(xp, X.take_rows(xp, rows, index), out)


def tile_into(xp, col, out) -> None:
    """Write ``col`` ``(N, 1, ...)`` repeated along ``out``'s width into ``out``.

    Copied in blocks of a few dozen pixels: a plain broadcast copy with a
    3-wide inner axis runs element by element.
    """
    height, width = out.shape[0], out.shape[1]
    block = block_width(width)
    small = X.broadcast_copy(xp, col, (height, block, *col.shape[2:]))
    tail = tuple(out.shape[2:])
    view = out.reshape(height, width // block, block, *tail)
    src = small.reshape(height, 1, block, *tail)
    if X.is_torch(xp):
        view.copy_(src.expand_as(view))
    else:
        np.copyto(view, src)


_OPS_LOCK = threading.Lock()


def realize_op():
    """``testcard::realize``: an identity Inductor cannot inline (a copy of a small array).

    Without it Inductor inlines the rows' computation into the gather and
    recomputes the pattern and the format conversion for every pixel, which
    also keeps the gather from vectorising; with it the few rows are computed
    once and the gather is a vectorised row copy.
    """
    return _ops()["realize"]


def _ops():
    with _OPS_LOCK:
        if "realize" not in _OPS:
            import torch

            @torch.library.custom_op("testcard::realize", mutates_args=(), schema="(Tensor x) -> Tensor")
            def realize(x):
                return x.clone()

            @realize.register_fake
            def _(x):
                return torch.empty_like(x)

            _OPS["realize"] = realize
    return _OPS


class LeadLines(NamedTuple):
    """A compiled graph wrote a plan's ``count`` rows over the frame's first lines.

    ``index`` (the plan's line index) and ``ordered`` (whether its first ``count`` entries
    are 0..count-1, a 0-d bool) are the graph's outputs; ``count`` is fixed when it is traced.
    """
    count: int   # type: ignore[assignment]  # a field named count shadows tuple.count; callers read it by name
    index: Any
    ordered: Any


def finish_lines(torch, out, count: int, index, ordered) -> None:
    """The frame in ``out`` from the rows a graph left over its first ``count`` lines.

    Lines that take their rows in order (a mirrored plate: every line of the top half)
    stay; the others are copied from them, one ``memcpy`` per line (ATen's
    ``index_select``, split over torch's threads).  Any other index is still exact: the
    rows are copied aside and gathered whole.
    """
    if bool(ordered):
        if count < out.shape[0]:
            torch.index_select(out[:count], 0, index[count:], out=out[count:])
        return
    torch.index_select(out[:count].clone(), 0, index, out=out)


def compiled_gather(torch, plan: Rows, realize, out=None):
    """The final gather as a compiled graph sees it: one pass, in 32-bit words where it can.

    Few distinct rows are widened and realised first (computed once, small);
    the gather then copies whole rows.  Inductor's C++ backend vectorises an
    indirect row copy of int32 but not of int16 or uint8, so rows whose bytes
    divide into 32-bit words are gathered as words (the caller views its
    buffer the same way); a one-value-per-line plan (vertical ramps) broadcasts
    one pixel's words along the line, and a patch's few lines (a counter band)
    replace theirs.  Returns ``(H, W, C)`` / ``(H, W)`` elements, or ``(H, N)``
    int32 words.  Given ``out`` (that layout, on the CPU) the frame is written
    there and the result is None (a patch over the frame's own store), or, for many
    full-width rows, they are written over its first lines and the result is the
    :class:`LeadLines` that :func:`finish_lines` completes the frame from.
    """
    rows, index, width, height = plan.rows, plan.index, plan.width, plan.height
    k, narrow = rows.shape[0], rows.shape[1] != width
    item = rows.element_size()
    unit = item * (rows.shape[2] if rows.dim() == 3 else 1)     # bytes per pixel
    words = (width * unit) % 4 == 0
    if k * 4 <= height:
        if narrow:
            rows = rows.expand(k, width, *rows.shape[2:]).contiguous()
        rows = realize(rows)
        frame = torch.index_select(rows.reshape(k, -1).view(torch.int32) if words else rows, 0, index)
    elif narrow and unit == 4:
        per_pixel = rows.reshape(k, -1).view(torch.int32)           # (K, 1)
        # realised: otherwise the line's whole formula is recomputed for every 16 pixels
        lines = realize(torch.index_select(per_pixel, 0, index))   # (H, 1)
        frame = lines.expand(height, width)
    elif narrow and (group := _line_group(width, unit)):
        # pixels of several words (RGBX64) or of no whole number of words (6-byte
        # RGB16): a line's value repeated over `group` pixels is a whole number of
        # vectors of words, which the line then repeats
        per_group = rows.expand(k, group, *rows.shape[2:]).reshape(k, -1).view(torch.int32)
        lines = realize(torch.index_select(per_group, 0, index))   # (H, group * unit / 4)
        n = lines.shape[1]
        frame = lines[:, None, :].expand(height, width // group, n).reshape(height, -1)
    elif narrow:
        # realised for the same reason: one value per line, computed once
        frame = torch.index_select(realize(rows).expand(k, width, *rows.shape[2:]), 0, index)
    elif out is not None and plan.patch is None and k <= height:
        # many full-width rows (zone plate): computed once, by the graph's loop storing
        # them straight over the host buffer's first k lines (inlined into a gather, their
        # formula would run again for every output pixel; realised, they would be written
        # twice); finish_lines then copies the other lines from those, after the graph
        out[:k].copy_(rows)
        ordered = (index[:k] == torch.arange(k, device=index.device)).all()
        return LeadLines(k, index, ordered)
    else:
        frame = torch.index_select(realize(rows), 0, index)
    if plan.patch is None:
        return frame
    # the patch's few lines are made whole (small), then take their place
    patch = plan.patch
    b = patch.y1 - patch.y0
    # (its pieces realised first: the paint's formula is per column, not per pixel)
    patch = Patch(patch.y0, realize(patch.values), realize(patch.paint), realize(patch.mask))
    full = realize(patch.lines(torch)).reshape(b, -1).view(frame.dtype).reshape(b, *frame.shape[1:])
    if out is not None:
        # into the host buffer: the frame's own store, then the band's lines over it
        out.copy_(frame)
        out[patch.y0:patch.y1].copy_(full)
        return None
    # elsewhere chosen line by line in the frame's own loop
    lines = torch.arange(height, device=index.device)
    inside = ((lines >= patch.y0) & (lines < patch.y1)).reshape(height, *([1] * (frame.dim() - 1)))
    own = torch.index_select(full, 0, torch.clamp(lines - patch.y0, 0, b - 1))
    return torch.where(inside, own, frame)


def _line_group(width: int, unit: int, lanes: int = 16) -> int | None:
    """Pixels of ``unit`` bytes whose run fills whole ``lanes``-word vectors and divides the width."""
    for group in range(1, 129):
        if width % group == 0 and (group * unit) % (4 * lanes) == 0:
            return group
    return None
