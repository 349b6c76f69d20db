"""Resolution and geometry pattern bodies: zone plate, pixel grid, crosshatch grid.

The same functional rules as ``fills``: rows plus a gather, level arithmetic on Python ints.
"""

from __future__ import annotations

import numpy as np

from core import xp as X
from core.patterns.registry import Param, Pattern, register
from core.patterns.spec import Ctx
from core.plan import Rows, landed


# ---------------------------------------------------------------- zone plate
# Phase n/(8d) cycles with n = u*u + v*v on doubled offsets (u = 2x+1-W, v = 2y+1-H, so n is
# an integer); a pixel is inside the circle when n <= d*d.  The code values come from one
# table: (u*u mod P) + (v*v mod P) < 2P, P = 8d, indexes a LUT holding two periods, the
# squares and their residues being host tables (exact int64 arithmetic, once), so every
# path reads the same entry for every pixel and no path computes a cosine or a modulo per
# pixel.  The plate is symmetric about both centre lines: rows are top-half lines, which
# the final gather mirrors.
def zone_plate_lut(levels, diameter: int, amplitude: float) -> np.ndarray:
    """Code values for phase n/(8d) cycles, n in [0, 16d), plus mid grey at the end."""
    period = 8 * diameter
    mid = (levels.black + levels.white + 1) // 2
    amp = (levels.white - levels.black) / 2.0 * amplitude / 100.0
    k = np.arange(period, dtype=np.float64)
    lut = np.floor(mid + amp * np.cos(2 * np.pi * k / period) + 0.5).astype(np.int64)
    lut = np.clip(lut, 0, levels.top)
    return np.concatenate([lut, lut, [mid]])


