"""The pattern catalog: functional bodies over numpy or torch.

Each body builds the few distinct rows its pattern has at row width and says
which row each line takes (:class:`core.plan.Rows`).  No slice assignment, no
branching on array values, no host read-backs: the same body runs on numpy,
eager torch on any device, and torch.compile fuses it into one kernel.

All level arithmetic happens on Python ints before any array exists, so numpy
and torch produce bit-identical code values.
"""

from __future__ import annotations

import math

from core import xp as X
from core.patterns.registry import Param, Pattern, register
from core.patterns.spec import Ctx
from core.plan import Rows


def _at_most_one_per_pixel(name: str, count: int, pixels: int, axis: str, what: str) -> None:
    """Refuse more divisions than the frame has pixels along the axis (some would not show)."""
    if count > pixels:
        raise ValueError(f"{name}: {count} does not fit the {pixels}-pixel {axis} "
                         f"(at most one {what} per pixel)")


def _expand_palette(palette) -> list:
    """display-patterns semantics: 1 fills, 2 -> (c0,c1,c1,c0), 3 -> (c0,c1,c2,c0), 4 direct."""
    p = list(palette)
    if len(p) == 1:
        return p * 4
    if len(p) == 2:
        return [p[0], p[1], p[1], p[0]]
    if len(p) == 3:
        return [p[0], p[1], p[2], p[0]]
    return p


# ---------------------------------------------------------------- solid
def _solid(ctx: Ctx, color):
    return ctx.one_row(ctx.const([color]))


register(Pattern(
    "solid", "Fills", "Solid colour", "One colour over the whole frame (or region).",
    (Param("color", "colour", "100%", "Code values R,G,B (or a percentage such as 50%)"),),
    lambda ctx, p: _solid(ctx, p["color"]),
))


# ---------------------------------------------------------------- checkerboard
def _tile_index(coords, origin: int, tile: int, count: int, extent: int):
    """Tile number of each coordinate, counted from the region origin."""
    rel = coords - origin
    if count > 0:
        return (rel * count) // max(extent, 1)
    return rel // tile


def _checkerboard(ctx: Ctx, p):
    pal = ctx.const(_expand_palette(p["palette"]))  # (4, 3)
    ox, oy = ctx.origin
    ext_w = p.get("_roi_w", ctx.width)
    ext_h = p.get("_roi_h", ctx.height)
    tc = _tile_index(ctx.cols(), ox, p["tile"], p["columns"], ext_w) % 2
    # slot 0 even row/even col, 1 odd row/even col, 2 even row/odd col, 3 odd/odd
    even_row = X.take_rows(ctx.xp, pal, tc * 2)
    odd_row = X.take_rows(ctx.xp, pal, tc * 2 + 1)
    rows = X.stack(ctx.xp, [even_row, odd_row])
    tr = _tile_index(ctx.lines(), oy, p["tile"], p["rows"], ext_h)
    if p["invert_every"] > 0:
        tr = tr + ctx.frame_index() // p["invert_every"]
    return Rows(rows, tr % 2, ctx.width, ctx.height)


def _checkerboard_fits(p, w: int, h: int) -> None:
    _at_most_one_per_pixel("columns", p["columns"], w, "width", "tile")
    _at_most_one_per_pixel("rows", p["rows"], h, "height", "tile")


register(Pattern(
    "checkerboard", "Geometry", "Checkerboard",
    "Tiles from a palette of 1-4 colours (display-patterns palette semantics). "
    "Parity counts from the region origin.",
    (
        Param("palette", "palette", "100%;0%",
              "1-4 colours separated by ';': 1 fills, 2 -> (c0,c1,c1,c0), 3 -> (c0,c1,c2,c0), 4 direct"),
        Param("tile", "int", 64, "Tile size in pixels (when columns/rows are 0)", 1, 8192),
        Param("columns", "int", 0, "Divide the width into this many tiles instead (0: use tile)", 0, 1024),
        Param("rows", "int", 0, "Divide the height into this many tiles instead (0: use tile)", 0, 1024),
        Param("invert_every", "int", 0, "Swap tile rows every N frames (0: static)", 0, 10000),
    ),
    _checkerboard,
    animates=lambda p: p.get("invert_every", 0) > 0,
    fits=_checkerboard_fits,
))


