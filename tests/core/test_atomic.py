"""The one write path (core.atomic): whole or not at all, never a temp file left behind."""

import os

import pytest

from core import atomic
from core.atomic import atomic_path, atomic_text, atomic_write, require_parent, temp_glob


def test_atomic_write_leaves_no_temp_and_replaces(tmp_path):
    p = tmp_path / "f.json"
    atomic_write(p, b"one")
    atomic_write(p, b"two")
    assert p.read_bytes() == b"two"
    assert sorted(os.listdir(tmp_path)) == ["f.json"]


def test_atomic_path_block_that_raises_leaves_the_old_file_and_no_temp(tmp_path):
    p = tmp_path / "f.json"
    p.write_bytes(b"old and whole")
    with pytest.raises(RuntimeError, match="writer died"), atomic_path(p) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("writer died")
    assert p.read_bytes() == b"old and whole"
    assert sorted(os.listdir(tmp_path)) == ["f.json"]


@pytest.mark.parametrize("step", ["fsync", "replace"])
def test_a_write_failing_half_way_leaves_the_old_file_whole_and_no_temp(tmp_path, monkeypatch, step):
    p = tmp_path / "f.json"
    p.write_bytes(b"old and whole")
    calls = []

    def boom(*args):
        calls.append(args)
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr(atomic.os, step, boom)
        with pytest.raises(OSError, match="No space left"):
            atomic_write(p, b"new data that never lands")
    assert calls, f"os.{step} was never reached"
    assert p.read_bytes() == b"old and whole"
    assert sorted(os.listdir(tmp_path)) == ["f.json"]
    assert not list(tmp_path.glob(temp_glob(p)))


def test_atomic_text_round_trips_utf8(tmp_path):
    text = "Grüße – 10\u2011bit ✓ 日本\nline two\n"
    p = tmp_path / "notes.txt"
    assert atomic_text(p, text) == p
    assert p.read_bytes() == text.encode("utf-8")
    assert p.read_text(encoding="utf-8") == text


def test_make_parent_creates_the_folders(tmp_path):
    p = tmp_path / "a" / "b" / "c.bin"
    with pytest.raises(OSError):
        atomic_write(p, b"x")                       # without make_parent: refused ...
    assert not (tmp_path / "a").exists()            # ... and nothing created
    assert atomic_write(p, b"x", make_parent=True) == p
    assert p.read_bytes() == b"x"
    assert atomic_text(tmp_path / "d" / "e.txt", "é", make_parent=True).read_text(encoding="utf-8") == "é"
    assert sorted(os.listdir(p.parent)) == ["c.bin"]


def test_require_parent_names_the_missing_folder(tmp_path):
    missing = tmp_path / "nope" / "deeper"
    with pytest.raises(ValueError) as err:
        require_parent(missing / "f.json")
    assert str(missing) in str(err.value) and "does not exist" in str(err.value)
    assert require_parent(str(tmp_path / "f.json")) == tmp_path / "f.json"


def test_temp_glob_matches_the_temp_file_atomic_path_creates(tmp_path):
    p = tmp_path / "decisions.json"
    p.write_bytes(b"old")
    (tmp_path / "other.json").write_bytes(b"a neighbour")
    with atomic_path(p) as tmp:
        assert not list(tmp_path.glob(temp_glob(p)))    # nothing written yet
        tmp.write_bytes(b"new")
        matches = list(tmp_path.glob(temp_glob(p)))
        assert matches == [tmp]                         # exactly the one temp file
        assert tmp.parent == p.parent and tmp != p
    assert p.read_bytes() == b"new"
    assert not list(tmp_path.glob(temp_glob(p)))
