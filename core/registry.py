"""The pattern registry, and the validated, immutable description of a frame.

The GUI's parameter editor, the CLI and the presets all read parameters from
here: name, kind, default, range, description, and whether a pattern animates.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core import xp as X
from core.counter import DEFAULT_BITS, LAYOUTS, CounterGeometry, geometry_for
from core.levels import Levels, parse_colour, parse_palette

PARAM_KINDS = ("int", "float", "choice", "bool", "colour", "palette")


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    default: Any
    description: str
    min: float | None = None
    max: float | None = None
    choices: tuple = ()

    def resolve(self, value, levels: Levels):
        """Parse and validate one value (strings from the CLI accepted)."""
        what = f"parameter {self.name!r}"
        if self.kind == "colour":
            return parse_colour(value, levels, what)
        if self.kind == "palette":
            return parse_palette(value, levels, what)
        if self.kind == "bool":
            if isinstance(value, str):
                low = value.strip().lower()
                if low in ("1", "true", "yes", "on"):
                    return True
                if low in ("0", "false", "no", "off"):
                    return False
                raise ValueError(f"{what}: expected true/false, got {value!r}")
            if isinstance(value, (bool, int)) and value in (0, 1):
                return bool(value)
            raise ValueError(f"{what}: expected true/false, got {value!r}")
        if self.kind == "choice":
            text = str(value)
            if text not in self.choices:
                raise ValueError(f"{what}: {value!r} is not one of {', '.join(map(str, self.choices))}")
            return text
        if self.kind == "int":
            try:
                f = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"{what}: expected an integer, got {value!r}") from None
            if isinstance(value, bool) or not math.isfinite(f) or f != int(f):
                raise ValueError(f"{what}: expected an integer, got {value!r}")
            v = int(f)
        elif self.kind == "float":
            try:
                v = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"{what}: expected a number, got {value!r}") from None
            if not math.isfinite(v):
                raise ValueError(f"{what}: expected a finite number, got {value!r}")
        else:  # pragma: no cover - guarded by PARAM_KINDS
            raise ValueError(f"unknown parameter kind {self.kind}")
        if self.min is not None and v < self.min:
            raise ValueError(f"{what}: {v} is below the minimum {self.min:g}")
        if self.max is not None and v > self.max:
            raise ValueError(f"{what}: {v} is above the maximum {self.max:g}")
        return v

    def to_dict(self) -> dict:
        d = {"name": self.name, "kind": self.kind, "default": _jsonable(self.default),
             "description": self.description}
        if self.min is not None:
            d["min"] = self.min
        if self.max is not None:
            d["max"] = self.max
        if self.choices:
            d["choices"] = list(self.choices)
        return d


@dataclass(frozen=True)
class Pattern:
    name: str
    group: str
    title: str
    description: str
    params: tuple[Param, ...]
    body: Callable
    animates: Callable[[Mapping[str, Any]], bool] = field(default=lambda p: False)
    min_bits: int = 1

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params) or "none"
        raise ValueError(f"pattern {self.name!r} has no parameter {name!r} (known: {known})")

    @property
    def can_animate(self) -> bool:
        """True when some parameter setting makes this pattern change per frame."""
        defaults = {p.name: p.default for p in self.params}
        return bool(self.animates(defaults)) or any(p.name in ANIMATION_PARAMS for p in self.params)

    def to_dict(self) -> dict:
        return {"name": self.name, "group": self.group, "title": self.title,
                "description": self.description, "animates": self.can_animate,
                "params": [p.to_dict() for p in self.params]}


# Parameters whose non-zero value makes a pattern animate.
ANIMATION_PARAMS = ("invert_every", "scroll")

PATTERNS: dict[str, Pattern] = {}


def register(pattern: Pattern) -> Pattern:
    if pattern.name in PATTERNS:
        raise ValueError(f"pattern {pattern.name!r} registered twice")
    PATTERNS[pattern.name] = pattern
    return pattern


def get_pattern(name: str) -> Pattern:
    _load()
    try:
        return PATTERNS[name]
    except KeyError:
        raise ValueError(f"unknown pattern {name!r}: expected one of {', '.join(PATTERNS)}") from None


def catalog() -> list[Pattern]:
    _load()
    return list(PATTERNS.values())


def _load():
    # The bodies register themselves on import; imported lazily to keep this module light.
    import core.patterns  # noqa: F401


def _jsonable(v):
    if isinstance(v, tuple):
        return [_jsonable(x) for x in v]
    return v


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
                "params": {k: _jsonable(v) for k, v in self.params},
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

    def frame_index(self):
        return X.frame_scalar(self.xp, self.frame, self.device)


__all__ = ["Param", "Pattern", "Spec", "Ctx", "make_spec", "get_pattern", "catalog", "register",
           "PATTERNS", "DEFAULT_BITS", "LAYOUTS"]