# ---------------------------------------------------------------- window
WINDOW_GEOMETRIES = ("area", "fraction", "pixels")


def window_geometry(width: int, height: int, area: float, cx: float, cy: float):
    """Patch (x, y, w, h) covering ``area`` % of the frame with the frame's aspect."""
    s = math.sqrt(area / 100.0)
    pw = min(width, max(1, round(width * s)))
    ph = min(height, max(1, round(height * s)))
    x = min(max(round(cx * width - pw / 2), 0), width - pw)
    y = min(max(round(cy * height - ph / 2), 0), height - ph)
    return x, y, pw, ph


def _half_up(v: float) -> int:
    return math.floor(v + 0.5)


def rect_geometry(width: int, height: int, x: float, y: float, w: float, h: float):
    """Pixels ``(x, y, w, h)`` a rectangle of frame fractions (top-left origin, each axis scaled
    by its own side) covers.  The size first, then the centre: ``w_px = round(w * W)`` (at
    least 1, at most W), ``x_px = round((x + w / 2) * W - w_px / 2)`` kept within the frame,
    rounded half up; the same for y.  A patch keeps its area and centre to half a pixel."""

    def span(start: float, size: float, extent: int) -> tuple[int, int]:
        n = min(max(_half_up(size * extent), 1), extent)
        a = _half_up((start + size / 2) * extent - n / 2)
        return min(max(a, 0), extent - n), n

    px, pw = span(x, w, width)
    py, ph = span(y, h, height)
    return px, py, pw, ph


def window_patch(width: int, height: int, p) -> tuple[int, int, int, int]:
    """The window's patch ``(x, y, w, h)`` in pixels for parameters ``p``: by area and centre
    (``geometry`` area, the default), or the rectangle ``x, y, w, h`` as frame fractions
    (fraction) or pixels (pixels), kept within the frame."""
    shape = p.get("geometry", "area")
    if shape == "fraction":
        return rect_geometry(width, height, p["x"], p["y"], p["w"], p["h"])
    if shape == "pixels":
        pw, ph = min(max(int(p["w"]), 1), width), min(max(int(p["h"]), 1), height)
        return min(int(p["x"]), width - pw), min(int(p["y"]), height - ph), pw, ph
    return window_geometry(width, height, p["area"], p["cx"], p["cy"])


def _window_fits(p, width: int, height: int) -> None:
    """The rectangle forms: a fraction rectangle within 0..1, a pixel one of whole pixels
    inside the frame; both wider and taller than nothing."""
    shape = p["geometry"]
    if shape == "area":
        return
    for name, side in (("w", "width"), ("h", "height")):
        if not p[name] > 0:
            raise ValueError(f"{name}: a rectangle of {side} 0 does not fit: it must be above 0 "
                             f"(geometry {shape})")
    if shape == "fraction":
        for name in ("x", "y", "w", "h"):
            if p[name] > 1:
                raise ValueError(f"{name}: {p[name]:g} does not fit the frame: geometry fraction "
                                 "takes fractions 0..1 of it (geometry pixels takes pixels)")
        return
    for name in ("x", "y", "w", "h"):
        if p[name] != int(p[name]):
            raise ValueError(f"{name}: {p[name]:g} does not fit the pixel grid: geometry pixels "
                             "takes whole pixels")
    for pos, size, side, extent in (("x", "w", "width", width), ("y", "h", "height", height)):
        if p[pos] + p[size] > extent:
            raise ValueError(f"{size}: a {p[size]:g}-pixel rectangle at {pos} {p[pos]:g} does not "
                             f"fit the frame's {extent}-pixel {side}")


def window_background(ctx: Ctx, p, patch_px: int) -> tuple[int, int, int]:
    if p["background_mode"] == "fixed":
        return p["background"]
    total = ctx.width * ctx.height
    a = patch_px / total
    target = ctx.levels.level(p["apl"])
    if a >= 1.0:
        return (0, 0, 0)
    out = []
    for c in p["color"]:
        bg = (target * total - c * patch_px) / (total - patch_px)
        out.append(max(0, min(ctx.levels.top, int(math.floor(bg + 0.5)))))
    return out[0], out[1], out[2]   # one per channel of the patch's colour


