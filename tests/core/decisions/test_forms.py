"""How a verdict was raced (``form``: render or live) in the cache, decision files and lookups:
every entry carries it and is validated by it, a live verdict outranks a render one for the
same band, and a schema 1 file (before forms) is read as render without being rewritten."""

import datetime
import json
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.decisions import (
    FORMS,
    SCHEMA,
    DecisionCacheWarning,
    DecisionFileError,
    RaceOverride,
    RaceSettings,
    choose_path,
    document,
    import_decisions,
    key_form,
    list_entries,
    live_race,
    make_key,
    parse_document,
    record_result,
    run_race,
    split_key,
)
from core.decisions.schema import entry_from_result
from tests.helpers.decision_helpers import BAND, FP, HERE, OTHER, entry, key, runs_everywhere
from tests.helpers.live_race import FakeClock, FakeLoop, isolated

NOW = datetime.datetime(2025, 6, 1, 12, 0, tzinfo=datetime.UTC)
SMALL = RaceSettings(rounds=3, frames=10, warmup=2, parity_frames=(0,))


def live_result(band=BAND, device="cpu"):
    """A finished live race: torch-eager on time, numpy's every frame late."""
    clock = FakeClock()
    cands = isolated(clock, {"numpy": 1.0, "torch-eager": 2.0})
    return run_race(live_race(band, device, cands, FakeLoop(clock, {"numpy": 20, "torch-eager": 9}),
                              settings=SMALL, clock=clock))


def live_entry(**changes):
    e = entry_from_result(live_result(), measured_at="2025-03-01T10:00:00+00:00")
    e.update(changes)
    return e


def test_a_live_verdict_is_written_with_its_form_period_and_late_frames(cache):
    k = record_result(live_result(), cache)
    assert k == f"{FP}|{BAND}|live" and key_form(k) == "live"
    e = json.loads(cache.path.read_text())["entries"][k]
    assert e["form"] == "live" and e["period_ms"] == 16.0 and e["winner"] == "torch-eager"
    assert e["candidates"]["numpy"]["late"] == SMALL.rounds * SMALL.frames
    assert e["candidates"]["torch-eager"]["late"] == 0
    assert e["candidates"]["torch-eager"]["interval_p99_ms"] == 16.0
    assert e["candidates"]["torch-eager"]["cost_p99_ms"] == 9.0
    # a render verdict keeps its key and says its form
    cache.record(FP, BAND, entry("torch-compiled"))
    assert cache.load()[key(FP, BAND)]["form"] == "render"
    assert set(cache.load()) == {key(FP, BAND), k}


def test_a_live_verdict_outranks_a_render_one_for_the_same_band(cache):
    cache.record(FP, BAND, entry("torch-compiled"))
    d = choose_path(BAND, cache=cache, env={}, problem=runs_everywhere)
    assert (d.path, d.source, d.form) == ("torch-compiled", "cache", "render")
    record_result(live_result(), cache)
    d = choose_path(BAND, cache=cache, env={}, problem=runs_everywhere)
    assert (d.path, d.source, d.form) == ("torch-eager", "cache", "live")
    assert "measured live here (in the real presenter) for counter@2160p/rgb10" in d.reason
    # a live winner that cannot run here falls through to the band's render verdict
    d = choose_path(BAND, cache=cache, env={},
                    problem=lambda p, dev: "no torch here" if p == "torch-eager" else None)
    assert (d.path, d.form) == ("torch-compiled", "render")
    assert d.fallthrough == ("cached torch-eager for counter@2160p/rgb10 (live race) cannot run "
                             "here: no torch here",)
    # the more specific band's render verdict still comes before a generic band's live one
    other = "animated@2160p/rgb10"
    record_result(live_result(other), cache)
    d = choose_path([BAND, other], cache=cache, env={}, problem=runs_everywhere)
    assert d.band == BAND and d.form == "live"