def _zone_plate(ctx: Ctx, p):
    w, h = ctx.width, ctx.height
    d = max(2, round(min(w, h) * p["diameter"] / 100.0))
    lut = zone_plate_lut(ctx.levels, d, p["amplitude"]).astype(np.uint16)
    if X.is_torch(ctx.xp):
        rows, index = _torch_rows(ctx, d, lut)
        return Rows(rows, ctx.const(index), w, h)
    into = ctx.into
    if (isinstance(into, np.ndarray) and into.shape == (h, w, 3) and into.flags.c_contiguous
            and into.flags.writeable and into.dtype in (np.uint8, np.uint16)
            and int(lut.max()) <= np.iinfo(into.dtype).max):
        # the top half written where it lands; the gather copies it, mirrored, below
        top = into[:(h + 1) // 2]
        _numpy_top(top, w, h, d, lut.astype(into.dtype))
        return Rows(top, _mirrored(h), w, h, frame=into)
    rows, index = _numpy_rows(w, h, d, lut)
    return Rows(rows, index, w, h)


def _squares(count: int, extent: int) -> np.ndarray:
    """u*u (or v*v) of the first ``count`` doubled offsets across ``extent`` pixels."""
    u = np.arange(count, dtype=np.int64) * 2 + 1 - extent
    return u * u


def _mirrored(h: int) -> np.ndarray:
    """Line l takes top-half line min(l, H-1-l)."""
    lines = np.arange(h)
    return np.minimum(lines, h - 1 - lines)


def _torch_rows(ctx: Ctx, d: int, lut: np.ndarray):
    """``(ceil(H/2), W, 3)`` int32 view of the top-half lines' grey codes, per pixel: a
    compiled graph fuses the table reads, the phase and the format conversion into one loop
    that writes the top half of the frame where it lands (see core.engine.gather)."""
    xp, w, h = ctx.xp, ctx.width, ctx.height
    half, period = (h + 1) // 2, 8 * d
    u2, v2 = _squares(w, w), _squares(half, h)

    def table(values):  # int32: Inductor's C++ backend does not vectorise uint16
        return ctx.const(np.asarray(values).astype(np.int32), "int32")

    inside = table(u2)[None, :] <= table(d * d - v2)[:, None]
    phase = table(u2 % period)[None, :] + table(v2 % period)[:, None]
    # idx is in range by construction, so no bounds check per pixel (an unconditional read
    # of every pixel vectorises better than a read masked by the circle)
    grey = xp.ops.aten._unsafe_index(table(lut), [xp.where(inside, phase, 2 * period)])
    return grey[:, :, None].expand(half, w, 3), _mirrored(h)


def _numpy_rows(w: int, h: int, d: int, lut: np.ndarray):
    """``(K + 1, W, 3)`` uint16 rows: the K top-half lines that meet the circle, then one
    grey line for those that do not, and the line index."""
    y0, k = _circle_lines(h, d)
    rows = np.empty((k + 1, w, 3), lut.dtype)          # every pixel written once below
    rows[k].fill(lut[-1])
    _circle_block(rows[:k], w, h, d, y0, lut)
    m = _mirrored(h)
    return rows, np.where(m < y0, k, m - y0)


def _numpy_top(top: np.ndarray, w: int, h: int, d: int, lut: np.ndarray) -> None:
    """The frame's top ``ceil(H/2)`` lines, in order, into ``top``."""
    y0, k = _circle_lines(h, d)
    top[:y0].fill(lut[-1])
    _circle_block(top[y0:y0 + k], w, h, d, y0, lut)


def _circle_lines(h: int, d: int) -> tuple[int, int]:
    """``(y0, K)``: top-half lines 0..y0-1 miss the circle, the next K meet it."""
    v2 = _squares((h + 1) // 2, h)
    y0 = int(np.count_nonzero(v2 > d * d))
    return y0, len(v2) - y0


def _circle_block(dst: np.ndarray, w: int, h: int, d: int, y0: int, lut: np.ndarray) -> None:
    """Top-half lines ``y0..`` that meet the circle, into ``dst`` ``(K, W, 3)``.

    Only the top-left quarter of the circle's square is read from the table, as grey codes;
    OpenCV mirrors them into the right half while they are one channel, then makes both
    halves RGB where they land (exact copies, several times faster than numpy's strided
    3-wide ones); the columns beside the circle are grey.
    """
    import cv2

    grey, left = lut[-1], (w + 1) // 2                 # left half: columns 0..left-1
    v2 = _squares((h + 1) // 2, h)[y0:]
    x0 = int(np.count_nonzero(_squares(left, w) > d * d))   # columns 0..x0-1 miss it
    u2 = _squares(left, w)[x0:]
    dst[:, :x0].fill(grey)
    dst[:, w - x0:].fill(grey)
    mirrored = w - left - x0                           # columns left.. mirror ..w-left-1
    for i, quarter in _quarter_codes(u2, v2, d, lut):
        lines = slice(i, i + quarter.shape[0])
        part = dst[lines, x0:left]
        landed(cv2.cvtColor(quarter, cv2.COLOR_GRAY2RGB, dst=part), part)
        if mirrored:
            flipped = cv2.flip(quarter[:, :mirrored], 1)
            part = dst[lines, left:left + mirrored]
            landed(cv2.cvtColor(flipped, cv2.COLOR_GRAY2RGB, dst=part), part)


def _quarter_codes(u2: np.ndarray, v2: np.ndarray, d: int, lut: np.ndarray):
    """``(first line, codes)`` blocks of the quarter whose column squares are ``u2`` and
    line squares ``v2``, top to bottom.

    Where the two are the same sequence (a frame whose sides are both even or both odd, the
    circle filling its shorter side, as at 1920x1080 and 3840x2160) the quarter is symmetric
    about its diagonal: the bottom rows' left part is the top rows' right part transposed,
    so a quarter of the quarter is never read from the table.
    """
    n = len(u2)
    if n < 64 or len(v2) != n or not np.array_equal(u2, v2):
        yield 0, _table_codes(u2, v2, d, lut)
        return
    m = n // 2
    top = _table_codes(u2, v2[:m], d, lut)
    yield 0, top
    bottom = np.empty((n - m, n), lut.dtype)
    bottom[:, :m] = top[:, m:].T
    bottom[:, m:] = _table_codes(u2[m:], v2[m:], d, lut)
    yield m, bottom


def _table_codes(u2: np.ndarray, v2: np.ndarray, d: int, lut: np.ndarray) -> np.ndarray:
    """``(len(v2), len(u2))`` codes: the table at each pixel's phase index, grey (its last
    entry) outside the circle.

    The index is built in the platform's index type (``take`` would otherwise convert it, a
    hidden copy).  ``u2`` falls towards the centre column, so the pixels outside the circle
    are a run at the start of each line, its length found by a search per line and the grey
    written through a comparison of int16 column numbers (a quarter is at most 8192 wide).
    """
    period = 8 * d
    index = np.add((u2 % period)[None, :], (v2 % period)[:, None], dtype=np.intp)
    codes = np.take(lut, index, mode="clip")           # "raise" would buffer the result
    outside = np.searchsorted(-u2, -(d * d - v2), side="left").astype(np.int16)
    columns = np.arange(len(u2), dtype=np.int16)
    np.copyto(codes, lut[-1], where=columns[None, :] < outside[:, None])
    return codes


register(Pattern(
    "zone_plate", "Resolution", "Zone plate",
    "Circular zone plate, phase n/(8d) cycles with n = u*u + v*v (u = 2x+1-W), reaching "
    "Nyquist at the edge of its circle; mid grey outside.",
    (
        Param("diameter", "float", 100.0, "Circle diameter, % of the shorter side", 1.0, 100.0),
        Param("amplitude", "float", 100.0, "Swing, % of the black..white span", 0.0, 100.0),
    ),
    _zone_plate,
))


# ---------------------------------------------------------------- pixel grid
def _pixel_grid(ctx: Ctx, p):
    s, mode = p["size"], p["mode"]
    fg, bg = ctx.const([p["fg"]]), ctx.const([p["bg"]])
    cols, lines = ctx.cols()[:, None], ctx.lines()
    if mode == "checker":
        a = ctx.xp.where((cols // s) % 2 == 0, fg, bg)
        b = ctx.xp.where((cols // s) % 2 == 0, bg, fg)
        index = (lines // s) % 2
    elif mode == "vstripes":
        a = ctx.xp.where((cols // s) % 2 == 0, fg, bg)
        b = a
        index = lines * 0
    elif mode == "hstripes":
        a = fg + cols * 0
        b = bg + cols * 0
        index = (lines // s) % 2
    else:  # lines: one-pixel lines every `size` pixels
        a = fg + cols * 0
        b = ctx.xp.where(cols % s == 0, fg, bg)
        index = (lines % s != 0) * 1
    return Rows(X.stack(ctx.xp, [a, b]), index, ctx.width, ctx.height)


register(Pattern(
    "pixel_grid", "Resolution", "Pixel grid",
    "1-8 px checkers, stripes or lines for judging scaling and pixel mapping.",
    (
        Param("mode", "choice", "checker", "checker, vstripes, hstripes or lines",
              choices=("checker", "vstripes", "hstripes", "lines")),
        Param("size", "int", 1, "Element size in pixels", 1, 8),
        Param("fg", "colour", "100%", "Foreground colour"),
        Param("bg", "colour", "0%", "Background colour"),
    ),
    _pixel_grid,
))


# ---------------------------------------------------------------- grid
def _grid_mask(coords, extent: int, pitch: int, line: int, border: int):
    start = extent // 2 - line // 2  # a line runs through the centre
    on = ((coords - start) % pitch) < line
    if border > 0:
        on = on | (coords < border) | (coords >= extent - border)
    return on


def _grid(ctx: Ctx, p):
    fg, bg = ctx.const([p["fg"]]), ctx.const([p["bg"]])
    cols = _grid_mask(ctx.cols(), ctx.width, p["pitch"], p["line"], p["border"])[:, None]
    normal = ctx.xp.where(cols, fg, bg)
    line_row = fg + normal * 0
    index = (~_grid_mask(ctx.lines(), ctx.height, p["pitch"], p["line"], p["border"])) * 1
    return Rows(X.stack(ctx.xp, [line_row, normal]), index, ctx.width, ctx.height)


register(Pattern(
    "grid", "Geometry", "Crosshatch",
    "Geometry crosshatch: lines every `pitch` pixels through the centre, optional border.",
    (
        Param("pitch", "int", 120, "Distance between lines, pixels", 2, 8192),
        Param("line", "int", 2, "Line width, pixels", 1, 64),
        Param("border", "int", 2, "Border width, pixels (0: none)", 0, 256),
        Param("fg", "colour", "100%", "Line colour"),
        Param("bg", "colour", "0%", "Background colour"),
    ),
    _grid,
))
