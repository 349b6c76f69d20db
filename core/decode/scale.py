"""How a capture chain scaled the frame, measured from a captured zone plate.

testcard's zone plate has phase ``r*r / (2*d)`` cycles at ``r`` pixels from its centre, ``d``
its rendered diameter.  A chain that scales by ``s`` across shows it as ``cos(pi*k*X*X)`` with
``k = 1 / (s*s*d)`` in captured pixels, so the chirp rate ``k`` is the scale.  It is measured
the display-patterns way, demodulating the capture by its own phasor: the capture times itself
``delta`` pixels along an axis is ``cos(2*pi*k*delta*X + c)`` plus a spread-out chirp -- a pure
tone whose frequency ``k*delta`` is the peak of its spectrum along that axis.  Two things make
it exact where display-patterns is not:

* The lag cancels the other axis exactly, so the two axes are independent (anamorphic chains).
* The lag is a whole number of pixels, so the rings a downscale aliases (beyond the capture's
  Nyquist, from half scale down) give the same tone as the rings that did not alias:
  ``cos(2*pi*(X - phi))`` and ``cos(2*pi*phi)`` are the same samples.  display-patterns reads
  the plate's own frequencies and near half scale confuses ``s`` with ``1 - s``; here there is
  nothing to confuse, and the result is checked by re-synthesis: the capture is demodulated by
  the plate expected at the measured scale and must correlate with it (``match``).

Lags grow in a ladder (each twice the last) until the tone nears the capture's Nyquist, for
precision; two neighbouring rungs must agree, which a periodic pattern never does (its tone
does not move with the lag).  The plate is found by its point symmetry (the peak of the
whitened self-convolution), or given.  Gain, lift, gamma, noise, blur, JPEG and quantisation
change the tone's strength, never its frequency.  Pure numpy and cv2: no Qt.
"""

from __future__ import annotations

import math
import statistics
import threading
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.capture import open_capture
from core.decode.scale_check import PlateMismatch, check_plate
from core.manifest import read_manifest

MIN_DIAMETER = 64          # rendered plate diameter, px: smaller plates are refused
MIN_CAPTURED = 32          # captured plate size, px, along either axis
MIN_SIDE = 16              # a capture smaller than this is not measured
LOCATE_SIDE = 512          # the self-convolution runs on the capture reduced to this
LOCATE_PEAK = 10.0         # self-convolution peak / its spread: a plate is there
WORK_SIDE = 640            # crops are sampled (every m-th pixel) down to this
TONE_TOP = 0.45            # cycles/px: the highest tone searched for
LADDER_START = 0.18        # the first lag puts a 0.25x plate's tone here
AGREE = 0.1                # two rungs of the ladder agree within this
MIN_PROMINENCE = 4.0       # tone peak / median of the spectrum around it
MIN_MATCH = 0.5            # re-synthesis correlation, 1 = a perfect cosine plate
MATCH_TOP = 0.35           # local frequency, cycles/px, up to which the plate is re-synthesised


@dataclass(frozen=True)
class PlateGeometry:
    """The rendered plate: its ``diameter`` in rendered pixels (testcard's zone plate ``d``) and,
    when known, its ``centre`` in capture pixels (x, y; None: found in the capture)."""

    diameter: int
    centre: tuple[float, float] | None = None

    def __post_init__(self):
        if isinstance(self.diameter, bool) or not isinstance(self.diameter, int):
            raise ValueError(f"diameter: expected a whole number of pixels, got {self.diameter!r}")
        if self.diameter < MIN_DIAMETER:
            raise ValueError(f"diameter: a zone plate of {self.diameter} px is too small to measure "
                             f"scale from (at least {MIN_DIAMETER} px)")
        if self.centre is not None and not (len(self.centre) == 2
                                            and all(math.isfinite(float(v)) for v in self.centre)):
            raise ValueError(f"centre: expected two finite numbers x, y, got {self.centre!r}")


def plate_diameter(width: int, height: int, diameter_pct: float) -> int:
    """The zone plate pattern's ``d`` for a frame and its ``diameter`` parameter (the same
    rounding as ``core.patterns``' zone plate body)."""
    return max(2, round(min(width, height) * diameter_pct / 100.0))


