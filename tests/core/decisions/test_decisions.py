"""The decision cache: precedence, fall-through, safe writes, export and import."""

import json
import os

import pytest

from core.atomic import atomic_write
from core.decisions import (
    SCHEMA,
    CandidateResult,
    DecisionCache,
    DecisionCacheWarning,
    DecisionFileError,
    RaceResult,
    RaceSettings,
    cache_path,
    choose_path,
    choose_path_for,
    document,
    export_decisions,
    fingerprint,
    import_decisions,
    parse_pin,
    read_decision_file,
    record_result,
    torch_version,
)
from core.patterns import make_spec
from tests.helpers.decision_helpers import HERE, OTHER, entry, key

FP = fingerprint("cpu")
BAND = "counter@2160p/rgb10"


def runs_everywhere(path, device):
    return None


def no_compiler(path, device):
    if path == "torch-compiled":
        return "no C++ compiler found (install g++ or clang)"
    if path == "torch-cudagraphs":
        return "CUDA graphs need a CUDA device"
    return None


@pytest.fixture
def cache(tmp_path):
    return DecisionCache(tmp_path / "decisions.json")


def test_cache_path_env_override(tmp_path, monkeypatch):
    monkeypatch.setenv("TESTCARD_DECISION_CACHE", str(tmp_path / "x" / "d.json"))
    assert cache_path() == tmp_path / "x" / "d.json"
    monkeypatch.delenv("TESTCARD_DECISION_CACHE")
    assert cache_path() == tmp_path / "cache" / "decisions.json"   # $TESTCARD_CACHE_DIR (conftest)
    monkeypatch.delenv("TESTCARD_CACHE_DIR")
    assert cache_path().name == "decisions.json" and "testcard" in str(cache_path())


# ---------------------------------------------------------------- precedence
def test_default_when_nothing_known(cache):
    d = choose_path(BAND, cache=cache, env={}, problem=runs_everywhere)
    assert (d.path, d.source, d.band) == ("numpy", "default", None)
    assert "no pin and no measurement for counter@2160p/rgb10" in d.reason
    assert d.fingerprint == FP and d.fallthrough == ()


def test_cache_beats_default(cache):
    cache.record(FP, BAND, entry("torch-eager"))
    d = choose_path(BAND, cache=cache, env={}, problem=runs_everywhere)
    assert (d.path, d.source, d.band) == ("torch-eager", "cache", BAND)
    assert "2025-03-01" in d.reason


def test_pin_beats_cache(cache):
    cache.record(FP, BAND, entry("torch-eager"))
    d = choose_path(BAND, cache=cache, env={"TESTCARD_RENDER_PATH": "torch-compiled"},
                    problem=runs_everywhere)
    assert (d.path, d.source) == ("torch-compiled", "pin")
    assert d.reason == "pinned by TESTCARD_RENDER_PATH=torch-compiled"


def test_other_devices_entries_are_inert(cache):
    cache.record(OTHER, BAND, entry("torch-cudagraphs", others=("torch-cudagraphs",)))
    d = choose_path(BAND, cache=cache, env={}, problem=runs_everywhere)
    assert d.source == "default"


def test_unrunnable_pin_falls_to_cache_then_unrunnable_cache_to_default(cache):
    cache.record(FP, BAND, entry("torch-compiled"))
    d = choose_path(BAND, cache=cache, env={"TESTCARD_RENDER_PATH": "torch-cudagraphs"},
                    problem=no_compiler)
    assert (d.path, d.source) == ("numpy", "default")
    assert d.fallthrough == (
        "pinned torch-cudagraphs cannot run here: CUDA graphs need a CUDA device",
        "cached torch-compiled for counter@2160p/rgb10 cannot run here: no C++ compiler found "
        "(install g++ or clang)")
    assert "CUDA graphs need a CUDA device" in d.reason and "no C++ compiler" in d.reason
    # the same pin with a runnable cached path: the cache decides, the pin's reason kept
    cache.record(FP, BAND, entry("torch-eager"))
    d = choose_path(BAND, cache=cache, env={"TESTCARD_RENDER_PATH": "torch-cudagraphs"},
                    problem=no_compiler)
    assert (d.path, d.source) == ("torch-eager", "cache") and len(d.fallthrough) == 1


