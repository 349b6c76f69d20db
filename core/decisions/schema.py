"""The decision document: its schema, validation of every field, encoding, and the entry a
race result becomes.  One serialisation for the cache and for decision files alike.

What the edge refuses, naming the field: a document over :data:`MAX_FILE_BYTES` or with more
than :data:`MAX_ENTRIES` entries (counted before any entry is validated), anything
:func:`core.jsonfile.parse_json` refuses (not UTF-8, nested too deeply, duplicate keys, NaN,
huge integers), a boolean where a number belongs, a non-finite or out-of-range number, a
string over its cap or with a control character in it (free-text reasons may hold newlines
and tabs, nothing else), a key longer than :data:`MAX_KEY_CHARS`, a ``measured_at`` more than
:data:`FUTURE_SKEW_S` seconds in the future, and a document whose schema is newer than
:data:`SCHEMA` (:class:`NewerSchemaError`: upgrade testcard).  The ``testcard`` version inside
an entry is informational: the document's schema alone decides whether it can be read.

A decision file is all or nothing (:func:`parse_document`); the cache is read entry by entry
(:func:`parse_cache`), so one bad entry costs that entry, not every verdict.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import unicodedata
from collections.abc import Mapping
from typing import Any

from core import version
from core.decisions.bands import Band, format_band
from core.decisions.fingerprint import MAX_FINGERPRINT_CHARS, is_fingerprint
from core.decisions.race import STATUSES, RaceResult
from core.engine import PATHS
from core.jsonfile import JsonError, parse_json

SCHEMA = 1

MAX_FILE_BYTES = 8 * 1024 * 1024   # a decision file or the cache, refused above this
MAX_ENTRIES = 5000                 # entries in one document (about 300 bands x a dozen devices)
MAX_KEY_CHARS = 300                # "fingerprint|band"
FUTURE_SKEW_S = 900.0              # how far in the future a measured_at may lie (clock skew)


KIND = "testcard-decisions"


class DecisionFileError(ValueError):
    """A decision file (or the cache) that cannot be used, with one sentence saying why."""


class NewerSchemaError(DecisionFileError):
    """A document written by a newer testcard (a schema above :data:`SCHEMA`)."""


def torch_version() -> str | None:
    """The installed torch's version, without importing torch."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("torch")
    except PackageNotFoundError:  # pragma: no cover - torch is a dependency
        return None


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


