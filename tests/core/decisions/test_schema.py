"""Decision documents (core.decisions.schema): the file's shape, and every validation rule
refusing a whole decision file."""

import json

import pytest

from core.decisions import SCHEMA, DecisionFileError, document, import_decisions
from tests.helpers.decision_helpers import BAND, FP, HERE, OTHER, entry, key


def test_file_shape_schema_at_top(cache):
    cache.record(FP, BAND, entry())
    doc = json.loads(cache.path.read_text())
    assert list(doc)[:2] == ["kind", "schema"] and doc["schema"] == SCHEMA
    assert list(doc["entries"]) == [f"{FP}|{BAND}"]


@pytest.mark.parametrize("mutate,msg", [
    (lambda d: d.update(schema=2), "newer testcard"),
    (lambda d: d.update(schema="1"), "schema version must be an integer"),
    (lambda d: d.update(kind="other"), "not a testcard decision file"),
    (lambda d: d["entries"][key(OTHER, BAND)].update(winner="opencl"), "not a declared candidate"),
    (lambda d: d["entries"][key(OTHER, BAND)]["candidates"]["numpy"].update(median_ms=-1),
     "median_ms must be a number"),
    (lambda d: d["entries"][key(OTHER, BAND)]["candidates"]["numpy"].update(median_ms=float("nan")),
     "median_ms must be a number"),
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
