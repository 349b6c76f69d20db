"""Frames as distinct rows plus a row gather.

Every pattern is expressed as a :class:`Rows` plan: the few distinct rows it has
(``rows``, shape ``(K, W, C)`` or ``(K, 1, C)`` for rows constant along x) and
the row each output line takes (``index``, shape ``(H,)``).  The frame is
``rows[index]`` broadcast to ``(H, W, C)``.  A plan whose rows are one value
per line may also carry a :class:`Patch`: a band of lines painted over (a
counter over a vertical ramp), so the many narrow rows never have to be widened.

Building rows costs O(K*W); the gather is one pass over the frame.  Region of
interest, counter overlay and display-format conversion are all transforms of
the plan, applied to the small rows before the gather, so a finished frame
costs one pass no matter how many of them are stacked.  Under torch.compile the
whole chain fuses into one kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from core import xp as X
from core.levels import Levels


@dataclass(frozen=True)
class Patch:
    """Lines ``y0 .. y0 + B - 1`` replaced by ``where(mask, paint, values)``.

    ``values`` ``(B, 1, C)`` are the lines' own values, ``paint`` ``(1, W, C)``
    what covers them in the columns where ``mask`` ``(W,)`` is set.  Kept
    apart until the frame is written, so converting a patch to a display
    format touches ``B + W`` pixels, not ``B * W``.
    """
    y0: int
    values: Any
    paint: Any
    mask: Any

    @property
    def y1(self) -> int:
        return self.y0 + int(self.values.shape[0])

    def map(self, fn) -> Patch:
        return Patch(self.y0, fn(self.values), fn(self.paint), self.mask)

    def lines(self, xp):
        """The patched lines, ``(B, W, ...)``."""
        mask = self.mask.reshape(1, -1, *([1] * (self.values.ndim - 2)))
        return xp.where(mask, self.paint, self.values)


@dataclass(frozen=True)
class Rows:
    rows: Any   # (K, W or 1, C)
    index: Any  # (H,) int64
    width: int
    height: int
    patch: Patch | None = None
    # A frame-sized buffer whose first K lines are ``rows`` (``rows`` is ``frame[:K]``) and
    # whose index takes them in order (``index[:K]`` is 0..K-1): the body wrote its rows where
    # they land, so the frame is that buffer with only its other lines still to fill.  Kept
    # by nothing that replaces the rows or the index (every transform builds a plan without it).
    frame: Any = None

    @property
    def channels(self) -> int:
        return int(self.rows.shape[-1])

    def lines(self, y0: int, y1: int) -> Rows:
        """The plan of lines ``y0 .. y1 - 1`` alone (the same rows, the index and patch cut)."""
        if not 0 <= y0 < y1 <= self.height:
            raise ValueError(f"lines {y0}..{y1} are not inside a frame of {self.height} lines")
        patch = self.patch
        if patch is not None:
            a, b = max(patch.y0, y0), min(patch.y1, y1)
            patch = None if a >= b else Patch(a - y0, patch.values[a - patch.y0:b - patch.y0],
                                              patch.paint, patch.mask)
        return Rows(self.rows, self.index[y0:y1], self.width, y1 - y0, patch)


def materialize(xp, plan: Rows):
    """The frame the plan describes: ``(H, W, C)``, one pass over the output."""
    if plan.frame is not None:
        fill_after_lead(plan)
        frame = plan.frame
    else:
        frame = _gathered(xp, plan)
    if plan.patch is not None:
        frame[plan.patch.y0:plan.patch.y1] = plan.patch.lines(xp)   # the frame is ours: a fresh array
    return frame


def fill_after_lead(plan: Rows) -> None:
    """The lines of ``plan.frame`` after its leading rows, gathered from those rows (numpy:
    rows and the lines filled never overlap).  A mirrored frame (each later line takes the
    line as far from the bottom as it is from the top) is one vertical flip, a row copy per
    line in OpenCV, a third faster than numpy's take."""
    k, h = plan.rows.shape[0], plan.height
    if k >= h:
        return
    rest = plan.index[k:]
    if 2 * k >= h and np.array_equal(rest, np.arange(h - 1 - k, -1, -1)):
        import cv2

        dst = plan.frame[k:]
        landed(cv2.flip(plan.frame[:h - k], 0, dst=dst), dst)
        return
    np.take(plan.rows, rest, axis=0, out=plan.frame[k:], mode="clip")


