"""The frame-counter panel painted: as the ``counter`` pattern, and over any other plan.

The panel's layout and codes are ``core.counter``'s; reading it back is ``core.decode``'s.
"""

from __future__ import annotations

from core import xp as X
from core.counter import (
    CHECK_BITS,
    DEFAULT_BANDS,
    DEFAULT_BITS,
    LAYOUTS,
    MAX_BANDS,
    MIN_BANDS,
    CounterGeometry,
    crc_masks,
    line_kinds,
    robust_cells,
    robust_header,
)
from core.patterns.registry import Param, Pattern, register
from core.patterns.spec import Ctx
from core.plan import Patch, Rows, full_width


# ---------------------------------------------------------------- counter
def _counter_base(ctx: Ctx, p):
    black = ctx.levels.black
    return ctx.one_row(ctx.const([[black, black, black]]))


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


def counter_columns(xp, geom: CounterGeometry, frame, device=None):
    """Per column: 1 where the panel is lit at this frame, else 0 (int64, shape (W,)).

    The bits come out of ``bitwise_right_shift`` against a per-column shift
    array, so ``frame`` stays array data (a 0-d tensor never recompiles).
    Columns outside the panel get shift 0 and are masked afterwards.
    """
    f = X.frame_scalar(xp, frame, device=device, modulus_bits=geom.bits)
    cols = X.arange(xp, geom.width, device=device)
    cell = (cols - geom.x0) // geom.cell_w
    inside = (cols >= geom.x0) & (cols < geom.x1)
    shift = xp.where(inside, (geom.bits - 1) - cell, cols * 0)
    lit = xp.bitwise_and(xp.bitwise_right_shift(f, shift), 1)
    return xp.where(inside, lit, cols * 0), inside


def overlay_counter(xp, plan: Rows, geom: CounterGeometry, frame, white: int, black: int = 0,
                    device=None) -> Rows:
    """Composite the panel over a plan, still as rows plus a gather.

    The distinct rows under the band (or the band's own lines, whichever
    is fewer) are painted and appended; band lines point at them.  Rows of
    one value per line stay narrow and the painted band lines ride along as
    the plan's patch.  The frame is still produced by the single final gather.
    """
    if (geom.width, geom.height) != (plan.width, plan.height):
        raise ValueError("counter geometry is for a different frame size")
    if geom.layout == "robust":
        return overlay_robust(xp, plan, geom, frame, white, black, device)
    # one value per line and many lines (vertical ramps): widening every distinct row
    # first would cost several full frames; the band's lines are painted straight from
    # their line values and carried as a patch, so the frame is still one gather
    narrow_many = (plan.rows.shape[1] == 1 and plan.width > 1 and plan.patch is None
                   and plan.rows.shape[0] > geom.cell_h)
    if not narrow_many:
        plan = full_width(xp, plan)
    k = plan.rows.shape[0]
    lit, inside = counter_columns(xp, geom, frame, device=device)
    panel = X.cast_like(xp, lit * (white - black) + black, plan.rows)
    if narrow_many:
        values = X.take_rows(xp, plan.rows, plan.index[geom.y0:geom.y1])   # (B, 1, C)
        paint = X.cast_like(xp, panel[None, :, None] + values[:1] * 0, plan.rows)  # (1, W, C)
        return Rows(plan.rows, plan.index, plan.width, plan.height,
                    Patch(geom.y0, values, paint, inside))
    lines = X.arange(xp, plan.height, device=device)
    in_band = (lines >= geom.y0) & (lines < geom.y1)
    if k <= geom.cell_h:
        # paint every distinct row once; band lines point at the painted copies
        painted = xp.where(inside[None, :, None], panel[None, :, None], plan.rows)
        rows = X.concat(xp, [plan.rows, painted], axis=0)
        index = xp.where(in_band, plan.index + k, plan.index)
    else:
        # many distinct rows (vertical ramps, zone plate): paint only the band's lines
        band = X.take_rows(xp, plan.rows, plan.index[geom.y0:geom.y1])
        band = xp.where(inside[None, :, None], panel[None, :, None], band)
        rows = X.concat(xp, [plan.rows, band], axis=0)
        index = xp.where(in_band, lines - geom.y0 + k, plan.index)
    return Rows(rows, index, plan.width, plan.height)


