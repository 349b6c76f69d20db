"""Resolution and geometry pattern bodies: zone plate, pixel grid, crosshatch grid.

The same functional rules as ``fills``: rows plus a gather, level arithmetic on Python ints.
"""

from __future__ import annotations

import numpy as np

from core import xp as X
from core.patterns.registry import Param, Pattern, register
from core.patterns.spec import Ctx
from core.plan import Rows


# ---------------------------------------------------------------- zone plate
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
    xp = ctx.xp
    w, h = ctx.width, ctx.height
    d = max(2, round(min(w, h) * p["diameter"] / 100.0))
    period = 8 * d
    lut = zone_plate_lut(ctx.levels, d, p["amplitude"]).astype(np.uint16)
    # Doubled offsets keep n = u*u + v*v integral.  The plate is symmetric about
    # both centre lines, so only the top-left quarter is computed: its columns
    # are mirrored into rows, and the final gather mirrors the lines.
    half = (h + 1) // 2
    # numpy copies the quarter's RGB triples and mirrors them; torch computes the
    # half frame's full rows, which a compiled graph fuses into one loop (a flip and
    # a concatenation would each be another pass)
    hw = (w + 1) // 2 if not X.is_torch(xp) else w
    # the squares and their phases are host tables (exact int64 arithmetic, once):
    # a modulo inside a compiled per-pixel loop is an integer division per pixel
    u = np.arange(hw, dtype=np.int64) * 2 + 1 - w
    v = np.arange(half, dtype=np.int64) * 2 + 1 - h
    u2, v2 = u * u, v * v

    def table(values):  # int32: Inductor's C++ backend does not vectorise uint16
        return ctx.const(values.astype(np.int32), "int32")

    inside = table(u2)[None, :] <= table(d * d - v2)[:, None]
    # phase n/(8d) cycles: (u2 mod P) + (v2 mod P) < 2P indexes a LUT holding two periods
    phase = table(u2 % period)[None, :] + table(v2 % period)[:, None]
    idx = xp.where(inside, phase, 2 * period)
    if X.is_torch(xp):
        # grey: one table read per pixel, seen by every channel (a compiled graph
        # reads it once and fuses the format conversion into the same loop); idx
        # is in range by construction, so no bounds check per pixel
        grey = xp.ops.aten._unsafe_index(table(lut), [idx])
        rows = grey[:, :, None].expand(half, w, 3)
    else:
        # one 6-byte item per pixel: numpy copies RGB triples at once instead of 3 strided values
        triples = np.ascontiguousarray(np.repeat(lut[:, None], 3, 1)).view("V6").reshape(-1)
        # and mirrors them as whole items too (a reversed uint16 view copies per value)
        quarter = np.take(triples, idx)
        rows = np.concatenate([quarter, quarter[:, : w - hw][:, ::-1]], axis=1)
        rows = rows.view(np.uint16).reshape(half, w, 3)
    lines = ctx.lines()
    return Rows(rows, xp.minimum(lines, h - 1 - lines), w, h)


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