def geometry_from_manifest(doc: dict, name: str = "manifest") -> PlateGeometry:
    """The plate a zone plate frame's manifest describes; ``ValueError`` naming the manifest when
    it describes another pattern or its fields are not a zone plate's."""
    pattern = doc.get("pattern")
    if pattern != "zone_plate":
        raise ValueError(f"manifest {name} describes a {pattern!r} frame, not a zone_plate: "
                         "scale is measured from a captured zone plate")
    w, h = doc.get("width"), doc.get("height")
    params = doc.get("params", {})
    if not isinstance(params, dict):
        raise ValueError(f"manifest {name}: params must be an object, got {params!r:.40}")
    pct = params.get("diameter", 100.0)
    for field, v in (("width", w), ("height", h)):
        if type(v) is not int or not 1 <= v <= 1 << 20:
            raise ValueError(f"manifest {name}: {field} must be a whole number of pixels, got {v!r}")
    assert isinstance(w, int) and isinstance(h, int)   # checked just above
    if isinstance(pct, bool) or not isinstance(pct, (int, float)) or not 0 < pct <= 100:
        raise ValueError(f"manifest {name}: params.diameter must be a percentage 0..100, got {pct!r}")
    return PlateGeometry(plate_diameter(w, h, float(pct)))


def load_geometry(path) -> PlateGeometry:
    """:func:`geometry_from_manifest` of the manifest file at ``path``."""
    return geometry_from_manifest(read_manifest(path), Path(path).name)


@dataclass(frozen=True)
class ScaleReading:
    """One capture's scale: captured size / rendered size across (``scale_x``) and down
    (``scale_y``); where the plate's centre is in the capture; ``match``, how well a plate
    re-synthesised at that scale correlates with the capture (1: a perfect cosine plate)."""

    scale_x: float
    scale_y: float
    centre: tuple[float, float]
    match: float

    def to_dict(self) -> dict:
        return {"scale_x": round(self.scale_x, 5), "scale_y": round(self.scale_y, 5),
                "centre": [round(self.centre[0], 2), round(self.centre[1], 2)],
                "match": round(self.match, 3)}


# ---------------------------------------------------------------- the measurement
def zone_plate_scale(capture, geometry: PlateGeometry) -> ScaleReading:
    """The horizontal and vertical scale of the chain that turned the zone plate ``geometry``
    describes into ``capture`` (an ``(H, W)`` or ``(H, W, C)`` image of any sample type).

    Measures scales from 0.25 to 2 (about 0.2 to 3 at worst) to within 0.02 per axis.  Raises
    ``ValueError`` with one sentence for a capture that is too small or flat, shows no zone
    plate, or shows one too small or too blurred to measure, and :class:`PlateMismatch` (a
    ``ValueError``) for a plate whose extent contradicts ``geometry``
    (:mod:`core.decode.scale_check`).
    """
    g = _luma(capture)
    h, w = g.shape
    if h < MIN_SIDE or w < MIN_SIDE:
        raise ValueError(f"the capture is {w}x{h} pixels: too small to hold a measurable zone plate")
    if not np.ptp(g) > 0:
        raise ValueError("the capture is one flat level: it shows no zone plate")
    d = geometry.diameter
    if geometry.centre is None:
        cx, cy, peak = _locate(g)
        if peak < LOCATE_PEAK:
            raise ValueError("no zone plate found in the capture (nothing in it is point-symmetric "
                             "like a plate)")
    else:
        cx, cy = (float(v) for v in geometry.centre)
    # the first crop fits any plate up to 2x; clutter around a small plate can hide it there,
    # so smaller crops follow until one holds a plate that re-synthesis confirms
    radius, small, best = float(d), None, 0.0
    while radius >= MIN_CAPTURED / 2:
        scale = _scale_at(g, cx, cy, d, radius)
        radius /= 2
        if scale is None:
            continue
        sx, sy = scale
        if min(sx, sy) * d < MIN_CAPTURED:
            small = small or (sx, sy)
            continue
        match, centre = _best_match(g, cx, cy, sx, sy, d)
        if match >= MIN_MATCH:
            check_plate(g, d, float(sx), float(sy), centre, _crop)   # the manifest's plate, or refused
            return ScaleReading(float(sx), float(sy), (float(centre[0]), float(centre[1])), match)
        best = max(best, match)
    if small is not None:
        raise ValueError(f"the zone plate is {small[0] * d:.0f}x{small[1] * d:.0f} pixels in the "
                         f"capture: too small to measure (at least {MIN_CAPTURED} pixels a side)")
    raise ValueError(f"no measurable zone plate of diameter {d} px in the capture: what is at "
                     f"({cx:.0f}, {cy:.0f}) shows no plate's rings (none there, or too small, blurred "
                     "or faint)" + (f"; the best candidate matches a plate only {best:.2f}" if best else ""))


