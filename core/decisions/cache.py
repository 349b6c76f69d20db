"""The decision cache: which render path serves each band on each device, as measured.

One JSON file (``platformdirs`` user cache folder, ``decisions.json``; the
``TESTCARD_DECISION_CACHE`` environment variable names another file)::

    {"kind": "testcard-decisions", "schema": 1, "testcard": "0.1.0",
     "entries": {"cpu:AMD EPYC x2|counter@2160p/rgb10": {
         "winner": "torch-compiled",
         "candidates": {"numpy": {"status": "ok", "median_ms": 9.1, "spread_ms": 0.2,
                                  "compile_s": 0.0, "reason": ""}, ...},
         "rounds": 9, "frames": 50, "margin": 0.03, "reason": "...",
         "measured_at": "2025-01-01T12:00:00+00:00", "testcard": "0.1.0", "torch": "2.13.0+cpu"}}}

Entries are keyed ``fingerprint|band`` (:mod:`core.decisions.fingerprint`, :mod:`core.decisions.bands`).

Which path renders a band (:func:`choose_path`), first source that can run here wins:

1. the pin in ``TESTCARD_RENDER_PATH`` (see :func:`parse_pin` for its syntax);
2. this device's cached verdict for the band;
3. the default, ``numpy``.

A pinned or cached path that is not a declared candidate or cannot run on this
box falls through to the next source; the reason is logged and kept in the
:class:`Decision`.

Writes are safe: read-modify-write happens under a cross-process lock
(``filelock``, next to the file), the new file is written to a temporary file in
the same folder, flushed, fsynced and moved over the old one with ``os.replace``,
so a reader never sees a partial file and a killed writer leaves the old file
whole.  A corrupt cache is moved aside (``decisions.json.corrupt-<time>``), never
overwritten, with a warning; lookups then use the default.  A cache written by a
newer testcard (higher schema) is left alone: lookups use the default and writes
are refused.

Decision files (:func:`export_decisions`, :func:`import_decisions`) use the same
schema.  An import validates the whole file first; any invalid entry refuses the
whole file and nothing changes.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fnmatch
import json
import logging
import math
import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core import version
from core.atomic import atomic_write, temp_glob
from core.decisions.bands import Band, format_band
from core.decisions.fingerprint import fingerprint, is_fingerprint
from core.decisions.race import STATUSES, RaceResult
from core.engine import PATHS
from core.paths import cache_dir

SCHEMA = 1
KIND = "testcard-decisions"
ENV_CACHE = "TESTCARD_DECISION_CACHE"
ENV_PIN = "TESTCARD_RENDER_PATH"
DEFAULT_PATH = "numpy"         # the default wherever it runs (the CPU)
LOCK_TIMEOUT_S = 60.0

log = logging.getLogger("testcard.decisions")


class DecisionFileError(ValueError):
    """A decision file (or the cache) that cannot be used, with one sentence saying why."""


class DecisionCacheWarning(UserWarning):
    """The cache was corrupt and was moved aside, or was written by a newer testcard."""


def torch_version() -> str | None:
    """The installed torch's version, without importing torch."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("torch")
    except PackageNotFoundError:  # pragma: no cover - torch is a dependency
        return None


def cache_path() -> Path:
    """The cache file: ``$TESTCARD_DECISION_CACHE``, else ``decisions.json`` in
    :func:`core.paths.cache_dir`."""
    env = os.environ.get(ENV_CACHE, "").strip()
    if env:
        return Path(env).expanduser()
    return cache_dir() / "decisions.json"


# ------------------------------------------------------------------ validation
_TOP_KEYS = {"kind", "schema", "testcard", "entries"}
_ENTRY_KEYS = {"winner", "candidates", "rounds", "frames", "margin", "reason", "measured_at",
               "testcard", "torch"}
