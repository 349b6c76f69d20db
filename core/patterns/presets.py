"""Presets: named sets of patterns an operator steps through ("ANSI contrast", "PLUGE", ...).

A preset file is JSON::

    {"schema": 1, "name": "ANSI contrast", "description": "...",
     "entries": [{"pattern": "checkerboard", "params": {"columns": 4, "rows": 4}}]}

Each entry names a pattern and its parameters, and may pin ``bit_depth``, ``limited``
or ``counter_bits`` (a counter panel over the pattern); everything it leaves out comes
from the output it is shown on.  Every entry is validated through
:func:`core.patterns.make_spec` when the file is read, so a preset that loads renders.

The built-in presets live in the ``resources.presets`` package and are read with
:mod:`importlib.resources`, so they are found installed, editable and in a bundle.
Files are read in name order (``10-near-black-steps.json``...), which is the order
menus show.  Pure Python: no Qt.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from core.patterns.spec import Spec, make_spec

SCHEMA = 1
PACKAGE = "resources.presets"
# The size every entry is validated at when a file is read; entries that need a minimum
# size (a counter panel) must fit here.  The caller's real size is checked again in specs().
CHECK_SIZE = (1920, 1080)

_ENTRY_KEYS = {"pattern", "params", "bit_depth", "limited", "counter_bits"}
_PRESET_KEYS = {"schema", "name", "description", "entries"}


@dataclass(frozen=True)
class PresetEntry:
    pattern: str
    params: tuple[tuple[str, Any], ...] = ()
    bit_depth: int | None = None
    limited: bool | None = None
    counter_bits: int | None = None

    def spec(self, width: int, height: int, *, bit_depth: int = 10, limited: bool = False,
             dtype: str = "uint16") -> Spec:
        """The validated frame for an output of this size, depth and range.

        The entry's own ``bit_depth`` and ``limited`` win over the output's.  Raises
        ``ValueError`` (from :func:`make_spec`) when the entry cannot be shown there,
        e.g. a counter panel that does not fit a tiny frame.
        """
        return make_spec(self.pattern, dict(self.params), width=width, height=height,
                         bit_depth=self.bit_depth if self.bit_depth is not None else bit_depth,
                         limited=self.limited if self.limited is not None else limited,
                         dtype=dtype, counter_bits=self.counter_bits)

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"pattern": self.pattern, "params": dict(self.params)}
        for key in ("bit_depth", "limited", "counter_bits"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        return d


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    entries: tuple[PresetEntry, ...]
    source: str = ""

    def specs(self, width: int, height: int, *, bit_depth: int = 10, limited: bool = False,
              dtype: str = "uint16") -> list[Spec]:
        """Every entry as a validated :class:`Spec` for this output, in order."""
        out = []
        for i, entry in enumerate(self.entries):
            try:
                out.append(entry.spec(width, height, bit_depth=bit_depth, limited=limited, dtype=dtype))
            except ValueError as exc:
                raise ValueError(f"preset {self.name!r} entry {i + 1} ({entry.pattern}): {exc}") from None
        return out

    def to_dict(self) -> dict:
        return {"schema": SCHEMA, "name": self.name, "description": self.description,
                "entries": [e.to_dict() for e in self.entries]}


def parse_preset(data: Any, source: str = "<preset>") -> Preset:
    """A :class:`Preset` from decoded JSON, every entry checked through ``make_spec``.

    Refuses, with one sentence naming ``source`` and the entry: a schema other than
    :data:`SCHEMA`, unknown keys (typos would otherwise be silently ignored), a missing
    name or an empty entry list, and any entry ``make_spec`` refuses.
    """
    where = f"preset {source}"
    if not isinstance(data, Mapping):
        raise ValueError(f"{where}: expected a JSON object, got {type(data).__name__}")
    if data.get("schema") != SCHEMA:
        raise ValueError(f"{where}: schema must be {SCHEMA}, got {data.get('schema')!r}")
    _refuse_unknown_keys(data, _PRESET_KEYS, where)
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{where}: 'name' must be a non-empty string")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise ValueError(f"{where}: 'description' must be a string")
    raw_entries = data.get("entries")
    if not isinstance(raw_entries, list) or not raw_entries:
        raise ValueError(f"{where}: 'entries' must be a non-empty list")
    entries = tuple(_parse_entry(raw, f"{where} entry {i + 1}") for i, raw in enumerate(raw_entries))
    return Preset(name.strip(), description, entries, source)


def _refuse_unknown_keys(obj: Mapping, known, where: str) -> None:
    unknown = set(obj) - known
    if unknown:
        raise ValueError(f"{where}: unknown key {sorted(unknown)[0]!r} "
                         f"(expected {', '.join(sorted(known))})")


def _parse_entry(raw: Any, where: str) -> PresetEntry:
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where}: expected an object, got {type(raw).__name__}")
    _refuse_unknown_keys(raw, _ENTRY_KEYS, where)
    pattern = raw.get("pattern")
    if not isinstance(pattern, str):
        raise ValueError(f"{where}: 'pattern' must be a pattern name")
    params = raw.get("params", {})
    if not isinstance(params, Mapping):
        raise ValueError(f"{where}: 'params' must be an object")
    bit_depth = raw.get("bit_depth")
    limited = raw.get("limited")
    if limited is not None and not isinstance(limited, bool):
        raise ValueError(f"{where}: 'limited' must be true or false")
    counter_bits = raw.get("counter_bits")
    entry = PresetEntry(pattern, tuple(params.items()), bit_depth, limited, counter_bits)
    try:
        entry.spec(*CHECK_SIZE)
    except ValueError as exc:
        raise ValueError(f"{where} ({pattern}): {exc}") from None
    return entry


def load_preset_file(path) -> Preset:
    """Read and validate one preset file (``ValueError`` with the file name when it is bad)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read preset file {p}: {exc.strerror or exc}") from None
    return _parse_text(text, p.name)


