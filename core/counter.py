"""The binary frame-counter panel: geometry, rendering rows, decoding.

The ``compat`` layout matches the display-patterns library, so either tool's
captures decode with the other: pad = round(0.1*W), round(0.1*H); one row of
``bits`` cells, cell_w = (W - 2*pad_x)//bits, cell_h = min(cell_w, H - 2*pad_y);
MSB first (cell i shows bit bits-1-i); lit = white, unlit = black; the frame
wraps modulo 2**bits.  Decoding samples channel 0 at each cell centre and
thresholds at half scale.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from core import xp as X
from core.plan import Rows, full_width

MIN_BITS, MAX_BITS, DEFAULT_BITS = 1, 31, 16
LAYOUTS = ("compat",)


@dataclass(frozen=True)
class CounterGeometry:
    """Where the panel sits in a frame.  ``layout`` and ``extra`` leave room for
    layouts with reference cells, check bits and repeated bands."""

    width: int
    height: int
    bits: int
    pad_x: int
    pad_y: int
    cell_w: int
    cell_h: int
    layout: str = "compat"
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    @classmethod
    def compat(cls, width: int, height: int, bits: int = DEFAULT_BITS) -> CounterGeometry:
        if not isinstance(bits, int) or not MIN_BITS <= bits <= MAX_BITS:
            raise ValueError(f"counter bits must be {MIN_BITS}..{MAX_BITS}, got {bits!r}")
        pad_x = round(0.1 * width)
        pad_y = round(0.1 * height)
        cell_w = (width - 2 * pad_x) // bits
        cell_h = min(cell_w, height - 2 * pad_y)
        if cell_w < 1 or cell_h < 1:
            raise ValueError(
                f"a {bits}-bit counter does not fit a {width}x{height} frame "
                f"(cells would be {cell_w}x{cell_h} px)"
            )
        return cls(width, height, bits, pad_x, pad_y, cell_w, cell_h)

    @property
    def x0(self) -> int:
        return self.pad_x

    @property
    def x1(self) -> int:
        return self.pad_x + self.bits * self.cell_w

    @property
    def y0(self) -> int:
        return self.pad_y

    @property
    def y1(self) -> int:
        return self.pad_y + self.cell_h

    def centres(self) -> list[tuple[int, int]]:
        """(row, column) of each cell centre, MSB first."""
        r = self.pad_y + self.cell_h // 2
        return [(r, self.pad_x + i * self.cell_w + self.cell_w // 2) for i in range(self.bits)]

    def to_dict(self) -> dict:
        d = asdict(self)
        if not d["extra"]:
            d.pop("extra")
        return d

    @classmethod
    def from_dict(cls, d: dict) -> CounterGeometry:
        known = {k: d[k] for k in ("width", "height", "bits", "pad_x", "pad_y", "cell_w", "cell_h")}
        return cls(**{k: int(v) for k, v in known.items()}, layout=d.get("layout", "compat"),
                   extra=dict(d.get("extra", {})))


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
    is fewer) are painted and appended; band lines point at them.  The frame
    is still produced by the single final gather.
    """
    if (geom.width, geom.height) != (plan.width, plan.height):
        raise ValueError("counter geometry is for a different frame size")
    plan = full_width(xp, plan)
    k = plan.rows.shape[0]
    lit, inside = counter_columns(xp, geom, frame, device=device)
    dtype = plan.rows.dtype
    panel = lit * (white - black) + black
    panel = panel.to(dtype) if X.is_torch(xp) else panel.astype(dtype)
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


def decode_counter(image, geom: CounterGeometry, bit_depth: int | None = None,
                   threshold: float | None = None) -> int:
    """Read the frame index from an ``(H, W[, C])`` image of a compat panel.

    Samples channel 0 at each cell centre; a sample above ``threshold`` is a 1.
    The default threshold is half scale: of ``bit_depth`` when given, else of
    the image dtype (uint8: 127.5, uint16: 32767.5, floats: 0.5).
    """
    img = X.to_numpy(image)
    if img.ndim == 3:
        img = img[..., 0]
    if threshold is None:
        threshold = half_scale(img, bit_depth)
    rows = np.array([c[0] for c in geom.centres()])
    cols = np.array([c[1] for c in geom.centres()])
    samples = img[rows, cols].astype(np.float64)
    value = 0
    for s in samples:
        value = (value << 1) | int(s > threshold)
    return value


def half_scale(img: np.ndarray, bit_depth: int | None = None) -> float:
    if bit_depth is not None:
        return ((1 << bit_depth) - 1) / 2.0
    if img.dtype.kind in "iu":
        return float(np.iinfo(img.dtype).max) / 2.0
    return 0.5
