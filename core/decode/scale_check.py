"""Whether the plate a manifest describes is the plate the capture shows.

The chirp a zone plate shows in a capture fixes ``scale**2 * diameter`` and nothing else: a
1:1 capture of a 720 px plate reads 0.7071 against a manifest claiming 1440 px, and matches as
well as the truth.  What tells them apart is the plate's extent: at the scale read, the plate
the manifest describes has semi-axes ``scale * diameter / 2`` in the capture.

* **too large a claim**: that plate must fit in the capture, give or take an overscan's
  crop (:data:`OVERHANG` of its size past each edge);
* **too small a claim**: beyond that plate's edge the capture must not carry on showing its
  rings (the re-synthesis match in a ring just outside it stays below :data:`RING_MATCH`);
  told only where the rings are still within the capture's resolution there (a scale read
  above about 1.15: a claim at least about 1.3 times too small).

A claim too large inside a bigger picture, by a chain that filters what it cannot resolve,
cannot be told from the capture alone (its outer rings are grey either way): say the render
with ``--manifest``.  A mismatch is :class:`PlateMismatch`, one sentence, never a reading.
"""

from __future__ import annotations

import math

import numpy as np

OVERHANG = 0.10          # of a semi-axis: the plate may pass a capture edge by this much (overscan)
RING_INNER = 1.08        # the ring checked for rings, in semi-axes of the claimed plate
RING_OUTER = 1.35
RING_TOP = 0.5           # cycles/px: rings up to the capture's Nyquist are looked for
RING_MATCH = 0.3         # a plate's rings re-synthesise at 0.8-0.95; clutter or grey near 0.0-0.05
RING_MIN = 256           # pixels in the ring, at least


class PlateMismatch(ValueError):
    """The capture's zone plate is not the one its manifest describes (a wrong sidecar)."""


def check_plate(g: np.ndarray, d: int, sx: float, sy: float, centre: tuple[float, float], crop) -> None:
    """Refuse a reading whose plate (``d`` px rendered, read at ``sx`` x ``sy`` about ``centre``
    in the luma image ``g``) contradicts the capture (see the module's text).  ``crop`` is
    :func:`core.decode.scale._crop`."""
    h, w = g.shape
    cx, cy = centre
    rx, ry = sx * d / 2, sy * d / 2
    # the capture's size, not the centre: an axis read from aliased rings places the centre poorly
    if 2 * rx > (1 + 2 * OVERHANG) * w + 2 or 2 * ry > (1 + 2 * OVERHANG) * h + 2:
        raise PlateMismatch(
            f"the zone plate does not match its manifest: rendered at {d} px, as the manifest says, "
            f"and scaled {sx:.4f} x {sy:.4f} as its rings read, it would span {2 * rx:.0f}x{2 * ry:.0f} "
            f"px, more than the {w}x{h} capture holds; the manifest describes a larger render than "
            "the one captured (pass the rendered frame's own sidecar with --manifest)")
    outer = min(RING_OUTER, 2 * RING_TOP * min(sx, sy))   # rings of local frequency up to RING_TOP
    if outer < RING_INNER + 0.04:
        return
    match = _ring_match(g, cx, cy, sx, sy, d, outer, crop)
    if match >= RING_MATCH:
        raise PlateMismatch(
            f"the zone plate does not match its manifest: its rings carry on past the edge a {d} px "
            f"plate would have at the scale they read ({sx:.4f} x {sy:.4f}: {2 * rx:.0f}x{2 * ry:.0f} px "
            f"in the capture; match {match:.2f} beyond it): the plate was rendered larger than the "
            "manifest says (pass the rendered frame's own sidecar with --manifest)")


def _ring_match(g, cx, cy, sx, sy, d, outer, crop) -> float:
    """How well the plate expected at (sx, sy) re-synthesises in the ring from RING_INNER to
    ``outer`` semi-axes about the centre (the plane-wave peak, as the reading's own match)."""
    kx, ky = 1.0 / (sx * sx * d), 1.0 / (sy * sy * d)
    ax, ay = sx * d / 2, sy * d / 2
    c, xs, ys, inside, _steps = crop(g, cx, cy, outer * ax, outer * ay)
    ring = inside & ((xs / ax) ** 2 + (ys / ay) ** 2 >= RING_INNER * RING_INNER)
    n = int(ring.sum())
    if n < RING_MIN:
        return 0.0
    c = np.where(ring, c - c[ring].mean(), 0.0)
    energy = float((c * c).sum())
    if energy <= 0:
        return 0.0
    z = np.where(ring, c * np.exp(-1j * math.pi * (kx * xs * xs + ky * ys * ys)), 0)
    spec = np.abs(np.fft.fft2(z, s=(2 * c.shape[0], 2 * c.shape[1])))
    return min(1.0, float(spec.max()) * math.sqrt(2.0) / math.sqrt(energy * n))