def test_unknown_or_malformed_pin_falls_through(cache, caplog):
    d = choose_path(BAND, cache=cache, env={"TESTCARD_RENDER_PATH": "torch-fast"},
                    problem=runs_everywhere)
    assert d.source == "default"
    assert "'torch-fast' is not a render path" in d.fallthrough[0]
    assert "torch-fast" in caplog.text  # logged
    d = choose_path(BAND, cache=cache, env={"TESTCARD_RENDER_PATH": "nosuch@1080p/rgb8=numpy"},
                    problem=runs_everywhere)
    assert d.source == "default" and "pin ignored" in d.fallthrough[0]


def test_per_band_pins_first_match_wins(cache):
    env = {"TESTCARD_RENDER_PATH": "counter@2160p/rgb10=torch-compiled, *@1080p/*=torch-eager,*=numpy"}
    pick = lambda b: choose_path(b, cache=cache, env=env, problem=runs_everywhere)  # noqa: E731
    d = pick("counter@3840x2160/rgb10")
    assert (d.path, d.source, d.band) == ("torch-compiled", "pin", BAND)
    assert d.reason == "pinned by TESTCARD_RENDER_PATH: counter@2160p/rgb10=torch-compiled"
    assert pick("bars@1080p/rgb8").path == "torch-eager"
    assert pick("bars@2160p/rgb8").path == "numpy"
    # a per-band pin that matches nothing leaves the cache in charge
    cache.record(FP, "static@1440p/rgb8", entry("torch-eager"))
    d = choose_path("static@1440p/rgb8", cache=cache,
                    env={"TESTCARD_RENDER_PATH": "counter@2160p/rgb10=torch-compiled"},
                    problem=runs_everywhere)
    assert d.source == "cache"


def test_parse_pin_syntax():
    assert parse_pin("numpy") == [("*", "numpy")]
    assert parse_pin("COUNTER@3840x2160/RGB10=torch-compiled,*=numpy") == [
        ("counter@2160p/rgb10", "torch-compiled"), ("*", "numpy")]
    assert parse_pin("counter@*=torch-eager") == [("counter@*", "torch-eager")]
    for bad in ("numpy,", "=numpy", "counter@2160p/rgb10=", "counter@9p/rgb10=numpy"):
        with pytest.raises(ValueError):
            parse_pin(bad)


def test_spec_chain_specific_band_then_generic(cache):
    spec = make_spec("checkerboard", {"invert_every": 2}, width=1920, height=1080)
    cache.record(FP, "animated@1080p/rgb10", entry("torch-eager"))
    d = choose_path_for(spec, "rgb10", cache=cache, env={}, problem=runs_everywhere)
    assert (d.path, d.band) == ("torch-eager", "animated@1080p/rgb10")
    cache.record(FP, "checkerboard@1080p/rgb10", entry("torch-compiled"))
    d = choose_path_for(spec, "rgb10", cache=cache, env={}, problem=runs_everywhere)
    assert (d.path, d.band) == ("torch-compiled", "checkerboard@1080p/rgb10")


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


def test_file_shape_schema_at_top(cache):
    cache.record(FP, BAND, entry())
    doc = json.loads(cache.path.read_text())
    assert list(doc)[:2] == ["kind", "schema"] and doc["schema"] == SCHEMA
    assert list(doc["entries"]) == [f"{FP}|{BAND}"]


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
                                     b'{"kind": "testcard-decisions", "schema": 1, "entries": '
                                     b'{"cpu:x x1|counter@1080p/rgb8": {"winner": 3}}}'])
