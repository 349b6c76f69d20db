"""The pattern registry: every pattern's parameters and body (the frame description itself,
``Spec``, is ``core.patterns.spec``).

The GUI's parameter editor, the CLI and the presets all read parameters from
here: name, kind, default, range, description, and whether a pattern animates.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.levels import Levels, parse_colour, parse_palette

PARAM_KINDS = ("int", "float", "choice", "bool", "colour", "palette")


def jsonable(v):
    if isinstance(v, tuple):
        return [jsonable(x) for x in v]
    return v


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
        d = {"name": self.name, "kind": self.kind, "default": jsonable(self.default),
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
    try:
        return PATTERNS[name]
    except KeyError:
        raise ValueError(f"unknown pattern {name!r}: expected one of {', '.join(PATTERNS)}") from None


def catalog() -> list[Pattern]:
    return list(PATTERNS.values())


