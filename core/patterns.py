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

import numpy as np

from core import xp as X
from core.counter import (
    DEFAULT_BANDS,
    DEFAULT_BITS,
    LAYOUTS,
    MAX_BANDS,
    MIN_BANDS,
    CounterGeometry,
    overlay_counter,
)
from core.plan import Rows, apply_roi, map_rows, materialize
from core.registry import Ctx, Param, Pattern, Spec, make_spec, register


def _rows1(ctx: Ctx, row):
    """A plan of one row (W or 1 wide, 3 channels) repeated on every line."""
    return Rows(row[None], ctx.lines() * 0, ctx.width, ctx.height)


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
    return _rows1(ctx, ctx.const([color]))


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
))


# ---------------------------------------------------------------- window
def window_geometry(width: int, height: int, area: float, cx: float, cy: float):
    """Patch (x, y, w, h) covering ``area`` % of the frame with the frame's aspect."""
    s = math.sqrt(area / 100.0)
    pw = min(width, max(1, round(width * s)))
    ph = min(height, max(1, round(height * s)))
    x = min(max(round(cx * width - pw / 2), 0), width - pw)
    y = min(max(round(cy * height - ph / 2), 0), height - ph)
    return x, y, pw, ph


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
    return tuple(out)


def _window(ctx: Ctx, p):
    x, y, w, h = window_geometry(ctx.width, ctx.height, p["area"], p["cx"], p["cy"])
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
    "average picture level stays constant as the patch changes.",
    (
        Param("area", "float", 10.0, "Patch area, % of the frame", 1.0, 100.0),
        Param("color", "colour", "100%", "Patch colour"),
        Param("background_mode", "choice", "fixed", "fixed: use background; apl: hold the APL",
              choices=("fixed", "apl")),
        Param("background", "colour", "0%", "Background colour (fixed mode)"),
        Param("apl", "float", 18.0, "Average picture level to hold, % (apl mode)", 0.0, 100.0),
        Param("cx", "float", 0.5, "Patch centre x, fraction of the width", 0.0, 1.0),
        Param("cy", "float", 0.5, "Patch centre y, fraction of the height", 0.0, 1.0),
    ),
    _window,
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
        return _rows1(ctx, values)
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
    return _rows1(ctx, X.take_rows(ctx.xp, table, idx))


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


# ---------------------------------------------------------------- counter
def _counter_base(ctx: Ctx, p):
    black = ctx.levels.black
    return _rows1(ctx, ctx.const([[black, black, black]]))


register(Pattern(
    "counter", "Timing", "Frame counter",
    "Binary frame-counter panel. compat (display-patterns compatible): one row of cells, MSB "
    "first, lit = white. robust: bands of reference cells, a self-describing header and a "
    "check code, repeated down the frame so torn frames show. The frame wraps modulo 2**bits. "
    "Decode it from captures with `testcard decode`.",
    (
        Param("bits", "int", DEFAULT_BITS, "Counter bits (the count wraps at 2**bits)", 1, 31),
        Param("layout", "choice", "compat", "Panel layout: compat (display-patterns) or robust "
              "(found and checked in real captures)", choices=LAYOUTS),
        Param("gray", "bool", False, "Gray-code the index (robust layout)"),
        Param("bands", "int", DEFAULT_BANDS, "Copies of the panel down the frame (robust layout)",
              MIN_BANDS, MAX_BANDS),
    ),
    _counter_base,
    animates=lambda p: True,
))


# ---------------------------------------------------------------- rendering
def render_plan(spec: Spec, frame=0, xp=np, device=None) -> Rows:
    """The frame as rows plus a gather, code values in int64, before any dtype cast."""
    from core.registry import get_pattern

    pat = get_pattern(spec.pattern)
    params = spec.param_dict
    origin = (0, 0)
    if spec.roi is not None:
        origin = (spec.roi[0], spec.roi[1])
        params = dict(params, _roi_w=max(spec.roi[2], 1), _roi_h=max(spec.roi[3], 1))
    ctx = Ctx(xp, device, spec.width, spec.height, spec.levels, frame, origin)
    plan = pat.body(ctx, params)
    plan = apply_roi(xp, plan, spec.roi, device=device)
    geom = spec.counter_geometry()
    if geom is not None:
        plan = overlay_counter(xp, plan, geom, frame, spec.levels.white, spec.levels.black, device)
    return plan


def render(spec: Spec, frame=0, xp=np, device=None):
    """Frame ``frame`` of ``spec`` as ``(height, width, 3)`` code values in ``spec.dtype``."""
    plan = render_plan(spec, frame, xp, device)
    dtype = _dtype_name(xp, spec.dtype)
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


__all__ = ["render", "render_plan", "render_pattern", "CounterGeometry", "window_geometry",
           "bar_colours", "pluge_levels", "step_levels", "zone_plate_lut"]