def landed(got: np.ndarray, dst: np.ndarray) -> None:
    """OpenCV writes into ``dst`` when it can; should it ever hand back a new array instead
    (``got``), that is copied there."""
    if not np.may_share_memory(got, dst):
        np.copyto(dst, got)


def _gathered(xp, plan: Rows):
    rows, w = plan.rows, plan.width
    if rows.shape[1] == w:
        return X.take_rows(xp, rows, plan.index)
    if rows.shape[0] * 8 <= plan.height:
        # few distinct rows: widen them (cheap), then gather
        return X.take_rows(xp, widen(xp, rows, w), plan.index)
    # one value per line (vertical ramps): gather the column, then widen it
    return widen(xp, X.take_rows(xp, rows, plan.index), w)


def widen(xp, array, width: int):
    """``(N, 1, C)`` -> ``(N, width, C)`` materialised.

    A plain broadcast copy with a 3-wide inner axis runs element by element
    (about 30 ms at 2160p on numpy, 75 ms on eager torch); tiling a small
    widened block copies in large runs instead.
    """
    n, _, c = array.shape
    if X.is_torch(xp) and xp.compiler.is_compiling():
        return array.expand(n, width, c).contiguous()
    block = block_width(width)
    small = X.broadcast_copy(xp, array, (n, block, c))
    reps = width // block
    if reps == 1:
        return small
    if X.is_torch(xp):
        return small.repeat(1, reps, 1)
    return np.tile(small, (1, reps, 1))


def block_width(width: int, least: int = 32) -> int:
    """The smallest divisor of ``width`` that is at least ``least`` (or width itself)."""
    for b in range(least, min(width, 4096) + 1):
        if width % b == 0:
            return b
    return width


def full_width(xp, plan: Rows) -> Rows:
    """The same plan with rows materialised at full width (needed before per-column edits).

    A patch becomes ordinary rows: appended, its lines pointing at them.
    """
    if plan.rows.shape[1] == plan.width and plan.patch is None:
        return plan
    rows = plan.rows if plan.rows.shape[1] == plan.width else widen(xp, plan.rows, plan.width)
    if plan.patch is None:
        return Rows(rows, plan.index, plan.width, plan.height)
    k, patch = rows.shape[0], plan.patch
    lines = X.arange(xp, plan.height, device=X.device_of(xp, plan.index))
    inside = (lines >= patch.y0) & (lines < patch.y1)
    index = xp.where(inside, lines - patch.y0 + k, plan.index)
    return Rows(X.concat(xp, [rows, patch.lines(xp)], axis=0), index, plan.width, plan.height)


def apply_roi(xp, plan: Rows, roi, device=None) -> Rows:
    """Zero every pixel outside ``roi = (x, y, w, h)``; a region past the edge clips.

    Folded into the plan: columns outside are zeroed in the rows, lines outside
    point at one extra zero row.
    """
    if roi is None:
        return plan
    x0, y0, x1, y1 = roi_bounds(roi, plan.width, plan.height)
    plan = full_width(xp, plan)
    k = plan.rows.shape[0]
    cols = X.arange(xp, plan.width, device=device)
    inside_x = ((cols >= x0) & (cols < x1))[None, :, None]
    zero = plan.rows * 0
    rows = xp.where(inside_x, plan.rows, zero)
    rows = X.concat(xp, [rows, zero[:1]], axis=0)
    lines = X.arange(xp, plan.height, device=device)
    inside_y = (lines >= y0) & (lines < y1)
    index = xp.where(inside_y, plan.index, plan.index * 0 + k)
    return Rows(rows, index, plan.width, plan.height)


