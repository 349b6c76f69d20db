"""HDR patterns: ITU-R BT.2111 colour bars for PQ and HLG, and BT.814's HDR PLUGE.

Where the values come from.  BT.2111-2 gives the bars' R'G'B' values explicitly at 10 and 12
bits (Tables 1 and 2); nothing here is computed from a percentage.  The authoritative values
testcard was handed (40 % grey sides 414, PQ full 409; 75 % HLG bars 721, 58 % PQ 572 / full
593; the step row 4, 64, 152 ... 940, 1019 and its full-range 0, 0, 102 ... 1023, 1023; the
PLUGE 64, 48, 64, 80, 64, 99, 64; rows H/12, H/2, H/12, H/12, H/4) agree with two open
transcriptions of the tables, which supply the rest:

* vapoursynth-colorbars (``colorbars.c``, "ITU BT.2111-2 gives explicit color bar values in
  10-bit and 12-bit R'G'B'"): every value at 10 and 12 bits (the 12-bit full-range ones are
  not 4x the 10-bit ones: 40 % is 1638, 58 % is 2375), the BT.709 colours of the bottom row,
  the column widths at 1920, 3840 and 7680, and the 12-bit ramp (16..4079 narrow, 0..4095 full,
  1015 / 2031 / 4062 pixels wide narrow, 1023 / 2047 / 4094 full).
* toru-ver4's BT.2111-0 / BT.814-4 scripts: the same 10-bit values and widths, and the 10-bit
  ramp: 1015 pixels at 1920 (1023 full range) beside a 106-pixel 109 % patch, so that at 1920
  every code from 4 to 1018 is one pixel.  (vapoursynth-colorbars draws the 10-bit ramp one
  pixel narrower, 1014 + 107, which would skip code 1018; testcard keeps every code once.)
  Also the BT.814-4 HDR PLUGE: black 64, stripes and patches at 80 (+2 %) and 48 (-2 %), the
  higher-level patch at 399 for PQ, and its geometry at 1920x1080 and 3840x2160.

Geometry.  Rows H/12 (100 % bars), H/2 (75 % / 58 % bars), H/12 (steps), H/12 (ramp), H/4 (the
BT.709 colours, PLUGE and a 75 % / 58 % white patch); row edges at round(k * H / 12) for k = 1,
7, 8, 9, exact at heights that are multiples of 12.  Columns at 1920, 3840 and 7680 are the
standard's; any other width scales the 1920 column edges by W / 1920, rounded half up (the
standard's proportions), and the ramp spans its scaled columns.  The ramp: pixel i of n is
``start + floor((end - start) * i / n)``, the 109 % patch after it holding ``end``.

Levels.  10 and 12 bits are the tables; any other depth takes the 12-bit table rescaled by
:func:`core.levels.rescale_code` (narrow range by shift, full range by proportion).  HLG
bars are narrow range only (BT.2111 gives none in full range): full-range HLG is refused.
The PLUGE is BT.814's PQ signal in narrow range: HLG or full range is refused.
"""

from __future__ import annotations

from core import xp as X
from core.levels import Levels, rescale_code
from core.patterns.registry import Param, Pattern, register
from core.patterns.spec import Ctx
from core.plan import Rows

# ---------------------------------------------------------------- the tables
# system: "hlg" and "pq" are narrow range, "pq_full" full range; depth 10 or 12.
FULL, ZERO = {10: 1023, 12: 4095}, {10: 0, 12: 0}
ON = {"hlg": {10: 940, 12: 3760}, "pq": {10: 940, 12: 3760}, "pq_full": FULL}
OFF = {"hlg": {10: 64, 12: 256}, "pq": {10: 64, 12: 256}, "pq_full": ZERO}
GREY40 = {"hlg": {10: 414, 12: 1656}, "pq": {10: 414, 12: 1656}, "pq_full": {10: 409, 12: 1638}}
# 75 % HLG, 58 % PQ (the rounded signal level, about 201.5 cd/m2, not exactly 203)
BAR = {"hlg": {10: 721, 12: 2884}, "pq": {10: 572, 12: 2288}, "pq_full": {10: 593, 12: 2375}}
_NARROW_STEPS = (4, 64, 152, 239, 327, 414, 502, 590, 677, 765, 852, 940, 1019)
# -7 %, 0 %, 10 % .. 100 %, 109 %
STEPS = {
    "hlg": {10: _NARROW_STEPS, 12: tuple(4 * v for v in _NARROW_STEPS)},
    "pq": {10: _NARROW_STEPS, 12: tuple(4 * v for v in _NARROW_STEPS)},
    "pq_full": {10: (0, 0, 102, 205, 307, 409, 512, 614, 716, 818, 921, 1023, 1023),
                12: (0, 0, 410, 819, 1229, 1638, 2048, 2457, 2867, 3276, 3686, 4095, 4095)},
}
# the ramp row: the 0 % side, the -7 % patch, the ramp from .. to (the 109 % patch holds "to")
RAMP = {"hlg": {10: (64, 4, 4, 1019), 12: (256, 16, 16, 4079)},
        "pq": {10: (64, 4, 4, 1019), 12: (256, 16, 16, 4079)},
        "pq_full": {10: (0, 0, 0, 1023), 12: (0, 0, 0, 4095)}}