def test_a_race_in_progress_outranks_the_pin_and_the_cache(cache):
    record_result(live_result(), cache)
    env = {"TESTCARD_RENDER_PATH": "numpy"}
    race = RaceOverride()
    race.set(BAND, "cpu", "torch-compiled")
    assert race.get(BAND, "cpu") == "torch-compiled"
    d = choose_path(BAND, cache=cache, env=env, problem=runs_everywhere, race=race)
    assert (d.path, d.source) == ("torch-compiled", "race")
    assert choose_path(BAND, cache=cache, env=env, problem=runs_everywhere).source == "pin"  # no race
    assert choose_path("static@1080p/rgb8", cache=cache, env=env, problem=runs_everywhere,
                       race=race).source == "pin"
    with pytest.raises(ValueError, match="unknown render path"):
        race.set(BAND, "cpu", "torch-fast")
    race.set(BAND, "cpu", None)
    assert race.get(BAND, "cpu") is None
    assert choose_path(BAND, cache=cache, env=env, problem=runs_everywhere, race=race).source == "pin"


def test_two_overrides_never_see_each_others_race(cache):
    ours, theirs = RaceOverride(), RaceOverride()
    ours.set(BAND, "cpu", "torch-eager")
    theirs.set(BAND, "cpu", "torch-compiled")
    assert choose_path(BAND, cache=cache, env={}, problem=runs_everywhere, race=ours).path == "torch-eager"
    assert choose_path(BAND, cache=cache, env={}, problem=runs_everywhere,
                       race=theirs).path == "torch-compiled"
    ours.set(BAND, "cpu", None)                     # our race ends: theirs goes on
    assert ours.get(BAND, "cpu") is None and theirs.get(BAND, "cpu") == "torch-compiled"
    assert choose_path(BAND, cache=cache, env={}, problem=runs_everywhere, race=ours).source == "default"
    assert theirs.racing(FP, [BAND, "animated@2160p/rgb10"]) == [(BAND, "torch-compiled")]


@pytest.mark.parametrize("mutate,msg", [
    (lambda d, k: d["entries"][k].update(form="fast"), "form 'fast' is not one of render, live"),
    (lambda d, k: d["entries"].update({k.replace("|live", "|fast"): d["entries"].pop(k)}),
     "'fast' is not a form"),
    (lambda d, k: d["entries"].update({k.replace("|live", "|render"): d["entries"].pop(k)}),
     "a render verdict's key has no form"),
    (lambda d, k: d["entries"].update({k.replace("|live", ""): d["entries"].pop(k)}),
     "its form is live, but its key holds a render verdict"),
    (lambda d, k: d["entries"][k].pop("period_ms"), "a live entry needs period_ms"),
    (lambda d, k: d["entries"][k].update(period_ms=0), "period_ms must be above 0"),
    (lambda d, k: d["entries"][k]["candidates"]["torch-eager"].pop("late"), "missing field 'late'"),
    (lambda d, k: d["entries"][k]["candidates"]["torch-eager"].update(late=-1),
     "late must be an integer 0..10000000"),
    (lambda d, k: d["entries"][k]["candidates"]["torch-eager"].update(cost_p99_ms=True),
     "cost_p99_ms must be a number"),
    (lambda d, k: d["entries"][key(OTHER, BAND)]["candidates"]["numpy"].update(late=3),
     "late belongs to a live entry; this one's form is render"),
    (lambda d, k: d["entries"][key(OTHER, BAND)].update(period_ms=16.7), "period_ms belongs to a live entry"),
])
def test_import_validates_the_form_and_refuses_the_whole_file(tmp_path, cache, mutate, msg):
    cache.record(HERE, "static@1080p/rgb8", entry())
    before = cache.path.read_bytes()
    live_key = make_key(OTHER, BAND, "live")
    doc = document({live_key: live_entry(), key(OTHER, BAND): entry("torch-eager")})
    parse_document(json.dumps(doc), NOW)            # valid as written
    mutate(doc, live_key)
    src = tmp_path / "bad.json"
    src.write_text(json.dumps(doc))
    with pytest.raises(DecisionFileError, match=msg) as err:
        import_decisions(src, cache=cache, here=[HERE])
    assert "refused, nothing imported" in str(err.value)
    assert cache.path.read_bytes() == before


