"""All-or-nothing imports, concurrent writers and killed writers."""

import copy
import json
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from core.decisions import (
    DecisionCache,
    DecisionFileError,
    import_decisions,
    parse_document,
    validate_document,
)
from tests.helpers import ROOT
from tests.helpers.decision_helpers import BAND, HERE, entry, key
from tests.helpers.decision_mutations import mutated_files, valid_doc


def _expected_merge(local, incoming):
    out = dict(local)
    for k, v in incoming.items():
        out.setdefault(k, v)
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_files())
def test_random_mutations_never_half_apply(raw):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cache = DecisionCache(tmp / "decisions.json")
        cache.record(HERE, BAND, entry("torch-eager", measured_at="2025-02-02T00:00:00+00:00"))
        local = copy.deepcopy(cache.load())
        before = cache.path.read_bytes()
        src = tmp / "in.json"
        src.write_bytes(raw)
        try:
            incoming = parse_document(raw)
        except DecisionFileError:
            incoming = None
        try:
            receipt = import_decisions(src, cache=cache, here=[HERE])
        except DecisionFileError:
            assert incoming is None
            assert cache.path.read_bytes() == before          # nothing changed
            assert sorted(p.name for p in tmp.iterdir()) == ["decisions.json", "decisions.json.lock",
                                                             "in.json"]
            return
        # accepted: the whole file merged, local entries winning, and every entry is valid
        assert incoming is not None
        after = cache.load()
        assert after == _expected_merge(local, incoming)
        assert receipt.imported + receipt.kept_local + receipt.carried == len(incoming)
        validate_document(json.loads(cache.path.read_bytes()))


def test_unmutated_file_is_accepted():
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.json"
        src.write_text(json.dumps(valid_doc()))
        r = import_decisions(src, cache=DecisionCache(Path(tmp) / "c.json"), here=[HERE])
        assert (r.imported, r.kept_local, r.carried) == (3, 0, 1) and len(r.warnings) == 1
        assert {e["form"] for e in r.entries} == {"live", "render"}


WRITER = """
import sys
from core.decisions import DecisionCache
sys.path.insert(0, {helpers!r})
from tests.helpers.decision_helpers import entry
cache = DecisionCache(sys.argv[1])
worker = int(sys.argv[2])
for i in range(int(sys.argv[3])):
    cache.record("cpu:Test CPU x4", f"animated@{{100 + worker}}x{{100 + i}}/rgb10", entry())
    assert cache.load() and cache.problem is None
print("ok")
"""


def test_concurrent_processes_lose_no_entry(tmp_path):
    path = tmp_path / "decisions.json"
    code = WRITER.format(helpers=str(ROOT))
    workers, each = 4, 25
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path), str(w), str(each)], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for w in range(workers)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    entries = DecisionCache(path).load()
    assert len(entries) == workers * each
    assert {k.split("|")[1] for k in entries} == {f"animated@{100 + w}x{100 + i}/rgb10"
                                                  for w in range(workers) for i in range(each)}
    assert not list(tmp_path.glob(".decisions.json.*.tmp"))


KILLED = """
import os, sys, time
sys.path.insert(0, {helpers!r})
from tests.helpers.decision_helpers import entry
from core.decisions import DecisionCache
def slow_fsync(fd):
    # the new file is written but not yet in place: say so, then hang until killed
    print("writing", flush=True)
    time.sleep(600)
os.fsync = slow_fsync
DecisionCache(sys.argv[1]).record("cpu:Test CPU x4", "static@1080p/rgb8", entry())
"""


def test_killed_writer_never_leaves_a_truncated_cache(tmp_path):
    path = tmp_path / "decisions.json"
    cache = DecisionCache(path)
    cache.record(HERE, BAND, entry("torch-eager"))
    before = path.read_bytes()
    proc = subprocess.Popen([sys.executable, "-c", KILLED.format(helpers=str(ROOT)),
                             str(path)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "writing"   # blocks until it is mid-write
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    assert path.read_bytes() == before                        # the old file, whole
    assert list(tmp_path.glob(".decisions.json.*.tmp"))      # the dead writer's temp file
    # the lock died with the writer; the next write succeeds and sweeps the temp file
    cache.record(HERE, "static@1080p/rgb8", entry())
    assert set(cache.load()) == {key(HERE, BAND), key(HERE, "static@1080p/rgb8")}
    assert not list(tmp_path.glob(".decisions.json.*.tmp"))