# 0, -2 %, 0, +2 %, 0, +4 %, 0
PLUGE_ROW = {"hlg": {10: (64, 48, 64, 80, 64, 99, 64), 12: (256, 192, 256, 320, 256, 396, 256)},
             "pq": {10: (64, 48, 64, 80, 64, 99, 64), 12: (256, 192, 256, 320, 256, 396, 256)},
             "pq_full": {10: (0, 0, 0, 20, 0, 41, 0), 12: (0, 0, 0, 82, 0, 164, 0)}}
# BT.709 yellow, cyan, green | magenta, red, blue at 75 % HLG / 58 % PQ, in BT.2020 R'G'B'
_709_10 = {
    "hlg": ((713, 719, 316), (538, 709, 718), (512, 706, 296),
            (651, 286, 705), (639, 269, 164), (227, 147, 702)),
    "pq": ((568, 571, 381), (484, 566, 571), (474, 564, 368),
           (536, 361, 564), (530, 350, 256), (317, 236, 562)),
    "pq_full": ((589, 592, 370), (491, 586, 592), (478, 584, 355),
                (551, 347, 584), (544, 334, 225), (296, 201, 582)),
}
BT709 = {
    "hlg": {10: _709_10["hlg"], 12: tuple(tuple(4 * v for v in c) for c in _709_10["hlg"])},
    "pq": {10: _709_10["pq"], 12: tuple(tuple(4 * v for v in c) for c in _709_10["pq"])},
    "pq_full": {10: _709_10["pq_full"],
                12: ((2356, 2370, 1480), (1964, 2345, 2368), (1915, 2339, 1420),
                     (2206, 1389, 2336), (2178, 1337, 900), (1184, 805, 2328))},
}

# Column widths at 1920 (3840 and 7680 are 2x and 4x, except the ramp row's own tables).
BAR_WIDTHS = (240, 206, 206, 206, 204, 206, 206, 206, 240)
STEP_WIDTHS = (240, 206, 103, 103, 103, 103, 102, 102, 103, 103, 103, 103, 103, 103, 240)
BOTTOM_WIDTHS = (80, 80, 80, 136, 70, 68, 70, 68, 70, 238, 438, 282, 80, 80, 80)
# the ramp row after its 0 % side: -7 % patch, ramp, 109 % patch; by (range, depth, width)
RAMP_WIDTHS = {
    ("narrow", 10): {1920: (559, 1015, 106), 3840: (1118, 2030, 212), 7680: (2236, 4060, 424)},
    ("full", 10): {1920: (551, 1023, 106), 3840: (1102, 2046, 212), 7680: (2204, 4092, 424)},
    ("narrow", 12): {1920: (559, 1015, 106), 3840: (1117, 2031, 212), 7680: (2233, 4062, 425)},
    ("full", 12): {1920: (551, 1023, 106), 3840: (1101, 2047, 212), 7680: (2201, 4094, 425)},
}
ROW_TWELFTHS = (1, 7, 8, 9)          # row edges at k * H / 12: H/12, H/2, H/12, H/12, H/4
TABLE_WIDTHS = (1920, 3840, 7680)

# BT.814-4 HDR PLUGE at 1920x1080, half-open [start, end): columns and lines
PLUGE_COLS = {"stripes": (312, 600), "higher": (888, 1032), "patches": (1320, 1608)}
PLUGE_LINES = {"stripes": (345, 735), "higher": (468, 612), "lighter": (324, 468),
               "darker": (612, 756)}
PLUGE_STRIPES = 39                   # 10 lighter, one gap, 10 darker, with gaps between
PLUGE_LEVELS = {10: {"black": 64, "lighter": 80, "darker": 48, "higher": 399},
                12: {"black": 256, "lighter": 320, "darker": 192, "higher": 1596}}


def system_of(transfer: str, limited: bool) -> str:
    """The BT.2111 table a transfer and range read: ``hlg``, ``pq`` or ``pq_full``."""
    if transfer == "hlg":
        return "hlg"
    return "pq" if limited else "pq_full"


