"""Decision documents (core.decisions.schema): the file's shape, and every validation rule
refusing a whole decision file."""

import datetime
import json

import pytest

from core.decisions import (
    SCHEMA,
    CandidateResult,
    DecisionFileError,
    NewerSchemaError,
    RaceResult,
    RaceSettings,
    document,
    import_decisions,
    parse_document,
    record_result,
    resolve_devices,
)
from tests.helpers.decision_helpers import BAND, FP, HERE, OTHER, entry, key


def test_file_shape_schema_at_top(cache):
    cache.record(FP, BAND, entry())
    doc = json.loads(cache.path.read_text())
    assert list(doc)[:2] == ["kind", "schema"] and doc["schema"] == SCHEMA
    assert list(doc["entries"]) == [f"{FP}|{BAND}"]


@pytest.mark.parametrize("mutate,msg", [
    (lambda d: d.update(schema=SCHEMA + 1), "newer testcard"),
    (lambda d: d.update(schema="1"), "schema version must be an integer"),
    (lambda d: d.update(kind="other"), "not a testcard decision file"),
    (lambda d: d["entries"][key(OTHER, BAND)].update(winner="opencl"), "not a declared candidate"),
    (lambda d: d["entries"][key(OTHER, BAND)]["candidates"]["numpy"].update(median_ms=-1),
     "median_ms must be a number"),
    (lambda d: d["entries"][key(OTHER, BAND)]["candidates"]["numpy"].update(median_ms=float("nan")),
     "NaN is not a number"),
    (lambda d: d["entries"][key(OTHER, BAND)].update(rounds=0), "rounds must be an integer"),
    (lambda d: d["entries"][key(OTHER, BAND)].update(measured_at="yesterday"), "ISO 8601"),
    (lambda d: d["entries"].update({"nope|counter@2160p/rgb10": {}}), "not a device fingerprint"),
    (lambda d: d["entries"].update({f"{HERE}|counter@3840x2160/rgb10": {}}), "canonically"),
])
def test_import_refuses_whole_file_on_any_bad_entry(tmp_path, cache, mutate, msg):
    cache.record(HERE, "static@1080p/rgb8", entry())
    before = cache.path.read_bytes()
    doc = document({key(HERE, BAND): entry(), key(OTHER, BAND): entry("torch-eager")})
    mutate(doc)
    src = tmp_path / "bad.json"
    src.write_text(json.dumps(doc))
    with pytest.raises(DecisionFileError, match=msg) as err:
        import_decisions(src, cache=cache, here=[HERE])
    assert "refused, nothing imported" in str(err.value)
    assert cache.path.read_bytes() == before


# ---------------------------------------------------------------- validation at the edge
NOW = datetime.datetime(2025, 6, 1, 12, 0, tzinfo=datetime.UTC)


def _raw(mutate=None, *, entries=None) -> str:
    doc = document(entries or {key(HERE, BAND): entry(), key(OTHER, BAND): entry("torch-eager")})
    if mutate:
        mutate(doc)
    return json.dumps(doc)


def _e(d):
    return d["entries"][key(HERE, BAND)]


LONG_FP = "cpu:" + "A" * 100_000


