"""A capture simulator: what a capture card or camera would record of a counter on screen.

The display side is a list of refreshes; each scans out one frame index, or,
when the swap to the next buffer lands mid-scanout, the top of one index and
the bottom of the next (a tear at a given line).  The capture side samples
each refresh ``per_refresh`` times and degrades the picture: resampling
(separate factors across and down), sub-pixel offset, cropping, optical blur,
gamma, limited range, noise, quantisation to 8 or 16 bits and JPEG
compression (through ``cv2.imencode``).  Everything is known, so tests can
hold the decoder to the truth.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from core.patterns import render


@dataclass(frozen=True)
class Refresh:
    top: int
    bottom: int
    tear: int | None = None   # first source line showing ``bottom`` (None: no tear)


@dataclass(frozen=True)
class Look:
    """How the capture sees the screen."""

    scale_x: float = 1.0
    scale_y: float = 1.0
    offset_x: float = 0.0     # capture px: where the frame's left edge lands
    offset_y: float = 0.0
    size: tuple[int, int] | None = None   # capture (w, h); default: the scaled frame
    blur: float = 0.0         # Gaussian sigma, capture px
    gamma: float = 1.0
    limited: bool = False
    noise: float = 0.0        # Gaussian sigma in 8-bit code values
    depth: int = 8            # 8: uint8; 10: uint16 holding 0..1023; 16: uint16
    jpeg: int | None = None   # JPEG quality (8-bit only)
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)   # per-channel gain (a colour cast)
    grey: bool = False        # a single-channel capture (like a video's luma plane)


@dataclass
class Schedule:
    """Frame indices per refresh, built from a start index and what goes wrong."""

    refreshes: list[Refresh]
    shown: list[int] = field(default_factory=list)   # intended index per refresh (before tears)

    @classmethod
    def build(cls, start: int, count: int, modulus: int, drops=(), repeats=(), tears=None,
              swaps=()) -> Schedule:
        """``count`` refreshes from ``start``.  ``drops``: refresh numbers after which one index
        is skipped; ``repeats``: refresh numbers that show their index again; ``tears``:
        {refresh number: tear line} (torn into the next refresh's index); ``swaps``: refresh
        numbers whose index trades places with the next refresh's."""
        tears = dict(tears or {})
        shown = []
        idx = start
        r = 0
        while len(shown) < count:
            shown.append(idx % modulus)
            if r in repeats:
                shown.append(idx % modulus)
            idx += 2 if r in drops else 1
            r += 1
        shown = shown[:count]
        for r in swaps:
            if r + 1 < len(shown):
                shown[r], shown[r + 1] = shown[r + 1], shown[r]
        refreshes = []
        for r, ix in enumerate(shown):
            if r in tears and r + 1 < len(shown) and shown[r + 1] != ix:
                refreshes.append(Refresh(ix, shown[r + 1], int(tears[r])))
            else:
                refreshes.append(Refresh(ix, ix))
        return cls(refreshes, shown)


class Simulator:
    def __init__(self, spec, look: Look, seed: int = 0):
        self.spec = spec
        self.look = look
        self.rng = np.random.default_rng(seed)
        self._cache: dict[int, np.ndarray] = {}

    def source(self, index: int) -> np.ndarray:
        """The displayed frame as float32 light, 0..1."""
        if index not in self._cache:
            img = render(self.spec, index).astype(np.float32)
            self._cache[index] = img / float(self.spec.levels.top)
        return self._cache[index]

    def screen(self, refresh: Refresh) -> np.ndarray:
        top = self.source(refresh.top)
        if refresh.tear is None or refresh.top == refresh.bottom:
            return top
        bottom = self.source(refresh.bottom)
        line = np.arange(top.shape[0])[:, None, None]
        return np.where(line >= refresh.tear, bottom, top)

    def capture(self, refresh: Refresh) -> np.ndarray:
        lk = self.look
        img = self.screen(refresh)
        h, w = img.shape[:2]
        s = min(lk.scale_x, lk.scale_y)
        if s < 1:   # the optics and the sensor average what they shrink
            img = cv2.GaussianBlur(img, (0, 0), sigmaX=0.45 / lk.scale_x if lk.scale_x < 1 else 0.01,
                                   sigmaY=0.45 / lk.scale_y if lk.scale_y < 1 else 0.01)
        size = lk.size or (max(1, round(w * lk.scale_x)), max(1, round(h * lk.scale_y)))
        # edges map to edges: capture x = scale * source x + offset, pixel j covering [j, j+1)
        m = np.array([[lk.scale_x, 0, lk.offset_x + 0.5 * lk.scale_x - 0.5],
                      [0, lk.scale_y, lk.offset_y + 0.5 * lk.scale_y - 0.5]], np.float64)
        out = cv2.warpAffine(img, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                             borderValue=(0, 0, 0))
        if out.ndim == 2:
            out = out[..., None]
        if lk.blur > 0:
            out = cv2.GaussianBlur(out, (0, 0), lk.blur)
            if out.ndim == 2:
                out = out[..., None]
        out = np.clip(out, 0, 1) ** lk.gamma
        out = out * np.asarray(lk.cast, np.float32)
        if lk.limited:
            out = (16 + out * 219) / 255
        if lk.noise > 0:
            out = out + self.rng.normal(0, lk.noise / 255, out.shape).astype(np.float32)
        out = np.clip(out, 0, 1)
        if lk.depth == 8:
            q = np.round(out * 255).astype(np.uint8)
            if lk.jpeg is not None:
                ok, buf = cv2.imencode(".jpg", q[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, int(lk.jpeg)])
                assert ok
                q = cv2.imdecode(buf, cv2.IMREAD_COLOR)[..., ::-1]
        else:
            top = 1023 if lk.depth == 10 else 65535
            q = np.round(out * top).astype(np.uint16)
        if lk.grey:
            q = q[..., 1]
        return np.ascontiguousarray(q)

    def run(self, schedule: Schedule, per_refresh: int = 1) -> tuple[list[np.ndarray], list[Refresh]]:
        frames, truth = [], []
        for ref in schedule.refreshes:
            img = self.capture(ref)
            for _ in range(per_refresh):
                frames.append(img)
                truth.append(ref)
        return frames, truth


def tear_zones(geom, margin: int) -> list[tuple[int, int]]:
    """Source lines where a tear lands strictly between two bands' data rows (so it shows)."""
    h = geom.cell_h
    zones = []
    ys = geom.band_y
    for a, b in zip(ys[:-1], ys[1:], strict=True):
        lo, hi = a + 2 * h + margin, b + h - margin
        if hi > lo:
            zones.append((lo, hi))
    return zones


@dataclass
class CapturedFrameLike:
    position: int
    timestamp: float | None
    image: np.ndarray | None
    name: str | None = None
    error: str | None = None


def as_captured(frames, fps: float | None = None):
    return [CapturedFrameLike(i, None if fps is None else i / fps, f) for i, f in enumerate(frames)]


def expected_sequence(schedule: Schedule, modulus: int, per_refresh: int = 1) -> dict:
    """Drops, repeats and tears the analysis must report, for tears that show."""
    seen = set()
    for r in schedule.refreshes:
        seen.add(r.top)
        seen.add(r.bottom)
    # unwrap the intended order
    u = []
    for ix in schedule.shown:
        if not u:
            u.append(ix)
            continue
        step = (ix - u[-1]) % modulus
        if step > modulus // 2:
            step -= modulus
        u.append(u[-1] + step)
    lo, hi = min(u), max(u)
    seen_u = {v for v in u if v % modulus in seen}
    dropped = [v % modulus for v in range(lo, hi + 1) if v not in seen_u]
    # whole-refresh holds: consecutive untorn refreshes of one index
    repeated = 0
    prev, run = None, 0
    for r in schedule.refreshes + [Refresh(-1, -2)]:
        whole = r.top == r.bottom
        if whole and r.top == prev:
            run += 1
            continue
        if run > 1:
            repeated += run - 1
        prev, run = (r.top, 1) if whole else (None, 0)
    torn = sum(per_refresh for r in schedule.refreshes if r.top != r.bottom)
    return {"dropped": dropped, "repeated": repeated, "torn": torn}


def write_video(path, frames, codec: str = "libx264", pix_fmt: str = "yuv420p", fps: int = 60,
                options: dict | None = None) -> None:
    """Encode frames ((H, W, 3) uint8 or uint16 RGB) with PyAV; sizes must be even for 4:2:0."""
    import av

    with av.open(str(path), "w") as out:
        stream = out.add_stream(codec, rate=fps)
        h, w = frames[0].shape[:2]
        stream.width, stream.height, stream.pix_fmt = w, h, pix_fmt
        if options is None and codec == "libx264":
            options = {"crf": "12", "preset": "ultrafast"}
        stream.options = options or {}
        for f in frames:
            if f.dtype == np.uint16:
                vf = av.VideoFrame.from_ndarray(np.ascontiguousarray(f), format="rgb48le")
            else:
                vf = av.VideoFrame.from_ndarray(np.ascontiguousarray(f), format="rgb24")
            for packet in stream.encode(vf):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
