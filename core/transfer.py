"""Transfer functions: what a code value means in light, for SDR, PQ and HLG signals.

* **PQ**, SMPTE ST 2084 (BT.2100 PQ): :func:`pq_eotf` takes the non-linear signal E' (0..1) to
  display light in cd/m2 (0..10000), :func:`pq_inverse_eotf` the other way.  Absolute: a code
  value means the same luminance on every display.
* **HLG**, BT.2100 hybrid log-gamma: :func:`hlg_oetf` takes scene light E (0..1) to E',
  :func:`hlg_inverse_oetf` back.  HLG is scene-referred, so cd/m2 exist only for a display:
  :func:`hlg_eotf` / :func:`hlg_inverse_eotf` apply BT.2100's OOTF for a display of nominal peak
  ``peak`` cd/m2 with a black level of 0 (so beta = 0), system gamma
  ``1.2 + 0.42 * log10(peak / 1000)``: 1.2 at testcard's nominal :data:`HLG_PEAK` of 1000 cd/m2.
  The OOTF works on luminance, ``Y = 0.2627 R + 0.6780 G + 0.0593 B``, so the three channels of
  a colour convert together (a grey converts alone: ``L = 1000 * E ** 1.2``).

The array functions take numpy arrays (computed in float64), torch tensors (a floating tensor
keeps its dtype, an integer one becomes float64) or Python numbers, and use only what both
namespaces share.  The code-value helpers work on Python numbers, so every backend gets the
same integers: a signal level becomes a code value by one rounding, half up,
``black + floor((white - black) * E' + 0.5)`` -- 10-bit narrow ``64 + 876 E'``, full
``1023 E'``, 12-bit narrow ``256 + 3504 E'`` -- and 203 cd/m2 under PQ is E' 0.5807: 573
narrow, 594 full at 10 bits.

A colour may be given in cd/m2 (:func:`resolve_nits`): ``203nits``, ``100nits,100nits,50nits``
or ``1000cd/m2``, converted here to code values at the frame's bit depth and range.  Under SDR
that is refused: an SDR code value has no defined luminance.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from core.levels import MAX_COLOUR_CHARS, Levels, parse_number, shown

TRANSFERS = ("sdr", "pq", "hlg")
HDR_TRANSFERS = ("pq", "hlg")

# SMPTE ST 2084, exactly as the standard writes them
PQ_M1 = 2610 / 16384
PQ_M2 = 2523 / 4096 * 128
PQ_C1 = 3424 / 4096
PQ_C2 = 2413 / 4096 * 32
PQ_C3 = 2392 / 4096 * 32
PQ_PEAK = 10000.0

# BT.2100 HLG
HLG_A = 0.17883277
HLG_B = 1 - 4 * HLG_A
HLG_C = 0.5 - HLG_A * math.log(4 * HLG_A)
HLG_PEAK = 1000.0                      # testcard's nominal HLG display, cd/m2
LUMA = (0.2627, 0.6780, 0.0593)        # BT.2100 / BT.2020 luminance weights


def check_transfer(value, what: str = "transfer") -> str:
    """``value`` as one of :data:`TRANSFERS`; ``ValueError`` naming ``what`` otherwise."""
    text = value.strip().lower() if isinstance(value, str) and len(value) <= 16 else None
    if text not in TRANSFERS:
        raise ValueError(f"{what}: expected one of {', '.join(TRANSFERS)}, got {shown(value)}")
    return text


# ---------------------------------------------------------------- on arrays (numpy or torch)
def _float(x):
    """``x`` as a floating array of its namespace: float64 for numpy and Python numbers."""
    import numpy as np  # here, not at import: the CLI's parser reads TRANSFERS without numpy

    from core import xp as X

    xp = X.namespace_of(x)
    if X.is_torch(xp):
        return x if x.is_floating_point() else x.to(xp.float64), xp
    return np.asarray(x, dtype=np.float64), np


def _clip01(x, xp):
    return xp.where(x < 0, x * 0, xp.where(x > 1, x * 0 + 1, x))


def pq_eotf(signal):
    """PQ signal E' (clipped to 0..1) to display light in cd/m2 (0..10000)."""
    e, xp = _float(signal)
    p = _clip01(e, xp) ** (1 / PQ_M2)
    num = p - PQ_C1
    num = num * (num > 0)
    return PQ_PEAK * (num / (PQ_C2 - PQ_C3 * p)) ** (1 / PQ_M1)


