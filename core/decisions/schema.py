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

Schema 2 records how each verdict was raced, ``form`` (``render``: renders in isolation;
``live``: in the real presenter at the screen's cadence, with the screen's ``period_ms`` and each
candidate's ``late`` frames, ``interval_p99_ms`` and ``cost_p99_ms``).  A candidate's
``median_ms`` is the figure its form ranks on (:data:`core.decisions.figures.RANKED`: the median
render time, or in a live entry the p99 frame cost, each a median over rounds), ``spread_ms``
its half-IQR over rounds; ``cost_p99_ms`` is the p99 of every timed frame's cost pooled, a
different statistic that no view shows under the ranked figure's name.  A live verdict is keyed
``fingerprint|band|live`` beside the render one, ``fingerprint|band``, so both may be held and
:mod:`core.decisions.choose` takes the live one first.  An entry without ``form`` reads as
render; a schema 1 document (no forms) is migrated as it is read, entry by entry, and the file
itself is left as it is: only the next write turns it into schema 2
(:class:`~core.decisions.cache.DecisionCache` keeps a copy of the old file then).
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Mapping
from typing import Any

from core import version
from core.decisions.bands import Band, format_band
from core.decisions.fields import (
    DecisionFileError,
    NewerSchemaError,
    clean_text,
    control_char,
)
from core.decisions.fields import integer_field as _integer
from core.decisions.fields import number_field as _number
from core.decisions.fields import text_field as _text
from core.decisions.fingerprint import MAX_FINGERPRINT_CHARS, is_fingerprint
from core.decisions.racing import FORMS, STATUSES, RaceResult
from core.engine import PATHS
from core.jsonfile import JsonError, parse_json

SCHEMA = 2
READS = (1, 2)                     # schemas this testcard reads (1 is migrated on read)

MAX_FILE_BYTES = 8 * 1024 * 1024   # a decision file or the cache, refused above this
MAX_ENTRIES = 5000                 # entries in one document (about 300 bands x a dozen devices)
MAX_KEY_CHARS = 300                # "fingerprint|band"
FUTURE_SKEW_S = 900.0              # how far in the future a measured_at may lie (clock skew)


KIND = "testcard-decisions"


def torch_version() -> str | None:
    """The installed torch's version, without importing torch."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("torch")
    except PackageNotFoundError:  # pragma: no cover - torch is a dependency
        return None


_TOP_KEYS = {"kind", "schema", "testcard", "entries"}


_ENTRY_KEYS_V1 = {"winner", "candidates", "rounds", "frames", "margin", "reason", "measured_at",
                  "testcard", "torch"}


_ENTRY_KEYS = _ENTRY_KEYS_V1 | {"form", "period_ms"}


_ENTRY_REQUIRED = _ENTRY_KEYS_V1 - {"reason"}


_LIVE_CAND_KEYS = {"late", "interval_p99_ms", "cost_p99_ms"}


_CAND_KEYS = {"status", "median_ms", "spread_ms", "compile_s", "reason"} | _LIVE_CAND_KEYS


_CAND_REQUIRED = {"status", "median_ms", "spread_ms", "compile_s"}


def split_key(key: str) -> tuple[str, str]:
    """``fingerprint|band`` or ``fingerprint|band|live`` -> (fingerprint, canonical band);
    ``DecisionFileError`` if malformed.  :func:`key_form` says which form the key holds."""
    return _split_key(key)[:2]


def key_form(key: str) -> str:
    """The form a key holds a verdict of: ``live`` for ``fingerprint|band|live``, else ``render``."""
    return _split_key(key)[2]


def _split_key(key: str) -> tuple[str, str, str]:
    if isinstance(key, str) and len(key) > MAX_KEY_CHARS:
        raise DecisionFileError(f"entry key of {len(key)} characters is over the limit of "
                                f"{MAX_KEY_CHARS} ({key[:40]!r}...)")
    if not isinstance(key, str) or key.count("|") not in (1, 2):
        raise DecisionFileError(f"entry key {key!r:.80} is not 'fingerprint|band' or "
                                "'fingerprint|band|live'")
    fp, band, *rest = key.split("|")
    form = rest[0] if rest else "render"
    if rest and rest[0] not in FORMS:
        raise DecisionFileError(f"entry key {key!r:.80}: {rest[0]!r:.40} is not a form (live, or "
                                "nothing for render)")
    if rest and form == "render":
        raise DecisionFileError(f"entry key {key!r:.80}: a render verdict's key has no form "
                                "(fingerprint|band)")
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
    return fp, band, form


def make_key(fp: str, band: str | Band, form: str = "render") -> str:
    """The key of ``band``'s verdict on ``fp`` raced in ``form`` (``ValueError`` for an unknown form)."""
    if form not in FORMS:
        raise ValueError(f"form must be one of {', '.join(FORMS)}, got {form!r:.40}")
    return f"{fp}|{format_band(band)}" + ("" if form == "render" else f"|{form}")


def validate_entry(key: str, entry: Any, now: _dt.datetime | None = None, *, schema: int = SCHEMA) -> dict:
    """A clean copy of one entry (in this schema: its ``form`` always written), or
    ``DecisionFileError`` naming the entry and the fault.  ``now`` (aware; default: the clock)
    is what ``measured_at`` may not lie beyond; ``schema`` is the document's (1 is migrated)."""
    key_form_ = key_form(key)
    try:
        clean = _validate_entry(entry, now or _dt.datetime.now(_dt.UTC), schema)
        if clean["form"] != key_form_:
            raise DecisionFileError(f"its form is {clean['form']}, but its key holds a {key_form_} "
                                    "verdict" + (" (add |live)" if clean["form"] == "live" else ""))
        return clean
    except DecisionFileError as exc:
        raise DecisionFileError(f"entry {key!r}: {exc}") from None


def _validate_entry(e: Any, now: _dt.datetime, schema: int) -> dict:
    if not isinstance(e, dict):
        raise DecisionFileError(f"must be an object, got {type(e).__name__}")
    extra = set(e) - (_ENTRY_KEYS if schema >= 2 else _ENTRY_KEYS_V1)
    missing = _ENTRY_REQUIRED - set(e)
    if extra:
        raise DecisionFileError(f"unknown field {sorted(extra)[0]!r:.60}"
                                + (" (schema 1 has no forms)" if schema < 2 and extra & _ENTRY_KEYS else ""))
    if missing:
        raise DecisionFileError(f"missing field {sorted(missing)[0]!r}")
    form = e.get("form", "render")   # an entry without a form was raced in isolation
    if form not in FORMS:
        raise DecisionFileError(f"form {form!r:.60} is not one of {', '.join(FORMS)}")
    live = form == "live"
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
        clean_c[name].update(_live_figures(c, what, live, ok))
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
    out = {
        "winner": winner,
        "form": form,
        "candidates": clean_c,
        "rounds": _integer(e["rounds"], "rounds", 1, 100000),
        "frames": _integer(e["frames"], "frames", 1, 100000),
        "margin": _number(e["margin"], "margin", 0.999),
        "reason": _text(e.get("reason", ""), "reason", 2000, multiline=True),
        "measured_at": measured,
        "testcard": _text(e["testcard"], "testcard", 64, empty_ok=False),
        "torch": _text(e["torch"], "torch", 64, none_ok=True, empty_ok=False),
    }
    if live:
        if e.get("period_ms") is None:
            raise DecisionFileError("a live entry needs period_ms (the screen period it was raced at)")
        period = _number(e["period_ms"], "period_ms", 1000.0)
        if period <= 0:
            raise DecisionFileError(f"period_ms must be above 0, got {e['period_ms']!r}")
        out["period_ms"] = period
    elif e.get("period_ms") is not None:
        raise DecisionFileError("period_ms belongs to a live entry; this one's form is render")
    return out


def _live_figures(c: dict, what: str, live: bool, ok: bool) -> dict:
    """A candidate's live figures: required for an ``ok`` candidate of a live entry, refused in
    a render one (a render race never presents a frame)."""
    if not live:
        held = sorted(k for k in _LIVE_CAND_KEYS if c.get(k) is not None)
        if held:
            raise DecisionFileError(f"{what}: {held[0]} belongs to a live entry; this one's form is render")
        return {}
    if ok:
        missing = sorted(_LIVE_CAND_KEYS - set(c))
        if missing:
            raise DecisionFileError(f"{what}: missing field {missing[0]!r} (a live entry's candidates "
                                    "carry their late frames and p99s)")
    late = c.get("late")
    if late is not None or ok:
        late = _integer(late, f"{what} late", 0, 10**7)
    return {"late": late,
            "interval_p99_ms": _number(c.get("interval_p99_ms"), f"{what} interval_p99_ms", 1e6,
                                       none_ok=not ok),
            "cost_p99_ms": _number(c.get("cost_p99_ms"), f"{what} cost_p99_ms", 1e6, none_ok=not ok)}


def _check_document(doc: Any) -> tuple[dict, int]:
    """The ``entries`` object of a document whose envelope is valid, and its schema;
    ``DecisionFileError`` (``NewerSchemaError`` for a newer schema) otherwise."""
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
    if schema not in READS:
        raise DecisionFileError(f"unsupported schema version {schema} (this testcard reads "
                                f"{', '.join(map(str, READS))})")
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
    return entries, schema


def validate_document(doc: Any, now: _dt.datetime | None = None) -> dict[str, dict]:
    """Every entry of a decision document, validated (a schema 1 one migrated); the first
    fault refuses the whole."""
    entries, schema = _check_document(doc)
    now = now or _dt.datetime.now(_dt.UTC)
    return {k: validate_entry(k, v, now, schema=schema) for k, v in entries.items()}


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
    good, bad, _schema = parse_cache_schema(data, now, source=source)
    return good, bad


def parse_cache_schema(data: bytes | str, now: _dt.datetime | None = None, *,
                       source: str = "decision cache") -> tuple[dict[str, dict], dict[str, str], int]:
    """:func:`parse_cache`, and the schema the file was written in (1: migrated as read)."""
    raw, schema = _check_document(_parse(data, source))
    now = now or _dt.datetime.now(_dt.UTC)
    good, bad = {}, {}
    for k, v in raw.items():
        try:
            good[k] = validate_entry(k, v, now, schema=schema)
        except DecisionFileError as exc:
            bad[k] = str(exc)
    return good, bad, schema


def now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()


def _rounded(v: float | None, digits: int) -> float | None:
    return None if v is None else round(v, digits)


def candidate_figures(result: RaceResult) -> dict[str, dict]:
    """Each candidate's figures as a race result is written everywhere (the cache, decision
    files, ``testcard measure --json``): status, median and spread in ms, compile time, reason;
    in a live race also its late frames, p99 present interval and p99 frame cost."""
    out = {}
    for name, c in result.candidates.items():
        row = {"status": c.status, "median_ms": _rounded(c.median_ms, 4),
               "spread_ms": _rounded(c.spread_ms, 4), "compile_s": _rounded(c.compile_s, 3),
               "reason": clean_text(c.reason, 2000)}
        if result.form == "live":
            row.update(late=c.late, interval_p99_ms=_rounded(c.interval_p99_ms, 4),
                       cost_p99_ms=_rounded(c.cost_p99_ms, 4))
        out[name] = row
    return out


def entry_from_result(result: RaceResult, measured_at: str | None = None) -> dict:
    """The cache entry for a finished race; ``ValueError`` when it has no winner."""
    if result.winner is None:
        raise ValueError(f"nothing to record for {result.band}: {result.reason}")
    entry = {"winner": result.winner, "form": result.form, "candidates": candidate_figures(result),
             "rounds": result.settings.rounds, "frames": result.settings.frames,
             "margin": result.settings.margin, "reason": clean_text(result.reason, 2000),
             "measured_at": measured_at or now_iso(), "testcard": version(), "torch": torch_version()}
    if result.form == "live":
        entry["period_ms"] = _rounded(result.period_ms, 4)
    return entry
