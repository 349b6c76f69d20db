
"""Reading robust counter bands at known capture coordinates: sample, threshold, check.

``PanelBand`` is one band where ``core.decode.locate`` found it (or where a hint puts it);
``RobustSampler`` reads every band of a frame against its own reference cells and reports an
index only when the header and check code hold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.counter import (
    CHECK_BITS,
    HEADER_BITS,
    ROBUST_VERSION,
    crc16,
    gray_decode,
    parse_header,
)

_WORD_CACHE: dict[tuple[int, int], tuple[int | None, int, bool, str]] = {}
MIN_MARGIN = 0.1                        # a data cell this close to its threshold is not trusted
SAMPLE_DX = (-0.25, 0.0, 0.25)          # sample points inside a cell, as fractions of its size


SAMPLE_DY = (-0.2, 0.0, 0.2)


@dataclass(frozen=True)
class PanelBand:
    """One band in capture coordinates."""

    x0: float        # left edge of cell 0
    pitch: float     # cell width
    cells: int       # cells per row (odd)
    y_top: float     # centre line of the top clock row
    y_bottom: float  # centre line of the bottom clock row

    @property
    def row_h(self) -> float:
        return (self.y_bottom - self.y_top) / 2.0

    @property
    def y_data(self) -> float:
        return (self.y_top + self.y_bottom) / 2.0

    def to_dict(self) -> dict:
        return {"x0": round(self.x0, 2), "pitch": round(self.pitch, 3), "cells": self.cells,
                "y_top": round(self.y_top, 2), "y_bottom": round(self.y_bottom, 2)}


@dataclass
class BandRead:
    """One band read from one frame: ``index`` is None unless header and check code hold."""

    index: int | None
    confidence: float
    bits: int | None = None
    gray: bool | None = None
    why: str = ""


class RobustSampler:
    """Sample points for a set of bands in captures of one size, read as one gather.

    Nine points per cell (a 3x3 grid over the cell's middle) average away noise
    and compression ringing; points are stored sample-major so the average is
    a sum of contiguous rows.
    """

    def __init__(self, bands: list[PanelBand], width: int, height: int):
        self.bands = list(bands)
        self.width, self.height = width, height
        m = self.bands[0].cells
        if any(b.cells != m for b in self.bands):
            raise ValueError("bands of one panel must have the same number of cells")
        self.cells = m
        y_rows: list[np.ndarray] = []
        x_rows: list[np.ndarray] = []
        for b in self.bands:
            cx = b.x0 + (np.arange(m) + 0.5) * b.pitch
            for yc in (b.y_top, b.y_data, b.y_bottom):
                for dy in SAMPLE_DY:
                    for dx in SAMPLE_DX:
                        x_rows.append(cx + dx * b.pitch)
                        y_rows.append(np.full(m, yc + dy * b.row_h))
        nb = len(self.bands)
        # (band, row, sample, cell) -> (sample, band, row, cell)
        xs = np.asarray(x_rows).reshape(nb, 3, 9, m).transpose(2, 0, 1, 3)
        ys = np.asarray(y_rows).reshape(nb, 3, 9, m).transpose(2, 0, 1, 3)
        self.xs = np.clip(np.floor(xs), 0, width - 1).astype(np.intp).ravel()
        self.ys = np.clip(np.floor(ys), 0, height - 1).astype(np.intp).ravel()
        self._flat: dict[tuple, np.ndarray] = {}
        self.polarity = np.where(np.arange(m) % 2 == 0, 1.0, -1.0).astype(np.float32)
        self._weights = {n: np.int64(1) << np.arange(n - 1, -1, -1, dtype=np.int64)
                         for n in (m, m - 1) if n > 0}

    def _gather(self, image: np.ndarray) -> np.ndarray:
        if image.flags.c_contiguous:
            flat = image.reshape(-1)
            ch = image.shape[2] if image.ndim == 3 else 1
            key = (ch,)
            idx = self._flat.get(key)
            if idx is None:
                idx = self._flat.setdefault(key, (self.ys * self.width + self.xs) * ch)
            if ch == 1:
                return flat[idx].astype(np.float32)
            v = flat[idx].astype(np.float32)
            for c in range(1, min(ch, 3)):
                v += flat[idx + c]
            return v
        v = image[self.ys, self.xs]
        if v.ndim == 2:
            return v[:, :3].sum(axis=1, dtype=np.float32)
        return v.astype(np.float32)

    def levels(self, image: np.ndarray) -> np.ndarray:
        """Level at every cell (sum over samples and channels): (bands, 3 rows, cells) float32."""
        if image.shape[0] != self.height or image.shape[1] != self.width:
            raise ValueError("this image is not the size the panel was found in")
        v = self._gather(image).reshape(9, -1).sum(axis=0)
        return v.reshape(len(self.bands), 3, self.cells)

    def read(self, image: np.ndarray, expect: tuple[int, bool] | None = None) -> list[BandRead]:
        """Read every band; ``expect`` = (bits, gray) refuses bands whose header differs."""
        lv = self.levels(image)
        top, data, bottom = lv[:, 0], lv[:, 1], lv[:, 2]
        amp = (top - bottom) * self.polarity * 0.5          # half the local white-black span
        thr = (top + bottom) * 0.5
        med = np.median(amp, axis=1)
        white = np.median(np.maximum(top, bottom), axis=1)
        present = (med > 0) & (med > 0.1 * white)
        refs_ok = amp.min(axis=1) >= 0.25 * med
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = (data - thr) / amp
        rel = np.nan_to_num(rel, nan=0.0)
        ones = rel > 0
        if expect is not None:
            ns = [HEADER_BITS + expect[0] + CHECK_BITS]
            if ns[0] not in self._weights:
                return [BandRead(None, 0.0, why="a panel of another size") for _ in self.bands]
        else:
            ns = [n for n in self._weights if 1 <= n - HEADER_BITS - CHECK_BITS <= 31]
        cand = {n: ((ones[:, :n].astype(np.int64) @ self._weights[n]).tolist(),
                    np.abs(rel[:, :n]).min(axis=1).tolist()) for n in ns}
        out = []
        for b in range(lv.shape[0]):
            if not present[b]:
                out.append(BandRead(None, 0.0, why="no panel here"))
                continue
            if not refs_ok[b]:
                out.append(BandRead(None, 0.0, why="reference cells missing"))
                continue
            out.append(_read_band(cand, b, expect))
        return out


def _check_word(word: int, n: int) -> tuple[int | None, int, bool, str]:
    """(index or None, bits, gray, why) for a data row's n-bit word."""
    hit = _WORD_CACHE.get((word, n))
    if hit is not None:
        return hit
    bits = n - HEADER_BITS - CHECK_BITS
    header = word >> (bits + CHECK_BITS)
    version, hbits, gray = parse_header(header)
    res: tuple[int | None, int, bool, str]
    if version != ROBUST_VERSION or hbits != bits:
        res = (None, bits, gray, "header does not match the band")
    else:
        message = word >> CHECK_BITS
        if crc16(message, HEADER_BITS + bits) != word & 0xFFFF:
            res = (None, bits, gray, "check code failed")
        else:
            code = message & ((1 << bits) - 1)
            res = (gray_decode(code) if gray else code, bits, gray, "")
    if len(_WORD_CACHE) > 4096:
        _WORD_CACHE.clear()
    _WORD_CACHE[(word, n)] = res
    return res


def _read_band(cand: dict, b: int, expect) -> BandRead:
    best = None
    for n, (words, margins) in cand.items():
        index, bits, gray, why = _check_word(words[b], n)
        margin = margins[b]
        if index is None:
            best = best or BandRead(None, max(0.0, min(1.0, margin)), why=why)
            continue
        if expect is not None and (bits, gray) != expect:
            return BandRead(None, 0.0, bits, gray, "header differs from the rest of the capture")
        if margin < MIN_MARGIN:
            return BandRead(None, margin, bits, gray, "cells too close to their reference levels")
        return BandRead(index, min(1.0, margin), bits, gray)
    return best or BandRead(None, 0.0, why="no valid bit count")
