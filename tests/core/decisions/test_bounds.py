"""Resources are bounded (core.decisions.schema caps, core.decisions.index): a decision file or
cache over its size or entry cap is refused cleanly, a write never takes the cache over them,
and lookups are served by the in-memory index -- the file is read once per change, and not
even looked at while the index is held.  Counts and sizes, never times."""

import json
import os
import warnings

import pytest

import core.decisions.cache as cache_mod
import core.decisions.index as ix
import core.decisions.schema as schema_mod
from core.decisions import (
    MAX_ENTRIES,
    MAX_FILE_BYTES,
    DecisionCache,
    DecisionCacheWarning,
    DecisionFileError,
    Indexes,
    choose_path,
    document,
    import_decisions,
    read_decision_file,
)
from core.decisions.schema import encode
from tests.helpers.decision_helpers import BAND, FP, entry, key, runs_everywhere


def _entries(n, fp_of=lambda i: f"cpu:Box {i} x4"):
    e = entry()
    return {key(fp_of(i), BAND): e for i in range(n)}


@pytest.fixture
def counted(monkeypatch):
    """How often the cache file is read and stat'ed."""
    calls = {"read": 0, "stat": 0}
    read, stat = ix.read_file, ix.stat_signature

    def read_counted(path):
        calls["read"] += 1
        return read(path)

    def stat_counted(path):
        calls["stat"] += 1
        return stat(path)

    monkeypatch.setattr(ix, "read_file", read_counted)
    monkeypatch.setattr(ix, "stat_signature", stat_counted)
    return calls


@pytest.fixture
def small_cap(monkeypatch):
    """A smaller entry cap, for the tests that fill the cache and write it more than once."""
    monkeypatch.setattr(schema_mod, "MAX_ENTRIES", 40)
    monkeypatch.setattr(cache_mod, "MAX_ENTRIES", 40)
    return 40


def _full_cache(path, cap=MAX_ENTRIES) -> DecisionCache:
    entries = _entries(cap - 1)
    entries[key(FP, BAND)] = entry("torch-eager")
    path.write_bytes(encode(entries))
    return DecisionCache(path)


def _sharing(cache) -> DecisionCache:
    """Another cache of ``cache``'s file sharing its registry (as every lookup of the live
    output shares the session's)."""
    return DecisionCache(cache.path, indexes=cache.indexes)


def _choose(cache, band=BAND):
    return choose_path(band, cache=cache, env={}, problem=runs_everywhere)


# ---------------------------------------------------------------- decision files
def test_a_decision_file_over_the_entry_cap_is_refused_and_nothing_changes(tmp_path, cache):
    cache.record(FP, BAND, entry())
    before = cache.path.read_bytes()
    src = tmp_path / "big.json"
    src.write_text(json.dumps(document(_entries(MAX_ENTRIES + 1))))
    over = f"{MAX_ENTRIES + 1} entries is over the limit of {MAX_ENTRIES}"
    with pytest.raises(DecisionFileError, match=f"big.json refused, nothing imported: {over}"):
        import_decisions(src, cache=cache, here=[FP])
    assert cache.path.read_bytes() == before
    assert len(read_decision_file(_write(tmp_path / "one.json", _entries(1)))) == 1


def _write(path, entries):
    path.write_text(json.dumps(document(entries)))
    return path


