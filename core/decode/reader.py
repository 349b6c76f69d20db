"""Reading one frame's counter panel: the compat sampler and the reader that finds, settles
and then follows the panel from frame to frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.counter import DEFAULT_BITS, MAX_BITS, MIN_BITS, CounterGeometry
from core.decode.locate import Location, locate

MAX_BACKOFF = 64       # most frames between searches while a panel cannot be found
SETTLE_FRAMES = 3      # distinct running readings a compat bit count must fit alone to be settled


COMPAT_MIN_MARGIN = 0.15
COMPAT_SPREAD = (-0.3, 0.0, 0.3)   # sample points across and down a cell, as fractions of it


# ---------------------------------------------------------------- compat
class CompatSampler:
    """The compat row of cells in a capture of the whole frame (scaled to the capture's size).

    The compat row has no check code, so what is read is checked against the picture: nine
    points over the middle 60 % of each cell must all lie on one side of the threshold (a cell
    of another bit count, or a robust panel, straddles it), and some cell must differ from what
    lies just below the row (a row of another bit count is taller, or shorter, than this one's
    cells: the lines below a cell that is too short still show the cell).
    """

    def __init__(self, geom: CounterGeometry, width: int, height: int):
        sx, sy = width / geom.width, height / geom.height
        self.bits = geom.bits
        f = np.asarray(COMPAT_SPREAD)
        cx = (geom.pad_x + (np.arange(geom.bits) + 0.5) * geom.cell_w) * sx
        cy = (geom.pad_y + 0.5 * geom.cell_h) * sy
        dx = f * geom.cell_w * sx
        xs = np.broadcast_to(cx[:, None, None] + dx[None, None, :], (geom.bits, 3, 3))
        ys = np.broadcast_to((cy + f * geom.cell_h * sy)[None, :, None], (geom.bits, 3, 3))
        below = (geom.pad_y + geom.cell_h + min(0.25 * geom.cell_h, 0.5 * geom.pad_y)) * sy
        bx = cx[:, None] + dx[None, :]
        xs = np.concatenate([xs.ravel(), bx.ravel()])
        ys = np.concatenate([ys.ravel(), np.full(bx.size, below)])
        self.xs = np.clip(np.floor(xs), 0, width - 1).astype(np.intp)
        self.ys = np.clip(np.floor(ys), 0, height - 1).astype(np.intp)

    def read(self, image: np.ndarray, bit_depth: int | None = None) -> tuple[int, float, str | None]:
        """(index, margin, why): margin is the closest cell's distance from the threshold /
        threshold; 0, with ``why`` saying so, when the picture is not a compat row of this size."""
        v = image[self.ys, self.xs]
        if v.ndim == 2:
            v = v.mean(axis=1, dtype=np.float64)
        v = v.astype(np.float64)
        n = self.bits * 9
        cells = v[:n].reshape(self.bits, 9)
        below = v[n:].reshape(self.bits, 3).mean(axis=1)
        v = cells.mean(axis=1)
        if image.dtype.kind == "f":
            thr = 0.5
        elif bit_depth is not None:
            thr = ((1 << bit_depth) - 1) / 2.0
        else:
            # code values may sit in a wider container (10-bit in uint16): judge by the brightest cell
            top = int(v.max()) if v.size else 0
            depth = min(max(8, top.bit_length()), image.dtype.itemsize * 8)
            thr = ((1 << depth) - 1) / 2.0
        bits = v > thr
        index = int(bits.astype(np.int64) @ (np.int64(1) << np.arange(self.bits - 1, -1, -1, dtype=np.int64)))
        margin = float(np.abs(v - thr).min() / thr) if thr > 0 else 0.0
        lit = cells > thr
        if not (lit.all(axis=1) | ~lit.any(axis=1)).all():
            return index, 0.0, "cells not uniform: not a compat row of this bit count"
        if bits.any() and not ((below > thr) != bits).any():   # (index 0 is the reader's to judge)
            return index, 0.0, "the row runs on below its cells: not a compat row of this bit count"
        return index, margin, None


# ---------------------------------------------------------------- one frame
@dataclass
class Reading:
    status: str
    index: int | None
    confidence: float
    indices: tuple[int, ...] = ()
    note: str | None = None


class PanelReader:
    """Reads panels frame after frame, remembering where the panel is.

    ``hint``: a manifest's geometry (robust: where to look first; compat: the
    row to read once no robust panel is found).  ``bits``: the compat layout's
    bit count, taken as given.  The layout is settled by ``settle`` (robust
    when a robust panel is found, or its clock rows seen) before ``read`` is
    called; a compat hint settles nothing.

    Without ``bits`` the compat bit count is read from the picture: every count
    1..31 is tried, and one whose row alone fits (lit cells, checked as
    ``CompatSampler`` does) ``SETTLE_FRAMES`` frames that read as a running
    counter is settled; until then no frame is read.  A compat hint's count is believed
    until the picture settles another, which then replaces it (noted).
    """

    def __init__(self, hint: CounterGeometry | None = None, bits: int | None = None):
        if bits is not None and not MIN_BITS <= int(bits) <= MAX_BITS:
            raise ValueError(f"counter bits must be {MIN_BITS}..{MAX_BITS}, got {bits}")
        self.hint = hint
        self.explicit_bits = bits is not None
        self.compat_bits = DEFAULT_BITS
        self.bits_settled = False
        self.notes: list[str] = []
        self.layout: str | None = None
        self.location: Location | None = None
        self.header: tuple[int, bool] | None = None   # (bits, gray) of the robust panel
        self.searches = 0
        self.structure_seen = False   # robust clock rows seen, even if never read
        self._wait = 0
        self._backoff = 1
        self._compat: dict[tuple[int, int, int], CompatSampler] = {}
        self._compat_prev: int | None = None
        self._compat_since = 0
        self._signature: np.ndarray | None = None
        self._lines: tuple[Location, tuple[int, ...]] | None = None
        self.use_hint(hint, bits)

    def use_hint(self, hint: CounterGeometry | None, bits: int | None = None) -> None:
        """Read with ``hint`` from now on (None: without one); ``bits`` as in the constructor."""
        self.hint = hint
        self.compat_bits = int(bits) if bits is not None else (
            hint.bits if hint is not None and hint.layout == "compat" else DEFAULT_BITS)
        self.bits_settled = bits is not None
        self._vote: tuple[int, int, int, int] | None = None   # last lone fit: bits, index, frame, chain
        self._unsettled = 0
        self._compat.clear()

    # -- layout
    @property
    def bits(self) -> int:
        if self.layout == "robust" and self.header is not None:
            return self.header[0]
        return self.compat_bits

    @property
    def gray(self) -> bool:
        return bool(self.header[1]) if self.header is not None else False

    @property
    def modulus(self) -> int:
        return 1 << self.bits

    def search(self, image: np.ndarray) -> bool:
        """Look for the robust panel in this image (hint first); True when found."""
        self.searches += 1
        structure: list = []
        try:
            loc = locate(image, self.header, self.hint, structure)
        except Exception:  # noqa: BLE001 - an odd image (OpenCV refuses it) just has no panel
            return False
        if structure:
            self.structure_seen = True
        if loc is None:
            return False
        self.location = loc
        self.header = (loc.bits, loc.gray)
        self.layout = "robust"
        return True

    def settle(self, layout: str) -> None:
        self.layout = layout

    # -- frames
    def read(self, image: np.ndarray) -> Reading:
        if self.layout == "compat":
            return self._read_compat(image)
        return self._read_robust(image)

    def lines_needed(self) -> tuple[int, ...] | None:
        """The picture lines a read of the located robust panel samples, sorted; None when the
        next read may need the whole picture (no robust panel located)."""
        loc = self.location
        if self.layout != "robust" or loc is None:
            return None
        if self._lines is None or self._lines[0] is not loc:
            self._lines = (loc, tuple(int(y) for y in np.unique(loc.sampler.ys)))
        return self._lines[1]

    def read_located(self, image: np.ndarray, lines) -> Reading | None:
        """The located robust panel read from ``image``, of which only lines ``lines`` are
        the picture's: what :meth:`read` gives for the whole picture when the panel reads at
        its place.  None, having changed nothing, when ``lines`` lack a line the panel needs,
        the image is not the size the panel was found in, or the panel does not read there:
        the caller then gives :meth:`read` the whole picture (which searches if need be)."""
        loc, needed = self.location, self.lines_needed()
        if needed is None or loc is None or (loc.height, loc.width) != tuple(image.shape[:2]):
            return None
        if tuple(lines) != needed and not set(needed) <= set(lines):
            return None
        reading = self._robust_at(loc, image)
        if reading is not None:
            self._backoff, self._wait = 1, 0
        return reading

    def read_compat_once(self, image: np.ndarray) -> Reading:
        """The compat row read at the current geometry and bit count, checked against the
        picture only (no other bit count is tried)."""
        return self._compat_at(image, self.compat_bits)

    def _read_compat(self, image: np.ndarray) -> Reading:
        reading = self._compat_reading(image)
        # A compat row has no check code.  Settled on compat only for want of a robust panel,
        # and a capture may open on something else before the counter is shown, so look for
        # a robust panel again whenever the compat reading does not follow a running counter
        # (no recent reading, or a jump), backing off while none is found; while backing
        # off, such readings are not trusted.
        prev, since = self._compat_prev, self._compat_since
        modulus = 1 << self.compat_bits
        plausible = reading.index is not None and prev is not None and since <= 8 and (
            (reading.index - prev) % modulus <= 8 + 2 * since)
        if reading.index == 0 and not plausible:
            # nothing lit: a dark or washed-out picture reads as index 0 at any bit count;
            # trust 0 only where a running counter reaches it
            reading = Reading("undecodable", None, reading.confidence,
                              note="no lit cells: a dark picture is index 0 only after a running counter")
        if reading.index is not None:
            self._compat_prev, self._compat_since = reading.index, 0
        else:
            self._compat_since += 1
        if plausible:
            self._backoff, self._wait = 1, 0
            return reading
        if self._wait > 0 and not self._picture_changed(image):
            self._wait -= 1
            if reading.index is None:
                return reading
            return Reading("undecodable", None, reading.confidence,
                           note="compat reading does not follow the counter")
        if self.search(image):
            assert self.location is not None   # a search that found the panel keeps where
            robust = self._robust_at(self.location, image)
            if robust is not None:
                self._backoff, self._wait = 1, 0
                return robust
        if self.structure_seen:   # a robust panel that does not read: never read it as compat
            self.layout = "robust"
            return Reading("undecodable", None, 0.0, note="robust panel seen but not readable")
        self.layout = "compat"
        self._wait = self._backoff
        self._backoff = min(2 * self._backoff, MAX_BACKOFF)
        return reading

    def _compat_reading(self, image: np.ndarray) -> Reading:
        hint = self.hint
        if hint is not None and hint.layout == "compat":
            h, w = image.shape[:2]
            if abs(hint.width * h - w * hint.height) > 0.02 * w * hint.height:
                # the compat row is read in a capture of the whole frame: this is another frame
                self.notes.append(f"the manifest's {hint.width}x{hint.height} frame is not the "
                                  f"shape of the {w}x{h} capture: its compat panel is not used")
                self.use_hint(None, self.compat_bits if self.explicit_bits else None)
        if self.bits_settled:
            return self._compat_at(image, self.compat_bits)
        self._unsettled += 1
        fits = {}
        for b in range(MIN_BITS, MAX_BITS + 1):
            r = self._compat_at(image, b)
            if r.status == "ok" and r.index:
                fits[b] = r
        lone = next(iter(fits)) if len(fits) == 1 else None
        if lone is not None:
            # a count is settled when its row alone fits SETTLE_FRAMES frames that read as a
            # running counter (a row of the wrong count reads as noise from frame to frame)
            idx, prev = fits[lone].index, self._vote
            assert idx is not None   # fits holds only readings of a counter index
            runs = prev is not None and prev[0] == lone and 0 <= (idx - prev[1]) % (1 << lone) <= \
                8 + 2 * (self._unsettled - prev[2])
            chain = prev[3] + (idx != prev[1]) if runs and prev is not None else 1
            if chain >= SETTLE_FRAMES:
                assert prev is not None   # a chain that long ran on from the previous vote
                self._settle_bits(lone)
                # the chain showed the counter running: this reading follows it
                self._compat_prev, self._compat_since = prev[1], self._unsettled - prev[2] - 1
                return fits[lone]
            self._vote = (lone, idx, self._unsettled, chain)
        if self.hint is not None and self.hint.layout == "compat":
            # the manifest's count is believed once its row alone fits a frame
            if lone == self.compat_bits:
                self.bits_settled = True
                return fits[lone]
            if lone is not None:
                return Reading("undecodable", None, 0.0, note=f"the row fits {lone} bits, not the "
                               f"manifest's {self.compat_bits}")
            if fits:
                return Reading("undecodable", None, 0.0, note="the row fits several bit counts: "
                               f"the manifest's {self.compat_bits} is not confirmed yet")
            return self._compat_at(image, self.compat_bits)
        if fits:
            counts = ", ".join(map(str, list(fits)[:6])) + (" ..." if len(fits) > 6 else "")
            return Reading("undecodable", None, 0.0,
                           note=f"the row fits {counts} bits: bit count not settled yet (--bits)")
        return self._compat_at(image, self.compat_bits)   # dark, or no count fits: it says why

    def _settle_bits(self, bits: int) -> None:
        hint = self.hint
        if hint is not None and hint.layout == "compat" and hint.bits != bits:
            self.notes.append(f"the manifest describes a {hint.bits}-bit compat panel, but the "
                              f"capture's row is {bits}-bit: read as {bits}-bit")
            self.hint = None
        elif hint is None or hint.layout != "compat":
            self.notes.append(f"compat bit count {bits} read from the picture")
        self.compat_bits, self.bits_settled = bits, True

    def _compat_at(self, image: np.ndarray, bits: int) -> Reading:
        h, w = image.shape[:2]
        sampler = self._compat.get((w, h, bits))
        if sampler is None:
            geom = self.hint if self.hint is not None and self.hint.layout == "compat" else None
            if geom is None or geom.bits != bits:
                try:
                    geom = CounterGeometry.compat(w, h, bits)
                except ValueError as exc:
                    return Reading("undecodable", None, 0.0, note=str(exc))
            sampler = self._compat.setdefault((w, h, bits), CompatSampler(geom, w, h))
        index, margin, why = sampler.read(image)
        if why is not None:
            return Reading("undecodable", None, 0.0, note=why)
        if margin < COMPAT_MIN_MARGIN:
            return Reading("undecodable", None, margin, note="cells too close to the threshold")
        return Reading("ok", index, min(1.0, margin))

    def _read_robust(self, image: np.ndarray) -> Reading:
        h, w = image.shape[:2]
        loc = self.location
        if loc is not None and (loc.width, loc.height) == (w, h):
            reading = self._robust_at(loc, image)
            if reading is not None:
                self._backoff, self._wait = 1, 0
                return reading
        # lost (or never found at this size): search again, backing off while it keeps failing
        if self._wait > 0 and not self._picture_changed(image):
            self._wait -= 1
            return Reading("undecodable", None, 0.0, note="no panel found")
        if self.search(image):
            assert self.location is not None   # a search that found the panel keeps where
            reading = self._robust_at(self.location, image)
            if reading is not None:
                self._backoff, self._wait = 1, 0
                return reading
        self._wait = self._backoff
        self._backoff = min(2 * self._backoff, MAX_BACKOFF)
        return Reading("undecodable", None, 0.0, note="no panel found")

    def _picture_changed(self, image: np.ndarray) -> bool:
        """Whether the picture changed a lot since the last frame this was asked about
        (judged on a sparse grid), so a search skipped while backing off is worth doing now."""
        h, w = image.shape[:2]
        ys = (np.arange(24) * h // 24 + h // 48).clip(0, h - 1)
        xs = (np.arange(24) * w // 24 + w // 48).clip(0, w - 1)
        sig = np.asarray(image[np.ix_(ys, xs)], dtype=np.float32)
        if sig.ndim == 3:
            sig = sig.mean(axis=2)
        prev, self._signature = self._signature, sig
        if prev is None or prev.shape != sig.shape:
            return True
        span = max(float(sig.max() - sig.min()), float(prev.max() - prev.min()))
        return span > 0 and float(np.abs(sig - prev).mean()) > 0.05 * span

    def _robust_at(self, loc: Location, image: np.ndarray) -> Reading | None:
        reads = loc.sampler.read(image, self.header)
        good = [r for r in reads if r.index is not None]
        if not good:
            return None
        indices: list[int] = []
        for r in good:
            if not indices or indices[-1] != r.index:
                assert r.index is not None   # good holds only bands that read an index
                indices.append(r.index)
        conf = min(r.confidence for r in good)
        if len(set(indices)) > 1:
            return Reading("torn", indices[0], conf, tuple(indices))
        note = None if len(good) == len(reads) else f"{len(good)} of {len(reads)} bands read"
        return Reading("ok", indices[0], conf, (indices[0],), note)