def _text(v, what: str, limit: int, *, none_ok: bool = False, empty_ok: bool = True,
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


def split_key(key: str) -> tuple[str, str]:
    """``fingerprint|band`` -> (fingerprint, canonical band); ``DecisionFileError`` if malformed."""
    if isinstance(key, str) and len(key) > MAX_KEY_CHARS:
        raise DecisionFileError(f"entry key of {len(key)} characters is over the limit of "
                                f"{MAX_KEY_CHARS} ({key[:40]!r}...)")
    if not isinstance(key, str) or key.count("|") != 1:
        raise DecisionFileError(f"entry key {key!r:.80} is not 'fingerprint|band'")
    fp, band = key.split("|")
    if not is_fingerprint(fp):
        why = ("holds a control character" if control_char(fp) is not None
               else f"is over {MAX_FINGERPRINT_CHARS} characters" if len(fp) > MAX_FINGERPRINT_CHARS
               else "is not kind:description (cpu, cuda or mps)")
        raise DecisionFileError(f"entry key {key!r:.80}: {fp!r:.60} is not a device fingerprint "
                                f"(it {why})")
    try:
        canonical = format_band(band)
    except ValueError as exc:
        raise DecisionFileError(f"entry key {key!r:.80}: {exc}") from None
    if canonical != band:
        raise DecisionFileError(f"entry key {key!r:.80}: band is not written canonically ({canonical})")
    return fp, band


def make_key(fp: str, band: str | Band) -> str:
    return f"{fp}|{format_band(band)}"


def validate_entry(key: str, entry: Any, now: _dt.datetime | None = None) -> dict:
    """A clean copy of one entry, or ``DecisionFileError`` naming the entry and the fault.
    ``now`` (aware; default: the clock) is what ``measured_at`` may not lie beyond."""
    split_key(key)
    try:
        return _validate_entry(entry, now or _dt.datetime.now(_dt.UTC))
    except DecisionFileError as exc:
        raise DecisionFileError(f"entry {key!r}: {exc}") from None


def _validate_entry(e: Any, now: _dt.datetime) -> dict:
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
            "reason": _text(c.get("reason", ""), f"{what} reason", 2000, multiline=True),
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
    try:
        ahead = (when - now).total_seconds()
    except OverflowError:  # pragma: no cover - aware datetimes at the calendar's edge
        raise DecisionFileError(f"measured_at {measured!r} is out of range") from None
    if ahead > FUTURE_SKEW_S:
        raise DecisionFileError(f"measured_at {measured!r} is in the future "
                                f"({ahead / 3600:.1f} h ahead of this clock)")
    return {
        "winner": winner,
        "candidates": clean_c,
        "rounds": _integer(e["rounds"], "rounds", 1, 100000),
        "frames": _integer(e["frames"], "frames", 1, 100000),
        "margin": _number(e["margin"], "margin", 0.999),
        "reason": _text(e.get("reason", ""), "reason", 2000, multiline=True),
        "measured_at": measured,
        "testcard": _text(e["testcard"], "testcard", 64, empty_ok=False),
        "torch": _text(e["torch"], "torch", 64, none_ok=True, empty_ok=False),
    }


def _check_document(doc: Any) -> dict:
    """The ``entries`` object of a document whose envelope is valid; ``DecisionFileError``
    (``NewerSchemaError`` for a newer schema) otherwise."""
    if not isinstance(doc, dict):
        raise DecisionFileError("not a testcard decision file (expected a JSON object)")
    if doc.get("kind") != KIND:
        raise DecisionFileError(f"not a testcard decision file (kind is {doc.get('kind')!r:.60})")
    schema = doc.get("schema")
    if isinstance(schema, bool) or not isinstance(schema, int):
        raise DecisionFileError(f"schema version must be an integer, got {schema!r:.60}")
    if schema > SCHEMA:
        raise NewerSchemaError(f"written by a newer testcard (schema {schema}; this one reads "
                               f"{SCHEMA}): upgrade testcard to use it")
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
    if len(entries) > MAX_ENTRIES:
        raise DecisionFileError(f"{len(entries)} entries is over the limit of {MAX_ENTRIES}")
    return entries


def validate_document(doc: Any, now: _dt.datetime | None = None) -> dict[str, dict]:
    """Every entry of a decision document, validated; the first fault refuses the whole."""
    entries = _check_document(doc)
    now = now or _dt.datetime.now(_dt.UTC)
    return {k: validate_entry(k, v, now) for k, v in entries.items()}


def _parse(data: bytes | str, source: str):
    try:
        return parse_json(data, source=source, max_bytes=MAX_FILE_BYTES)
    except JsonError as exc:
        # the caller names the file: keep only the reason
        raise DecisionFileError(str(exc).removeprefix(f"{source}: ")) from None


def document(entries: Mapping[str, dict]) -> dict:
    return {"kind": KIND, "schema": SCHEMA, "testcard": version(),
            "entries": {k: entries[k] for k in sorted(entries)}}


def encode(entries: Mapping[str, dict]) -> bytes:
    return (json.dumps(document(entries), indent=2, sort_keys=False) + "\n").encode("utf-8")


def parse_document(data: bytes | str, now: _dt.datetime | None = None, *,
                   source: str = "decision file") -> dict[str, dict]:
    """Every entry of a decision document, all or nothing (:func:`validate_document`)."""
    return validate_document(_parse(data, source), now)


def parse_cache(data: bytes | str, now: _dt.datetime | None = None, *,
                source: str = "decision cache") -> tuple[dict[str, dict], dict[str, str]]:
    """The cache's usable entries and ``{key: why}`` for each entry that is not.

    A fault in the envelope (not JSON, not a decision document, over a cap, a newer schema)
    refuses the whole with ``DecisionFileError``; a bad entry costs only that entry."""
    raw = _check_document(_parse(data, source))
    now = now or _dt.datetime.now(_dt.UTC)
    good, bad = {}, {}
    for k, v in raw.items():
        try:
            good[k] = validate_entry(k, v, now)
        except DecisionFileError as exc:
            bad[k] = str(exc)
    return good, bad


def now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()


def _rounded(v: float | None, digits: int) -> float | None:
    return None if v is None else round(v, digits)


def candidate_figures(result: RaceResult) -> dict[str, dict]:
    """Each candidate's figures as a race result is written everywhere (the cache, decision
    files, ``testcard measure --json``): status, median and spread in ms, compile time, reason."""
    return {name: {"status": c.status, "median_ms": _rounded(c.median_ms, 4),
                   "spread_ms": _rounded(c.spread_ms, 4), "compile_s": _rounded(c.compile_s, 3),
                   "reason": clean_text(c.reason, 2000)}
            for name, c in result.candidates.items()}


def entry_from_result(result: RaceResult, measured_at: str | None = None) -> dict:
    """The cache entry for a finished race; ``ValueError`` when it has no winner."""
    if result.winner is None:
        raise ValueError(f"nothing to record for {result.band}: {result.reason}")
    return {"winner": result.winner, "candidates": candidate_figures(result),
            "rounds": result.settings.rounds, "frames": result.settings.frames,
            "margin": result.settings.margin, "reason": clean_text(result.reason, 2000),
            "measured_at": measured_at or now_iso(), "testcard": version(), "torch": torch_version()}
