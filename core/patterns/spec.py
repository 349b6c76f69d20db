"""The validated, immutable description of a frame (``Spec``), and the context a body sees."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core import xp as X
from core.counter import CounterGeometry, geometry_for
from core.levels import Levels
from core.patterns.registry import get_pattern, jsonable
from core.plan import Rows


@dataclass(frozen=True)
class Spec:
    """Everything that decides a frame, validated.  Hashable: engines cache on it."""

    pattern: str
    params: tuple[tuple[str, Any], ...]
    width: int
    height: int
    bit_depth: int = 10
    limited: bool = False
    dtype: str = "uint16"
    roi: tuple[int, int, int, int] | None = None
    counter_bits: int | None = None

    @property
    def levels(self) -> Levels:
        return Levels(self.bit_depth, self.limited)

    @property
    def param_dict(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def animated(self) -> bool:
        return self.counter_bits is not None or bool(
            get_pattern(self.pattern).animates(self.param_dict))

    def counter_geometry(self) -> CounterGeometry | None:
        """The panel's geometry, whether the pattern is the counter or it is overlaid."""
        if self.pattern == "counter":
            return geometry_for(self.width, self.height, self.param_dict)
        if self.counter_bits is not None:
            return CounterGeometry.compat(self.width, self.height, self.counter_bits)
        return None

    def replace(self, **changes) -> Spec:
        d = self.to_dict()
        d.update(changes)
        return make_spec(d.pop("pattern"), d.pop("params"), **d)

    def to_dict(self) -> dict:
        return {"pattern": self.pattern,
                "params": {k: jsonable(v) for k, v in self.params},
                "width": self.width, "height": self.height, "bit_depth": self.bit_depth,
                "limited": self.limited, "dtype": self.dtype,
                "roi": list(self.roi) if self.roi is not None else None,
                "counter_bits": self.counter_bits}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Spec:
        d = dict(d)
        return make_spec(d.pop("pattern"), d.pop("params", {}), **d)


def make_spec(pattern: str, params: Mapping[str, Any] | None = None, *, width: int, height: int,
              bit_depth: int = 10, limited: bool = False, dtype: str = "uint16",
              roi=None, counter_bits: int | None = None) -> Spec:
    """Validate everything and resolve every parameter (defaults filled in).

    Raises ``ValueError`` with one clear sentence for: unknown pattern or
    parameter, a value out of range, a colour over the bit depth, a dtype that
    cannot hold the bit depth exactly, a bad size or region.
    """
    pat = get_pattern(pattern)
    for name, v in (("width", width), ("height", height)):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 16384:
            raise ValueError(f"{name} must be an integer 1..16384, got {v!r}")
    if isinstance(bit_depth, bool) or not isinstance(bit_depth, int):
        raise ValueError(f"bit depth must be an integer 1..16, got {bit_depth!r}")
    levels = Levels(bit_depth, bool(limited))
    if bit_depth < pat.min_bits:
        raise ValueError(f"pattern {pattern!r} needs at least {pat.min_bits} bits")
    X.check_dtype(dtype, bit_depth)
    given = dict(params or {})
    resolved = []
    for p in pat.params:
        raw = given.pop(p.name, p.default)
        resolved.append((p.name, p.resolve(raw, levels)))
    if given:
        pat.param(next(iter(given)))  # raises with the known names
    if roi is not None:
        try:
            roi = tuple(int(v) for v in roi)
        except (TypeError, ValueError):
            raise ValueError(f"roi must be four integers x,y,w,h, got {roi!r}") from None
        if len(roi) != 4 or roi[2] < 0 or roi[3] < 0:
            raise ValueError(f"roi must be x,y,w,h with w,h >= 0, got {roi!r}")
    if counter_bits is not None:
        if pattern == "counter":
            raise ValueError("the counter pattern already is a counter; drop the overlay")
        CounterGeometry.compat(width, height, int(counter_bits))
        counter_bits = int(counter_bits)
    spec = Spec(pattern, tuple(resolved), width, height, bit_depth, bool(limited), dtype, roi,
                counter_bits)
    if pattern == "counter":
        spec.counter_geometry()  # refuses a panel that does not fit
    return spec


@dataclass
class Ctx:
    """What a pattern body sees: namespace, device, frame size, levels, frame index."""

    xp: Any
    device: Any
    width: int
    height: int
    levels: Levels
    frame: Any
    origin: tuple[int, int] = (0, 0)

    def cols(self, dtype="int64"):
        return X.arange(self.xp, self.width, self.device, dtype)

    def lines(self, dtype="int64"):
        return X.arange(self.xp, self.height, self.device, dtype)

    def const(self, values, dtype="int64"):
        return X.asarray(self.xp, values, self.device, dtype)

    def one_row(self, row) -> Rows:
        """A plan of one row (W or 1 wide, 3 channels) repeated on every line."""
        return Rows(row[None], self.lines() * 0, self.width, self.height)

    def frame_index(self):
        return X.frame_scalar(self.xp, self.frame, self.device)


# Names a size may be given by; ``core.decisions.bands`` names its resolution classes from these.
SIZE_ALIASES: dict[str, tuple[int, int]] = {"720p": (1280, 720), "1080p": (1920, 1080),
                                            "1440p": (2560, 1440), "2160p": (3840, 2160),
                                            "4k": (3840, 2160)}
MAX_SIDE = 16384
_SIZE = re.compile(r"\s*(\d+)\s*[xX]\s*(\d+)\s*")


def parse_size(text: str, aliases: Mapping[str, tuple[int, int]] = SIZE_ALIASES) -> tuple[int, int]:
    """``WIDTHxHEIGHT`` or one of ``aliases`` to ``(width, height)``, each side 1..16384.

    ``ValueError`` with one sentence for anything else.
    """
    low = str(text).strip().lower()
    if low in aliases:
        return aliases[low]
    m = _SIZE.fullmatch(low)
    if not m:
        raise ValueError(f"size must be WIDTHxHEIGHT, as one of {', '.join(aliases)} or WxH "
                         f"(e.g. 1920x1080), got {text!r}")
    w, h = int(m.group(1)), int(m.group(2))
    if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE):
        raise ValueError(f"size {w}x{h} is outside 1..{MAX_SIDE} per side")
    return w, h