def _at(levels: Levels, table: dict, system: str):
    """The table's entry at ``levels``: the 10- or 12-bit values, or the 12-bit ones rescaled."""
    if levels.bit_depth in (10, 12):
        return table[system][levels.bit_depth]
    twelve = Levels(12, levels.limited)

    def conv(v):
        if isinstance(v, tuple):
            return tuple(conv(x) for x in v)
        return rescale_code(v, twelve, levels)

    return conv(table[system][12])


def _edges(widths, width: int, base: int = 1920) -> list[int]:
    """Cumulative column edges of ``widths`` (summing to ``base``) scaled to ``width``."""
    out, acc = [0], 0
    for w in widths:
        acc += w
        out.append((2 * acc * width + base) // (2 * base))
    return out


def bar_geometry(width: int, height: int, limited: bool, bit_depth: int) -> dict:
    """Every row's column edges and the row edges: ``{"bars", "steps", "ramp", "bottom",
    "rows"}``, each a list of edges from 0 to the width (height for ``rows``)."""
    ramp_table = RAMP_WIDTHS[("narrow" if limited else "full", 10 if bit_depth == 10 else 12)]
    if width in TABLE_WIDTHS:
        k = width // 1920
        scaled = lambda ws: _edges([k * w for w in ws], width, width)  # noqa: E731
        geom = {"bars": scaled(BAR_WIDTHS), "steps": scaled(STEP_WIDTHS),
                "bottom": scaled(BOTTOM_WIDTHS),
                "ramp": _edges((240 * k, *ramp_table[width]), width, width)}
    else:
        geom = {"bars": _edges(BAR_WIDTHS, width), "steps": _edges(STEP_WIDTHS, width),
                "bottom": _edges(BOTTOM_WIDTHS, width),
                "ramp": _edges((240, *ramp_table[1920]), width)}
    geom["rows"] = [0] + [(2 * k * height + 12) // 24 for k in ROW_TWELFTHS] + [height]
    return geom


# ---------------------------------------------------------------- bodies
def _column(ctx: Ctx, edges):
    """Each pixel's column number between ``edges`` (a column of no pixels is skipped)."""
    cols = ctx.cols()
    idx = cols * 0
    for e in edges[1:-1]:
        idx = idx + (cols >= e) * 1
    return idx


def _row(ctx: Ctx, edges, colours):
    return X.take_rows(ctx.xp, ctx.const([list(c) for c in colours]), _column(ctx, edges))


def _grey(v):
    return (v, v, v)


def _bars_body(ctx: Ctx, p):
    lv, system = ctx.levels, system_of(p["transfer"], ctx.levels.limited)
    geom = bar_geometry(ctx.width, ctx.height, lv.limited, lv.bit_depth)
    on, off, side, bar = (_at(lv, t, system) for t in (ON, OFF, GREY40, BAR))

    def bars(level):
        return [tuple(level if c else off for c in bits) for bits in
                ((1, 1, 1), (1, 1, 0), (0, 1, 1), (0, 1, 0), (1, 0, 1), (1, 0, 0), (0, 0, 1))]

    top = _row(ctx, geom["bars"], [_grey(side), *bars(on), _grey(side)])
    middle = _row(ctx, geom["bars"], [_grey(side), *bars(bar), _grey(side)])
    steps = _row(ctx, geom["steps"], [_grey(bar), *map(_grey, _at(lv, STEPS, system)), _grey(bar)])
    zero, minus7, start, end = _at(lv, RAMP, system)
    e = geom["ramp"]
    flat = _row(ctx, e, [_grey(zero), _grey(minus7), _grey(start), _grey(end)])
    cols = ctx.cols()
    n = max(e[3] - e[2], 1)
    rising = start + ((end - start) * (cols - e[2])) // n
    inside = ((cols >= e[2]) & (cols < e[3]))[:, None]
    ramp = ctx.xp.where(inside, rising[:, None] + flat * 0, flat)
    c709 = _at(lv, BT709, system)
    pl = _at(lv, PLUGE_ROW, system)
    bottom = _row(ctx, geom["bottom"], [*c709[:3], *map(_grey, pl), _grey(bar), _grey(pl[0]), *c709[3:]])
    rows = X.stack(ctx.xp, [top, middle, steps, ramp, bottom])
    lines = ctx.lines()
    index = lines * 0
    for edge in geom["rows"][1:-1]:
        index = index + (lines >= edge) * 1
    return Rows(rows, index, ctx.width, ctx.height)


def _scaled(edges, size: int, base: int) -> tuple[int, int]:
    return tuple((2 * v * size + base) // (2 * base) for v in edges)


def pluge_levels(levels: Levels) -> dict[str, int]:
    """BT.814-4's HDR PLUGE levels (PQ, narrow range) at ``levels``."""
    if levels.bit_depth in (10, 12):
        return dict(PLUGE_LEVELS[levels.bit_depth])
    return {k: rescale_code(v, Levels(12, True), levels) for k, v in PLUGE_LEVELS[12].items()}


def _pluge_body(ctx: Ctx, p):
    lv = pluge_levels(ctx.levels)
    w, h = ctx.width, ctx.height
    cols, lines = ctx.cols(), ctx.lines()
    value = {"none": lv["black"], "lighter": lv["lighter"], "darker": lv["darker"]}
    sx0, sx1 = _scaled(PLUGE_COLS["stripes"], w, 1920)
    hx0, hx1 = _scaled(PLUGE_COLS["higher"], w, 1920)
    px0, px1 = _scaled(PLUGE_COLS["patches"], w, 1920)
    in_s = (cols >= sx0) & (cols < sx1)
    in_h = (cols >= hx0) & (cols < hx1)
    in_p = (cols >= px0) & (cols < px1)
    # one row per (stripe level, patch level, higher patch on or off): 3 x 3 x 2
    black = cols * 0 + lv["black"]
    rows = []
    for stripe in ("none", "lighter", "darker"):
        for patch in ("none", "lighter", "darker"):
            row = ctx.xp.where(in_s, black * 0 + value[stripe], black)
            row = ctx.xp.where(in_p, black * 0 + value[patch], row)
            rows += [row, ctx.xp.where(in_h, black * 0 + lv["higher"], row)]
    rows = X.stack(ctx.xp, rows)[:, :, None] + ctx.const([[[0, 0, 0]]])
    sy0, sy1 = _scaled(PLUGE_LINES["stripes"], h, 1080)
    hy0, hy1 = _scaled(PLUGE_LINES["higher"], h, 1080)
    ly0, ly1 = _scaled(PLUGE_LINES["lighter"], h, 1080)
    dy0, dy1 = _scaled(PLUGE_LINES["darker"], h, 1080)
    stripe_no = ((lines - sy0) * PLUGE_STRIPES) // max(sy1 - sy0, 1)
    in_stripes = (lines >= sy0) & (lines < sy1) & (stripe_no % 2 == 0)
    stripe = in_stripes * ((stripe_no < PLUGE_STRIPES // 2) * 1 + (stripe_no > PLUGE_STRIPES // 2) * 2)
    patch = ((lines >= ly0) & (lines < ly1)) * 1 + ((lines >= dy0) & (lines < dy1)) * 2
    higher = ((lines >= hy0) & (lines < hy1)) * 1
    return Rows(rows, stripe * 6 + patch * 2 + higher, w, h)


def _hdr_bars(ctx: Ctx, p):
    return _pluge_body(ctx, p) if p["pluge"] else _bars_body(ctx, p)


def _fits(p, width: int, height: int) -> None:
    """Refuse a combination the standards do not give (``_limited``: the frame's range)."""
    limited = p.get("_limited", True)
    if p["transfer"] == "hlg" and not limited:
        raise ValueError("transfer: HLG bars in full range are not in the standard (BT.2111 "
                         "gives HLG in narrow range only); add --limited or choose pq")
    if p["pluge"] and p["transfer"] != "pq":
        raise ValueError("pluge: an HLG PLUGE is not in the standard here (BT.814's HDR "
                         "levels are PQ ones); choose transfer pq")
    if p["pluge"] and not limited:
        raise ValueError("pluge: a full-range PLUGE is not in the standard (BT.814's PLUGE is "
                         "narrow range: its below-black stripes have no code in full range); "
                         "add --limited")


register(Pattern(
    "hdr_bars", "Colour", "HDR bars (BT.2111)",
    "ITU-R BT.2111 colour bars with the standard's explicit 10- and 12-bit values: PQ narrow "
    "and full range, HLG narrow. Rows of 100 % bars, 75 % (HLG) / 58 % (PQ) bars, grey steps "
    "-7 %..109 %, a ramp and BT.709 colours with a PLUGE. With pluge, BT.814's HDR PLUGE (PQ).",
    (
        Param("transfer", "choice", "pq", "Which bars: pq or hlg (the spec's transfer follows)",
              choices=("pq", "hlg")),
        Param("pluge", "bool", False, "Draw BT.814's HDR PLUGE (PQ, narrow range) instead of the bars"),
    ),
    _hdr_bars,
    min_bits=8,
    fits=_fits,
))
