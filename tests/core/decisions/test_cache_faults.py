"""A bad cache never stops a lookup (core.decisions.cache, core.decisions.choose): every
failure a cache file or its folder can have falls through to the default with its reason,
a corrupt file is moved aside (never over an earlier copy), a bad entry costs only itself."""

import datetime
import json
import os
import shutil
import subprocess
import sys
import warnings

import pytest
from filelock import FileLock

import core.decisions.cache as cache_mod
import core.decisions.index as ix
from core.decisions import (
    MAX_ENTRIES,
    MAX_FILE_BYTES,
    DecisionCache,
    DecisionCacheWarning,
    DecisionFileError,
    choose_path,
    document,
)
from tests.helpers import ROOT
from tests.helpers.decision_helpers import BAND, FP, OTHER, entry, key, runs_everywhere

GOOD = key(FP, BAND)


def _doc(entries) -> bytes:
    return json.dumps(document(entries)).encode()


def _choose(cache):
    """choose_path as the GUI calls it: any warning is collected, never raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DecisionCacheWarning)
        return choose_path(BAND, cache=cache, env={}, problem=runs_everywhere)


def _setup_folder_is_a_file(p):
    p.parent.rmdir() if p.parent.exists() and not any(p.parent.iterdir()) else None
    p.parent.write_bytes(b"not a folder")


def _setup_fifo(p):
    os.mkfifo(p)


def _setup_loop(p):
    os.symlink(p.name, p)


def _setup_dangling(p):
    os.symlink(p.parent / "gone.json", p)


def _sparse(p, size):
    with open(p, "wb") as fh:
        fh.truncate(size)


def _many_entries(n):
    e = entry()
    return {key(f"cpu:Box {i} x4", BAND): e for i in range(n)}


# (name, setup(path), what the reason must say, whether the file should be moved aside)
FAULTS = [
    ("truncated", lambda p: p.write_bytes(_doc({GOOD: entry()})[:-7]), "not valid JSON", True),
    ("not UTF-8", lambda p: p.write_bytes(b'{"kind": "\xff\xfe"}'), "not UTF-8", True),
    ("nested", lambda p: p.write_bytes(b"[" * 10_000 + b"]" * 10_000), "nested 10000 deep", True),
    ("duplicate keys", lambda p: p.write_bytes(b'{"kind": 1, "kind": 2}'), "duplicate key", True),
    ("NaN", lambda p: p.write_bytes(b'{"kind": NaN}'), "NaN", True),
    ("not a document", lambda p: p.write_bytes(b"[]"), "not a testcard decision file", True),
    ("empty", lambda p: p.write_bytes(b""), "not valid JSON", True),
    ("over the size cap", lambda p: _sparse(p, MAX_FILE_BYTES + 1), "over the", True),
    ("over the entry cap", lambda p: p.write_bytes(_doc(_many_entries(MAX_ENTRIES + 1))),
     f"{MAX_ENTRIES + 1} entries is over the limit", True),
    ("newer schema", lambda p: p.write_text(json.dumps({"kind": "testcard-decisions", "schema": 7,
                                                        "entries": {"x": 1}})),
     "newer testcard", False),
    ("a folder", lambda p: p.mkdir(), "it is a folder", False),
    ("folder is a file", _setup_folder_is_a_file, "Not a directory", False),
    ("a FIFO", _setup_fifo, "not a regular file", False),
    ("symlink loop", _setup_loop, "symbolic links", False),
    ("name too long", None, "File name too long", False),
]


@pytest.mark.parametrize("name,setup,says,aside", FAULTS, ids=[f[0] for f in FAULTS])
def test_choose_path_never_raises_and_says_why(tmp_path, name, setup, says, aside):
    folder = tmp_path / "cache"
    folder.mkdir()
    path = folder / ("x" * 300 if setup is None else "decisions.json")
    if setup is not None:
        setup(path)
    before = path.read_bytes() if os.path.isfile(path) and not os.path.islink(path) else None
    cache = DecisionCache(path)
    d = _choose(cache)
    assert (d.path, d.source) == ("numpy", "default")
    assert says in d.reason, d.reason
    assert any(says in why for why in d.fallthrough)
    moved = sorted(folder.glob("decisions.json.corrupt-*")) if os.path.isdir(folder) else []
    if aside:
        assert len(moved) == 1 and moved[0].read_bytes() == before and not path.exists()
        assert moved[0].name in d.reason
    else:
        assert moved == []
        if before is not None:
            assert path.read_bytes() == before
    # asked again, it says the same and reads nothing more
    assert _choose(cache).reason == d.reason


def test_a_dangling_symlink_is_no_cache(tmp_path):
    path = tmp_path / "decisions.json"
    _setup_dangling(path)
    d = _choose(DecisionCache(path))
    assert (d.source, d.fallthrough) == ("default", ())


def test_moving_aside_never_overwrites_an_earlier_copy(cache):
    contents = [b"{broken 1", b"{broken 2", b"{broken 3"]
    for raw in contents:
        cache.path.write_bytes(raw)
        assert _choose(cache).source == "default"
    kept = sorted(p.read_bytes() for p in cache.path.parent.glob("decisions.json.corrupt-*"))
    assert kept == sorted(contents)


def test_every_other_failure_falls_through(cache, monkeypatch):
    cache.record(FP, BAND, entry("torch-eager"))

    def denied(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(ix, "read_file", denied)
    monkeypatch.setattr(ix, "stat_signature", denied)
    d = _choose(DecisionCache(cache.path))
    assert d.source == "default" and "Permission denied" in d.reason

    def broken(path):
        raise RuntimeError("a bug in the cache")

    monkeypatch.setattr(ix, "stat_signature", broken)
    monkeypatch.setattr(ix, "read_file", broken)
    d = _choose(DecisionCache(cache.path))
    assert d.source == "default" and "could not be consulted (RuntimeError: a bug in the cache)" in d.reason
    monkeypatch.setattr(cache_mod, "DecisionCache", broken)   # even constructing it fails
    d = choose_path(BAND, env={}, problem=runs_everywhere)
    assert d.source == "default" and "could not be consulted" in d.reason


def test_a_corrupt_cache_locked_by_another_testcard_is_left_in_place(cache, monkeypatch):
    cache.path.write_bytes(b"{broken")
    monkeypatch.setattr(cache_mod, "ASIDE_LOCK_TIMEOUT_S", 0.05)
    other = FileLock(str(cache.lock_path))
    with other:
        d = _choose(cache)
    assert d.source == "default"
    assert "could not be moved aside" in d.reason and "locked by another testcard" in d.reason
    assert cache.path.read_bytes() == b"{broken"


def test_a_corrupt_cache_that_cannot_be_moved_falls_back_with_the_reason(cache, monkeypatch):
    cache.path.write_bytes(b"{broken")

    def refuse(path, tag):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(cache_mod, "move_aside", refuse)
    d = _choose(cache)
    assert d.source == "default"
    assert "is corrupt (not valid JSON" in d.reason
    assert "could not be moved aside (Permission denied)" in d.reason
    assert cache.path.read_bytes() == b"{broken"
    with pytest.raises(DecisionFileError, match="refusing to overwrite it"):
        cache.record(FP, BAND, entry())
    assert cache.path.read_bytes() == b"{broken"


READ_ONLY = """
import json, sys, warnings
warnings.simplefilter("ignore")
from core.decisions import DecisionCache, DecisionFileError, choose_path
from tests.helpers.decision_helpers import entry
cache = DecisionCache(sys.argv[1])
d = choose_path("counter@2160p/rgb10", cache=cache, env={})
try:
    cache.record(d.fingerprint, "counter@2160p/rgb10", entry())
    wrote = "wrote"
