"""A capture chain that scales: testcard's zone plate resampled and degraded, to hold
``core.decode.scale`` to a known scale.

The resamplers are other people's, never the one the counter tests' simulator uses
(``cv2.warpAffine`` bilinear, ``tests.helpers.capture_sim``): ``cv2.resize`` with area
averaging, bicubic, Lanczos, nearest neighbour or plain bilinear (the last two alias), and
``torch.nn.functional.interpolate`` bicubic with antialiasing.  The true scale is the size
ratio the resampler was given (captured pixels / rendered pixels per axis).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from core.patterns import render_pattern

RESAMPLERS = ("area", "cubic", "lanczos", "nearest", "linear", "torch")


def plate_light(width: int, height: int | None = None, diameter: float = 100.0) -> np.ndarray:
    """testcard's zone plate as light, (H, W) float32 0..1 (rendered at 10 bits)."""
    img = render_pattern("zone_plate", width, height or width, bit_depth=10, diameter=diameter)
    return img[..., 0].astype(np.float32) / 1023.0


def resample(img: np.ndarray, sx: float, sy: float, how: str) -> tuple[np.ndarray, float, float]:
    """``img`` scaled by about (sx, sy) and the exact scale per axis (new size / old size)."""
    h, w = img.shape[:2]
    nw, nh = max(1, round(w * sx)), max(1, round(h * sy))
    if how == "torch":
        import torch

        t = torch.from_numpy(np.ascontiguousarray(img))[None, None]
        out = torch.nn.functional.interpolate(t, size=(nh, nw), mode="bicubic", antialias=True,
                                              align_corners=False)[0, 0].numpy()
    else:
        flag = {"area": cv2.INTER_AREA if sx <= 1 and sy <= 1 else cv2.INTER_CUBIC,
                "cubic": cv2.INTER_CUBIC, "lanczos": cv2.INTER_LANCZOS4,
                "nearest": cv2.INTER_NEAREST, "linear": cv2.INTER_LINEAR}[how]
        out = cv2.resize(img, (nw, nh), interpolation=flag)
    return out, nw / w, nh / h


@dataclass(frozen=True)
class Degrade:
    """What the rest of the chain does to the light, in this order."""

    blur: float = 0.0        # Gaussian sigma, capture pixels
    gamma: float = 1.0
    gain: float = 1.0
    lift: float = 0.0
    noise: float = 0.0       # Gaussian sigma, fraction of full scale
    bits: int = 8            # 8: uint8, 10: uint16 holding 0..1023
    jpeg: int | None = None  # JPEG quality (8-bit only), through cv2.imencode
    rgb: bool = False        # a three-channel capture


def degrade(light: np.ndarray, d: Degrade, seed: int = 0) -> np.ndarray:
    out = light.astype(np.float32)
    if d.blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), d.blur)
    out = np.clip(out, 0, 1) ** d.gamma * d.gain + d.lift
    if d.noise > 0:
        out = out + np.random.default_rng(seed).normal(0, d.noise, out.shape).astype(np.float32)
    top = (1 << d.bits) - 1
    q = np.round(np.clip(out, 0, 1) * top).astype(np.uint8 if d.bits <= 8 else np.uint16)
    if d.jpeg is not None:
        ok, buf = cv2.imencode(".jpg", q, [cv2.IMWRITE_JPEG_QUALITY, int(d.jpeg)])
        assert ok
        q = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
    return np.repeat(q[..., None], 3, axis=2) if d.rgb else q


def captured_plate(sx: float, sy: float, how: str = "area", d: Degrade = Degrade(), diameter: int = 720,
                   seed: int = 0) -> tuple[np.ndarray, float, float]:
    """A zone plate of ``diameter`` px (a square frame) through a chain scaling by (sx, sy):
    the capture and the true scale per axis."""
    img, tx, ty = resample(plate_light(diameter), sx, sy, how)
    return degrade(img, d, seed), tx, ty


def embed(capture: np.ndarray, size: tuple[int, int], at: tuple[int, int], seed: int = 0) -> np.ndarray:
    """``capture`` pasted at ``at`` (x, y) into a cluttered ``size`` (w, h) picture: blobs and a
    shading ramp, as around a window on a desktop or a screen in a room."""
    w, h = size
    rng = np.random.default_rng(seed)
    blobs = np.clip(cv2.GaussianBlur(rng.random((h, w)).astype(np.float32), (0, 0), 6) * 5 - 2, 0, 1)
    top = 255 if capture.dtype == np.uint8 else 1023
    canvas = ((blobs * 0.5 + np.linspace(0, 0.4, w, dtype=np.float32)[None, :]) * top)
    canvas = np.round(canvas).astype(capture.dtype)
    x, y = at
    ch, cw = capture.shape[:2]
    canvas[y:y + ch, x:x + cw] = capture
    return canvas
