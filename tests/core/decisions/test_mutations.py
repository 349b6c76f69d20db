"""Random mutations of a valid cache (byte flips, truncation, duplicate lines, deletions,
renames, type swaps, huge values, deep nesting): a lookup never raises and never yields a
winner that is not a declared candidate that finished its race; a read never changes the
file (a corrupt one is moved aside whole); a write is either refused with the file as it was,
or leaves a valid file keeping every usable entry."""

import json
import tempfile
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from core.decisions import (
    DecisionCache,
    DecisionCacheWarning,
    DecisionFileError,
    NewerSchemaError,
    choose_path,
    import_decisions,
    parse_cache,
    validate_document,
)
from core.engine import PATHS
from tests.helpers.decision_helpers import BAND, FP, entry, key, runs_everywhere
from tests.helpers.decision_mutations import mutated_files, valid_doc

BANDS = (BAND, "static@1080p/rgb8")
NEW = "animated@1080p/rgb8"


def _expect(raw):
    """What the cache should make of ``raw``: (kind, usable entries, rejected keys)."""
    try:
        good, bad = parse_cache(raw)
    except NewerSchemaError:
        return "newer", {}, {}
    except DecisionFileError:
        return "corrupt", {}, {}
    return "ok", good, bad


def _others(folder: Path, *names):
    return sorted(p.name for p in folder.iterdir() if p.name not in names)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_files(here=FP))
def test_a_mutated_cache_never_breaks_a_lookup_or_loses_a_file(raw):
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore", DecisionCacheWarning)
        folder = Path(tmp)
        path = folder / "decisions.json"
        path.write_bytes(raw)
        kind, good, bad = _expect(raw)
        cache = DecisionCache(path)
        for band in BANDS:
            d = choose_path(band, cache=cache, env={}, problem=runs_everywhere)
            assert d.path in PATHS
            if d.source == "cache":
                e = good[key(FP, band, d.form)]
                assert d.entry == e and d.path == e["winner"] and e["form"] == d.form
                assert e["candidates"][d.path]["status"] == "ok"
                if d.form == "render":        # a usable live verdict comes first
                    assert key(FP, band, "live") not in good
            else:
                assert key(FP, band) not in good and key(FP, band, "live") not in good
        # a read changed nothing, or moved a corrupt file aside whole
        if kind == "corrupt":
            assert not path.exists()
            (aside,) = [p for p in folder.iterdir() if p.name.startswith("decisions.json.corrupt-")]
            assert aside.read_bytes() == raw
        else:
            assert path.read_bytes() == raw
        assert _others(folder, "decisions.json", "decisions.json.lock") == (
            [aside.name] if kind == "corrupt" else [])
        # a write: refused with the file as it was, or a valid file keeping every usable entry
        try:
            cache.record(FP, NEW, entry())
        except DecisionFileError:
            assert kind == "newer" and path.read_bytes() == raw
            return
        assert kind != "newer"
        written = json.loads(path.read_bytes())
        assert validate_document(written) == {**good, key(FP, NEW): {**entry(), "form": "render"}}
        if bad:
            (kept,) = [p for p in folder.iterdir() if p.name.startswith("decisions.json.unusable-")]
            assert kept.read_bytes() == raw


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_files(here=FP))
def test_an_import_into_a_mutated_cache_is_all_or_nothing(raw):
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore", DecisionCacheWarning)
        folder = Path(tmp)
        path = folder / "decisions.json"
        path.write_bytes(raw)
        kind, good, _bad = _expect(raw)
        src = folder / "in.json"
        src.write_text(json.dumps(valid_doc(here="cpu:Edge box x2")))
        incoming = validate_document(json.loads(src.read_bytes()))
        try:
            r = import_decisions(src, cache=DecisionCache(path), here=[FP])
        except DecisionFileError:
            assert kind == "newer" and path.read_bytes() == raw
            return
        assert kind != "newer"
        after = DecisionCache(path).load()
        assert after == {**incoming, **good}              # local entries win; the rest carried
        assert r.imported + r.kept_local + r.carried == len(incoming)