except (DecisionFileError, ValueError) as exc:
    wrote = str(exc)
try:
    cache.check_writable()
    checked = "ok"
except DecisionFileError as exc:
    checked = str(exc)
print(json.dumps({"source": d.source, "path": d.path, "reason": d.reason, "wrote": wrote,
                  "checked": checked}))
"""


def _unprivileged():
    """The command prefix that runs a child without root's right to ignore mode bits."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: the patched test above covers this case")
    caps = "-dac_override,-dac_read_search,-fowner"
    return [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}"]


def test_a_corrupt_cache_in_a_read_only_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "decisions.json"
    path.write_bytes(b"{broken")
    folder.chmod(0o555)
    try:
        out = subprocess.run([*_unprivileged(), sys.executable, "-c", READ_ONLY, str(path)],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    finally:
        folder.chmod(0o755)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert (got["source"], got["path"]) == ("default", "numpy")
    assert "could not be moved aside" in got["reason"] and "Permission denied" in got["reason"]
    assert "cannot write the decision cache" in got["wrote"]
    assert "cannot write the decision cache" in got["checked"]
    assert path.read_bytes() == b"{broken" and sorted(p.name for p in folder.iterdir()) == [path.name]


# ---------------------------------------------------------------- a bad entry costs only itself
def test_bad_entries_are_skipped_reported_and_kept_until_a_write(cache):
    future = entry("torch-eager", measured_at="2999-01-01T00:00:00+00:00")
    bad_winner = dict(entry(), winner="opencl")
    raw = _doc({GOOD: entry("torch-eager"), key(FP, "static@1080p/rgb8"): future,
                key(OTHER, BAND): bad_winner})
    cache.path.write_bytes(raw)
    with pytest.warns(DecisionCacheWarning, match="2 unusable entries ignored"):
        d = choose_path(BAND, cache=cache, env={}, problem=runs_everywhere)
    assert (d.path, d.source) == ("torch-eager", "cache")            # the good entry still decides
    d = _choose_band(cache, "static@1080p/rgb8")
    assert d.source == "default" and "is in the future" in d.reason  # the bad one says why
    assert set(cache.load()) == {GOOD} and len(cache.notes) == 1
    assert cache.path.read_bytes() == raw                            # not saved back by a read
    # the next write keeps the good entries and moves the old file aside, saying so
    with pytest.warns(DecisionCacheWarning, match="dropped 2 unusable entries.*kept as"):
        cache.record(FP, "animated@1080p/rgb8", entry())
    kept = list(cache.path.parent.glob("decisions.json.unusable-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == raw
    assert set(DecisionCache(cache.path).load()) == {GOOD, key(FP, "animated@1080p/rgb8")}
    assert cache.notes == []


def _choose_band(cache, band):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DecisionCacheWarning)
        return choose_path(band, cache=cache, env={}, problem=runs_everywhere)


def test_the_future_is_judged_by_the_injected_clock(tmp_path):
    raw = _doc({GOOD: entry(measured_at="2025-03-01T10:00:00+00:00")})
    (tmp_path / "a.json").write_bytes(raw)
    (tmp_path / "b.json").write_bytes(raw)
    early = lambda: datetime.datetime(2025, 3, 1, 9, 0, tzinfo=datetime.UTC)  # noqa: E731
    late = lambda: datetime.datetime(2025, 3, 1, 9, 50, tzinfo=datetime.UTC)  # noqa: E731
    assert _choose(DecisionCache(tmp_path / "a.json", clock=early)).source == "default"
    assert _choose(DecisionCache(tmp_path / "b.json", clock=late)).source == "cache"   # 10 min skew


def test_a_newer_cache_refuses_every_write_and_check(cache):
    raw = json.dumps({"kind": "testcard-decisions", "schema": 99, "entries": {}}).encode()
    cache.path.write_bytes(raw)
    for write in (lambda: cache.record(FP, BAND, entry()), cache.clear, cache.check_writable):
        with pytest.raises(DecisionFileError, match="newer testcard.*upgrade testcard"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DecisionCacheWarning)
                write()
    assert cache.path.read_bytes() == raw
