"""The scale chart: rulers and ladders that show by eye whether a chain maps pixels 1:1.

In the spirit of display-patterns' scale chart, drawn in whole pixels at exact code values
(``fg``, ``bg`` and the grey between them) at 1280x720 or more:

* **tick rulers** along the top and bottom (1 px ticks every 10 px, longer every 50 and 100)
  and down both sides (every 10 lines): count them against the capture's pixels;
* **beat rulers**: 1 px lines every 2, 3 and 4 px, across (vertical lines) and down
  (horizontal lines), each against a 1 px reference tick row.  1:1 they are even; resampled
  they beat, in bands whose spacing tells the scale;
* **stripe rulers**: white and black stripes 1, 2, ... 8 px wide in turn, across and down: a
  non-integer scale makes equal stripes unequal, a downscale merges the narrow ones;
* a **zoom ladder**: checkers of 1, 2, 3, 4, 5, 6 and 8 px; a downscale by ``s`` greys out
  every rung finer than ``1/s``.

:func:`chart_layout` is the geometry (also written into each frame's manifest).  The body is
rows plus a gather: the lines of each band fall into a few kinds (a ruler tick or not, a
grating's line or not, a checker row's parity), the distinct kinds are the rows, and every
value is integer arithmetic on column numbers, the same on numpy and torch.
"""

from __future__ import annotations

import math

import numpy as np

from core import xp as X
from core.manifest import register_geometry
from core.patterns.registry import Param, Pattern, register
from core.patterns.spec import Ctx
from core.plan import Rows

SCALE_CHART_MIN = MIN_WIDTH, MIN_HEIGHT = 1280, 720   # the smallest frame it is drawn at
BEAT_PERIODS = (2, 3, 4)
STRIPE_WIDTHS = tuple(range(1, 9))
LADDER_SIZES = (1, 2, 3, 4, 5, 6, 8)
TICK_EVERY, TICK_MEDIUM, TICK_LONG = 10, 50, 100
# band name, height in units (1/36 of the frame height, or 1/64 of its width if less); "gap"
# bands are grey
TOP = (("ticks_top", 2), ("gap", 1), ("beat_across", 3), ("gap", 1), ("beat_down", 3), ("gap", 1),
       ("stripes_across", 2), ("gap", 1), ("ladder", 8))
BOTTOM = (("stripes_down", 4), ("gap", 1), ("ticks_bottom", 2))
BG, FG, GREY = 0, 1, 2    # the row codes, turned into colours last


def _stripe_table() -> np.ndarray:
    """1 for white, 0 for black along one period of the stripe ruler (white w, black w, ...)."""
    return np.concatenate([np.r_[np.ones(w, np.int64), np.zeros(w, np.int64)] for w in STRIPE_WIDTHS])