def robust_columns(xp, geom: CounterGeometry, frame, device=None):
    """Per column, for the top clock, data and bottom clock rows: 1 where lit (int64, (3, W)).

    The check bits are parities of the (optionally Gray-coded) index, folded
    with shifts and XORs, so ``frame`` stays array data throughout.
    """
    bits = geom.bits
    n = robust_cells(bits)[0]
    f = X.frame_scalar(xp, frame, device=device, modulus_bits=bits)
    code = xp.bitwise_xor(f, xp.bitwise_right_shift(f, 1)) if geom.gray else f
    masks, consts = crc_masks(bits, geom.gray)
    x = xp.bitwise_and(code, X.asarray(xp, masks, device=device))
    for s in (16, 8, 4, 2, 1):  # parity of each masked word lands in bit 0
        x = xp.bitwise_xor(x, xp.bitwise_right_shift(x, s))
    check = xp.bitwise_xor(xp.bitwise_and(x, 1), X.asarray(xp, consts, device=device))
    weights = X.asarray(xp, [1 << (CHECK_BITS - 1 - j) for j in range(CHECK_BITS)], device=device)
    crc = xp.sum(check * weights)
    word = code * (1 << CHECK_BITS) + crc + (robust_header(bits, geom.gray) << (bits + CHECK_BITS))

    cols = X.arange(xp, geom.width, device=device)
    zero = cols * 0
    inside = (cols >= geom.x0) & (cols < geom.x1)
    cell = xp.where(inside, (cols - geom.x0) // geom.cell_w, zero)
    odd = xp.bitwise_and(cell, 1)
    top = xp.where(inside, 1 - odd, zero)
    bottom = xp.where(inside, odd, zero)
    is_data = inside & (cell < n)
    shift = xp.where(is_data, (n - 1) - cell, zero)
    data = xp.where(is_data, xp.bitwise_and(xp.bitwise_right_shift(word, shift), 1), zero)
    return X.stack(xp, [top, data, bottom], axis=0), inside


def overlay_robust(xp, plan: Rows, geom: CounterGeometry, frame, white: int, black: int = 0,
                   device=None) -> Rows:
    """The robust panel over a plan, still as rows plus one gather.

    Every band shows the same three rows, so with few distinct base rows each is
    painted three times (once per band row) and band lines point at the copies;
    with many, only the band lines are painted.
    """
    plan = full_width(xp, plan)
    k = plan.rows.shape[0]
    lit, inside = robust_columns(xp, geom, frame, device=device)
    panel = X.cast_like(xp, lit * (white - black) + black, plan.rows)
    mask = inside[None, :, None]
    kinds = line_kinds(geom)
    band_lines = [y for y, kind in enumerate(kinds) if kind]
    if 3 * k <= len(band_lines):
        painted = [xp.where(mask, panel[j][None, :, None], plan.rows) for j in range(3)]
        rows = X.concat(xp, [plan.rows] + painted, axis=0)
        index = plan.index + X.asarray(xp, kinds, device=device) * k
    else:
        lines = X.asarray(xp, band_lines, device=device)
        base = X.take_rows(xp, plan.rows, X.take_rows(xp, plan.index, lines))
        which = X.asarray(xp, [kinds[y] - 1 for y in band_lines], device=device)
        band = xp.where(mask, X.take_rows(xp, panel, which)[:, :, None], base)
        rows = X.concat(xp, [plan.rows, band], axis=0)
        pos = [-1] * geom.height
        for i, y in enumerate(band_lines):
            pos[y] = i + k
        pos = X.asarray(xp, pos, device=device)
        index = xp.where(pos >= 0, pos, plan.index)
    return Rows(rows, index, plan.width, plan.height)
