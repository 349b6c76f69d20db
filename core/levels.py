"""Code values: bit depth, full and limited (video) range, colours.

Limited range is scaled by bit shift, never by multiplication: black 16 and
white 235 at 8 bits become 64 and 940 at 10 bits, 4096 and 60160 at 16.
All arithmetic here is on Python ints, so every backend sees the same constants.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MIN_BITS, MAX_BITS = 1, 16


@dataclass(frozen=True)
class Levels:
    bit_depth: int
    limited: bool = False

    def __post_init__(self):
        if not isinstance(self.bit_depth, int) or not MIN_BITS <= self.bit_depth <= MAX_BITS:
            raise ValueError(f"bit depth must be an integer {MIN_BITS}..{MAX_BITS}, got {self.bit_depth!r}")
        if self.limited and self.bit_depth < 8:
            raise ValueError(f"limited range needs at least 8 bits, got {self.bit_depth}")

    @property
    def top(self) -> int:
        """Largest code value at this bit depth."""
        return (1 << self.bit_depth) - 1

    @property
    def black(self) -> int:
        return 16 << (self.bit_depth - 8) if self.limited else 0

    @property
    def white(self) -> int:
        return 235 << (self.bit_depth - 8) if self.limited else self.top

    def narrow(self, code8: int) -> int:
        """An 8-bit narrow-range level scaled to this depth by shift (64 at 10 bits for 16)."""
        if self.bit_depth >= 8:
            return code8 << (self.bit_depth - 8)
        return code8 >> (8 - self.bit_depth)

    def level(self, percent: float) -> int:
        """Code value for a percentage of the black..white span, rounded half up."""
        span = self.white - self.black
        value = self.black + int((float(percent) * span + 50) // 100)
        return max(0, min(self.top, value))

    def percent_of(self, code: int) -> float:
        return 100.0 * (code - self.black) / (self.white - self.black)

    def check(self, value: int, what: str = "colour value") -> int:
        if not 0 <= int(value) <= self.top:
            raise ValueError(
                f"{what} {value} is outside 0..{self.top} at {self.bit_depth} bits"
            )
        return int(value)


_NAMED = {"white": 100.0, "black": 0.0, "grey": 50.0, "gray": 50.0}


def parse_colour(value, levels: Levels, what: str = "colour") -> tuple[int, int, int]:
    """Resolve a colour to three code values.

    Accepts a sequence of 1 or 3 ints (code values), a string of 1 or 3
    comma-separated entries, each an int code value or a percentage such as
    ``75%`` of the black..white span, or one of white/black/grey.
    """
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _NAMED:
            v = levels.level(_NAMED[text])
            return (v, v, v)
        parts = [p.strip() for p in re.split(r"[,\s]+", text) if p.strip()]
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        parts = [value]
    else:
        try:
            parts = list(value)
        except TypeError:
            raise ValueError(f"{what}: cannot read {value!r} as a colour") from None
    if len(parts) not in (1, 3):
        raise ValueError(f"{what}: expected 1 or 3 components, got {len(parts)} in {value!r}")
    out = []
    for p in parts:
        if isinstance(p, str) and p.endswith("%"):
            try:
                pct = float(p[:-1])
            except ValueError:
                raise ValueError(f"{what}: cannot read {p!r} as a percentage") from None
            if not 0.0 <= pct <= 100.0:
                raise ValueError(f"{what}: percentage {p} is outside 0..100 %")
            out.append(levels.level(pct))
            continue
        try:
            f = float(p)
        except (TypeError, ValueError):
            raise ValueError(f"{what}: cannot read {p!r} as a code value") from None
        if f != int(f):
            raise ValueError(f"{what}: code values are integers, got {p!r}")
        out.append(levels.check(int(f), f"{what} value"))
    if len(out) == 1:
        out = out * 3
    return tuple(out)  # type: ignore[return-value]


def parse_palette(value, levels: Levels, what: str = "palette") -> tuple[tuple[int, int, int], ...]:
    """1 to 4 colours, separated by ``;`` or ``/`` in a string, or a sequence of colours."""
    if isinstance(value, str):
        items = [s for s in re.split(r"[;/]", value) if s.strip()]
    else:
        items = list(value)
        if items and all(isinstance(v, (int, float)) for v in items):
            items = [items]
    if not 1 <= len(items) <= 4:
        raise ValueError(f"{what}: expected 1 to 4 colours, got {len(items)}")
    return tuple(parse_colour(c, levels, f"{what} colour {i}") for i, c in enumerate(items))


def swatch_rgb(code: tuple[int, int, int], levels: Levels) -> tuple[int, int, int]:
    """An 8-bit sRGB-ish preview colour for code values (black..white span mapped to 0..255)."""
    span = max(1, levels.white - levels.black)
    return tuple(max(0, min(255, round((c - levels.black) * 255 / span))) for c in code)  # type: ignore[return-value]


def rescale_code(value: int, old: Levels, new: Levels) -> int:
    """A code value carried to another bit depth: by shift in limited range (64 at 10 bits is
    16 at 8), by proportion of full scale in full range (1023 at 10 bits is 255 at 8)."""
    if old.bit_depth == new.bit_depth:
        return min(value, new.top)
    if old.limited and new.limited:
        d = new.bit_depth - old.bit_depth
        out = value << d if d > 0 else value >> -d
    else:
        out = round(value * new.top / old.top)
    return max(0, min(new.top, out))
