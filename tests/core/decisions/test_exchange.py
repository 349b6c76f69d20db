"""Decision files (core.decisions.exchange): export, import with its receipt."""

import pytest

from core.decisions import (
    DecisionCache,
    DecisionFileError,
    choose_path,
    export_decisions,
    import_decisions,
    read_decision_file,
)
from tests.helpers.decision_helpers import BAND, FP, HERE, OTHER, entry, key, runs_everywhere


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