def pq_inverse_eotf(nits):
    """Display light in cd/m2 (clipped to 0..10000) to the PQ signal E'."""
    y, xp = _float(nits)
    ym = _clip01(y / PQ_PEAK, xp) ** PQ_M1
    return ((PQ_C1 + PQ_C2 * ym) / (1 + PQ_C3 * ym)) ** PQ_M2


def hlg_oetf(scene):
    """HLG: scene light E (clipped to 0..1) to the signal E'."""
    e, xp = _float(scene)
    e = _clip01(e, xp)
    low = (3 * e) ** 0.5
    # the log branch on a value it is defined for, whichever branch ``where`` keeps
    high = HLG_A * xp.log(xp.where(e > 1 / 12, 12 * e, e * 0 + 1) - HLG_B) + HLG_C
    return xp.where(e > 1 / 12, high, low)


def hlg_inverse_oetf(signal):
    """HLG: the signal E' (clipped to 0..1) to scene light E."""
    e, xp = _float(signal)
    e = _clip01(e, xp)
    low = e * e / 3
    high = (xp.exp((xp.where(e > 0.5, e, e * 0 + 0.5) - HLG_C) / HLG_A) + HLG_B) / 12
    return xp.where(e > 0.5, high, low)


def hlg_gamma(peak: float = HLG_PEAK) -> float:
    """BT.2100's HLG system gamma for a display of nominal peak ``peak`` cd/m2."""
    return 1.2 + 0.42 * math.log10(float(peak) / 1000.0)


def _luminance(rgb, xp):
    return rgb[..., 0] * LUMA[0] + rgb[..., 1] * LUMA[1] + rgb[..., 2] * LUMA[2]


def hlg_ootf(scene_rgb, peak: float = HLG_PEAK):
    """HLG OOTF: scene light ``(..., 3)`` (0..1) to display light in cd/m2, black level 0."""
    e, xp = _float(scene_rgb)
    e = _clip01(e, xp)
    gamma = hlg_gamma(peak)
    ys = _luminance(e, xp)[..., None]
    return peak * ys ** (gamma - 1) * e


def hlg_inverse_ootf(display_rgb, peak: float = HLG_PEAK):
    """The inverse OOTF: display light ``(..., 3)`` in cd/m2 to scene light (not clipped, so
    a colour no HLG signal reaches shows as a value over 1)."""
    f, xp = _float(display_rgb)
    f = f * (f > 0)
    gamma = hlg_gamma(peak)
    yd = _luminance(f, xp)[..., None]
    ys = (yd / peak) ** (1 / gamma)
    safe = xp.where(ys > 0, ys, ys * 0 + 1)
    return xp.where(ys > 0, f / (peak * safe ** (gamma - 1)), f * 0)


def hlg_eotf(signal_rgb, peak: float = HLG_PEAK):
    """HLG signal ``(..., 3)`` to display light in cd/m2 on the nominal display."""
    return hlg_ootf(hlg_inverse_oetf(signal_rgb), peak)


def hlg_inverse_eotf(display_rgb, peak: float = HLG_PEAK):
    """Display light ``(..., 3)`` in cd/m2 to the HLG signal on the nominal display."""
    return hlg_oetf(hlg_inverse_ootf(display_rgb, peak))


# ---------------------------------------------------------------- code values
def signal_to_code(signal: float, levels: Levels) -> int:
    """A signal level E' (0..1) as a code value: ``black + floor((white - black) E' + 0.5)``."""
    return levels.black + int(math.floor((levels.white - levels.black) * float(signal) + 0.5))


def code_to_signal(codes, levels: Levels):
    """Code values (an array) as signal levels E', float64 (below black and above white
    stay outside 0..1: the transfer functions clip)."""
    c, xp = _float(codes)
    return (c - levels.black) / (levels.white - levels.black)


def codes_to_nits(codes, levels: Levels, transfer: str, peak: float = HLG_PEAK):
    """Code values ``(..., 3)`` as display light in cd/m2 per channel under ``transfer`` (HLG
    on the nominal ``peak`` display).  ``ValueError`` under SDR, which defines no light."""
    e = code_to_signal(codes, levels)
    if transfer == "pq":
        return pq_eotf(e)
    if transfer == "hlg":
        return hlg_eotf(e, peak)
    raise ValueError(f"transfer: {transfer} code values have no defined luminance (need pq or hlg)")