@pytest.mark.parametrize("raw,msg", [
    (_raw(lambda d: _e(d).update(rounds=True)), "rounds must be an integer 1..100000, got True"),
    (_raw(lambda d: _e(d).update(margin=False)), "margin must be a number"),
    (_raw(lambda d: _e(d)["candidates"]["numpy"].update(median_ms=True)),
     "candidate numpy median_ms must be a number"),
    (_raw().replace('"median_ms": 10.0', '"median_ms": 1e999'), "candidate numpy median_ms must be a number"),
    (_raw().replace('"median_ms": 10.0', '"median_ms": Infinity'), "Infinity is not a number"),
    (_raw().replace('"rounds": 9', '"rounds": ' + "9" * 40), "40 digits is too long"),
    (_raw().replace('"kind": "testcard-decisions"', '"kind": "testcard-decisions", "kind": "x"'),
     "duplicate key 'kind'"),
    (_raw().replace('"rounds": 9', '"rounds": 9, "rounds": 1'), "duplicate key 'rounds'"),
    (_raw(entries={key(HERE, BAND): entry()}).replace(HERE, LONG_FP),
     "entry key of 100024 characters is over the limit of 300"),
    (_raw(entries={key(HERE, BAND): entry()}).replace(HERE, "cpu:" + "A" * 250),
     r"is not a device fingerprint \(it is over 200 characters\)"),
    (_raw(entries={key(HERE, BAND): entry()}).replace(HERE, "cpu:Test\\nCPU x4"),
     r"is not a device fingerprint \(it holds a control character\)"),
    (_raw(lambda d: _e(d).update(testcard="0.1\x00")), "testcard holds a control character"),
    (_raw(lambda d: _e(d).update(torch="2.13\u2028")), "torch holds a control character"),
    (_raw(lambda d: _e(d).update(reason="won \x1b[31mred")), "reason holds a control character"),
    (_raw(lambda d: _e(d).update(reason="x" * 100_000)),
     "reason must be a string of at most 2000 characters, got 100000 characters"),
    (_raw(lambda d: _e(d).update(measured_at="2025-06-01T13:00:00+00:00")), "measured_at .* in the future"),
    (_raw(lambda d: _e(d).update(measured_at="2025-06-01T22:00:00+09:00")), "in the future"),
    (_raw(lambda d: d.update(schema=SCHEMA + 1)), "newer testcard .*upgrade testcard"),
    (_raw(lambda d: d.update(schema=True)), "schema version must be an integer"),
    ("[" * 100 + "]" * 100, "nested 100 deep"),
    (b'{"kind": "testcard-decisions\xff"}', "not UTF-8"),
])
def test_edge_refusals_name_the_field(raw, msg):
    with pytest.raises(DecisionFileError, match=msg):
        parse_document(raw, NOW)


def test_edge_accepts_what_is_fine():
    ok = _raw(lambda d: _e(d).update(measured_at="2025-06-01T12:10:00+00:00",   # small clock skew
                                     reason="line one\n\tline two"))
    assert parse_document(ok, NOW)[key(HERE, BAND)]["reason"] == "line one\n\tline two"
    assert parse_document("\ufeff" + ok, NOW)      # a byte-order mark is no fault


def test_newer_file_refused_on_import_with_upgrade_advice(tmp_path, cache):
    cache.record(HERE, BAND, entry())
    before = cache.path.read_bytes()
    src = tmp_path / "new.json"
    src.write_text(_raw(lambda d: d.update(schema=SCHEMA + 1, future_field=1)))
    with pytest.raises(NewerSchemaError, match="upgrade testcard"):
        import_decisions(src, cache=cache, here=[HERE])
    assert cache.path.read_bytes() == before


def test_written_reasons_are_cleaned_of_control_characters(cache):
    res = RaceResult("animated@64x36/rgb10", "cpu", "numpy", "numpy won\r", {
        "numpy": CandidateResult("numpy", median_ms=4.0, spread_ms=0.1, compile_s=0.0, round_ms=[4.0]),
        "torch-compiled": CandidateResult("torch-compiled", status="error",
                                          reason="compile failed:\n  \x1b[31merror\x1b[0m " + "x" * 3000),
    }, RaceSettings(rounds=1, frames=3))
    k = record_result(res, cache)
    e = cache.load()[k]
    why = e["candidates"]["torch-compiled"]["reason"]
    assert why.startswith("compile failed:\n   [31merror [0m ") and len(why) == 2000
    assert e["reason"] == "numpy won "


def test_device_arguments_are_devices_or_fingerprints():
    assert resolve_devices(["cpu"]) == {FP}
    assert resolve_devices([HERE, "CPU"]) == {HERE, FP}
    for bad in ("cpu:" + "A" * 1000, "cpu:Test\nCPU x4", "gpu", "cuda:x|y"):
        with pytest.raises(ValueError, match="is neither a device"):
            resolve_devices([bad])
