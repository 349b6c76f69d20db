"""Code values: bit depth, full and limited (video) range, colours.

A code value changes bit depth by one rule (:func:`rescale_terms`), wherever testcard changes
one: full range by proportion of full scale, ``round(v * (2**n - 1) / (2**m - 1))`` halves up
(10-bit 767 is 8-bit 191, 4-bit white 15 is 8-bit 255); limited range by bit shift, which is
the same proportion on the standard's span: black 16 and white 235 at 8 bits become 64 and
940 at 10 bits, 4096 and 60160 at 16.  All arithmetic here is on Python ints, so every backend
sees the same constants.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass
from typing import Literal, overload

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

    def percent_of(self, code: float) -> float:
        return 100.0 * (code - self.black) / (self.white - self.black)

    def check(self, value: int, what: str = "colour value") -> int:
        if not 0 <= int(value) <= self.top:
            raise ValueError(
                f"{what} {value} is outside 0..{self.top} at {self.bit_depth} bits"
            )
        return int(value)


_NAMED = {"white": 100.0, "black": 0.0, "grey": 50.0, "gray": 50.0}

# Bounds on what a parser reads, so a hostile value costs nothing and its message stays one line.
MAX_NUMBER_CHARS = 64      # a number given as text
MAX_COLOUR_CHARS = 200     # a colour given as text (a palette: four of them)
MAX_MAGNITUDE = 2**63      # integers past this are refused before any arithmetic
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
_NOT_FINITE = re.compile(r"[+-]?(inf|infinity|nan)")


def shown(value, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters: a message quoting a 100,000-character input,
    or an integer of thousands of digits, stays one short line."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit] + "...")
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@overload
def parse_number(value, what: str, *, integer: Literal[True]) -> int: ...
@overload
def parse_number(value, what: str, *, integer: bool = False) -> int | float: ...
def parse_number(value, what: str, *, integer: bool = False) -> int | float:
    """A finite number from a JSON or Python number or from text; ``ValueError`` naming ``what``.

    Refuses true/false (a boolean is not a number), ``inf``/``nan`` and anything that overflows
    to them (``1e400``), magnitudes of 2**63 and over, text over 64 characters, and with
    ``integer`` a number with a fraction.  Range checks are the caller's.
    """
    if isinstance(value, bool):
        raise ValueError(f"{what}: {str(value).lower()} is a true/false value, not a number")
    if isinstance(value, str):
        text = value.strip()
        if len(text) > MAX_NUMBER_CHARS:
            raise ValueError(f"{what}: {shown(value)} is too long to be a number")
        if _NOT_FINITE.fullmatch(text.lower()):
            raise ValueError(f"{what}: {text} is not a finite number")
        if integer and _INTEGER.fullmatch(text):
            value = int(text)
        elif _NUMBER.fullmatch(text):
            value = float(text)
            if not math.isfinite(value):
                raise ValueError(f"{what}: {text} is not a finite number")
        else:
            kind = "an integer" if integer else "a number"
            raise ValueError(f"{what}: cannot read {shown(value)} as {kind}")
    if isinstance(value, numbers.Integral):
        if abs(int(value)) >= MAX_MAGNITUDE:
            raise ValueError(f"{what}: {shown(int(value))} is out of range")
        return int(value)
    if isinstance(value, numbers.Real):
        f = float(value)
        if not math.isfinite(f):
            raise ValueError(f"{what}: {f} is not a finite number")
        if abs(f) >= MAX_MAGNITUDE:
            raise ValueError(f"{what}: {f:g} is out of range")
        if integer:
            if f != int(f):
                raise ValueError(f"{what}: expected an integer, got {shown(value)}")
            return int(f)
        return f
    kind = "an integer" if integer else "a number"
    raise ValueError(f"{what}: expected {kind}, got {shown(value)}")


def parse_colour(value, levels: Levels, what: str = "colour") -> tuple[int, int, int]:
    """Resolve a colour to three code values.

    Accepts a sequence of 1 or 3 ints (code values), a string of 1 or 3
    comma-separated entries, each an int code value or a percentage such as
    ``75%`` of the black..white span, or one of white/black/grey.  Anything
    else, true/false included, is one ``ValueError`` starting ``what:``.
    """
    if isinstance(value, str):
        if len(value) > MAX_COLOUR_CHARS:
            raise ValueError(f"{what}: {shown(value)} is too long to be a colour")
        text = value.strip().lower()
        if text in _NAMED:
            v = levels.level(_NAMED[text])
            return (v, v, v)
        parts = [p.strip() for p in re.split(r"[,\s]+", text) if p.strip()]
    elif isinstance(value, bool):
        raise ValueError(f"{what}: {str(value).lower()} is a true/false value, not a colour")
    elif isinstance(value, numbers.Real):
        parts = [value]
    elif isinstance(value, (list, tuple)):
        parts = list(value)
    else:
        raise ValueError(f"{what}: cannot read {shown(value)} as a colour")
    if len(parts) not in (1, 3):
        raise ValueError(f"{what}: expected 1 or 3 components, got {len(parts)} in {shown(value)}")
    out = []
    for p in parts:
        if isinstance(p, str) and p.endswith("%"):
            pct = parse_number(p[:-1], what)
            if not 0.0 <= pct <= 100.0:
                raise ValueError(f"{what}: percentage {p} is outside 0..100 %")
            out.append(levels.level(pct))
            continue
        code = parse_number(p, what, integer=True)
        out.append(levels.check(code, f"{what}:"))
    if len(out) == 1:
        out = out * 3
    return tuple(out)  # type: ignore[return-value]


def parse_palette(value, levels: Levels, what: str = "palette") -> tuple[tuple[int, int, int], ...]:
    """1 to 4 colours, separated by ``;`` or ``/`` in a string, or a sequence of colours
    (a flat sequence of numbers, or one number, is one colour)."""
    if isinstance(value, str):
        if len(value) > 4 * MAX_COLOUR_CHARS:
            raise ValueError(f"{what}: {shown(value)} is too long to be a palette")
        items = [s for s in re.split(r"[;/]", value) if s.strip()]
    elif isinstance(value, bool):
        raise ValueError(f"{what}: {str(value).lower()} is a true/false value, not a palette")
    elif isinstance(value, numbers.Real):
        items = [value]
    elif isinstance(value, (list, tuple)):
        items = list(value)
        if items and all(isinstance(v, numbers.Real) for v in items):
            items = [items]
    else:
        raise ValueError(f"{what}: cannot read {shown(value)} as a palette of 1 to 4 colours")
    if not 1 <= len(items) <= 4:
        raise ValueError(f"{what}: expected 1 to 4 colours, got {len(items)}")
    return tuple(parse_colour(c, levels, f"{what} colour {i}") for i, c in enumerate(items))


def swatch_rgb(code: tuple[int, int, int], levels: Levels) -> tuple[int, int, int]:
    """An 8-bit sRGB-ish preview colour for code values (black..white span mapped to 0..255)."""
    span = max(1, levels.white - levels.black)
    return tuple(max(0, min(255, round((c - levels.black) * 255 / span))) for c in code)  # type: ignore[return-value]


def rescale_terms(old: Levels, new: Levels) -> tuple[int, int, int]:
    """``(mul, add, div)`` with which a code value ``v`` at ``old`` levels is ``(v * mul + add)
    // div`` at ``new`` ones (then clamped to ``0..new.top``): the one depth-conversion rule,
    which :func:`rescale_code` applies to a number and :func:`core.engine.formats.rescale` to
    numpy and torch arrays, so the preview, ``render``, ``serve`` and the parameter editors all
    give the same code for the same value.

    * same bit depth: unchanged;
    * full range (either side): by proportion of full scale, ``round(v * (2**n - 1) /
      (2**m - 1))`` from ``m`` to ``n`` bits, halves up, in integers
      (``(2 * v * (2**n - 1) + (2**m - 1)) // (2 * (2**m - 1))``; the divisor is odd, so no
      value is ever a tie).  Narrowing and widening alike: 767 at 10 bits is 191 at 8, 1023 is
      255, and white stays white going up too (4-bit 15 is 8-bit 255, 1-bit 1 is 255);
    * both limited range: by shift, up ``v * 2**d``, down ``round(v / 2**d)`` halves up, which
      is the same proportion taken on the standard's nominal span (black ``16 * 2**(n-8)``,
      white ``235 * 2**(n-8)``): 16..235 at 8 bits are exactly 64..940 at 10 and 4096..60160
      at 16.  (Full scale's proportion would move limited white 940 to 234 at 8 bits.)
    """
    m, n = old.bit_depth, new.bit_depth
    if m == n:
        return 1, 0, 1
    if old.limited and new.limited:
        d = n - m
        return (1 << d, 0, 1) if d > 0 else (1, 1 << (-d - 1), 1 << -d)
    return 2 * new.top, old.top, 2 * old.top


def rescale_code(value: int, old: Levels, new: Levels) -> int:
    """A code value carried from ``old`` levels to ``new`` ones by the one rule
    (:func:`rescale_terms`), clamped to ``0..new.top``.

    Up then down is the identity: for every value at ``m`` bits and every ``n > m``,
    ``rescale_code(rescale_code(v, m, n), n, m) == v`` (a step up is at least ~2 codes wide,
    so rounding back lands on ``v``).  Down then up cannot be (fewer codes); that is why
    an editor keeps what was typed (:class:`TypedCode`) and converts from that original.
    """
    mul, add, div = rescale_terms(old, new)
    return max(0, min(new.top, (int(value) * mul + add) // div))


_BY_SHIFT = " (limited range, by shift)"


def depth_rule(old: Levels, new: Levels) -> str:
    """The rule :func:`rescale_code` applies from ``old`` to ``new``, as a formula a person can
    check by hand: ``round(v*255/1023)``, ``v*4 (limited range, by shift)``, ``unchanged``."""
    if old.bit_depth == new.bit_depth:
        return "unchanged"
    if old.limited and new.limited:
        d = new.bit_depth - old.bit_depth
        return f"v*{1 << d}" + _BY_SHIFT if d > 0 else f"round(v/{1 << -d})" + _BY_SHIFT
    return f"round(v*{new.top}/{old.top})"


def _a(bits: int) -> str:
    return f"an {bits}" if bits in (8, 11, 18) else f"a {bits}"


def depth_note(frame_bits: int, surface_bits: int, limited: bool = False) -> str:
    """What a frame's code values become on a surface of another depth, in one sentence:
    ``10-bit frame on an 8-bit surface: codes scaled by round(v*255/1023)``; ``""`` when the
    depths are the same.  ``limited``: the frame (and so its conversion) is limited range."""
    if frame_bits == surface_bits:
        return ""
    rule = depth_rule(Levels(frame_bits, limited), Levels(surface_bits, limited))
    return f"{frame_bits}-bit frame on {_a(surface_bits)}-bit surface: codes scaled by {rule}"


@dataclass(frozen=True)
class TypedCode:
    """Code values as typed, and the levels they were typed at.

    Shown at other levels by converting from this original each time
    (:func:`rescale_code`), never from an already converted value: 200 typed at 8 bits
    shows 100 at 7 bits and 200 again at 8, however many depths lie between.
    """

    code: tuple[int, ...]
    levels: Levels

    def at(self, levels: Levels) -> tuple[int, ...]:
        if levels == self.levels:
            return tuple(self.code)
        return tuple(rescale_code(v, self.levels, levels) for v in self.code)
