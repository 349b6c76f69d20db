"""The one write path (core.atomic): whole or not at all, never a temp file left behind."""

import errno
import os
import re
import stat
import threading
from pathlib import Path

import pytest

from core import atomic
from core.atomic import (
    atomic_path,
    atomic_text,
    atomic_write,
    atomic_write_all,
    is_stream,
    require_parent,
    require_writable,
    temp_glob,
)


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


# -- symlinks, streams, read-only files --------------------------------------------------------

def test_a_write_through_a_symlink_replaces_its_target_and_keeps_the_link(tmp_path):
    real = tmp_path / "real" / "frame.json"
    real.parent.mkdir()
    real.write_bytes(b"old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    atomic_write(link, b"new")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == b"new"
    assert sorted(os.listdir(tmp_path)) == ["link.json", "real"]
    assert sorted(os.listdir(real.parent)) == ["frame.json"]


def test_a_dangling_symlink_is_written_through_to_the_file_it_names(tmp_path):
    link = tmp_path / "link.csv"
    link.symlink_to(tmp_path / "made.csv")
    with atomic_path(link) as tmp:
        tmp.write_text("a,b\n")
    assert link.is_symlink() and (tmp_path / "made.csv").read_text() == "a,b\n"


@pytest.mark.parametrize("name", ["-", "/dev/stdout"])
def test_dash_and_dev_stdout_write_the_stream(capsysbinary, name):
    assert atomic_write(name, b"bytes to stdout\n") == Path(name)
    with atomic_path(name) as tmp:
        tmp.write_bytes(b"through a path\n")
    assert capsysbinary.readouterr().out == b"bytes to stdout\nthrough a path\n"


def test_a_failed_block_writes_nothing_to_a_stream(capsysbinary):
    with pytest.raises(RuntimeError), atomic_path("-") as tmp:
        tmp.write_bytes(b"half a report")
        raise RuntimeError("stopped")
    assert capsysbinary.readouterr().out == b""


def test_dev_null_is_written_not_replaced():
    before = os.stat("/dev/null")
    atomic_write("/dev/null", b"discarded")
    with atomic_path("/dev/null") as tmp:
        tmp.write_bytes(b"also discarded")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_a_fifo_gets_the_bytes_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    atomic_write(fifo, b"through the pipe")
    reader.join(timeout=30)
    assert got == [b"through the pipe"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and sorted(os.listdir(tmp_path)) == ["pipe"]


def test_is_stream_names(tmp_path):
    (tmp_path / "f").write_bytes(b"")
    assert all(is_stream(n) for n in ("-", "/dev/stdout", "/dev/stderr", "/dev/fd/3", "/dev/null"))
    assert not any(is_stream(p) for p in (tmp_path / "f", tmp_path, tmp_path / "missing", "a\0b"))


def test_a_read_only_file_is_refused_even_for_root_and_kept(tmp_path):
    p = tmp_path / "frame.png"
    p.write_bytes(b"keep me")
    p.chmod(0o444)
    for write in (lambda: atomic_write(p, b"x"), lambda: atomic_write_all({p: b"x"}),
                  lambda: require_writable(p)):
        with pytest.raises(ValueError, match=r"cannot write .*frame\.png: it is read-only"):
            write()
    assert p.read_bytes() == b"keep me" and sorted(os.listdir(tmp_path)) == ["frame.png"]


def test_a_replaced_file_keeps_its_mode(tmp_path):
    p = tmp_path / "secret.json"
    p.write_bytes(b"old")
    p.chmod(0o600)
    atomic_write(p, b"new")
    assert stat.S_IMODE(p.stat().st_mode) == 0o600 and p.read_bytes() == b"new"


def test_a_long_name_still_gets_a_temporary_file_that_fits(tmp_path):
    p = tmp_path / ("n" * 250 + ".csv")
    with atomic_path(p) as tmp:
        assert len(tmp.name.encode()) <= 255 and tmp.match(temp_glob(p))
        tmp.write_bytes(b"x")
    assert p.read_bytes() == b"x"


def test_an_os_error_names_the_target_not_the_temporary_file(tmp_path, monkeypatch):
    p = tmp_path / "out.csv"
    real_open = open

    def full(path, mode="r", *a, **k):
        if "x" in mode or "w" in mode:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real_open(path, mode, *a, **k)

    monkeypatch.setattr(atomic, "open", full, raising=False)
    with pytest.raises(OSError) as err:
        atomic_write(p, b"data")
    assert err.value.errno == errno.ENOSPC and err.value.filename == str(p)


# -- require_writable --------------------------------------------------------------------------

@pytest.mark.parametrize("case, message", [
    ("slash", "ends in '/'"), ("folder", "it is a folder"), ("missing", "folder does not exist"),
    ("under_a_file", "a_file is not a folder"), ("too_long", "File name too long"), ("empty", "empty"),
])
def test_require_writable_refuses_in_one_sentence(tmp_path, case, message):
    (tmp_path / "a_file").write_bytes(b"")
    (tmp_path / "a_folder").mkdir()
    path = {"slash": f"{tmp_path}/new/", "folder": tmp_path / "a_folder",
            "missing": tmp_path / "nope" / "x.csv", "under_a_file": tmp_path / "a_file" / "x.csv",
            "too_long": tmp_path / ("x" * 300), "empty": ""}[case]
    with pytest.raises(ValueError, match=re.escape(message)) as err:
        require_writable(path)
    assert "\n" not in str(err.value)
    assert sorted(os.listdir(tmp_path)) == ["a_file", "a_folder"]   # no probe file left


def test_require_writable_passes_a_writable_path_and_leaves_nothing(tmp_path):
    assert require_writable(tmp_path / "x.csv") == tmp_path / "x.csv"
    assert require_writable(tmp_path / "a" / "b" / "c.json", make_parent=True)
    assert require_writable("-") == Path("-")
    assert os.listdir(tmp_path) == []


def test_require_writable_with_make_parent_checks_the_nearest_folder(tmp_path):
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(ValueError, match="is not a folder"):
        require_writable(tmp_path / "file" / "sub" / "c.json", make_parent=True)


def test_require_writable_probe_failure_is_a_refusal(tmp_path, monkeypatch):
    def refuse(path, flags, mode=0o777):
        raise OSError(errno.EROFS, "Read-only file system", path)

    monkeypatch.setattr(atomic.os, "open", refuse)
    with pytest.raises(ValueError, match="cannot create a file in .*Read-only file system"):
        require_writable(tmp_path / "x.csv")