def _scale_at(g: np.ndarray, cx: float, cy: float, d: int, radius: float):
    """(scale_x, scale_y) from a crop of ``radius`` about the centre, then from the plate that
    first reading saw; None when the lag ladder finds no chirp."""
    ax = ay = radius
    for _ in range(2):
        crop, _xs, _ys, _inside, (mx, my) = _crop(g, cx, cy, ax, ay)
        kx, ky = _chirp_rate(crop, 1, d / (mx * mx)), _chirp_rate(crop, 0, d / (my * my))
        if kx is None or ky is None:
            return None
        sx, sy = mx / math.sqrt(kx * d), my / math.sqrt(ky * d)
        ax, ay = 0.55 * sx * d, 0.55 * sy * d
    return sx, sy


def _luma(image) -> np.ndarray:
    a = np.asarray(image)
    if a.ndim == 3:
        a = a[..., :3].astype(np.float32).mean(axis=2)
    elif a.ndim != 2:
        raise ValueError(f"the capture must be an image (H, W) or (H, W, C), got shape {a.shape}")
    a = a.astype(np.float32, copy=False)
    return np.nan_to_num(a, nan=0.0, posinf=0.0, neginf=0.0) if a.dtype.kind == "f" else a


def _locate(g: np.ndarray) -> tuple[float, float, float]:
    """The plate's centre (x, y) and how clearly it stands out: a plate is point-symmetric, so
    the whitened self-convolution of the capture peaks at twice its centre."""
    import cv2

    h, w = g.shape
    m = max(1, math.ceil(max(h, w) / LOCATE_SIDE))
    small = cv2.resize(g, (max(1, w // m), max(1, h // m)), interpolation=cv2.INTER_AREA) \
        if m > 1 else g
    small = small.astype(np.float64)
    small = small - cv2.GaussianBlur(small, (0, 0), 8)   # shading and backgrounds out
    hs, ws = small.shape
    small = small * (np.hanning(hs)[:, None] * np.hanning(ws)[None, :]) ** 0.25
    f = np.fft.rfft2(small, s=(2 * hs, 2 * ws))
    f2 = f * f
    mag = np.abs(f2)
    conv: np.ndarray = np.fft.irfft2(f2 / (mag + 1e-9 * mag.max() + 1e-300), s=(2 * hs, 2 * ws))
    conv = cv2.GaussianBlur(conv, (0, 0), 1.0)
    iy, ix = np.unravel_index(int(np.argmax(conv)), conv.shape)
    spread = float(conv.std())
    peak = float(conv[iy, ix]) / spread if spread > 0 else 0.0
    # self-convolution index t is twice the centre of the reduced image; a reduced pixel j
    # covers capture pixels j*m .. j*m + m - 1
    return (ix / 2) * m + (m - 1) / 2, (iy / 2) * m + (m - 1) / 2, peak


def _crop(g: np.ndarray, cx: float, cy: float, ax: float, ay: float):
    """The capture inside the ellipse of semi-axes ``ax``, ``ay`` about the centre, its mean
    taken out and zero outside, sampled every ``m``-th pixel (no filtering: a whole-pixel lag
    does not mind aliasing) so that it is at most ``WORK_SIDE`` across.  Returns the crop, its
    sample offsets from the centre (``xs`` a row, ``ys`` a column), the ellipse mask and the
    sampling steps across and down."""
    h, w = g.shape
    x0, x1 = max(0, math.floor(cx - ax)), min(w, math.ceil(cx + ax) + 1)
    y0, y1 = max(0, math.floor(cy - ay)), min(h, math.ceil(cy + ay) + 1)
    mx = max(1, math.ceil((x1 - x0) / WORK_SIDE))
    my = max(1, math.ceil((y1 - y0) / WORK_SIDE))
    crop = g[y0:y1:my, x0:x1:mx].astype(np.float64)
    xs = np.arange(x0, x1, mx, dtype=np.float64)[None, :] - cx
    ys = np.arange(y0, y1, my, dtype=np.float64)[:, None] - cy
    inside = (xs / ax) ** 2 + (ys / ay) ** 2 <= 1.0
    if not inside.any():
        return np.zeros((1, 1)), xs[:, :1], ys[:1], np.zeros((1, 1), bool), (mx, my)
    mean = crop[inside].mean()
    return np.where(inside, crop - mean, 0.0), xs, ys, inside, (mx, my)


def _tone(g: np.ndarray, delta: int, axis: int) -> tuple[float | None, float]:
    """The frequency (cycles/sample) of the tone in ``g`` times itself ``delta`` samples along
    ``axis``, summed over the other axis, and its prominence over the spectrum's median."""
    p = g[:, delta:] * g[:, :-delta] if axis == 1 else (g[delta:, :] * g[:-delta, :]).T
    q = p.sum(axis=0)
    n = q.size
    if n < 8:
        return None, 0.0
    q = (q - q.mean()) * np.hanning(n)
    pad = 1 << math.ceil(math.log2(n * 8))
    spec = np.abs(np.fft.rfft(q, pad))
    lo, hi = math.ceil(3.0 / n * pad), int(TONE_TOP * pad)   # 3 cycles over the crop at least
    if hi <= lo + 2:
        return None, 0.0
    band = spec[lo:hi + 1]
    i = int(np.argmax(band)) + lo
    a, b, c = np.log(spec[i - 1:i + 2] + 1e-300)
    den = a - 2 * b + c
    offset = 0.5 * (a - c) / den if den < 0 else 0.0     # parabola through the log peak
    median = float(np.median(band))
    return (i + offset) / pad, (float(spec[i]) / median if median > 0 else 0.0)


def _chirp_rate(g: np.ndarray, axis: int, d: float) -> float | None:
    """``k`` along ``axis`` of the crop ``g`` (whose plate has diameter ``d`` in its own
    samples), from the last two rungs of the lag ladder that agree; None when none do."""
    length = g.shape[axis]
    delta = max(1, int(LADDER_START * d / 16))   # a 0.25x plate: k = 16 / d
    best, last = None, None
    while delta <= length / 3:
        f, prominence = _tone(g, delta, axis)
        rung = (delta, f) if f is not None and prominence >= MIN_PROMINENCE else None
        if rung is not None and f is not None and last is not None \
                and abs((f / delta) / (last[1] / last[0]) - 1) < AGREE:
            best = f / delta
            if 2 * f > TONE_TOP:
                break     # the next rung's tone would pass the top of the search
        last = rung
        delta *= 2
    return best


def _best_match(g: np.ndarray, cx: float, cy: float, sx: float, sy: float, d: int):
    """:func:`_match` from the centre found, then from the centre it refines to (a centre given
    or found a long way off moves in steps), keeping the best."""
    best = (0.0, (cx, cy))
    for _ in range(3):
        match, (nx, ny) = _match(g, cx, cy, sx, sy, d)
        if match > best[0]:
            best = (match, (nx, ny))
        if abs(nx - cx) < 0.5 and abs(ny - cy) < 0.5:
            break
        cx, cy = nx, ny
    return best


def _match(g: np.ndarray, cx: float, cy: float, sx: float, sy: float, d: int):
    """Re-synthesis: demodulate the capture by the plate expected at scale (sx, sy) about the
    centre found; a plate there leaves a plane wave whose frequency is the centre's error and
    whose strength is the correlation.  Returns (match, refined centre)."""
    kx, ky = 1.0 / (sx * sx * d), 1.0 / (sy * sy * d)
    ax, ay = min(0.5 * sx * d, MATCH_TOP / kx), min(0.5 * sy * d, MATCH_TOP / ky)
    crop, xs, ys, inside, (mx, my) = _crop(g, cx, cy, ax, ay)
    n = int(inside.sum())
    energy = float((crop * crop).sum())
    if n < 16 or energy <= 0:
        return 0.0, (cx, cy)
    z = np.where(inside, crop * np.exp(-1j * math.pi * (kx * xs * xs + ky * ys * ys)), 0)
    hh, ww = 2 * crop.shape[0], 2 * crop.shape[1]
    spec = np.abs(np.fft.fft2(z, s=(hh, ww)))
    iy, ix = np.unravel_index(int(np.argmax(spec)), spec.shape)
    fy = (iy if iy < hh // 2 else iy - hh) / hh / my      # cycles per capture pixel
    fx = (ix if ix < ww // 2 else ix - ww) / ww / mx
    match = float(spec[iy, ix]) * math.sqrt(2.0) / math.sqrt(energy * n)
    return min(1.0, match), (cx - fx / kx, cy - fy / ky)


# ---------------------------------------------------------------- a whole capture
def open_scale(path, manifest=None, geometry: PlateGeometry | None = None):
    """The capture at ``path`` (an image, a folder or glob of them, or a video;
    :func:`core.capture.open_capture`) and the plate it shows: ``geometry``, else the one the
    ``manifest`` file describes, else the capture's own sidecar's.  ``ValueError`` (one
    sentence) when the capture cannot be opened or nothing says how large the plate was."""
    capture = open_capture(path)
    try:
        if geometry is None:
            source = manifest or capture.manifest_path
            if source is None:
                raise ValueError(f"{Path(str(path)).name}: no manifest says how large the zone plate "
                                 "was rendered: pass the rendered frame's sidecar (FRAME.png.json "
                                 "from `testcard render zone_plate`)")
            geometry = load_geometry(source)
    except BaseException:
        capture.close()
        raise
    return capture, geometry


def scale_steps(capture, geometry: PlateGeometry,
                cancel: threading.Event | None = None) -> Generator[dict, None, dict]:
    """Measure every frame of an opened ``capture`` (:func:`open_scale`), yielding one dict per
    frame (``position``, ``name``, the :class:`ScaleReading` fields or ``error``) and returning
    :func:`scale_report`'s report.  Stops before the next frame once ``cancel`` is set (the
    report covers what was read); closes the capture."""
    frames: list[dict] = []
    cancelled = False
    try:
        for cf in capture.frames():
            if cancel is not None and cancel.is_set():
                cancelled = True
                break
            row: dict = {"position": cf.position, "name": cf.name}
            if cf.image is None:
                row["error"] = cf.error or "unreadable frame"
            else:
                try:
                    row.update(zone_plate_scale(cf.image, geometry).to_dict())
                except PlateMismatch:
                    raise     # the manifest is wrong for the whole capture: no reading at all
                except ValueError as exc:
                    row["error"] = str(exc)
            frames.append(row)
            yield row
    finally:
        capture.close()
    return scale_report(frames, geometry, cancelled)


def scale_report(frames: list[dict], geometry: PlateGeometry, cancelled: bool = False) -> dict:
    """The report of per-frame readings: ``frames``, ``measured``, ``failed``, the ``median`` of
    each axis over the frames measured (None when none was), the plate, ``cancelled``."""
    good = [f for f in frames if "error" not in f]
    median = None
    if good:
        median = {"scale_x": round(statistics.median(f["scale_x"] for f in good), 5),
                  "scale_y": round(statistics.median(f["scale_y"] for f in good), 5)}
    return {"frames": frames, "measured": len(good), "failed": len(frames) - len(good),
            "median": median, "geometry": {"diameter": geometry.diameter}, "cancelled": cancelled}


def measure_scale(path, manifest=None, geometry: PlateGeometry | None = None) -> dict:
    """Every frame of the capture at ``path`` measured (:func:`open_scale`, :func:`scale_steps`):
    the report."""
    steps = scale_steps(*open_scale(path, manifest, geometry))
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value
