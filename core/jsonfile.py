"""The one way testcard reads a JSON document it did not just write itself, and the one way it
writes one (:func:`dump_json`: never ``NaN`` or ``Infinity``, which are not JSON).

Every settings file, preset, manifest and decision file is read through :func:`load_json`,
which refuses, with one sentence naming the file and the reason, what ``json.loads`` would
accept or choke on: a document over a size cap (checked before reading it whole), bytes that
are not UTF-8, nesting deeper than a cap (checked before parsing, so a hostile file cannot
exhaust the stack), integers with more digits than a cap (before Python converts them),
``NaN``/``Infinity`` literals, and duplicate keys in one object (which ``json`` silently
resolves to the last one).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

MAX_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 32
MAX_INT_DIGITS = 30


class JsonError(ValueError):
    """A JSON document testcard refuses; the message is one sentence naming the source."""


_SPECIAL = re.compile(r'[\[\]{}"\\]')


def _nesting_depth(text: str) -> int:
    """The deepest bracket nesting outside strings, without parsing: one linear pass that
    visits only brackets, quotes and backslashes (no backtracking, no copy of the text)."""
    depth = deepest = 0
    in_string = False
    skip = -1          # the position of a character escaped by a backslash
    for m in _SPECIAL.finditer(text):
        i = m.start()
        if i == skip:
            continue
        ch = text[i]
        if in_string:
            if ch == "\\":
                skip = i + 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "[" or ch == "{":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif ch == "]" or ch == "}":
            depth -= 1
    return deepest


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise JsonError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _refuse_constant(name):
    raise JsonError(f"{name} is not a number testcard accepts")


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise JsonError(f"an integer of {len(digits)} digits is too long")
    return int(digits)


def parse_json(text, *, source: str = "JSON", max_bytes: int = MAX_BYTES,
               max_depth: int = MAX_DEPTH):
    """``text`` (str or bytes) parsed under the caps above; :class:`JsonError` otherwise."""
    if isinstance(text, bytes | bytearray):
        if len(text) > max_bytes:
            raise JsonError(f"{source}: {len(text)} bytes is over the {max_bytes}-byte limit")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise JsonError(f"{source}: not UTF-8 text (byte {e.start})") from None
    elif len(text) > max_bytes:
        raise JsonError(f"{source}: {len(text)} characters is over the {max_bytes} limit")
    if text.startswith("\ufeff"):
        text = text[1:]
    depth = _nesting_depth(text)
    if depth > max_depth:
        raise JsonError(f"{source}: nested {depth} deep, over the limit of {max_depth}")
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates,
                          parse_constant=_refuse_constant, parse_int=_bounded_int)
    except JsonError as e:
        raise JsonError(f"{source}: {e}") from None
    except (ValueError, RecursionError) as e:
        raise JsonError(f"{source}: not valid JSON ({e})") from None


def load_json(path, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH):
    """The JSON document in file ``path``, read under the caps above.

    Raises :class:`JsonError` for a document testcard refuses and ``OSError`` for a file it
    cannot read (callers decide whether that is a refusal or a fallback). A file over
    ``max_bytes`` is refused from its size alone, without reading it.
    """
    p = Path(path)
    with open(p, "rb") as fh:
        size = fh.seek(0, 2)
        if size > max_bytes:
            raise JsonError(f"{p}: {size} bytes is over the {max_bytes}-byte limit")
        fh.seek(0)
        data = fh.read(max_bytes + 1)
    return parse_json(data, source=str(p), max_bytes=max_bytes, max_depth=max_depth)


class NonFiniteError(TypeError):
    """A document to write holds NaN or an infinity: a figure that can be unknown must be None
    (null) at its source.  A bug in testcard, not in the user's input, hence not a ValueError."""


def _first_non_finite(obj, path: str = "$"):
    if isinstance(obj, float):
        return None if math.isfinite(obj) else (path, obj)
    if isinstance(obj, dict):
        items = ((f"{path}.{k}", v) for k, v in obj.items())
    elif isinstance(obj, list | tuple):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(obj))
    else:
        return None
    for where, value in items:
        found = _first_non_finite(value, where)
        if found is not None:
            return found
    return None


def dump_json(obj, *, indent: int | None = None, sort_keys: bool = False, **kwargs) -> str:
    """``obj`` as JSON text, refusing NaN and infinities (:class:`NonFiniteError` naming where
    the first one is) instead of writing ``NaN``/``Infinity``, which no JSON reader accepts."""
    try:
        return json.dumps(obj, indent=indent, sort_keys=sort_keys, allow_nan=False, **kwargs)
    except ValueError:
        found = _first_non_finite(obj)
        if found is None:
            raise
        where, value = found
        raise NonFiniteError(f"{where} is {value!r}, which JSON cannot carry (an unknown figure "
                             "is written as null)") from None
