"""The binary frame-counter panel's layout and codes (a leaf: painting it is
``core.patterns.counter_overlay``'s, reading it ``core.decode``'s).

The ``compat`` layout matches the display-patterns library, so either tool's
captures decode with the other: pad = round(0.1*W), round(0.1*H); one row of
``bits`` cells, cell_w = (W - 2*pad_x)//bits, cell_h = min(cell_w, H - 2*pad_y);
MSB first (cell i shows bit bits-1-i); lit = white, unlit = black; the frame
wraps modulo 2**bits.  Decoding samples channel 0 at each cell centre and
thresholds at half scale.

The ``robust`` layout is made to be found and read in real captures (scaled,
offset, cropped, blurred, noisy, compressed).  Each band is three rows of
``cells`` equal cells (``cells`` odd):

* top clock row: white, black, white, ... white -- its ends mark the band and
  its period the cell pitch;
* data row: ``HEADER_BITS`` header bits (layout version, Gray flag,
  bits - 1), the ``bits`` index bits (MSB first, optionally Gray coded), then a
  CRC-16/CCITT over header and index; a last black cell pads to odd;
* bottom clock row: the top row inverted, so every data cell has a known white
  and a known black right above and below it (the local threshold).

The band is repeated at ``bands`` heights so a frame torn between two
presentations shows two different (each checked) indices.  The header makes it
self-describing: a decoder needs no flags to read it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

MIN_BITS, MAX_BITS, DEFAULT_BITS = 1, 31, 16
LAYOUTS = ("compat", "robust")

# robust layout constants (the decoder reads them from the header, never from flags)
ROBUST_VERSION = 1
HEADER_BITS = 8          # 2 bits version, 1 bit Gray flag, 5 bits (bits - 1)
CHECK_BITS = 16          # CRC-16/CCITT-FALSE over header + index bits
CRC_POLY, CRC_INIT = 0x1021, 0xFFFF
MIN_BANDS, MAX_BANDS, DEFAULT_BANDS = 2, 8, 3


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

    @classmethod
    def robust(cls, width: int, height: int, bits: int = DEFAULT_BITS, gray: bool = False,
               bands: int = DEFAULT_BANDS) -> CounterGeometry:
        """The robust layout: ``bands`` copies of a three-row band (see the module doc).

        Horizontal quiet zone round(0.05*W) each side, vertical margin
        round(0.04*H); cells as wide as fit, rows as tall as a cell is wide
        (less when the bands would not fit with a row of black between them).
        """
        if not isinstance(bits, int) or isinstance(bits, bool) or not MIN_BITS <= bits <= MAX_BITS:
            raise ValueError(f"counter bits must be {MIN_BITS}..{MAX_BITS}, got {bits!r}")
        if not isinstance(bands, int) or not MIN_BANDS <= bands <= MAX_BANDS:
            raise ValueError(f"counter bands must be {MIN_BANDS}..{MAX_BANDS}, got {bands!r}")
        cells = robust_cells(bits)[1]
        margin_x = round(0.05 * width)
        span_x = width - 2 * margin_x
        cell_w = span_x // cells
        margin_y = round(0.04 * height)
        span_y = height - 2 * margin_y
        # three rows per band and at least one row of black between bands
        cell_h = min(cell_w, span_y // (4 * bands - 1))
        if cell_w < 2 or cell_h < 2:
            raise ValueError(
                f"a robust {bits}-bit counter does not fit a {width}x{height} frame "
                f"({cells} cells of {cell_w}x{cell_h} px per row; each must be at least 2x2)"
            )
        pad_x = margin_x + (span_x - cells * cell_w) // 2
        free = span_y - 3 * cell_h
        band_y = [margin_y + (free * b + (bands - 1) // 2) // (bands - 1) for b in range(bands)]
        return cls(width, height, bits, pad_x, margin_y, cell_w, cell_h, "robust",
                   {"gray": bool(gray), "bands": bands, "cells": cells, "band_y": band_y,
                    "version": ROBUST_VERSION})

    @property
    def cells(self) -> int:
        """Cells per row: ``bits`` for compat, the odd band width for robust."""
        return int(self.extra["cells"]) if self.layout == "robust" else self.bits

    @property
    def gray(self) -> bool:
        return bool(self.extra.get("gray", False))

    @property
    def band_y(self) -> list[int]:
        """Top line of each band (robust); the single row's top line (compat)."""
        return [int(y) for y in self.extra["band_y"]] if self.layout == "robust" else [self.pad_y]

    @property
    def x1(self) -> int:
        return self.pad_x + self.cells * self.cell_w

    @property
    def y0(self) -> int:
        return self.pad_y

    @property
    def y1(self) -> int:
        if self.layout == "robust":
            return self.band_y[-1] + 3 * self.cell_h
        return self.pad_y + self.cell_h

    def centres(self) -> list[tuple[int, int]]:
        """(row, column) of each cell centre, MSB first (compat layout)."""
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
        layout = d.get("layout", "compat")
        if layout not in LAYOUTS:
            raise ValueError(f"unknown counter layout {layout!r}: expected one of {', '.join(LAYOUTS)}")
        return cls(**{k: int(v) for k, v in known.items()}, layout=layout,
                   extra=dict(d.get("extra", {})))