def _window(ctx: Ctx, p):
    x, y, w, h = window_patch(ctx.width, ctx.height, p)
    bg = window_background(ctx, p, w * h)
    cols = ctx.cols()
    inside = ((cols >= x) & (cols < x + w))[:, None]
    bg_row = ctx.const([bg])
    patch_row = ctx.xp.where(inside, ctx.const([p["color"]]), bg_row)
    rows = X.stack(ctx.xp, [bg_row + cols[:, None] * 0, patch_row])
    lines = ctx.lines()
    index = ((lines >= y) & (lines < y + h)) * 1
    return Rows(rows, index, ctx.width, ctx.height)


register(Pattern(
    "window", "Fills", "Window",
    "A patch of a given area over a background: a fixed level, or chosen so the "
    "average picture level stays constant as the patch changes. geometry fraction or pixels "
    "places a rectangle x, y, w, h anywhere instead.",
    (
        Param("area", "float", 10.0, "Patch area, % of the frame", 1.0, 100.0),
        Param("color", "colour", "100%", "Patch colour"),
        Param("background_mode", "choice", "fixed", "fixed: use background; apl: hold the APL",
              choices=("fixed", "apl")),
        Param("background", "colour", "0%", "Background colour (fixed mode)"),
        Param("apl", "float", 18.0, "Average picture level to hold, % (apl mode)", 0.0, 100.0),
        Param("cx", "float", 0.5, "Patch centre x, fraction of the width", 0.0, 1.0),
        Param("cy", "float", 0.5, "Patch centre y, fraction of the height", 0.0, 1.0),
        Param("geometry", "choice", "area",
              "area: the patch by area and centre; fraction or pixels: the rectangle x, y, w, h "
              "in fractions of the frame or in pixels", choices=WINDOW_GEOMETRIES),
        Param("x", "float", 0.25, "Rectangle left edge (geometry fraction or pixels)", 0.0, 16384.0),
        Param("y", "float", 0.25, "Rectangle top edge (geometry fraction or pixels)", 0.0, 16384.0),
        Param("w", "float", 0.5, "Rectangle width (geometry fraction or pixels)", 0.0, 16384.0),
        Param("h", "float", 0.5, "Rectangle height (geometry fraction or pixels)", 0.0, 16384.0),
    ),
    _window,
    fits=_window_fits,
))


# ---------------------------------------------------------------- ramp and steps
def _along(ctx: Ctx, direction: str, scroll: int = 0):
    """Positions along the ramp axis and their count (optionally scrolled by frame)."""
    if direction == "horizontal":
        pos, n = ctx.cols(), ctx.width
    else:
        pos, n = ctx.lines(), ctx.height
    if scroll:
        pos = (pos + ctx.frame_index() * scroll) % n
    return pos, n


def _as_plan(ctx: Ctx, direction: str, values):
    """values: (N, 3) along the axis -> one row (horizontal) or one value per line."""
    if direction == "horizontal":
        return ctx.one_row(values)
    return Rows(values[:, None, :], ctx.lines(), ctx.width, ctx.height)


def _ramp(ctx: Ctx, p):
    pos, n = _along(ctx, p["direction"], p["scroll"])
    s = ctx.const([p["start"]])
    e = ctx.const([p["end"]])
    d = max(n - 1, 1)
    # rounded half up in integers: identical on every backend
    values = s + ((e - s) * pos[:, None] * 2 + d) // (2 * d)
    return _as_plan(ctx, p["direction"], values)


register(Pattern(
    "ramp", "Gradients", "Ramp",
    "Smooth ramp from start to end across the frame, exact integer steps.",
    (
        Param("direction", "choice", "horizontal", "Ramp direction", choices=("horizontal", "vertical")),
        Param("start", "colour", "0%", "Colour at the start"),
        Param("end", "colour", "100%", "Colour at the end"),
        Param("scroll", "int", 0, "Pixels the ramp moves per frame (0: static)", 0, 4096),
    ),
    _ramp,
    animates=lambda p: p.get("scroll", 0) > 0,
))


def step_levels(levels, count: int, lo: float, hi: float) -> list[int]:
    return [levels.level(lo + (hi - lo) * k / (count - 1)) for k in range(count)]


