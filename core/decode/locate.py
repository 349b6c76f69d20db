"""Finding the robust counter panel in a capture, and reading it once found.

A capture may show the frame scaled (about 0.25x to 2x, not necessarily the
same factor across and down), offset by any fraction of a pixel, cropped,
blurred, noisy and compressed.  The robust band's top clock row (white, black,
..., white over ``cells`` cells) and bottom clock row (the same, inverted) are
what the search looks for: on every line it thresholds at the line's own
mid-level, finds runs of equally spaced rising edges, fits the cell pitch and
left edge to the rising and falling edges together (so a threshold that sits
off the true mid-level, which widens white runs and narrows black ones,
cancels out), groups lines into rows and pairs each top row with the bottom
row two cell heights below it.  A band is accepted once its header and check
code read correctly; the data row sits half-way between its two clock rows.

Coordinates here are continuous: pixel ``j`` covers ``[j, j+1)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from core.counter import (
    CounterGeometry,
    robust_cells,
)
from core.decode.sampler import PanelBand, RobustSampler

MIN_CELLS = robust_cells(1)[1]          # the narrowest robust band (1-bit counter)
MIN_RISING = (MIN_CELLS - 1) // 2       # white cells in its bottom clock row (M - 2 cells)




# ---------------------------------------------------------------- search
@dataclass
class _Track:
    y: int
    x0: float
    pitch: float
    cells: int


@dataclass
class _Group:
    cells: int
    x0: list = field(default_factory=list)
    pitch: list = field(default_factory=list)
    ys: list = field(default_factory=list)

    @property
    def y_first(self) -> int:
        return self.ys[0]

    @property
    def y_last(self) -> int:
        return self.ys[-1]

    @property
    def yc(self) -> float:
        return (self.y_first + self.y_last + 1) / 2.0

    @property
    def a(self) -> float:
        return float(np.median(self.x0))

    @property
    def p(self) -> float:
        return float(np.median(self.pitch))


def luma(image: np.ndarray) -> np.ndarray:
    """(H, W) float32 from (H, W) or (H, W, C) (the panel is grey: any weighting will do)."""
    import cv2

    img = np.asarray(image)
    if img.dtype not in (np.uint8, np.uint16, np.float32):
        img = img.astype(np.float32)
    if img.ndim == 3:
        img = cv2.cvtColor(np.ascontiguousarray(img[..., :3]), cv2.COLOR_RGB2GRAY)
    return img.astype(np.float32, copy=False)


def find_bands(image: np.ndarray, clock_rows: list | None = None) -> list[PanelBand]:
    """Every structurally complete band (both clock rows found) in the image, top to bottom.

    Structure only: whether a band's header and check code read is for the
    caller (see ``locate``).  ``clock_rows``, when given, receives every clock
    row seen on two lines or more, paired or not (a band cut by the capture's
    edge still shows its clock rows).
    """
    import cv2

    y = luma(image)
    h, w = y.shape
    if h < 6 or w < 2 * MIN_CELLS:
        return []
    # [1 2 1] smoothing along lines and down columns tames noise and JPEG ringing
    t = cv2.GaussianBlur(y, (3, 3), 0, borderType=cv2.BORDER_REPLICATE)
    lo, hi = t.min(axis=1), t.max(axis=1)
    span = float(hi.max() - lo.min())
    if not span > 0:
        return []
    rows = np.flatnonzero(hi - lo > 0.3 * span)
    if rows.size == 0:
        return []
    sub = t[rows]
    thr = ((lo + hi) * 0.5)[rows]
    above = sub > thr[:, None]
    rise_r, rise_c = np.nonzero(~above[:, :-1] & above[:, 1:])
    if rise_r.size < MIN_RISING:
        return []
    # Runs of equally spaced rising edges, found for all lines at once: spacing k and
    # k+1 agree within 25 % and lie on one line; a run of L agreeing pairs spans L+2 edges.
    x = _crossings2(sub, thr, rise_r, rise_c)
    sp = np.diff(x)
    same = rise_r[1:] == rise_r[:-1]
    agree = same[:-1] & same[1:] & (np.abs(sp[1:] - sp[:-1]) <= 0.25 * np.abs(sp[:-1]))
    edges = np.diff(np.concatenate([[0], agree.astype(np.int8), [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    long = (ends - starts) + 2 >= MIN_RISING
    if not long.any():
        return []
    fall_r, fall_c = np.nonzero(above[:, :-1] & ~above[:, 1:])
    fx = _crossings2(sub, thr, fall_r, fall_c)
    tracks: list[_Track] = []
    for a, b in zip(starts[long], ends[long], strict=True):
        k = int(rise_r[a])
        lo_f, hi_f = np.searchsorted(fall_r, [k, k + 1])
        tr = _fit_track(int(rows[k]), x[a:b + 2], fx[lo_f:hi_f])
        if tr is not None:
            tracks.append(tr)
    groups = _group(tracks)
    if clock_rows is not None:
        clock_rows.extend(g for g in groups if len(g.ys) >= 2)
    return _pair(groups)


def _crossings2(sub: np.ndarray, thr: np.ndarray, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Sub-pixel crossings of each line's threshold between pixels c and c+1 of line r."""
    a, b = sub[r, c], sub[r, c + 1]
    d = b - a
    t = thr[r]
    frac = np.where(d != 0, (t - a) / np.where(d != 0, d, 1), 0.5)
    return c + 0.5 + np.clip(frac, 0.0, 1.0)


