"""The pattern registry: every pattern's parameters and body (the frame description itself,
``Spec``, is ``core.patterns.spec``).

The GUI's parameter editor, the CLI and the presets all read parameters from
here: name, kind, default, range, description, and whether a pattern animates.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.levels import Levels, parse_colour, parse_number, parse_palette, shown


def jsonable(v):
    if isinstance(v, tuple):
        return [jsonable(x) for x in v]
    return v


def _check_range(p: Param, v):
    if p.min is not None and v < p.min:
        raise ValueError(f"{p.name}: {v} is below the minimum {p.min:g}")
    if p.max is not None and v > p.max:
        raise ValueError(f"{p.name}: {v} is above the maximum {p.max:g}")
    return v


def _int(p: Param, value, levels: Levels) -> int:
    return _check_range(p, parse_number(value, p.name, integer=True))


def _float(p: Param, value, levels: Levels) -> float:
    return _check_range(p, float(parse_number(value, p.name)))


def _choice(p: Param, value, levels: Levels) -> str:
    text = value.strip() if isinstance(value, str) else None
    if text is None or text not in p.choices:
        raise ValueError(f"{p.name}: {shown(value)} is not one of {', '.join(map(str, p.choices))}")
    return text


_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _bool(p: Param, value, levels: Levels) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and len(value) <= 16:
        low = value.strip().lower()
        if low in _TRUE or low in _FALSE:
            return low in _TRUE
    elif isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    raise ValueError(f"{p.name}: expected true/false, got {shown(value)}")


def _colour(p: Param, value, levels: Levels) -> tuple[int, int, int]:
    return parse_colour(value, levels, p.name)


def _palette(p: Param, value, levels: Levels) -> tuple[tuple[int, int, int], ...]:
    return parse_palette(value, levels, p.name)


# One validator per parameter kind: each returns the value or raises one ValueError that starts
# with the parameter's name ("color: inf is not a finite number").
VALIDATORS: dict[str, Callable[[Param, Any, Levels], Any]] = {
    "int": _int, "float": _float, "choice": _choice, "bool": _bool, "colour": _colour,
    "palette": _palette,
}
PARAM_KINDS = tuple(VALIDATORS)


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    default: Any
    description: str
    min: float | None = None
    max: float | None = None
    choices: tuple = ()

    def __post_init__(self):
        if self.kind not in VALIDATORS:
            raise ValueError(f"parameter {self.name!r}: unknown kind {self.kind!r}")

    def resolve(self, value, levels: Levels):
        """Parse and validate one value (strings from the CLI accepted): the value, or one
        ``ValueError`` naming this parameter."""
        return VALIDATORS[self.kind](self, value, levels)

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


def _fits_anything(params: Mapping[str, Any], width: int, height: int) -> None:
    return None


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
    # Refuses (ValueError naming the parameter) resolved parameters that cannot be shown at a
    # frame size: more steps than pixels, more tiles than pixels.
    fits: Callable[[Mapping[str, Any], int, int], None] = _fits_anything

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params) or "none"
        raise ValueError(f"pattern {self.name!r} has no parameter {shown(name)} (known: {known})")

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
    if isinstance(name, str) and name in PATTERNS:
        return PATTERNS[name]
    raise ValueError(f"unknown pattern {shown(name)}: expected one of {', '.join(PATTERNS)}")


def catalog() -> list[Pattern]:
    return list(PATTERNS.values())