_ENTRY_REQUIRED = _ENTRY_KEYS - {"reason"}
_CAND_KEYS = {"status", "median_ms", "spread_ms", "compile_s", "reason"}
_CAND_REQUIRED = {"status", "median_ms", "spread_ms", "compile_s"}


def _number(v, what: str, hi: float, *, none_ok: bool = False) -> float | None:
    if v is None and none_ok:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0 <= v <= hi:
        raise DecisionFileError(f"{what} must be a number in 0..{hi:g}, got {v!r}")
    return float(v)


def _integer(v, what: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise DecisionFileError(f"{what} must be an integer {lo}..{hi}, got {v!r}")
    return v


def _text(v, what: str, limit: int, *, none_ok: bool = False, empty_ok: bool = True) -> str | None:
    if v is None and none_ok:
        return None
    if not isinstance(v, str) or len(v) > limit or (not empty_ok and not v.strip()):
        raise DecisionFileError(f"{what} must be a string of at most {limit} characters, got {v!r:.60}")
    return v


def split_key(key: str) -> tuple[str, str]:
    """``fingerprint|band`` -> (fingerprint, canonical band); ``DecisionFileError`` if malformed."""
    if not isinstance(key, str) or key.count("|") != 1:
        raise DecisionFileError(f"entry key {key!r:.80} is not 'fingerprint|band'")
    fp, band = key.split("|")
    if not is_fingerprint(fp):
        raise DecisionFileError(f"entry key {key!r:.80}: {fp!r:.60} is not a device fingerprint")
    try:
        canonical = format_band(band)
    except ValueError as exc:
        raise DecisionFileError(f"entry key {key!r:.80}: {exc}") from None
    if canonical != band:
        raise DecisionFileError(f"entry key {key!r:.80}: band is not written canonically ({canonical})")
    return fp, band


def make_key(fp: str, band: str | Band) -> str:
    return f"{fp}|{format_band(band)}"


def validate_entry(key: str, entry: Any) -> dict:
    """A clean copy of one entry, or ``DecisionFileError`` naming the entry and the fault."""
    split_key(key)
    try:
        return _validate_entry(entry)
    except DecisionFileError as exc:
        raise DecisionFileError(f"entry {key!r}: {exc}") from None


def _validate_entry(e: Any) -> dict:
    if not isinstance(e, dict):
        raise DecisionFileError(f"must be an object, got {type(e).__name__}")
    extra, missing = set(e) - _ENTRY_KEYS, _ENTRY_REQUIRED - set(e)
    if extra:
        raise DecisionFileError(f"unknown field {sorted(extra)[0]!r:.60}")
    if missing:
        raise DecisionFileError(f"missing field {sorted(missing)[0]!r}")
    cands = e["candidates"]
    if not isinstance(cands, dict) or not cands:
        raise DecisionFileError("candidates must be a non-empty object")
    clean_c = {}
    for name, c in cands.items():
        if name not in PATHS:
            raise DecisionFileError(f"{name!r:.60} is not a declared candidate ({', '.join(PATHS)})")
        what = f"candidate {name}"
        if not isinstance(c, dict):
            raise DecisionFileError(f"{what} must be an object")
        extra, missing = set(c) - _CAND_KEYS, _CAND_REQUIRED - set(c)
        if extra or missing:
            bad = sorted(extra)[0] if extra else sorted(missing)[0]
            raise DecisionFileError(f"{what}: {'unknown' if extra else 'missing'} field {bad!r:.60}")
        status = c["status"]
        if status not in STATUSES:
            raise DecisionFileError(f"{what}: status {status!r:.60} is not one of {', '.join(STATUSES)}")
        ok = status == "ok"
        clean_c[name] = {
            "status": status,
            "median_ms": _number(c["median_ms"], f"{what} median_ms", 1e6, none_ok=not ok),
            "spread_ms": _number(c["spread_ms"], f"{what} spread_ms", 1e6, none_ok=not ok),
            "compile_s": _number(c["compile_s"], f"{what} compile_s", 1e5, none_ok=True),
            "reason": _text(c.get("reason", ""), f"{what} reason", 2000),
        }
    winner = e["winner"]
    if winner not in PATHS:
        raise DecisionFileError(f"winner {winner!r:.60} is not a declared candidate ({', '.join(PATHS)})")
    if winner not in clean_c or clean_c[winner]["status"] != "ok":
        raise DecisionFileError(f"winner {winner} did not finish the race in this entry")
    measured = _text(e["measured_at"], "measured_at", 64)
    try:
        when = _dt.datetime.fromisoformat(measured)
    except ValueError:
        raise DecisionFileError(f"measured_at {measured!r} is not an ISO 8601 time") from None
    if when.tzinfo is None:
        raise DecisionFileError(f"measured_at {measured!r} has no time zone")
    return {
        "winner": winner,
        "candidates": clean_c,
        "rounds": _integer(e["rounds"], "rounds", 1, 100000),
        "frames": _integer(e["frames"], "frames", 1, 100000),
        "margin": _number(e["margin"], "margin", 0.999),
        "reason": _text(e.get("reason", ""), "reason", 2000),
        "measured_at": measured,
        "testcard": _text(e["testcard"], "testcard", 64, empty_ok=False),
        "torch": _text(e["torch"], "torch", 64, none_ok=True, empty_ok=False),
    }


def validate_document(doc: Any) -> dict[str, dict]:
    """Every entry of a decision document, validated; the first fault refuses the whole."""
    if not isinstance(doc, dict):
        raise DecisionFileError("not a testcard decision file (expected a JSON object)")
    if doc.get("kind") != KIND:
        raise DecisionFileError(f"not a testcard decision file (kind is {doc.get('kind')!r:.60})")
    schema = doc.get("schema")
    if isinstance(schema, bool) or not isinstance(schema, int):
        raise DecisionFileError(f"schema version must be an integer, got {schema!r:.60}")
    if schema > SCHEMA:
        raise DecisionFileError(f"written by a newer testcard (schema {schema}; this one reads {SCHEMA})")
    if schema != SCHEMA:
        raise DecisionFileError(f"unsupported schema version {schema} (this testcard reads {SCHEMA})")
    extra = set(doc) - _TOP_KEYS
    if extra:
        raise DecisionFileError(f"unknown top-level field {sorted(extra)[0]!r:.60}")
    if "testcard" in doc:
        _text(doc["testcard"], "testcard", 64)
    entries = doc.get("entries")
    if not isinstance(entries, dict):
        raise DecisionFileError("entries must be an object keyed 'fingerprint|band'")
    return {k: validate_entry(k, v) for k, v in entries.items()}


def document(entries: Mapping[str, dict]) -> dict:
    return {"kind": KIND, "schema": SCHEMA, "testcard": version(),
            "entries": {k: entries[k] for k in sorted(entries)}}


def encode(entries: Mapping[str, dict]) -> bytes:
    return (json.dumps(document(entries), indent=2, sort_keys=False) + "\n").encode("utf-8")


def parse_document(data: bytes | str) -> dict[str, dict]:
    try:
        doc = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DecisionFileError(f"not valid JSON ({exc})") from None
    except RecursionError:
        raise DecisionFileError("not a testcard decision file (nested too deeply)") from None
    return validate_document(doc)


# ------------------------------------------------------------------ the cache
class DecisionCache:
    """The local cache file.  Reads need no lock (files are replaced whole); every
    read-modify-write holds the cross-process lock."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else cache_path()
        self.problem: str | None = None   # why the last read found no usable cache

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    @contextlib.contextmanager
    def locked(self):
        from filelock import FileLock, Timeout

        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self.lock_path), timeout=LOCK_TIMEOUT_S)
        try:
            lock.acquire()
        except Timeout:
            raise DecisionFileError(f"the decision cache {self.path} is locked by another testcard "
                                    f"for over {LOCK_TIMEOUT_S:.0f} s") from None
        try:
            yield
        finally:
            lock.release()

    def _read(self) -> tuple[bytes | None, dict[str, dict] | None, DecisionFileError | None]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None, {}, None
        except OSError as exc:
            raise DecisionFileError(f"cannot read the decision cache {self.path}: {exc}") from None
        try:
            return data, parse_document(data), None
        except DecisionFileError as exc:
            return data, None, exc

    @staticmethod
    def _newer(exc: DecisionFileError) -> bool:
        return "newer testcard" in str(exc)

    def _move_aside(self, why: DecisionFileError) -> Path:
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        dest = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        n = 1
        while dest.exists():
            dest = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{n}")
            n += 1
        os.replace(self.path, dest)
        msg = (f"the decision cache {self.path} was corrupt ({why}); moved it aside to {dest.name} "
               "and using defaults until paths are measured again")
        log.warning(msg)
        warnings.warn(msg, DecisionCacheWarning, stacklevel=3)
        return dest

    def load(self) -> dict[str, dict]:
        """Every entry.  A corrupt file is moved aside (warning) and reads as empty; a file
        from a newer testcard reads as empty and stays.  ``self.problem`` says which."""
        self.problem = None
        data, entries, err = self._read()
        if err is None:
            return entries
        if self._newer(err):
            self.problem = f"the decision cache {self.path} was {err}; ignoring it"
            warnings.warn(self.problem, DecisionCacheWarning, stacklevel=2)
            return {}
        with self.locked():
            data2, entries, err = self._read()
            if err is None:
                return entries
            if self._newer(err):
                self.problem = f"the decision cache {self.path} was {err}; ignoring it"
                return {}
            dest = self._move_aside(err)
            self.problem = f"the decision cache was corrupt and was moved aside to {dest.name}"
            return {}

    def update(self, change: Callable[[dict[str, dict]], Any]) -> Any:
        """Read, ``change`` the entries in place, write back; all under the lock.

        A corrupt cache is moved aside first; a newer one is refused."""
        with self.locked():
            _, entries, err = self._read()
            if err is not None:
                if self._newer(err):
                    raise DecisionFileError(f"the decision cache {self.path} was {err}; "
                                            "refusing to overwrite it")
                self._move_aside(err)
                entries = {}
            before = dict(entries)
            out = change(entries)
            if entries != before:
                for stale in self.path.parent.glob(temp_glob(self.path)):
                    # only writers holding this lock create these: any left is a killed writer's
                    with contextlib.suppress(OSError):
                        stale.unlink()
                atomic_write(self.path, encode(entries), make_parent=True)
            return out

    # -- conveniences
    def record(self, fp: str, band: str | Band, entry: dict) -> str:
        """Store one verdict (replacing the same device and band).  Refuses a winner that is
        not a declared candidate, and any invalid entry."""
        if isinstance(entry, dict) and entry.get("winner") not in PATHS:
            raise ValueError(f"refusing to record {entry.get('winner')!r}: not a declared candidate "
                             f"({', '.join(PATHS)})")
        key = make_key(fp, band)
        clean = validate_entry(key, entry)

        def put(entries):
            entries[key] = clean

        self.update(put)
        return key

    def clear(self, bands: Iterable[str] | None = None, fingerprints: Iterable[str] | None = None) -> int:
        bands = {format_band(b) for b in bands} if bands else None
        fps = set(fingerprints) if fingerprints else None

        def drop(entries):
            gone = [k for k in entries
                    if (bands is None or split_key(k)[1] in bands)
                    and (fps is None or split_key(k)[0] in fps)]
            for k in gone:
                del entries[k]
            return len(gone)

        return self.update(drop)


# ------------------------------------------------------------------ recording a race
def now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()


def entry_from_result(result: RaceResult, measured_at: str | None = None) -> dict:
    """The cache entry for a finished race; ``ValueError`` when it has no winner."""
    if result.winner is None:
        raise ValueError(f"nothing to record for {result.band}: {result.reason}")
    cands = {}
    for name, c in result.candidates.items():
        cands[name] = {"status": c.status,
                       "median_ms": None if c.median_ms is None else round(c.median_ms, 4),
                       "spread_ms": None if c.spread_ms is None else round(c.spread_ms, 4),
                       "compile_s": None if c.compile_s is None else round(c.compile_s, 3),
                       "reason": c.reason[:2000]}
    return {"winner": result.winner, "candidates": cands, "rounds": result.settings.rounds,
            "frames": result.settings.frames, "margin": result.settings.margin,
            "reason": result.reason[:2000], "measured_at": measured_at or now_iso(),
            "testcard": version(), "torch": torch_version()}


def record_result(result: RaceResult, cache: DecisionCache | None = None) -> str:
    """Record a finished race's verdict for this box's ``result.device``; returns the key."""
    cache = cache or DecisionCache()
    return cache.record(fingerprint(result.device), result.band, entry_from_result(result))


# ------------------------------------------------------------------ the pin
def parse_pin(text: str) -> list[tuple[str, str]]:
    """Parse ``TESTCARD_RENDER_PATH``: items separated by commas, each ``PATH`` (any band) or
    ``BAND=PATH``, where BAND is a band name or a glob over canonical band names
    (``counter@*``, ``*@2160p/*``, ``*``).  The first item that matches wins.

    Returns ``[(band_glob, path), ...]``; ``ValueError`` for an empty item or a band name
    that does not parse (paths are checked at lookup, so an unknown one falls through).

    Example: ``counter@2160p/rgb10=torch-compiled,*@2160p/*=torch-eager,*=numpy``.
    """
    items = []
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            raise ValueError(f"{ENV_PIN}={text!r}: empty item")
        if "=" in item:
            glob, _, path = (s.strip() for s in item.partition("="))
            if not glob or not path:
                raise ValueError(f"{ENV_PIN}: item {item!r} is not BAND=PATH")
            glob = glob.lower()
            if not any(ch in glob for ch in "*?["):
                try:
                    glob = format_band(glob)
                except ValueError as exc:
                    raise ValueError(f"{ENV_PIN}: {exc}") from None
        else:
            glob, path = "*", item
        items.append((glob, path))
    return items


def _pin_for(items, bands: list[str]) -> tuple[str, str, str] | None:
    for glob, path in items:
        for band in bands or [""]:
            if glob == "*" or (band and fnmatch.fnmatchcase(band, glob)):
                return glob, path, band
    return None


# ------------------------------------------------------------------ choosing a path
@dataclass(frozen=True)
class Decision:
    path: str                  # the path to render with
    source: str                # "pin", "cache" or "default"
    reason: str                # one sentence: why this path, and what fell through
    device: str
    fingerprint: str
    band: str | None           # the band that decided (None for a global pin or the default)
    fallthrough: tuple[str, ...] = ()
    entry: dict | None = field(default=None, compare=False)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["fallthrough"] = list(self.fallthrough)
        return d


def _default_problem(path: str, device: str) -> str | None:
    from core.engine import path_problem

    return path_problem(path, device)


def choose_path(band, device: str = "cpu", *, cache: DecisionCache | None = None,
                env: Mapping[str, str] | None = None,
                problem: Callable[[str, str], str | None] | None = None) -> Decision:
    """The render path for ``band`` on ``device``: pin > cache > default (module doc).

    ``band`` is a band (name) or a list of them, most specific first (see
    :func:`core.decisions.bands.band_chain`); ``None`` or ``[]`` consults only global pins.
    ``problem(path, device)`` says why a path cannot run here (default:
    ``core.engine.engine.path_problem``).  Never raises for a bad pin or cache: they fall
    through with the reason kept.
    """
    problem = problem or _default_problem
    env = os.environ if env is None else env
    if band is None:
        bands: list[str] = []
    elif isinstance(band, (str, Band)):
        bands = [format_band(band)]
    else:
        bands = [format_band(b) for b in band]
    fp = fingerprint(device)
    skipped: list[str] = []

    def fall(why: str):
        log.warning("render path for %s on %s: %s", bands[0] if bands else "any band", device, why)
        skipped.append(why)

    def unusable(path: str) -> str | None:
        if path not in PATHS:
            return f"{path!r} is not a render path (expected one of {', '.join(PATHS)})"
        return problem(path, device)

    def decided(path, source, reason, band_name=None, entry=None):
        if skipped:
            reason = f"{reason} ({'; '.join(skipped)})"
        return Decision(path, source, reason, str(device), fp, band_name, tuple(skipped), entry)

    # 1. the environment pin
    pin_text = (env.get(ENV_PIN) or "").strip()
    if pin_text:
        try:
            hit = _pin_for(parse_pin(pin_text), bands)
        except ValueError as exc:
            fall(f"pin ignored: {exc}")
        else:
            if hit is not None:
                glob, path, band_name = hit
                why = unusable(path)
                if why is None:
                    what = f"={path}" if pin_text == path else f": {glob}={path}"
                    return decided(path, "pin", f"pinned by {ENV_PIN}{what}",
                                   band_name if glob != "*" else None)
                fall(f"pinned {path} cannot run here: {why}")
    # 2. the cache, this device's entries only
    if bands:
        cache = cache or DecisionCache()
        try:
            entries = cache.load()
        except DecisionFileError as exc:
            entries = {}
            fall(str(exc))
        else:
            if cache.problem:
                fall(cache.problem)
        for band_name in bands:
            entry = entries.get(make_key(fp, band_name))
            if entry is None:
                continue
            path = entry["winner"]
            why = unusable(path)
            if why is None:
                return decided(path, "cache", f"measured here for {band_name} on "
                               f"{entry['measured_at']}", band_name, entry)
            fall(f"cached {path} for {band_name} cannot run here: {why}")
    # 3. the default: the first path in preference order that runs here (numpy on the CPU)
    for path in PATHS:
        if unusable(path) is None:
            what = f"no pin and no measurement for {bands[0]}" if bands else "no pin"
            return decided(path, "default", f"{what} on this device; {path} is the default")
    raise ValueError(f"no render path can run on {device}")  # pragma: no cover


def choose_path_for(spec, fmt: str, device: str = "cpu", **kw) -> Decision:
    """:func:`choose_path` for a frame of ``spec`` in display format ``fmt`` (the engine's
    and the GUI's entry point): its pattern's band, then ``animated``/``static``."""
    from core.decisions.bands import band_chain

    return choose_path(band_chain(spec, fmt), device, **kw)


# ------------------------------------------------------------------ export / import
def _here_fingerprints() -> set[str]:
    from core.decisions.fingerprint import box_fingerprints

    return set(box_fingerprints().values())


def resolve_devices(devices: Iterable[str] | None) -> set[str]:
    """Fingerprints for device names (``cpu``, ``cuda:0``) or literal fingerprints; default:
    every device of this box."""
    if not devices:
        return _here_fingerprints()
    out = set()
    for d in devices:
        out.add(d if is_fingerprint(d) else fingerprint(d))
    return out


def export_decisions(dest: str | os.PathLike, bands: Iterable[str] | None = None,
                     devices: Iterable[str] | None = None, cache: DecisionCache | None = None) -> int:
    """Write a decision file with this box's entries (or those of ``devices``), optionally
    only ``bands``.  Returns the entry count; ``DecisionFileError`` when there is nothing
    to export."""
    cache = cache or DecisionCache()
    wanted_bands = {format_band(b) for b in bands} if bands else None
    fps = resolve_devices(devices)
    entries = cache.load()
    chosen = {k: v for k, v in entries.items()
              if split_key(k)[0] in fps and (wanted_bands is None or split_key(k)[1] in wanted_bands)}
    if not chosen:
        what = ", ".join(sorted(wanted_bands)) if wanted_bands else "any band"
        raise DecisionFileError(f"nothing to export: no decisions for {what} on "
                                f"{', '.join(sorted(fps))} (run testcard measure first)")
    atomic_write(Path(dest), encode(chosen))
    return len(chosen)


@dataclass
class Receipt:
    imported: int = 0
    kept_local: int = 0
    carried: int = 0
    entries: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        return (f"imported {self.imported}, kept local {self.kept_local}, "
                f"carried for other devices {self.carried}")


def _major(version: str | None) -> str | None:
    if not version:
        return None
    return version.split(".", 1)[0].strip()


def read_decision_file(src: str | os.PathLike) -> dict[str, dict]:
    """Every entry of a decision file, validated whole (``DecisionFileError`` otherwise)."""
    try:
        data = Path(src).read_bytes()
    except OSError as exc:
        raise DecisionFileError(f"cannot read {src}: {exc.strerror or exc}") from None
    try:
        return parse_document(data)
    except DecisionFileError as exc:
        raise DecisionFileError(f"{Path(src).name} refused, nothing imported: {exc}") from None


def import_decisions(src: str | os.PathLike, cache: DecisionCache | None = None,
                     here: Iterable[str] | None = None) -> Receipt:
    """Merge a decision file into the cache: local entries win, entries for devices not
    on this box are carried (inert).  The whole file is validated first; any fault
    refuses it and nothing changes.  ``here``: this box's fingerprints (default: probed)."""
    incoming = read_decision_file(src)
    cache = cache or DecisionCache()
    here = set(here) if here is not None else _here_fingerprints()
    local_torch = _major(torch_version())

    def merge(entries):
        r = Receipt()
        for key in sorted(incoming):
            fp, band = split_key(key)
            e = incoming[key]
            row = {"key": key, "device": fp, "band": band, "winner": e["winner"]}
            if key in entries:
                row["action"] = "kept_local"
                r.kept_local += 1
            elif fp in here:
                row["action"] = "imported"
                r.imported += 1
                entries[key] = e
                if local_torch and _major(e["torch"]) != local_torch:
                    w = (f"{band}: measured with torch {e['torch']}, this box has torch "
                         f"{torch_version()}; measure again when you can")
                    row["warning"] = w
                    r.warnings.append(w)
            else:
                row["action"] = "carried"
                r.carried += 1
                entries[key] = e
            r.entries.append(row)
        return r

    return cache.update(merge)


def list_entries(cache: DecisionCache | None = None, here: Iterable[str] | None = None) -> list[dict]:
    """Rows for ``decisions show``: device, band, winner, medians, when, and whether the
    device is on this box."""
    cache = cache or DecisionCache()
    here = set(here) if here is not None else _here_fingerprints()
    rows = []
    for key, e in sorted(cache.load().items()):
        fp, band = split_key(key)
        rows.append({"device": fp, "band": band, "winner": e["winner"], "here": fp in here,
                     "median_ms": {k: c["median_ms"] for k, c in e["candidates"].items()},
                     "measured_at": e["measured_at"], "torch": e["torch"], "testcard": e["testcard"]})
    return rows


__all__ = ["SCHEMA", "KIND", "ENV_CACHE", "ENV_PIN", "DEFAULT_PATH", "DecisionFileError",
           "DecisionCacheWarning", "DecisionCache", "Decision", "Receipt", "cache_path",
           "choose_path", "choose_path_for", "parse_pin", "record_result", "entry_from_result",
           "export_decisions", "import_decisions", "read_decision_file", "list_entries",
           "validate_document", "validate_entry", "split_key", "make_key", "atomic_write",
           "resolve_devices"]