def _fit_track(y: int, e: np.ndarray, f: np.ndarray) -> _Track | None:
    n = e.size
    p = float(np.mean(np.diff(e))) / 2.0
    # the falling edge of each white cell: the first one after its rising edge
    j = np.searchsorted(f, e, side="right")
    if j[-1] >= f.size:
        return None
    fe = f[j]
    width = fe - e
    if width.min() < 0.3 * p or width.max() > 1.7 * p:
        return None
    if n > 1 and np.any(fe[:-1] >= e[1:]):
        return None
    t = np.concatenate([2.0 * np.arange(n), 2.0 * np.arange(n) + 1.0])
    x = np.concatenate([e, fe])
    slope, icpt = np.polyfit(t, x, 1)
    if not 0.8 * p < slope < 1.25 * p or slope < 1.0:
        return None
    return _Track(y, float(icpt), float(slope), 2 * n - 1)


def _group(tracks: list[_Track]) -> list[_Group]:
    groups: list[_Group] = []
    for tr in tracks:  # tracks come line by line, top to bottom
        for g in groups:
            if (g.cells == tr.cells and tr.y - g.ys[-1] <= 3 and abs(g.x0[-1] - tr.x0) <= 0.5 * tr.pitch
                    and abs(g.pitch[-1] - tr.pitch) <= 0.1 * tr.pitch):
                if tr.y != g.ys[-1]:
                    g.x0.append(tr.x0)
                    g.pitch.append(tr.pitch)
                    g.ys.append(tr.y)
                break
        else:
            groups.append(_Group(tr.cells, [tr.x0], [tr.pitch], [tr.y]))
    return groups


def _pair(groups: list[_Group]) -> list[PanelBand]:
    bands: list[tuple[PanelBand, int]] = []
    for top in groups:
        p = top.p
        best = None
        for bot in groups:
            if bot.cells != top.cells - 2 or bot.yc <= top.yc:
                continue
            if abs(bot.a - (top.a + p)) > 0.5 * p or abs(bot.p - p) > 0.1 * p:
                continue
            if best is None or bot.yc < best.yc:
                best = bot
        if best is None:
            continue
        n_top, n_bot = len(top.ys), len(best.ys)
        pitch = (top.p * top.cells + best.p * best.cells) / (top.cells + best.cells)
        x0 = (top.a * n_top + (best.a - pitch) * n_bot) / (n_top + n_bot)
        bands.append((PanelBand(x0, pitch, top.cells, top.yc, best.yc), n_top + n_bot))
    bands.sort(key=lambda bw: bw[0].y_top)
    out: list[tuple[PanelBand, int]] = []
    for b, weight in bands:  # a row split by a noisy line pairs twice: keep the stronger
        if out and abs(out[-1][0].y_top - b.y_top) < max(1.0, out[-1][0].row_h):
            if weight > out[-1][1]:
                out[-1] = (b, weight)
            continue
        out.append((b, weight))
    return [b for b, _ in out]


@dataclass
class Location:
    """A panel found in captures of one size: its bands and what its header says."""

    width: int
    height: int
    bands: list[PanelBand]
    bits: int
    gray: bool
    found_by: str = "search"
    sampler: RobustSampler = field(init=False, repr=False)

    def __post_init__(self):
        self.sampler = RobustSampler(self.bands, self.width, self.height)

    def to_dict(self) -> dict:
        return {"width": self.width, "height": self.height, "bits": self.bits, "gray": self.gray,
                "found_by": self.found_by, "bands": [b.to_dict() for b in self.bands]}


def locate(image: np.ndarray, expect: tuple[int, bool] | None = None,
           hint: CounterGeometry | None = None, structure: list | None = None) -> Location | None:
    """Find the robust panel: at the hinted place first (a manifest's geometry scaled to
    the capture), else by searching.  Accepted only when a band's header and
    check code read; returns None when no panel is found in this image.

    ``structure``, when given, receives every band whose clock rows were found,
    read or not (or, with no band, every clock row): evidence that a robust
    panel is there even when it cannot be read.
    """
    img = np.asarray(image)
    h, w = img.shape[:2]
    if hint is not None and hint.layout == "robust":
        bands = hint_bands(hint, w, h)
        loc = _accept(img, bands, expect, "manifest")
        if loc is not None:
            return loc
    rows: list = []
    bands = find_bands(img, rows)
    if structure is not None:
        structure.extend(bands or rows)
    if not bands:
        return None
    # bands of one panel share their cell count; take the count that reads
    for m in sorted({b.cells for b in bands}, reverse=True):
        loc = _accept(img, [b for b in bands if b.cells == m], expect, "search")
        if loc is not None:
            return loc
    return None


def _accept(img, bands: list[PanelBand], expect, how: str) -> Location | None:
    h, w = img.shape[:2]
    if not bands:
        return None
    reads = RobustSampler(bands, w, h).read(img, expect)
    good = [r for r in reads if r.index is not None]
    if not good:
        return None
    assert good[0].bits is not None   # a band read with an index carries its header's bits
    return Location(w, h, bands, good[0].bits, bool(good[0].gray), how)


def hint_bands(geom: CounterGeometry, width: int, height: int) -> list[PanelBand]:
    """A manifest's robust geometry mapped onto a capture of the whole frame at another size."""
    sx, sy = width / geom.width, height / geom.height
    h = geom.cell_h
    return [PanelBand(geom.x0 * sx, geom.cell_w * sx, geom.cells, (y + 0.5 * h) * sy, (y + 2.5 * h) * sy)
            for y in geom.band_y]
