"""Reading a counter panel at a known geometry, exactly where it was rendered (no search).

For frames straight from the renderer or a lossless chain; captures that may be scaled, offset
or torn go through ``core.decode.job``.
"""

from __future__ import annotations

import numpy as np

from core import xp as X
from core.counter import CounterGeometry
from core.decode.locate import hint_bands
from core.decode.sampler import RobustSampler


def read_robust_exact(image: np.ndarray, geom: CounterGeometry) -> int:
    """The top-most checked index of a robust panel at exactly ``geom`` (no search)."""
    img = np.asarray(image)
    h, w = img.shape[:2]
    reads = RobustSampler(hint_bands(geom, w, h), w, h).read(img)
    for r in reads:
        if r.index is not None:
            return r.index
    raise ValueError(f"no band of the robust panel reads ({reads[0].why if reads else 'no bands'})")


def decode_counter(image, geom: CounterGeometry, bit_depth: int | None = None,
                   threshold: float | None = None) -> int:
    """Read the frame index from an ``(H, W[, C])`` image of a panel at exactly ``geom``.

    Compat: samples channel 0 at each cell centre; a sample above ``threshold``
    is a 1.  The default threshold is half scale: of ``bit_depth`` when given,
    else of the image dtype (uint8: 127.5, uint16: 32767.5, floats: 0.5).

    Robust: reads every band against its own reference cells and returns the
    top-most band whose check code holds; raises ``ValueError`` when none does.
    Captures that may be scaled, offset or torn go through ``core.decode.job``.
    """
    img = X.to_numpy(image)
    if geom.layout == "robust":
        return read_robust_exact(img, geom)
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
