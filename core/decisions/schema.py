"""The decision document: its schema, validation of every field, encoding, and the entry a
race result becomes.  One serialisation for the cache and for decision files alike."""

from __future__ import annotations

import datetime as _dt
import json
import math
from collections.abc import Mapping
from typing import Any

from core import version
from core.decisions.bands import Band, format_band
from core.decisions.fingerprint import is_fingerprint
from core.decisions.race import STATUSES, RaceResult
from core.engine import PATHS

SCHEMA = 1


KIND = "testcard-decisions"


class DecisionFileError(ValueError):
    """A decision file (or the cache) that cannot be used, with one sentence saying why."""


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


def now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()


def _rounded(v: float | None, digits: int) -> float | None:
    return None if v is None else round(v, digits)


def candidate_figures(result: RaceResult) -> dict[str, dict]:
    """Each candidate's figures as a race result is written everywhere (the cache, decision
    files, ``testcard measure --json``): status, median and spread in ms, compile time, reason."""
    return {name: {"status": c.status, "median_ms": _rounded(c.median_ms, 4),
                   "spread_ms": _rounded(c.spread_ms, 4), "compile_s": _rounded(c.compile_s, 3),
                   "reason": c.reason[:2000]}
            for name, c in result.candidates.items()}


def entry_from_result(result: RaceResult, measured_at: str | None = None) -> dict:
    """The cache entry for a finished race; ``ValueError`` when it has no winner."""
    if result.winner is None:
        raise ValueError(f"nothing to record for {result.band}: {result.reason}")
    return {"winner": result.winner, "candidates": candidate_figures(result),
            "rounds": result.settings.rounds, "frames": result.settings.frames,
            "margin": result.settings.margin, "reason": result.reason[:2000],
            "measured_at": measured_at or now_iso(), "testcard": version(), "torch": torch_version()}
