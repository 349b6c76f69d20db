"""The field checks every decision document's validation is made of, and its one error type:
numbers, integers and strings with their caps, and control characters found or cleaned."""

from __future__ import annotations

import math
import unicodedata
from typing import Literal, overload


class DecisionFileError(ValueError):
    """A decision file (or the cache) that cannot be used, with one sentence saying why."""


class NewerSchemaError(DecisionFileError):
    """A document written by a newer testcard (a schema above :data:`core.decisions.schema.SCHEMA`)."""


@overload
def number_field(v, what: str, hi: float, *, none_ok: Literal[False] = False) -> float: ...
@overload
def number_field(v, what: str, hi: float, *, none_ok: bool = False) -> float | None: ...
def number_field(v, what: str, hi: float, *, none_ok: bool = False) -> float | None:
    if v is None and none_ok:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0 <= v <= hi:
        raise DecisionFileError(f"{what} must be a number in 0..{hi:g}, got {v!r}")
    return float(v)


def integer_field(v, what: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise DecisionFileError(f"{what} must be an integer {lo}..{hi}, got {v!r}")
    return v


_CONTROL = {"Cc", "Cf", "Cs", "Zl", "Zp"}   # control, format, surrogate, line/paragraph separators


def control_char(text: str, *, multiline: bool = False) -> str | None:
    """The first control character in ``text`` (``None`` when it has none); ``multiline``
    allows newlines and tabs."""
    if (text.replace("\n", " ").replace("\t", " ") if multiline else text).isprintable():
        return None   # the common case, in C: isprintable() refuses a superset of _CONTROL
    for ch in text:
        if multiline and ch in "\n\t":
            continue
        if unicodedata.category(ch) in _CONTROL:
            return ch
    return None


def clean_text(text: str, limit: int) -> str:
    """``text`` as written into a document: control characters other than newline and tab
    replaced by a space, cut to ``limit`` characters."""
    text = text[:limit]
    if control_char(text, multiline=True) is None:
        return text
    return "".join(" " if ch not in "\n\t" and unicodedata.category(ch) in _CONTROL else ch
                   for ch in text)


@overload
def text_field(v, what: str, limit: int, *, none_ok: Literal[False] = False, empty_ok: bool = True,
               multiline: bool = False) -> str: ...
@overload
def text_field(v, what: str, limit: int, *, none_ok: bool = False, empty_ok: bool = True,
               multiline: bool = False) -> str | None: ...
def text_field(v, what: str, limit: int, *, none_ok: bool = False, empty_ok: bool = True,
          multiline: bool = False) -> str | None:
    if v is None and none_ok:
        return None
    if not isinstance(v, str) or len(v) > limit or (not empty_ok and not v.strip()):
        shown = f"{len(v)} characters" if isinstance(v, str) and len(v) > limit else f"{v!r:.60}"
        raise DecisionFileError(f"{what} must be a string of at most {limit} characters, got {shown}")
    bad = control_char(v, multiline=multiline)
    if bad is not None:
        raise DecisionFileError(f"{what} holds a control character ({bad!r})")
    return v