def _parse_text(text: str, source: str) -> Preset:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"preset {source}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    return parse_preset(data, source)


def builtin_presets() -> list[Preset]:
    """The presets shipped in ``resources/presets``, in file-name order.

    A bad built-in file is a bug in testcard and raises; the test suite loads them all.
    """
    folder = resources.files(PACKAGE)
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".json")), key=lambda f: f.name)
    presets = [_parse_text(f.read_text(encoding="utf-8"), f.name) for f in files]
    _check_unique(presets)
    return presets


def load_presets(user_dirs: Iterable[Path] = ()) -> tuple[list[Preset], list[str]]:
    """Built-in presets, then each user folder's ``*.json`` files.

    A user preset whose name matches an earlier one replaces it in place.  A bad user
    file is skipped, never fatal: its one-line reason is returned in the problem list.
    """
    presets = builtin_presets()
    problems: list[str] = []
    index = {p.name: i for i, p in enumerate(presets)}
    for folder in user_dirs:
        folder = Path(folder)
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.json")):
            try:
                preset = load_preset_file(path)
            except ValueError as exc:
                problems.append(str(exc))
                continue
            if preset.name in index:
                presets[index[preset.name]] = preset
            else:
                index[preset.name] = len(presets)
                presets.append(preset)
    return presets, problems


def get_preset(name: str, presets: Iterable[Preset] | None = None) -> Preset:
    """The preset called ``name`` (case-insensitive), or ``ValueError`` listing the names."""
    pool = list(builtin_presets() if presets is None else presets)
    for p in pool:
        if p.name.casefold() == name.strip().casefold():
            return p
    raise ValueError(f"unknown preset {name!r}: expected one of {', '.join(p.name for p in pool)}")


def _check_unique(presets: list[Preset]) -> None:
    seen: dict[str, str] = {}
    for p in presets:
        key = p.name.casefold()
        if key in seen:
            raise ValueError(f"preset name {p.name!r} is used by both {seen[key]} and {p.source}")
        seen[key] = p.source


__all__ = ["SCHEMA", "Preset", "PresetEntry", "parse_preset", "load_preset_file", "builtin_presets",
           "load_presets", "get_preset"]