def test_corrupt_cache_moved_aside_with_warning(cache, content):
    cache.path.write_bytes(content)
    with pytest.warns(DecisionCacheWarning, match="corrupt.*moved it aside"):
        d = choose_path(BAND, cache=cache, env={}, problem=runs_everywhere)
    assert d.source == "default" and "moved aside" in d.reason
    aside = list(cache.path.parent.glob("decisions.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == content   # kept, never overwritten
    assert not cache.path.exists()
    cache.record(FP, BAND, entry())   # a fresh cache starts cleanly
    assert choose_path(BAND, cache=cache, env={}, problem=runs_everywhere).source == "cache"


def test_newer_schema_left_alone_and_writes_refused(cache):
    raw = json.dumps({"kind": "testcard-decisions", "schema": 99, "entries": {}}).encode()
    cache.path.write_bytes(raw)
    with pytest.warns(DecisionCacheWarning, match="newer testcard"):
        d = choose_path(BAND, cache=cache, env={}, problem=runs_everywhere)
    assert d.source == "default" and "newer testcard" in d.reason
    with pytest.raises(DecisionFileError, match="refusing to overwrite"):
        cache.record(FP, BAND, entry())
    assert cache.path.read_bytes() == raw


# ---------------------------------------------------------------- export / import
def test_export_import_round_trip(tmp_path, cache):
    # measured on this box (FP), shipped to an edge box with the same hardware
    cache.record(FP, BAND, entry("torch-compiled"))
    cache.record(FP, "animated@1080p/rgb8", entry("torch-eager"))
    cache.record(OTHER, BAND, entry("torch-eager"))
    out = tmp_path / "ship.json"
    assert export_decisions(out, devices=["cpu"], cache=cache) == 2
    shipped = read_decision_file(out)
    assert set(shipped) == {key(FP, BAND), key(FP, "animated@1080p/rgb8")}
    assert shipped == {k: v for k, v in cache.load().items() if k.startswith(FP)}
    assert export_decisions(tmp_path / "one.json", bands=[BAND], devices=[FP], cache=cache) == 1
    assert list(read_decision_file(tmp_path / "one.json")) == [key(FP, BAND)]
    with pytest.raises(DecisionFileError, match="nothing to export"):
        export_decisions(tmp_path / "none.json", bands=["static@1080p/rgb8"], devices=["cpu"],
                         cache=cache)
    assert not (tmp_path / "none.json").exists()

    edge = DecisionCache(tmp_path / "edge" / "decisions.json")
    assert choose_path(BAND, cache=edge, env={}, problem=runs_everywhere).source == "default"
    r = import_decisions(out, cache=edge, here=[FP])
    assert (r.imported, r.kept_local, r.carried) == (2, 0, 0) and r.warnings == []
    assert edge.load() == shipped
    assert [e["action"] for e in r.entries] == ["imported", "imported"]
    d = choose_path(BAND, cache=edge, env={}, problem=runs_everywhere)
    assert (d.path, d.source) == ("torch-compiled", "cache")


def test_import_local_wins_others_carried_torch_major_warned(tmp_path, cache):
    cache.record(HERE, BAND, entry("torch-eager", measured_at="2025-04-01T00:00:00+00:00"))
    incoming = DecisionCache(tmp_path / "src.json")
    incoming.record(HERE, BAND, entry("torch-compiled"))
    incoming.record(HERE, "static@1080p/rgb16", entry("torch-eager", torch="1.13.1"))
    incoming.record(OTHER, BAND, entry("torch-eager"))
    r = import_decisions(incoming.path, cache=cache, here=[HERE])
    assert (r.imported, r.kept_local, r.carried) == (1, 1, 1)
    assert r.summary() == "imported 1, kept local 1, carried for other devices 1"
    local = cache.load()
    assert local[key(HERE, BAND)]["winner"] == "torch-eager"           # local wins
    assert local[key(OTHER, BAND)]["winner"] == "torch-eager"          # carried along
    assert len(r.warnings) == 1 and "torch 1.13.1" in r.warnings[0]
    warned = [e for e in r.entries if "warning" in e]
    assert [e["band"] for e in warned] == ["static@1080p/rgb16"]
    # importing the same file again changes nothing
    before = cache.path.read_bytes()
    r2 = import_decisions(incoming.path, cache=cache, here=[HERE])
    assert (r2.imported, r2.kept_local, r2.carried) == (0, 3, 0)
    assert cache.path.read_bytes() == before


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


def test_atomic_write_leaves_no_temp_and_replaces(tmp_path):
    p = tmp_path / "f.json"
    atomic_write(p, b"one")
    atomic_write(p, b"two")
    assert p.read_bytes() == b"two"
    assert sorted(os.listdir(tmp_path)) == ["f.json"]


def test_default_is_the_first_path_that_runs_here(cache):
    def gpu_box(path, device):
        return "the numpy path runs on the CPU only" if path == "numpy" else None

    d = choose_path(BAND, cache=cache, env={}, problem=gpu_box)
    assert (d.path, d.source, d.fallthrough) == ("torch-eager", "default", ())
