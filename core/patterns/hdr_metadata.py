"""HDR static metadata, computed from the rendered frame: never typed by hand.

* **MaxCLL / MaxFALL** (CTA-861.3): every pixel's code values through the EOTF to cd/m2, then
  MaxCLL = the largest per-pixel ``max(R, G, B)`` and MaxFALL = the frame average of the
  per-pixel ``max(R, G, B)`` (for a still, its one frame is the content).  PQ is absolute; HLG
  is taken on testcard's nominal 1000 cd/m2 display (:data:`core.transfer.HLG_PEAK`, OOTF with
  black level 0), which is what its numbers mean.
* **Mastering display** (SMPTE ST 2086): primaries, white point and luminance range, a spec
  option (:class:`Mastering`), BT.2020 primaries, D65 and 0.0001..1000 cd/m2 unless told.
* The DRM/KMS ``HDR_OUTPUT_METADATA`` blob (:func:`hdr_output_metadata`): 32 bytes, little-endian:
  u32 metadata type 0; u8 EOTF (0 SDR, 2 PQ, 3 HLG); u8 descriptor 0 (static metadata type 1);
  the R, G, B primaries and the white point as u16 x, y in units of 0.00002; u16 maximum
  mastering luminance in cd/m2, u16 minimum in 0.0001 cd/m2; u16 MaxCLL and u16 MaxFALL in
  cd/m2; two bytes of padding -- the layout of the kernel's ``struct hdr_output_metadata``,
  what a DRM connector's ``HDR_OUTPUT_METADATA`` property (or a DeckLink card's HDR frame
  metadata) takes.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from core.levels import Levels, parse_number, shown
from core.transfer import HLG_PEAK, LUMA, code_to_signal, hlg_gamma, hlg_inverse_oetf, pq_eotf
from core.xp import to_numpy

PRIMARIES = {
    "bt2020": ((0.708, 0.292), (0.170, 0.797), (0.131, 0.046)),
    "p3": ((0.680, 0.320), (0.265, 0.690), (0.150, 0.060)),
    "bt709": ((0.640, 0.330), (0.300, 0.600), (0.150, 0.060)),
}
WHITES = {"d65": (0.3127, 0.3290), "dci": (0.314, 0.351)}
EOTF_CODES = {"sdr": 0, "pq": 2, "hlg": 3}
BLOB = struct.Struct("<IBB" + "HH" * 4 + "HHHH" + "2x")   # 32 bytes
CHROMA_UNIT = 0.00002
MIN_LUMA_UNIT = 0.0001
U16 = 0xFFFF


@dataclass(frozen=True)
class Mastering:
    """The mastering display (SMPTE ST 2086): R, G, B primaries and white as CIE 1931 x, y,
    and its luminance range in cd/m2."""

    primaries: tuple[tuple[float, float], ...] = PRIMARIES["bt2020"]
    white: tuple[float, float] = WHITES["d65"]
    max_nits: float = 1000.0
    min_nits: float = 0.0001

    def to_dict(self) -> dict:
        return {"primaries": [list(p) for p in self.primaries], "white": list(self.white),
                "max_nits": self.max_nits, "min_nits": self.min_nits}


DEFAULT_MASTERING = Mastering()


def _xy_list(value, count: int, names: Mapping[str, Any], what: str) -> tuple[tuple[float, float], ...]:
    if isinstance(value, str) and value.strip().lower() in names:
        got = names[value.strip().lower()]
        return tuple(got) if count == 3 else (tuple(got),)
    if isinstance(value, str) and len(value) <= 200:
        parts: list = [p for p in value.replace(";", ",").split(",") if p.strip()]
    elif isinstance(value, (list, tuple)):
        parts = [v for pair in value for v in (pair if isinstance(pair, (list, tuple)) else [pair])]
    else:
        parts = []
    if len(parts) != 2 * count:
        known = ", ".join(names)
        raise ValueError(f"{what}: expected {known} or {2 * count} numbers "
                         f"({'x,y' if count == 1 else 'Rx,Ry,Gx,Gy,Bx,By'}), got {shown(value)}")
    nums = [float(parse_number(p, what)) for p in parts]
    for v in nums:
        if not 0.0 < v < 1.0:
            raise ValueError(f"{what}: chromaticity {v:g} is outside 0..1")
    return tuple((nums[i], nums[i + 1]) for i in range(0, len(nums), 2))


def parse_mastering(value) -> Mastering:
    """A :class:`Mastering`, or a mapping of any of ``primaries`` (bt2020, p3, bt709 or six
    numbers), ``white`` (d65, dci or x,y), ``max_nits`` (1..65535) and ``min_nits``
    (0..6.5535, below ``max_nits``), the rest defaulted; ``None`` is the default.  One
    ``ValueError`` naming the field otherwise."""
    if value is None:
        return DEFAULT_MASTERING
    if isinstance(value, Mastering):
        value = value.to_dict()
    if not isinstance(value, Mapping):
        raise ValueError(f"mastering: expected primaries, white, max_nits and min_nits, got {shown(value)}")
    unknown = set(value) - {"primaries", "white", "max_nits", "min_nits"}
    if unknown:
        raise ValueError(f"mastering: unknown field {shown(sorted(unknown)[0])} "
                         "(known: primaries, white, max_nits, min_nits)")
    d = DEFAULT_MASTERING
    primaries = d.primaries if value.get("primaries") is None else \
        _xy_list(value["primaries"], 3, PRIMARIES, "mastering primaries")
    white = d.white if value.get("white") is None else \
        _xy_list(value["white"], 1, WHITES, "mastering white")[0]
    max_nits = float(parse_number(value.get("max_nits", d.max_nits), "mastering max_nits"))
    min_nits = float(parse_number(value.get("min_nits", d.min_nits), "mastering min_nits"))
    if not 1.0 <= max_nits <= U16:
        raise ValueError(f"mastering max_nits: {max_nits:g} cd/m2 is outside 1..{U16}")
    if not 0.0 <= min_nits <= U16 * MIN_LUMA_UNIT or min_nits >= max_nits:
        raise ValueError(f"mastering min_nits: {min_nits:g} cd/m2 is outside 0..6.5535 "
                         f"or not below max_nits {max_nits:g}")
    return Mastering(primaries, white, max_nits, min_nits)


class LightLevels(NamedTuple):
    """MaxCLL and MaxFALL of one frame, cd/m2."""
    max_cll: float
    max_fall: float


def light_levels(frame, levels: Levels, transfer: str, peak: float = HLG_PEAK,
                 block: int = 512) -> LightLevels:
    """MaxCLL and MaxFALL of a rendered frame ``(H, W, 3)`` of code values (numpy or torch).

    Both run on tables of one entry per code value: PQ's EOTF rises, so a pixel's brightest
    channel is its largest code, and the frame is a histogram of those; HLG's display light is
    ``peak * Y_S ** (gamma - 1) * max(E)`` with ``E`` the scene light of each channel's code and
    ``Y_S`` their luminance, taken ``block`` lines at a time.  ``ValueError`` under SDR, whose
    code values have no defined luminance.
    """
    arr = np.asarray(to_numpy(frame))
    if arr.ndim != 3 or arr.shape[-1] != 3 or arr.size == 0:
        raise ValueError(f"expected a frame (height, width, 3), got shape {arr.shape}")
    if transfer not in ("pq", "hlg"):
        raise ValueError(f"transfer: {transfer} code values have no defined luminance, so no "
                         "MaxCLL or MaxFALL (need pq or hlg)")
    pixels = arr.shape[0] * arr.shape[1]
    codes = np.arange(levels.top + 1)

    def channel(y, c):   # one channel's codes as table indices (a 3-wide axis reduces slowly)
        return np.clip(arr[y:y + block, :, c], 0, levels.top).astype(np.intp)

    if transfer == "pq":
        nits = pq_eotf(code_to_signal(codes, levels))
        counts = np.zeros(levels.top + 1, np.int64)
        for y in range(0, arr.shape[0], block):
            top = np.maximum(np.maximum(channel(y, 0), channel(y, 1)), channel(y, 2))
            counts += np.bincount(top.ravel(), minlength=levels.top + 1)
        return LightLevels(float(nits[counts > 0].max()), float(counts @ nits) / pixels)
    scene = np.minimum(hlg_inverse_oetf(code_to_signal(codes, levels)), 1.0)
    gamma = hlg_gamma(peak)
    brightest, total = 0.0, 0.0
    for y in range(0, arr.shape[0], block):
        r, g, b = (scene[channel(y, c)] for c in range(3))
        ys = LUMA[0] * r + LUMA[1] * g + LUMA[2] * b
        light = peak * ys ** (gamma - 1) * np.maximum(np.maximum(r, g), b)
        brightest = max(brightest, float(light.max()))
        total += float(light.sum())
    return LightLevels(brightest, total / pixels)


def _u16(value: float, unit: float, what: str) -> int:
    code = int(math.floor(value / unit + 0.5))
    if not 0 <= code <= U16:
        raise ValueError(f"{what}: {value:g} does not fit the metadata's 16 bits")
    return code


def hdr_output_metadata(transfer: str, mastering: Mastering, max_cll: float, max_fall: float) -> bytes:
    """The 32-byte ``HDR_OUTPUT_METADATA`` blob (layout in the module docstring).  MaxCLL and
    MaxFALL are rounded half up to whole cd/m2 and clamped to 65535."""
    if transfer not in EOTF_CODES:
        raise ValueError(f"transfer: expected one of {', '.join(EOTF_CODES)}, got {shown(transfer)}")
    xy = [_u16(v, CHROMA_UNIT, "mastering chromaticity") for p in (*mastering.primaries, mastering.white)
          for v in p]
    levels = [min(U16, int(math.floor(float(v) + 0.5))) for v in (max_cll, max_fall)]
    return BLOB.pack(0, EOTF_CODES[transfer], 0, *xy,
                     _u16(mastering.max_nits, 1.0, "mastering max_nits"),
                     _u16(mastering.min_nits, MIN_LUMA_UNIT, "mastering min_nits"), *levels)


def hdr_fields(spec, frame) -> dict:
    """The sidecar's signal and HDR entries for ``spec`` (a ``core.patterns.Spec``) rendered
    as ``frame``: ``signal`` always (a file carries no HDR signalling: ``tagged`` is false),
    ``hdr`` under PQ or HLG (MaxCLL, MaxFALL, the mastering display and the blob's EOTF)."""
    signal = {"transfer": spec.transfer, "range": "narrow" if spec.limited else "full",
              "tagged": False}
    if spec.transfer == "sdr":
        return {"signal": signal}
    signal["note"] = (f"{spec.transfer.upper()} code values in a file: nothing tags them HDR; "
                      "say so to whatever shows it")
    ll = light_levels(frame, spec.levels, spec.transfer)
    hdr = {"max_cll": round(ll.max_cll, 4), "max_fall": round(ll.max_fall, 4),
           "max_cll_metadata": min(U16, int(math.floor(ll.max_cll + 0.5))),
           "max_fall_metadata": min(U16, int(math.floor(ll.max_fall + 0.5))),
           "eotf": EOTF_CODES[spec.transfer], "mastering": spec.mastering.to_dict()}
    if spec.transfer == "hlg":
        hdr["nominal_display_nits"] = HLG_PEAK
    return {"signal": signal, "hdr": hdr}
