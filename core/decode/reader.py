"""Reading one frame's counter panel: the compat sampler and the reader that finds, settles
and then follows the panel from frame to frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.counter import DEFAULT_BITS, MAX_BITS, MIN_BITS, CounterGeometry
from core.decode.locate import Location, locate

MAX_BACKOFF = 64       # most frames between searches while a panel cannot be found


COMPAT_MIN_MARGIN = 0.15


# ---------------------------------------------------------------- compat
class CompatSampler:
    """The compat row of cells in a capture of the whole frame (scaled to the capture's size)."""

    def __init__(self, geom: CounterGeometry, width: int, height: int):
        sx, sy = width / geom.width, height / geom.height
        self.bits = geom.bits
        cx = (geom.pad_x + (np.arange(geom.bits) + 0.5) * geom.cell_w) * sx
        cy = (geom.pad_y + 0.5 * geom.cell_h) * sy
        dx = np.array([-0.2, 0.0, 0.2]) * geom.cell_w * sx
        dy = np.array([-0.2, 0.0, 0.2]) * geom.cell_h * sy
        xs = (cx[:, None, None] + dx[None, None, :]) + 0 * dy[None, :, None]
        ys = (cy + dy)[None, :, None] + 0 * xs
        self.xs = np.clip(np.floor(xs), 0, width - 1).astype(np.intp).ravel()
        self.ys = np.clip(np.floor(ys), 0, height - 1).astype(np.intp).ravel()

    def read(self, image: np.ndarray, bit_depth: int | None = None) -> tuple[int, float]:
        """(index, margin): margin is the closest cell's distance from the threshold / threshold,
        and 0 when some cell's samples straddle the threshold (not a uniform cell)."""
        v = image[self.ys, self.xs]
        if v.ndim == 2:
            v = v.mean(axis=1, dtype=np.float64)
        v = v.astype(np.float64).reshape(self.bits, 9)
        cells = v
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
        # every sample of a cell on one side of the threshold, or this is not a compat row
        # (a robust panel or other content under the compat cells)
        lit = cells > thr
        if not (lit.all(axis=1) | ~lit.any(axis=1)).all():
            margin = 0.0
        return index, margin


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
    row to read).  ``bits``: the compat layout's bit count when there is no
    compat hint.  The layout is settled by ``settle`` (robust when a robust
    panel is found) before ``read`` is called.
    """

    def __init__(self, hint: CounterGeometry | None = None, bits: int | None = None):
        if bits is not None and not MIN_BITS <= int(bits) <= MAX_BITS:
            raise ValueError(f"counter bits must be {MIN_BITS}..{MAX_BITS}, got {bits}")
        self.hint = hint
        self.compat_bits = int(bits) if bits is not None else (
            hint.bits if hint is not None and hint.layout == "compat" else DEFAULT_BITS)
        self.layout: str | None = None
        if hint is not None and hint.layout == "compat":
            self.layout = "compat"
        self.location: Location | None = None
        self.header: tuple[int, bool] | None = None   # (bits, gray) of the robust panel
        self.searches = 0
        self.structure_seen = False   # robust clock rows seen, even if never read
        self._wait = 0
        self._backoff = 1
        self._compat: dict[tuple[int, int], CompatSampler] = {}
        self._compat_prev: int | None = None
        self._compat_since = 0
        self._compat_lit = False
        self._signature: np.ndarray | None = None
        self.explicit_bits = bits is not None

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

    def robust_expected(self) -> bool:
        return self.hint is not None and self.hint.layout == "robust"

    # -- frames
    def read(self, image: np.ndarray) -> Reading:
        if self.layout == "compat":
            return self._read_compat(image)
        return self._read_robust(image)

    def _read_compat(self, image: np.ndarray) -> Reading:
        reading = self._compat_reading(image)
        if self.hint is not None or self.explicit_bits:
            return reading
        if reading.index == 0 and not self._compat_lit:
            # nothing lit yet: a dark or washed-out picture reads as index 0 in compat;
            # trust 0 only once the capture has shown a counter running
            reading = Reading("undecodable", None, reading.confidence,
                              note="no lit cells: no compat panel seen yet")
        elif reading.index:
            self._compat_lit = True
        # Settled on compat only for want of a robust panel.  A capture may open on
        # something else before the counter is shown, so look for a robust panel
        # again whenever the compat reading does not follow a running counter (no
        # recent reading, or a jump), backing off while none is found; while backing
        # off, such readings are not trusted.
        prev, since = self._compat_prev, self._compat_since
        modulus = 1 << self.compat_bits
        plausible = reading.index is not None and prev is not None and since <= 8 and (
            (reading.index - prev) % modulus <= 8 + 2 * since)
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
        h, w = image.shape[:2]
        sampler = self._compat.get((w, h))
        if sampler is None:
            geom = self.hint if self.hint is not None and self.hint.layout == "compat" else None
            if geom is None or geom.bits != self.compat_bits:
                try:
                    geom = CounterGeometry.compat(w, h, self.compat_bits)
                except ValueError as exc:
                    return Reading("undecodable", None, 0.0, note=str(exc))
            sampler = self._compat.setdefault((w, h), CompatSampler(geom, w, h))
        index, margin = sampler.read(image)
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
                indices.append(r.index)
        conf = min(r.confidence for r in good)
        if len(set(indices)) > 1:
            return Reading("torn", indices[0], conf, tuple(indices))
        note = None if len(good) == len(reads) else f"{len(good)} of {len(reads)} bands read"
        return Reading("ok", indices[0], conf, (indices[0],), note)