def nits_to_codes(nits: Sequence[float], levels: Levels, transfer: str, what: str = "colour",
                  peak: float = HLG_PEAK) -> tuple[int, int, int]:
    """Display light R, G, B in cd/m2 as code values, rounded once (:func:`signal_to_code`).

    PQ converts each channel alone, 0..10000 cd/m2; HLG the three together through the inverse
    EOTF of the nominal display (0..``peak``), refusing a colour no HLG signal reaches (a red
    of 1000 cd/m2: only white reaches the peak).  ``ValueError`` naming ``what`` otherwise.
    """
    import numpy as np

    values = [float(v) for v in nits]
    if len(values) == 1:
        values = values * 3
    for v in values:
        if not math.isfinite(v) or v < 0:
            raise ValueError(f"{what}: {v:g} cd/m2 is not a luminance (expected 0 or more)")
    if transfer == "pq":
        top = PQ_PEAK
        if max(values) > top:
            raise ValueError(f"{what}: {max(values):g} cd/m2 is over PQ's 10000 cd/m2")
        signal = pq_inverse_eotf(np.asarray(values))
    elif transfer == "hlg":
        if max(values) > peak:
            raise ValueError(f"{what}: {max(values):g} cd/m2 is over the nominal HLG display's "
                             f"{peak:g} cd/m2")
        scene = hlg_inverse_ootf(np.asarray(values), peak)
        if float(scene.max()) > 1 + 1e-9:
            raise ValueError(f"{what}: {','.join(f'{v:g}' for v in values)} cd/m2 is brighter "
                             f"than an HLG signal reaches on the nominal {peak:g} cd/m2 display")
        signal = hlg_oetf(scene)
    else:
        raise ValueError(f"{what}: a colour in cd/m2 needs transfer pq or hlg (--transfer); "
                         f"an {transfer} code value has no defined luminance")
    return tuple(signal_to_code(float(s), levels) for s in signal)  # type: ignore[return-value]


_NITS = re.compile(r"^(.*?)\s*(nits?|cd/m2|cd/m²)$")


def _nits_value(token, what: str) -> float | None:
    """The cd/m2 a token gives (``203nits``, ``0.05 nits``, ``1000cd/m2``), or None when it is
    not a luminance."""
    if not isinstance(token, str):
        return None
    m = _NITS.match(token.strip().lower())
    if m is None:
        return None
    return float(parse_number(m.group(1), what))


def _colour_nits(value, what: str) -> list[float] | None:
    """A colour's cd/m2 when it is given in them (every component), None when it is not; a
    colour that mixes cd/m2 with code values or percentages is refused."""
    if isinstance(value, str):
        if len(value) > MAX_COLOUR_CHARS:
            return None     # the colour parser refuses it with its own message
        joined = re.sub(r"\s+(?=(?:nits?|cd/m))", "", value.strip().lower())   # "203 nits"
        parts = [p for p in re.split(r"[,\s]+", joined) if p]
    elif isinstance(value, (list, tuple)):
        parts = list(value)
    else:
        return None
    found = [_nits_value(p, what) for p in parts]
    if all(v is None for v in found):
        return None
    if any(v is None for v in found) or len(found) not in (1, 3):
        raise ValueError(f"{what}: give a colour in cd/m2 as one value or three, every one in "
                         f"cd/m2 (such as 100nits,100nits,50nits), got {shown(value)}")
    return found  # type: ignore[return-value]


def resolve_nits(value, kind: str, levels: Levels, transfer: str, what: str):
    """``value`` for a ``colour`` or ``palette`` parameter with every colour given in cd/m2
    replaced by its code values (:func:`nits_to_codes`); anything else is returned as it is,
    for the parameter's own parser.  ``ValueError`` naming ``what`` for a colour in cd/m2
    under SDR, or one out of the transfer's range."""
    if kind == "colour":
        nits = _colour_nits(value, what)
        return value if nits is None else nits_to_codes(nits, levels, transfer, what)
    if kind != "palette":
        return value
    if isinstance(value, str):
        if len(value) > 4 * MAX_COLOUR_CHARS:
            return value
        items = [s for s in re.split(r";|/(?!m)", value) if s.strip()]   # not the / of cd/m2
    elif isinstance(value, (list, tuple)) and not all(isinstance(v, (int, float)) for v in value):
        items = list(value)
    else:
        return value
    if not any(_colour_nits(c, what) is not None for c in items if isinstance(c, (str, list, tuple))):
        return value
    out = []
    for i, c in enumerate(items):
        name = f"{what} colour {i}"
        nits = _colour_nits(c, name) if isinstance(c, (str, list, tuple)) else None
        out.append(c if nits is None else nits_to_codes(nits, levels, transfer, name))
    return out