def test_import_carries_live_verdicts_beside_local_render_ones(tmp_path, cache):
    cache.record(FP, BAND, entry("torch-compiled"))
    src = tmp_path / "in.json"
    src.write_text(json.dumps(document({make_key(FP, BAND, "live"): live_entry(),
                                        key(FP, BAND): entry("numpy")})))
    r = import_decisions(src, cache=cache, here=[FP])
    assert (r.imported, r.kept_local) == (1, 1)
    assert {(e["form"], e["action"]) for e in r.entries} == {("live", "imported"), ("render", "kept_local")}
    rows = {(row["band"], row["form"]): row for row in list_entries(cache, here=[FP])}
    assert rows[(BAND, "live")]["late"] == {"numpy": 30, "torch-eager": 0}
    assert rows[(BAND, "live")]["period_ms"] == 16.0
    assert rows[(BAND, "render")]["late"] is None and rows[(BAND, "render")]["winner"] == "torch-compiled"


def _v1(entries):
    return json.dumps({"kind": "testcard-decisions", "schema": 1, "testcard": "0.1.0",
                       "entries": entries}, indent=2).encode()


def test_a_schema_1_cache_is_read_as_render_and_rewritten_only_by_a_write(cache):
    raw = _v1({key(FP, BAND): entry("torch-eager"), key(OTHER, BAND): entry("numpy")})
    cache.path.write_bytes(raw)
    got = cache.load()
    assert got[key(FP, BAND)]["form"] == "render" and got[key(FP, BAND)]["winner"] == "torch-eager"
    d = choose_path(BAND, cache=cache, env={}, problem=runs_everywhere)
    assert (d.path, d.form) == ("torch-eager", "render")
    assert cache.path.read_bytes() == raw and cache.notes == []     # reads change nothing
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DecisionCacheWarning)
        record_result(live_result(), cache)
    doc = json.loads(cache.path.read_bytes())
    assert doc["schema"] == SCHEMA == 2
    assert set(doc["entries"]) == {key(FP, BAND), key(OTHER, BAND), make_key(FP, BAND, "live")}
    assert doc["entries"][key(OTHER, BAND)]["form"] == "render"
    (old,) = [p for p in cache.path.parent.iterdir() if p.name.startswith("decisions.json.schema1-")]
    assert old.read_bytes() == raw
    assert any("written in schema 1" in str(w.message) and old.name in str(w.message) for w in caught)


def test_a_schema_1_entry_has_no_form_to_carry(tmp_path):
    bad = {key(OTHER, BAND): {**entry(), "form": "render"}}
    with pytest.raises(DecisionFileError, match=r"unknown field 'form' \(schema 1 has no forms\)"):
        parse_document(_v1(bad), NOW)
    got = parse_document(_v1({key(OTHER, BAND): entry()}), NOW)
    assert got[key(OTHER, BAND)]["form"] == "render"


def test_a_schema_2_entry_without_a_form_reads_as_render():
    got = parse_document(json.dumps(document({key(OTHER, BAND): entry()})), NOW)
    assert got[key(OTHER, BAND)]["form"] == "render"


def test_record_refuses_an_unknown_form(cache):
    with pytest.raises(ValueError, match="refusing to record: form must be one of render, live"):
        cache.record(FP, BAND, {**entry(), "form": "fast"})
    assert not cache.path.exists()


BANDS = ("counter@2160p/rgb10", "animated@1920x1200/rgb8", "STATIC@3840x2160/RGB16")


@given(st.sampled_from(FORMS), st.sampled_from(BANDS))
def test_keys_name_their_form_and_round_trip(form, band):
    k = make_key(FP, band, form)
    assert key_form(k) == form and split_key(k) == (FP, make_key(FP, band).split("|")[1])
    assert k.endswith("|live") == (form == "live")


@given(st.text(max_size=12))
def test_a_key_naming_any_other_form_is_refused(suffix):
    k = f"{FP}|{BAND}|{suffix}"
    if suffix == "live":
        assert key_form(k) == "live"
    else:
        with pytest.raises(DecisionFileError):
            key_form(k)
