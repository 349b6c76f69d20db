"""The decision cache file (core.decisions.cache): where it lives, recording, clearing, and
corrupt or newer caches."""

import json

import pytest

from core.decisions import (
    CandidateResult,
    DecisionCacheWarning,
    DecisionFileError,
    RaceResult,
    RaceSettings,
    cache_path,
    choose_path,
    record_result,
    torch_version,
)
from tests.helpers.decision_helpers import BAND, FP, OTHER, entry, runs_everywhere


def test_cache_path_env_override(tmp_path, monkeypatch):
    monkeypatch.setenv("TESTCARD_DECISION_CACHE", str(tmp_path / "x" / "d.json"))
    assert cache_path() == tmp_path / "x" / "d.json"
    monkeypatch.delenv("TESTCARD_DECISION_CACHE")
    assert cache_path() == tmp_path / "cache" / "decisions.json"   # $TESTCARD_CACHE_DIR (conftest)
    monkeypatch.delenv("TESTCARD_CACHE_DIR")
    assert cache_path().name == "decisions.json" and "testcard" in str(cache_path())


# ---------------------------------------------------------------- recording
def test_recording_a_non_candidate_is_refused(cache):
    e = entry("torch-eager")
    e["winner"] = "opencl"
    with pytest.raises(ValueError, match="not a declared candidate"):
        cache.record(FP, BAND, e)
    e = entry("torch-eager")
    e["candidates"]["opencl"] = dict(e["candidates"]["numpy"])
    with pytest.raises(ValueError, match="not a declared candidate"):
        cache.record(FP, BAND, e)
    with pytest.raises(ValueError, match="did not finish"):
        cache.record(FP, BAND, entry("torch-cudagraphs"))
    assert not cache.path.exists()


def test_record_result_from_a_race(cache):
    res = RaceResult("animated@64x36/rgb10", "cpu", "torch-eager", "torch-eager beats numpy", {
        "numpy": CandidateResult("numpy", median_ms=4.0, spread_ms=0.1, compile_s=0.001,
                                 round_ms=[4.0]),
        "torch-eager": CandidateResult("torch-eager", median_ms=2.0, spread_ms=0.1, compile_s=0.2,
                                       round_ms=[2.0]),
        "torch-compiled": CandidateResult("torch-compiled", status="disqualified",
                                          reason="output differs"),
    }, RaceSettings(rounds=1, frames=3))
    k = record_result(res, cache)
    assert k == f"{FP}|animated@64x36/rgb10"
    e = cache.load()[k]
    assert e["winner"] == "torch-eager" and e["rounds"] == 1 and e["frames"] == 3
    assert e["candidates"]["torch-compiled"]["status"] == "disqualified"
    assert e["torch"] == torch_version() and e["testcard"]
    res.winner = None
    with pytest.raises(ValueError, match="nothing to record"):
        record_result(res, cache)


def test_clear(cache):
    cache.record(FP, BAND, entry())
    cache.record(FP, "static@1080p/rgb8", entry())
    cache.record(OTHER, BAND, entry())
    assert cache.clear(bands=["counter@3840x2160/rgb10"], fingerprints=[FP]) == 1
    assert set(cache.load()) == {f"{FP}|static@1080p/rgb8", f"{OTHER}|{BAND}"}
    assert cache.clear() == 2 and cache.load() == {}


# ---------------------------------------------------------------- corrupt and newer caches
@pytest.mark.parametrize("content", [b'{"kind": "testcard-decisions", "schema": 1, "entr',
                                     b"\x00\xff garbage",
                                     b'{"kind": "testcard-decisions", "schema": 1, "entries": []}'])
def test_corrupt_cache_moved_aside_with_warning(cache, content):
    cache.path.write_bytes(content)
    with pytest.warns(DecisionCacheWarning, match="corrupt.*moved aside"):
        d = choose_path(BAND, cache=cache, env={}, problem=runs_everywhere)
    assert d.source == "default" and "moved aside" in d.reason
    aside = list(cache.path.parent.glob("decisions.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == content   # kept, never overwritten
    assert aside[0].name in d.reason
    assert not cache.path.exists()
    cache.record(FP, BAND, entry())   # a fresh cache starts cleanly
    assert choose_path(BAND, cache=cache, env={}, problem=runs_everywhere).source == "cache"


def test_newer_schema_left_alone_and_writes_refused(cache):
    raw = json.dumps({"kind": "testcard-decisions", "schema": 99, "entries": {}}).encode()
    cache.path.write_bytes(raw)
    with pytest.warns(DecisionCacheWarning, match="newer testcard.*upgrade testcard"):
        d = choose_path(BAND, cache=cache, env={}, problem=runs_everywhere)
    assert d.source == "default" and "newer testcard" in d.reason
    with pytest.raises(DecisionFileError, match="refusing to overwrite"):
        cache.record(FP, BAND, entry())
    assert cache.path.read_bytes() == raw