def roi_bounds(roi, width: int, height: int) -> tuple[int, int, int, int]:
    """Clip ``(x, y, w, h)`` to the frame: returns ``(x0, y0, x1, y1)``, possibly empty."""
    x, y, w, h = (int(v) for v in roi)
    if w < 0 or h < 0:
        raise ValueError(f"roi width and height must be >= 0, got {w}x{h}")
    x0 = min(max(x, 0), width)
    y0 = min(max(y, 0), height)
    x1 = min(max(x + w, 0), width)
    y1 = min(max(y + h, 0), height)
    return x0, y0, max(x0, x1), max(y0, y1)


def map_rows(plan: Rows, fn) -> Rows:
    """Apply an element-wise function (over the channel axis) to the rows (and patch) only."""
    patch = None if plan.patch is None else plan.patch.map(fn)
    rows = fn(plan.rows)
    # rows handed back as they were (a cast to their own dtype) still lie in the frame
    frame = plan.frame if rows is plan.rows else None
    return Rows(rows, plan.index, plan.width, plan.height, patch, frame)


class Apl(NamedTuple):
    """A frame's average picture level, read from its plan.

    ``mean_code``: the mean code value over every pixel and channel, ``total / count`` of
    exact integer sums (the same float a numpy mean over the rendered frame gives from its
    integer sum); ``percent``: that mean as a percentage of the black..white span (full
    range: of full scale); ``channel_means``: R, G, B means.
    """
    mean_code: float
    percent: float
    channel_means: tuple[float, ...]
    total: int
    count: int   # type: ignore[assignment]  # a field named count shadows tuple.count; callers read it by name


def plan_apl(plan: Rows, levels: Levels | int) -> Apl:
    """The frame's APL from its plan, without materialising the frame.

    Costs ``O(K * W + H)`` for ``K`` distinct rows (a row's sum times the lines that take
    it, a patch's lines from their paint and values), so it can run on every edit.  Exact:
    ``total`` equals the integer sum of the frame :func:`materialize` writes.  ``levels``
    is a :class:`~core.levels.Levels` (or a bit depth, full range).
    """
    if not isinstance(levels, Levels):
        levels = Levels(int(levels))
    w, h = plan.width, plan.height
    rows = np.asarray(X.to_numpy(plan.rows))
    index = np.asarray(X.to_numpy(plan.index)).astype(np.int64, copy=False).reshape(-1)
    if rows.shape[1] == 1:
        row_sums = rows[:, 0, :].astype(np.int64) * w      # (K, C): one line of each row
    else:   # channel by channel: a reduction over (K, W, 3) along W runs 3 wide, ~7x slower
        row_sums = np.stack([rows[..., c].sum(axis=1, dtype=np.int64) for c in range(rows.shape[-1])],
                            axis=1)
    per_channel = np.bincount(index, minlength=rows.shape[0]) @ row_sums
    if plan.patch is not None:
        pt = plan.patch
        per_channel = per_channel - row_sums[index[pt.y0:pt.y1]].sum(axis=0)
        values = np.asarray(X.to_numpy(pt.values))
        c = values.shape[-1]
        paint = np.broadcast_to(np.asarray(X.to_numpy(pt.paint)), (1, w, c))
        mask = np.broadcast_to(np.asarray(X.to_numpy(pt.mask)).astype(bool, copy=False).reshape(-1), (w,))
        lines = pt.y1 - pt.y0
        covered = int(mask.sum())
        per_channel = per_channel + lines * paint[0, mask].sum(axis=0, dtype=np.int64) \
            + (w - covered) * values.reshape(lines, c).sum(axis=0, dtype=np.int64)
    sums = [int(v) for v in per_channel]
    pixels = w * h
    total, count = sum(sums), pixels * len(sums)
    mean = total / count
    return Apl(mean, levels.percent_of(mean), tuple(s / pixels for s in sums), total, count)