def chart_layout(width: int, height: int) -> dict:
    """Where everything is, in frame pixels: ``unit``, the side rulers' width ``ruler``, the
    main area's columns ``x0``..``x1``, the ``bands`` top to bottom (``name``, ``y``,
    ``height``), the beat blocks down (``beat_down_blocks``), the ladder's cells and the
    periods, widths and tick spacings drawn."""
    check_fits(width, height)
    u = min(height // 36, width // 64)   # portrait frames: the width decides
    ruler = 2 * u
    x0, x1 = ruler, width - ruler
    bands: list[dict]   # name, y, height
    bands, y = [], 0
    for name, n in TOP:
        bands.append({"name": name, "y": y, "height": n * u})
        y += n * u
    bottom_h = sum(n for _, n in BOTTOM) * u
    bands.append({"name": "gap", "y": y, "height": height - bottom_h - y})
    y = height - bottom_h
    for name, n in BOTTOM:
        bands.append({"name": name, "y": y, "height": n * u})
        y += n * u
    ladder = next(b for b in bands if b["name"] == "ladder")
    gutter = max(2, u // 2)
    n = len(LADDER_SIZES)
    side = min(ladder["height"] - 2 * gutter, (x1 - x0 - (n + 1) * gutter) // n)
    side -= side % math.lcm(*LADDER_SIZES)     # every rung a whole number of its checkers
    left = x0 + (x1 - x0 - n * side - (n - 1) * gutter) // 2     # the ladder centred
    cells = [{"size": z, "x": left + i * (side + gutter), "y": ladder["y"] + gutter,
              "width": side, "height": side} for i, z in enumerate(LADDER_SIZES)]
    block = (x1 - x0) // len(BEAT_PERIODS)
    blocks = [{"period": p, "x": x0 + i * block, "width": block - gutter}
              for i, p in enumerate(BEAT_PERIODS)]
    return {"unit": u, "ruler": ruler, "x0": x0, "x1": x1, "bands": bands, "gutter": gutter,
            "ladder": cells, "beat_down_blocks": blocks, "reference": max(2, u // 4),
            "beat_periods": list(BEAT_PERIODS), "stripe_widths": list(STRIPE_WIDTHS),
            "ticks": {"every": TICK_EVERY, "medium": TICK_MEDIUM, "long": TICK_LONG}}


def check_fits(width: int, height: int) -> None:
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        raise ValueError(f"size: the scale chart does not fit {width}x{height}; it needs at least "
                         f"{MIN_WIDTH}x{MIN_HEIGHT} (its rulers and ladder are drawn in whole pixels)")


# ---------------------------------------------------------------- line kinds (host, integers)
def _tick_level(pos: np.ndarray) -> np.ndarray:
    """0 no tick, 1 every 10, 2 every 50, 3 every 100."""
    return ((pos % TICK_EVERY == 0) * 1 + (pos % TICK_MEDIUM == 0) * 1 + (pos % TICK_LONG == 0) * 1)


def _band_features(lay: dict, band: dict) -> np.ndarray:
    """(lines, 4) integers that decide a line's row within its band."""
    y = np.arange(band["y"], band["y"] + band["height"], dtype=np.int64)
    t = y - band["y"]
    u, zero = lay["unit"], np.zeros_like(y)
    name = band["name"]
    if name in ("ticks_top", "ticks_bottom"):
        depth = t if name == "ticks_top" else band["height"] - 1 - t
        # which ticks reach this line: all of them near the edge, only the long ones further in
        reach = (depth < u // 2) * 1 + (depth < u) * 1 + 1
        return np.stack([reach, zero, zero, zero], axis=1)
    if name == "beat_across":
        sub = np.minimum(t // u, len(BEAT_PERIODS) - 1)
        ref = (t - sub * u) < lay["reference"]
        return np.stack([np.asarray(BEAT_PERIODS)[sub], ref * 1, zero, zero], axis=1)
    if name == "beat_down":
        on = [(t % p == 0) * 1 for p in BEAT_PERIODS]
        return np.stack([on[0] + 2 * on[1] + 4 * on[2], (t % TICK_EVERY == 0) * 1, zero, zero], axis=1)
    if name == "stripes_down":
        table = _stripe_table()
        return np.stack([table[t % table.size], zero, zero, zero], axis=1)
    if name == "ladder":
        cell = lay["ladder"][0]
        inside = (y >= cell["y"]) & (y < cell["y"] + cell["height"])
        r = y - cell["y"]
        parity = sum(((r // z) % 2) << i for i, z in enumerate(LADDER_SIZES))
        return np.stack([inside * 1, parity * inside, zero, zero], axis=1)
    return np.stack([zero, zero, zero, zero], axis=1)


# ---------------------------------------------------------------- rows (device, integers)
def _band_rows(ctx: Ctx, lay: dict, name: str, f):
    """Codes (K, W) for the K kinds of line ``f`` (K, 4) of one band."""
    xp = ctx.xp
    x = ctx.cols()[None, :]
    a, b = f[:, 0:1], f[:, 1:2]
    grey = x * 0 + GREY
    if name in ("ticks_top", "ticks_bottom"):
        # a line reached by ``reach`` tick levels shows the ticks of at least level 4 - reach
        return xp.where(_tick_level_x(x) + a >= 4, FG, BG) + x * 0
    if name == "beat_across":
        grating = xp.where(x % a == 0, FG, BG)
        ref = xp.where(x % TICK_EVERY == 0, FG, BG)
        return xp.where(b == 1, ref, grating)
    if name == "beat_down":
        out = grey
        for i, blk in enumerate(lay["beat_down_blocks"]):
            lo, hi = blk["x"], blk["x"] + blk["width"]
            ref_hi = lo + lay["reference"]
            line = xp.where(((a >> i) & 1) == 1, FG, BG)
            ref = xp.where(b == 1, FG, BG)
            out = xp.where((x >= lo) & (x < ref_hi), ref, xp.where((x >= ref_hi) & (x < hi), line, out))
        return out
    if name == "stripes_across":
        table = ctx.const(_stripe_table())
        return X.take_rows(xp, table, (ctx.cols() - lay["x0"]) % int(table.shape[0]))[None, :] + a * 0
    if name == "stripes_down":
        half = (lay["x0"] + lay["x1"]) // 2
        return xp.where(x < half, xp.where(a == 1, FG, BG), grey)
    if name == "ladder":
        out = grey + a * 0
        for i, cell in enumerate(lay["ladder"]):
            lo, hi, z = cell["x"], cell["x"] + cell["width"], cell["size"]
            on = (((x - lo) // z) % 2) ^ ((b >> i) & 1)
            out = xp.where((x >= lo) & (x < hi) & (a == 1), xp.where(on == 0, FG, BG), out)
        return out
    return grey + a * 0


def _tick_level_x(x):
    return (x % TICK_EVERY == 0) * 1 + (x % TICK_MEDIUM == 0) * 1 + (x % TICK_LONG == 0) * 1


def _ruler_rows(ctx: Ctx, lay: dict):
    """Codes (5, W) of the side rulers and the border for tick levels 0..3 and a border line;
    -1 in the main area (the band's own row shows there)."""
    xp, w = ctx.xp, ctx.width
    x = ctx.cols()[None, :]
    u = lay["unit"]
    length = ctx.const([[0], [u // 2], [u], [lay["ruler"] - 1]])
    left = xp.where(x - 1 < length, FG, BG)
    right = xp.where(w - 2 - x < length, FG, BG)
    side = xp.where(x < lay["x0"], left, xp.where(x >= lay["x1"], right, -1))
    side = xp.where((x == 0) | (x == w - 1), FG, side)
    return X.concat(xp, [side, x * 0 + FG], axis=0)     # the last: the top and bottom lines


def _scale_chart(ctx: Ctx, p):
    xp, w, h = ctx.xp, ctx.width, ctx.height
    lay = chart_layout(w, h)
    # each band's kinds of line become rows; a line is then (its band row, its side-ruler row)
    band_rows, band_kind, offset = [], np.zeros(h, np.int64), 0
    for band in lay["bands"]:
        if band["height"] <= 0:
            continue
        lo, hi = band["y"], band["y"] + band["height"]
        kinds, inverse = np.unique(_band_features(lay, band), axis=0, return_inverse=True)
        band_kind[lo:hi] = offset + inverse.reshape(-1)
        offset += kinds.shape[0]
        band_rows.append(_band_rows(ctx, lay, band["name"], ctx.const(kinds)))
    y = np.arange(h, dtype=np.int64)
    ruler_kind = np.where((y == 0) | (y == h - 1), 4, _tick_level(y))
    pairs, line_row = np.unique(np.stack([band_kind, ruler_kind], axis=1), axis=0, return_inverse=True)
    pairs = ctx.const(pairs)
    main = X.take_rows(xp, X.concat(xp, band_rows, axis=0), pairs[:, 0])
    side = X.take_rows(xp, _ruler_rows(ctx, lay), pairs[:, 1])
    codes = xp.where(side < 0, main, side)
    grey = [(f + b + 1) // 2 for f, b in zip(p["fg"], p["bg"], strict=True)]
    palette = ctx.const([list(p["bg"]), list(p["fg"]), grey])     # indexed by BG, FG, GREY
    k = int(pairs.shape[0])
    rows = X.take_rows(xp, palette, codes.reshape(-1)).reshape(k, w, 3)
    return Rows(rows, ctx.const(line_row.reshape(-1)), w, h)


def chart_geometry(params, width: int, height: int) -> dict:
    """The manifest's ``geometry`` for a scale chart frame."""
    return chart_layout(width, height)


register(Pattern(
    "scale_chart", "Resolution", "Scale chart",
    "Tick rulers, beat rulers (1 px lines every 2, 3 and 4 px against a 1 px reference), "
    "stripe rulers (1-8 px) and a zoom ladder (1-8 px checkers), across and down: a chain that "
    "does not map pixels 1:1 shows as beats, uneven stripes and greyed rungs. At least 1280x720; "
    "its geometry is in the manifest.",
    (
        Param("fg", "colour", "100%", "Line and stripe colour"),
        Param("bg", "colour", "0%", "Background colour (the gaps are the grey between the two)"),
    ),
    _scale_chart,
    fits=lambda p, w, h: check_fits(w, h),
))
register_geometry("scale_chart", chart_geometry)