def _steps(ctx: Ctx, p):
    pos, n = _along(ctx, p["direction"])
    table = ctx.const([[v, v, v] for v in step_levels(ctx.levels, p["count"], p["start"], p["end"])])
    step = (pos * p["count"]) // n
    return _as_plan(ctx, p["direction"], X.take_rows(ctx.xp, table, step))


register(Pattern(
    "steps", "Gradients", "Steps",
    "N-step grey wedge (e.g. 11, 21, 33) over a range of levels.",
    (
        Param("count", "int", 11, "Number of steps", 2, 256),
        Param("start", "float", 0.0, "First step, % of the black..white span", 0.0, 100.0),
        Param("end", "float", 100.0, "Last step, %", 0.0, 100.0),
        Param("direction", "choice", "horizontal", "Wedge direction", choices=("horizontal", "vertical")),
    ),
    _steps,
    fits=lambda p, w, h: _at_most_one_per_pixel(
        "count", p["count"], w if p["direction"] == "horizontal" else h,
        "width" if p["direction"] == "horizontal" else "height", "step"),
))


# ---------------------------------------------------------------- bars
BAR_ORDER = ((1, 1, 1), (1, 1, 0), (0, 1, 1), (0, 1, 0), (1, 0, 1), (1, 0, 0), (0, 0, 1), (0, 0, 0))


def bar_colours(levels, level: float, white_level: float) -> list[tuple[int, int, int]]:
    on, off, white = levels.level(level), levels.level(0), levels.level(white_level)
    out = [(white, white, white)]
    out += [tuple(on if c else off for c in bits) for bits in BAR_ORDER[1:]]
    return out


def _bars(ctx: Ctx, p):
    table = ctx.const(bar_colours(ctx.levels, p["level"], p["white"] if p["white"] else p["level"]))
    idx = (ctx.cols() * 8) // ctx.width
    return ctx.one_row(X.take_rows(ctx.xp, table, idx))


register(Pattern(
    "bars", "Colour", "Colour bars",
    "Eight bars: white, yellow, cyan, green, magenta, red, blue, black, at a level "
    "(75 % or 100 % bars) exact at every bit depth and range.",
    (
        Param("level", "float", 75.0, "Level of the coloured bars, %", 0.0, 100.0),
        Param("white", "float", 0.0, "Level of the white bar, % (0: same as level)", 0.0, 100.0),
    ),
    _bars,
))


# ---------------------------------------------------------------- PLUGE
def pluge_levels(levels) -> dict[str, int]:
    """Narrow-range levels, always (that is what PLUGE is for), scaled by shift."""
    # 48 / 64 / 80 at 10 bits are 12 / 16 / 20 at 8 bits
    return {"below": levels.narrow(12), "black": levels.narrow(16), "above": levels.narrow(20),
            "white": levels.narrow(235)}


def _pluge(ctx: Ctx, p):
    lv = pluge_levels(ctx.levels)
    w, h = ctx.width, ctx.height
    cols = ctx.cols()
    col = ctx.xp.where((cols >= (3 * w) // 10) & (cols < (4 * w) // 10), lv["below"], lv["black"])
    col = ctx.xp.where((cols >= (6 * w) // 10) & (cols < (7 * w) // 10), lv["above"], col)
    patch = ctx.xp.where((cols >= (45 * w) // 100) & (cols < (55 * w) // 100), lv["white"], col)
    rows = X.stack(ctx.xp, [col * 0 + lv["black"], col, patch])[:, :, None] + ctx.const([[[0, 0, 0]]])
    lines = ctx.lines()
    bars = (lines >= h // 5) & (lines < (4 * h) // 5)
    white = (lines >= (2 * h) // 5) & (lines < (3 * h) // 5) & p["white_patch"]
    index = bars * 1 + white * 1
    return Rows(rows, index, w, h)


register(Pattern(
    "pluge", "Levels", "PLUGE",
    "Black-level set-up: below-black (48), black (64) and above-black (80) at 10 bits, "
    "scaled by shift to other depths, with an optional white reference patch.",
    (Param("white_patch", "bool", True, "Show a 100 % white patch between the bars"),),
    _pluge,
    min_bits=8,
))