def geometry_for(width: int, height: int, params) -> CounterGeometry:
    """The counter pattern's geometry from its parameters (``bits``, ``layout``, ``gray``, ``bands``)."""
    if params.get("layout", "compat") == "robust":
        return CounterGeometry.robust(width, height, params["bits"], gray=bool(params.get("gray", False)),
                                      bands=int(params.get("bands", DEFAULT_BANDS)))
    return CounterGeometry.compat(width, height, params["bits"])


# ---------------------------------------------------------------- robust layout: codes
def robust_cells(bits: int) -> tuple[int, int]:
    """(data cells N, cells per row M): N = header + index + check, M = N rounded up to odd."""
    n = HEADER_BITS + bits + CHECK_BITS
    return n, n | 1


def robust_header(bits: int, gray: bool) -> int:
    return (ROBUST_VERSION << 6) | (int(bool(gray)) << 5) | (bits - 1)


def parse_header(header: int) -> tuple[int, int, bool]:
    """(version, bits, gray) from an 8-bit header."""
    return (header >> 6) & 3, (header & 31) + 1, bool((header >> 5) & 1)


def crc16(value: int, nbits: int) -> int:
    """CRC-16/CCITT-FALSE of the ``nbits`` low bits of ``value``, fed MSB first."""
    crc = CRC_INIT
    for i in range(nbits - 1, -1, -1):
        top = ((crc >> 15) ^ (value >> i)) & 1
        crc = (crc << 1) & 0xFFFF
        if top:
            crc ^= CRC_POLY
    return crc


def robust_word(index: int, bits: int, gray: bool) -> int:
    """The data row's N bits for ``index`` as one integer (header | code | crc), host side."""
    code = index & ((1 << bits) - 1)
    if gray:
        code ^= code >> 1
    header = robust_header(bits, gray)
    message = (header << bits) | code
    return (message << CHECK_BITS) | crc16(message, HEADER_BITS + bits)


def gray_decode(code: int) -> int:
    shift = 1
    while shift < 32:
        code ^= code >> shift
        shift <<= 1
    return code


def _syndromes() -> tuple[int, ...]:
    """Check bits (MSB first) that flip with each index bit: bit j of the CRC flips with code
    bit i when bit j of x**(16 + i) mod P is set (a CRC is linear in its message)."""
    masks = [0] * CHECK_BITS
    r = 1 << (CHECK_BITS - 1)   # x**15; one step gives x**16 mod P
    for i in range(MAX_BITS):
        r = ((r << 1) ^ (CRC_POLY if r & 0x8000 else 0)) & 0xFFFF
        for j in range(CHECK_BITS):
            if (r >> (CHECK_BITS - 1 - j)) & 1:
                masks[j] |= 1 << i
    return tuple(masks)


_SYNDROME_MASKS = _syndromes()


def crc_masks(bits: int, gray: bool) -> tuple[list[int], list[int]]:
    """CRC bit j (MSB first) = parity(code & mask_j) ^ const_j.

    A CRC is affine in its message bits for a fixed length, so each check bit
    is a fixed parity of the code bits; this lets the render compute it with
    shifts and XORs on array data (no Python branching on the frame).  Plain
    Python on module constants: under torch.compile it folds into constants.
    """
    low = (1 << bits) - 1
    base = crc16(robust_header(bits, gray) << bits, HEADER_BITS + bits)
    return ([m & low for m in _SYNDROME_MASKS],
            [(base >> (CHECK_BITS - 1 - j)) & 1 for j in range(CHECK_BITS)])


def line_kinds(geom: CounterGeometry) -> list[int]:
    """Per line: 0 outside the bands, 1 top clock, 2 data, 3 bottom clock.

    Plain Python on the geometry's ints, so under torch.compile it folds into
    constants instead of being traced as array code.
    """
    kinds = [0] * geom.height
    h = geom.cell_h
    for y in geom.band_y:
        for k in range(3):
            for line in range(y + k * h, min(y + (k + 1) * h, geom.height)):
                kinds[line] = k + 1
    return kinds


def robust_line_kinds(geom: CounterGeometry) -> np.ndarray:
    """``line_kinds`` as a host int64 array."""
    return np.asarray(line_kinds(geom), dtype=np.int64)