def test_a_decision_file_over_the_size_cap_is_refused_unread(tmp_path, cache, counted, monkeypatch):
    src = tmp_path / "huge.json"
    with open(src, "wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)          # sparse: nothing to read, but a size to refuse
    reads = []
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    with pytest.raises(DecisionFileError, match=f"{MAX_FILE_BYTES + 1} bytes is over the "
                                                f"{MAX_FILE_BYTES}-byte limit"):
        import_decisions(src, cache=cache, here=[FP])
    assert reads == [] and not cache.path.exists()


def test_an_import_that_would_overfill_the_cache_is_refused(tmp_path, small_cap):
    cache = _full_cache(tmp_path / "decisions.json", small_cap)
    before = cache.path.read_bytes()
    src = _write(tmp_path / "more.json", _entries(2, fp_of=lambda i: f"cpu:Other {i} x2"))
    with pytest.raises(DecisionFileError, match=f"{small_cap + 2} entries is over the limit"):
        import_decisions(src, cache=cache, here=[FP])
    assert cache.path.read_bytes() == before


# ---------------------------------------------------------------- writes
def test_a_write_never_takes_the_cache_over_its_caps(tmp_path, monkeypatch, small_cap):
    cache = _full_cache(tmp_path / "decisions.json", small_cap)
    before = cache.path.read_bytes()
    with pytest.raises(DecisionFileError, match=f"{small_cap + 1} entries is over the limit.*"
                                                "testcard decisions clear"):
        cache.record(FP, "static@1080p/rgb8", entry())
    assert cache.path.read_bytes() == before
    cache.record(FP, BAND, entry("torch-compiled"))    # replacing an entry is no growth
    assert len(DecisionCache(cache.path).load()) == small_cap
    monkeypatch.setattr(cache_mod, "MAX_FILE_BYTES", len(cache.path.read_bytes()))
    before = cache.path.read_bytes()
    with pytest.raises(DecisionFileError, match="bytes is over the"):
        cache.record(FP, BAND, entry("torch-compiled", numpy_ms=10.125))
    assert cache.path.read_bytes() == before


# ---------------------------------------------------------------- indexed lookups
def test_lookups_on_a_full_cache_read_the_file_once(tmp_path, counted):
    cache = _full_cache(tmp_path / "decisions.json")
    for i in range(100):
        band = BAND if i % 2 else f"animated@{100 + i}x100/rgb8"
        d = _choose(_sharing(cache), band)           # a new DecisionCache each time, one registry
        assert d.source == ("cache" if i % 2 else "default")
    assert counted["read"] == 1
    # a write through a cache of the registry feeds the index: still read once
    cache.record(FP, BAND, entry("torch-compiled"))
    assert _choose(cache).path == "torch-compiled"
    assert counted["read"] == 1


def test_a_change_by_another_process_costs_one_read(tmp_path, counted, small_cap):
    cache = _full_cache(tmp_path / "decisions.json", small_cap)
    assert _choose(cache).path == "torch-eager" and counted["read"] == 1
    entries = _sharing(cache).load()
    entries[key(FP, BAND)] = entry("numpy")
    tmp = cache.path.with_name("other-writer.json")
    tmp.write_bytes(encode(entries))
    os.replace(tmp, cache.path)
    assert _choose(cache).path == "numpy" and _choose(cache).path == "numpy"
    assert counted["read"] == 2


def test_a_held_index_never_touches_the_disk(tmp_path, counted, small_cap):
    cache = _full_cache(tmp_path / "decisions.json", small_cap)
    cache.hold()
    try:
        d = _choose(_sharing(cache))                          # before the worker has loaded it
        assert d.source == "default" and "still being read" in d.reason
        assert counted == {"read": 0, "stat": 0}
        assert _sharing(cache).refresh() is True              # the worker thread's load
        assert counted["read"] == 1 and _sharing(cache).notes == []
        stats = counted["stat"]
        os.replace(_write(tmp_path / "x.json", {key(FP, BAND): entry("torch-compiled")}), cache.path)
        for _ in range(50):                                     # pattern switches
            assert _choose(_sharing(cache)).path == "torch-eager"
        assert (counted["read"], counted["stat"]) == (1, stats)
        assert cache.refresh() is True and cache.refresh() is False
        assert counted["read"] == 2
        assert _choose(_sharing(cache)).path == "torch-compiled"
        cache.record(FP, BAND, entry("numpy"))                 # a write here feeds the held index
        assert _choose(_sharing(cache)).path == "numpy"
        assert counted["read"] == 2
    finally:
        cache.release()
    os.replace(_write(tmp_path / "y.json", {key(FP, BAND): entry("torch-eager")}), cache.path)
    assert _choose(cache).path == "torch-eager"                # released: follows the file again


def test_a_held_index_reports_a_bad_file_once(tmp_path, counted):
    path = tmp_path / "decisions.json"
    path.write_bytes(b"{broken")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        held = DecisionCache(path)
        held.hold()
        try:
            assert held.refresh() is True
            for _ in range(20):
                _choose(_sharing(held))
            notes = held.notes
        finally:
            held.release()
    assert len(notes) == 1 and "moved aside" in notes[0]
    assert len([w for w in seen if issubclass(w.category, DecisionCacheWarning)]) == 1
    assert counted["read"] == 2        # once to find it corrupt, once more under the lock


def test_caches_of_one_file_with_their_own_registries_share_nothing(tmp_path):
    cache = _full_cache(tmp_path / "decisions.json")
    cache.hold()                                               # held, never loaded: reads as empty
    try:
        assert _choose(_sharing(cache)).source == "default"
        other = DecisionCache(cache.path, indexes=Indexes())   # another registry's index
        assert not other.loading and _choose(other).path == "torch-eager"
        assert DecisionCache(cache.path).indexes is not cache.indexes   # none given: its own
        assert _choose(DecisionCache(cache.path)).path == "torch-eager"
        other.record(FP, BAND, entry("numpy"))                 # the file changes, the held index not
        assert _choose(_sharing(cache)).source == "default" and _sharing(cache).loading
        assert _choose(DecisionCache(cache.path)).path == "numpy"
    finally:
        cache.release()
    assert _choose(cache).path == "numpy"                      # released: the file again


def test_a_registry_keeps_its_limit_of_indexes_and_never_drops_a_held_one(tmp_path):
    reg = Indexes(limit=3)
    held = DecisionCache(tmp_path / "held.json", indexes=reg)
    held.hold()
    try:
        first = reg.index_for(tmp_path / "0.json")
        for i in range(6):
            reg.index_for(tmp_path / f"{i}.json")
        assert len(reg) == 4                                   # three unheld, and the held one
        assert reg.index_for(held.path) is held._index          # kept while held
        assert reg.index_for(tmp_path / "0.json") is not first  # the oldest unheld was dropped
    finally:
        held.release()
