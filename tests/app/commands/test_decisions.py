"""`testcard decisions ...` over its own input and bad files: exporting over the cache (by any
link) or importing the cache itself is refused and loses nothing, a newer or oversized file is
one line and exit 2, `measure` refuses a cache it could not write before racing."""

import json
import os

import pytest

import core.decisions.cache as cache_mod
import core.decisions.schema as schema_mod
from app.cli import main
from core.decisions import SCHEMA, DecisionCache, cache_path, document
from tests.helpers.decision_helpers import BAND, FP, OTHER, entry, key


@pytest.fixture
def cache():
    """The cache testcard uses, holding one verdict for this box and one carried for another."""
    c = DecisionCache()
    c.record(FP, BAND, entry("torch-eager"))
    c.record(OTHER, BAND, entry("torch-compiled"))
    return c


def _one_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("testcard: error: "), err
    return err[0]


def test_export_over_the_cache_lock_is_refused(capsys, cache):
    lock = cache.lock_path
    with cache.locked(5):
        pass                                                   # the lock file exists now
    ino = lock.stat().st_ino
    assert main(["decisions", "export", str(lock)]) == 2
    _one_error(capsys)
    assert lock.stat().st_ino == ino                           # never replaced under a holder


@pytest.mark.parametrize("how", ["same path", "symlink", "hard link", "relative path"])
def test_export_over_the_cache_itself_is_refused(capsys, tmp_path, monkeypatch, cache, how):
    before = cache.path.read_bytes()
    out = tmp_path / "out.json"
    if how == "same path":
        out = cache.path
    elif how == "symlink":
        out.symlink_to(cache.path)
    elif how == "hard link":
        os.link(cache.path, out)
    else:
        monkeypatch.chdir(cache.path.parent)
        out = cache.path.name
    assert main(["decisions", "export", str(out)]) == 2
    assert "it is the decision cache itself" in _one_error(capsys)
    assert cache.path.read_bytes() == before
    assert key(OTHER, BAND) in DecisionCache().load()        # the other device's verdict is kept


@pytest.mark.parametrize("how", ["same path", "symlink"])
def test_importing_the_cache_itself_is_refused(capsys, tmp_path, cache, how):
    before = cache.path.read_bytes()
    src = cache.path
    if how == "symlink":
        src = tmp_path / "link.json"
        src.symlink_to(cache.path)
    assert main(["decisions", "import", str(src)]) == 2
    assert "is the decision cache itself" in _one_error(capsys)
    assert cache.path.read_bytes() == before


def test_export_then_import_elsewhere_keeps_everything(capsys, tmp_path, cache):
    ship = tmp_path / "ship.json"
    assert main(["decisions", "export", str(ship)]) == 0
    assert "exported 1 decision(s)" in capsys.readouterr().out
    assert set(DecisionCache().load()) == {key(FP, BAND), key(OTHER, BAND)}


def test_a_newer_file_is_refused_with_upgrade_advice(capsys, tmp_path, cache):
    before = cache.path.read_bytes()
    src = tmp_path / "new.json"
    src.write_text(json.dumps(dict(document({}), schema=SCHEMA + 1)))
    assert main(["decisions", "import", str(src)]) == 2
    line = _one_error(capsys)
    assert "newer testcard" in line and "upgrade testcard" in line
    assert cache.path.read_bytes() == before


def test_a_file_over_the_entry_cap_is_one_line(capsys, tmp_path, cache, monkeypatch):
    monkeypatch.setattr(schema_mod, "MAX_ENTRIES", 3)
    monkeypatch.setattr(cache_mod, "MAX_ENTRIES", 3)
    before = cache.path.read_bytes()
    src = tmp_path / "many.json"
    src.write_text(json.dumps(document({key(f"cpu:Box {i} x2", BAND): entry() for i in range(4)})))
    assert main(["decisions", "import", str(src)]) == 2
    assert "4 entries is over the limit of 3" in _one_error(capsys)
    src.write_text(json.dumps(document({key(f"cpu:Box {i} x2", BAND): entry() for i in range(2)})))
    assert main(["decisions", "import", str(src)]) == 2         # 2 + 2 local would be 4
    assert "4 entries is over the limit of 3" in _one_error(capsys)
    assert cache.path.read_bytes() == before


@pytest.mark.parametrize("device", ["cpu:" + "A" * 100_000, "cpu:Test\nCPU x4", "gpu"])
def test_a_bad_device_argument_is_one_line(capsys, cache, device):
    assert main(["decisions", "export", "x.json", "--device", device]) == 2
    assert "--device" in _one_error(capsys)


def test_show_skips_unusable_entries_with_one_warning(capsys, cache):
    doc = json.loads(cache.path.read_bytes())
    doc["entries"][key(OTHER, "static@1080p/rgb8")] = dict(entry(), rounds=True)
    cache.path.write_text(json.dumps(doc))
    assert main(["decisions", "show", "--json"]) == 0
    cap = capsys.readouterr()
    assert [r["band"] for r in json.loads(cap.out)] == [BAND, BAND]
    warn = [line for line in cap.err.splitlines() if line.startswith("testcard: warning:")]
    assert len(warn) == 1 and "1 unusable entry ignored" in warn[0] and "rounds" in warn[0]


def test_measure_refuses_a_cache_it_could_not_write_before_racing(capsys, tmp_path, monkeypatch):
    newer = json.dumps({"kind": "testcard-decisions", "schema": SCHEMA + 1, "entries": {}})
    cache_path().parent.mkdir(parents=True, exist_ok=True)
    cache_path().write_text(newer)
    argv = ["measure", "--band", "animated@64x36/rgb8", "--candidates", "numpy",
            "--rounds", "1", "--frames", "1", "--warmup", "1"]
    assert main(argv) == 2
    cap = capsys.readouterr()
    assert "measure: animated@64x36/rgb8" not in cap.err                # no race was run
    line = [x for x in cap.err.splitlines() if x.startswith("testcard: error:")]
    assert len(line) == 1 and "newer testcard" in line[0] and "refusing to write" in line[0]
    assert cache_path().read_text() == newer
    # a cache folder that is a file: refused before racing too
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    monkeypatch.setenv("TESTCARD_DECISION_CACHE", str(blocker / "decisions.json"))
    assert main(argv) == 2
    cap = capsys.readouterr()
    assert "measure: animated@64x36/rgb8" not in cap.err and "Traceback" not in cap.err
    assert len([x for x in cap.err.splitlines() if x.startswith("testcard: error:")]) == 1
