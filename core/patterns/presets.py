"""Presets: named sets of patterns an operator steps through ("ANSI contrast", "PLUGE", ...).

A preset file is JSON::

    {"schema": 1, "name": "ANSI contrast", "description": "...", "dwell_s": 5.0,
     "entries": [{"pattern": "checkerboard", "params": {"columns": 4, "rows": 4}}]}

Each entry names a pattern and its parameters, and may pin ``bit_depth``, ``limited``,
``counter_bits`` (a counter panel over the pattern) or ``transfer`` (``pq`` or ``hlg``: its
colours may then be given in cd/m2, ``"color": "1000nits"``); everything it leaves out comes
from the output it is shown on.  Every entry is validated through
:func:`core.patterns.make_spec` when the file is read, so a preset that loads renders.

For playing a preset (a patch list for meter readings, :mod:`core.patterns.playback`) the
preset may set ``dwell_s``, how long each entry stays on screen (default
:data:`DEFAULT_DWELL_S`), and an entry may override it with its own ``dwell_s`` and carry a
``name`` for the play log ("grey 40 %").  A dwell is a positive, finite number of seconds
of at most :data:`MAX_DWELL_S`; ``true`` is not a number here, nor a bit depth.

User preset files are read with :func:`core.jsonfile.load_json` (bounded in size, nesting
and integer digits; duplicate keys and ``NaN`` refused); :func:`load_presets` skips a bad
one with its name and reason and never raises for it.

The built-in presets live in the ``resources.presets`` package and are read with
:mod:`importlib.resources`, so they are found installed, editable and in a bundle.
Files are read in name order (``10-near-black-steps.json``...), which is the order
menus show.  Pure Python: no Qt.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from core.jsonfile import JsonError, load_json, parse_json
from core.patterns.frame_format import FrameFormat, entry_specs
from core.patterns.spec import Spec

SCHEMA = 1
PACKAGE = "resources.presets"
# The size every entry is validated at when a file is read; entries that need a minimum
# size (a counter panel) must fit here.  The caller's real size is checked again in specs().
CHECK_SIZE = (1920, 1080)

DEFAULT_DWELL_S = 5.0
MAX_DWELL_S = 24 * 3600.0
MAX_NAME = 200

_ENTRY_KEYS = {"pattern", "params", "bit_depth", "limited", "counter_bits", "dwell_s", "name", "transfer"}
_PRESET_KEYS = {"schema", "name", "description", "entries", "dwell_s"}


@dataclass(frozen=True)
class PresetEntry:
    pattern: str
    params: tuple[tuple[str, Any], ...] = ()
    bit_depth: int | None = None
    limited: bool | None = None
    counter_bits: int | None = None
    dwell_s: float | None = None
    name: str = ""
    transfer: str | None = None

    @property
    def label(self) -> str:
        """The entry's own name, else its pattern's."""
        return self.name or self.pattern

    def spec(self, width: int, height: int, *, bit_depth: int = 10, limited: bool = False,
             dtype: str = "uint16", counter_bits: int | None = None) -> Spec:
        """The validated frame for an output of this size, depth, range and counter overlay:
        :meth:`FrameFormat.entry_spec <core.patterns.FrameFormat.entry_spec>` of that output,
        whose rule it is (the entry's own ``bit_depth``, ``limited`` and ``counter_bits`` win;
        the output's overlay is not laid over the counter pattern).  Raises ``ValueError``
        (from :func:`~core.patterns.make_spec`) when the entry cannot be shown there, e.g. a
        counter panel that does not fit a tiny frame.
        """
        return FrameFormat(width, height, bit_depth, limited, counter_bits).entry_spec(self, dtype=dtype)

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"pattern": self.pattern, "params": dict(self.params)}
        for key in ("bit_depth", "limited", "counter_bits", "dwell_s", "transfer"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        if self.name:
            d["name"] = self.name
        return d


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    entries: tuple[PresetEntry, ...]
    source: str = ""
    dwell_s: float | None = None

    def specs(self, width: int, height: int, *, bit_depth: int = 10, limited: bool = False,
              dtype: str = "uint16", counter_bits: int | None = None) -> list[Spec]:
        """Every entry as a validated :class:`Spec` for this output, in order
        (:meth:`FrameFormat.preset_specs <core.patterns.FrameFormat.preset_specs>` of it)."""
        return entry_specs(FrameFormat(width, height, bit_depth, limited, counter_bits), self.name,
                           self.entries, dtype=dtype)

    def dwells(self) -> list[float]:
        """How long each entry stays on screen when played: its own dwell, else the preset's,
        else :data:`DEFAULT_DWELL_S`."""
        default = self.dwell_s if self.dwell_s is not None else DEFAULT_DWELL_S
        return [e.dwell_s if e.dwell_s is not None else default for e in self.entries]

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"schema": SCHEMA, "name": self.name, "description": self.description}
        if self.dwell_s is not None:
            d["dwell_s"] = self.dwell_s
        d["entries"] = [e.to_dict() for e in self.entries]
        return d


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
    dwell_s = _dwell(data, where)
    raw_entries = data.get("entries")
    if not isinstance(raw_entries, list) or not raw_entries:
        raise ValueError(f"{where}: 'entries' must be a non-empty list")
    entries = tuple(_parse_entry(raw, f"{where} entry {i + 1}") for i, raw in enumerate(raw_entries))
    return Preset(name.strip(), description, entries, source, dwell_s)


def _dwell(obj: Mapping, where: str) -> float | None:
    """``obj['dwell_s']``: absent, or seconds that are a positive finite number up to the cap."""
    if "dwell_s" not in obj:
        return None
    v = obj["dwell_s"]
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ValueError(f"{where}: 'dwell_s' must be a number of seconds, got {v!r}")
    if not math.isfinite(v) or v <= 0:
        raise ValueError(f"{where}: 'dwell_s' must be a positive finite number of seconds, got {v!r}")
    if v > MAX_DWELL_S:
        raise ValueError(f"{where}: 'dwell_s' {v:g} s is over the limit of {MAX_DWELL_S:g} s (24 h)")
    return float(v)


def _whole(obj: Mapping, key: str, where: str) -> int | None:
    """``obj[key]``: absent/null, or an integer (``true`` is not one; range is make_spec's)."""
    v = obj.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"{where}: {key!r} must be a whole number, got {v!r}")
    return v


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
    bit_depth = _whole(raw, "bit_depth", where)
    limited = raw.get("limited")
    if limited is not None and not isinstance(limited, bool):
        raise ValueError(f"{where}: 'limited' must be true or false")
    counter_bits = _whole(raw, "counter_bits", where)
    dwell_s = _dwell(raw, where)
    label = raw.get("name", "")
    if not isinstance(label, str) or len(label) > MAX_NAME:
        raise ValueError(f"{where}: 'name' must be a string of at most {MAX_NAME} characters")
    transfer = raw.get("transfer")
    if transfer is not None and not isinstance(transfer, str):
        raise ValueError(f"{where}: 'transfer' must be sdr, pq or hlg")
    entry = PresetEntry(pattern, tuple(params.items()), bit_depth, limited, counter_bits, dwell_s,
                        label.strip(), transfer)
    try:
        entry.spec(*CHECK_SIZE)
    except (ValueError, TypeError, OverflowError) as exc:
        # make_spec's refusals are ValueErrors; a wrong-typed value must not escape as another type
        raise ValueError(f"{where} ({pattern}): {exc}") from None
    return entry


def load_preset_file(path) -> Preset:
    """Read and validate one preset file (``ValueError`` with the file name when it is bad).

    Read through :func:`core.jsonfile.load_json`: an oversized, too deeply nested, non-UTF-8
    file, duplicate keys or ``NaN`` are refused before any entry is looked at.
    """
    p = Path(path)
    try:
        data = load_json(p)
    except OSError as exc:
        raise ValueError(f"cannot read preset file {p}: {exc.strerror or exc}") from None
    except JsonError as exc:
        # load_json names the whole path; the preset's file name is what the operator knows
        reason = str(exc).removeprefix(f"{p}: ")
        raise ValueError(f"preset {p.name}: {reason}") from None
    return parse_preset(data, p.name)


def _parse_text(text: str, source: str) -> Preset:
    return parse_preset(parse_json(text, source=f"preset {source}"), source)


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

    A user preset whose name matches an earlier one (ignoring case, as :func:`get_preset`
    does) replaces it in place.  A bad user file, or a folder that cannot be listed, is
    skipped, never fatal: its one-line reason is returned in the problem list.
    """
    presets = builtin_presets()
    problems: list[str] = []
    index = {p.name.casefold(): i for i, p in enumerate(presets)}
    for folder in user_dirs:
        folder = Path(folder)
        try:
            paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
        except OSError as exc:
            problems.append(f"cannot list preset folder {folder}: {exc.strerror or exc}")
            continue
        for path in paths:
            try:
                preset = load_preset_file(path)
            except ValueError as exc:
                problems.append(str(exc))
                continue
            key = preset.name.casefold()
            if key in index:
                presets[index[key]] = preset
            else:
                index[key] = len(presets)
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


__all__ = ["DEFAULT_DWELL_S", "MAX_DWELL_S", "SCHEMA", "Preset", "PresetEntry", "parse_preset",
           "load_preset_file", "builtin_presets", "load_presets", "get_preset"]
