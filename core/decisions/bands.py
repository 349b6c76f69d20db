"""Bands: named classes of render work that share one render-path verdict.

A band name is ``FAMILY@RESOLUTION/FORMAT``:

- ``FAMILY`` is a pattern name from the registry (``counter``, ``checkerboard``...),
  ``animated`` (any pattern that changes per frame) or ``static`` (any that does not);
- ``RESOLUTION`` is a class, ``1080p`` (1920x1080), ``1440p`` (2560x1440) or ``2160p``
  (3840x2160), or a custom ``WxH``;
- ``FORMAT`` is a display format: ``rgb8``, ``rgb10`` or ``rgb16``.

Names are case-insensitive on input and always written in one canonical form
(lower case, a size that equals a class written as the class), so
``static@3840x2160/rgb16`` and ``STATIC@2160p/RGB16`` are the same band,
``static@2160p/rgb16``.  ``format_band(parse_band(s))`` is stable.

Each band maps to a representative :class:`~core.patterns.Spec` that the race
renders.  A pattern family is raced on its defaults, animated where the pattern
can animate (animation is where the path matters: a static frame is rendered
once).  ``animated`` is raced on a checkerboard that inverts every frame under a
16-bit counter overlay; ``static`` on colour bars.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from core.patterns import ANIMATION_PARAMS, SIZE_ALIASES, Spec, catalog, get_pattern, make_spec, parse_size

RESOLUTIONS: dict[str, tuple[int, int]] = {k: SIZE_ALIASES[k] for k in ("1080p", "1440p", "2160p")}
BAND_FORMATS: dict[str, int] = {"rgb8": 8, "rgb10": 10, "rgb16": 16}
GENERIC_FAMILIES = ("animated", "static")

_NAME = re.compile(r"^([a-z][a-z0-9_]*)@([0-9a-z]+)/([a-z0-9]+)$")


def families() -> list[str]:
    """Every family a band may name: the generic two, then every registered pattern."""
    return list(GENERIC_FAMILIES) + [p.name for p in catalog()]


@dataclass(frozen=True, order=True)
class Band:
    family: str
    width: int
    height: int
    fmt: str

    @property
    def resolution(self) -> str:
        """The resolution class name, or ``WxH`` for a custom size."""
        for name, size in RESOLUTIONS.items():
            if size == (self.width, self.height):
                return name
        return f"{self.width}x{self.height}"

    @property
    def name(self) -> str:
        return f"{self.family}@{self.resolution}/{self.fmt}"

    @property
    def bit_depth(self) -> int:
        return BAND_FORMATS[self.fmt]

    def __str__(self) -> str:
        return self.name

    def spec(self) -> Spec:
        """The representative frame the race renders for this band."""
        return representative_spec(self)


def parse_band(text) -> Band:
    """A :class:`Band` from its name; ``ValueError`` with one sentence when it is not one."""
    if isinstance(text, Band):
        return text
    if not isinstance(text, str):
        raise ValueError(f"a band name must be a string, got {type(text).__name__}")
    low = text.strip().lower()
    m = _NAME.match(low)
    if not m:
        raise ValueError(f"band {text!r} is not FAMILY@RESOLUTION/FORMAT "
                         "(e.g. counter@2160p/rgb10, animated@1920x1200/rgb8)")
    family, res, fmt = m.groups()
    if family not in GENERIC_FAMILIES:
        try:
            get_pattern(family)
        except ValueError:
            raise ValueError(f"band {text!r}: unknown family {family!r} (expected animated, static "
                             "or a pattern name)") from None
    if fmt not in BAND_FORMATS:
        raise ValueError(f"band {text!r}: unknown format {fmt!r} (expected {', '.join(BAND_FORMATS)})")
    try:
        w, h = parse_size(res, RESOLUTIONS)
    except ValueError as exc:
        raise ValueError(f"band {text!r}: {exc}") from None
    return Band(family, w, h, fmt)


def format_band(band: Band | str) -> str:
    """The canonical name of a band (parsing a string first)."""
    return parse_band(band).name


def make_band(family: str, resolution: str | tuple[int, int], fmt: str) -> Band:
    """A band from its three parts, validated like a parsed name."""
    if isinstance(resolution, tuple):
        resolution = f"{resolution[0]}x{resolution[1]}"
    return parse_band(f"{family}@{resolution}/{fmt}")


def representative_spec(band: Band | str) -> Spec:
    band = parse_band(band)
    size: dict[str, Any] = {"width": band.width, "height": band.height, "bit_depth": band.bit_depth}
    if band.family == "animated":
        return make_spec("checkerboard", {"invert_every": 1}, counter_bits=16, **size)
    if band.family == "static":
        return make_spec("bars", {}, **size)
    pat = get_pattern(band.family)
    params = {p.name: 1 for p in pat.params if p.name in ANIMATION_PARAMS}
    return make_spec(band.family, params, **size)


def band_chain(spec: Spec, fmt: str) -> list[Band]:
    """The bands a frame of ``spec`` in display format ``fmt`` belongs to, most specific first:
    its pattern's family band, then ``animated`` or ``static``.  Empty for ``fmt='native'``
    and other formats no band covers."""
    if fmt not in BAND_FORMATS:
        return []
    generic = "animated" if spec.animated else "static"
    return [Band(spec.pattern, spec.width, spec.height, fmt),
            Band(generic, spec.width, spec.height, fmt)]


__all__ = ["Band", "RESOLUTIONS", "BAND_FORMATS", "GENERIC_FAMILIES", "families", "parse_band",
           "format_band", "make_band", "representative_spec", "band_chain"]
