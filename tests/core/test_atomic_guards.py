"""core.atomic's guards: files written together, an output that is an input, a bad file moved
out of the way without replacing an earlier one."""

import datetime as dt
import os

import pytest

from core import atomic
from core.atomic import atomic_write_all, move_aside, refuse_same_file, temp_glob

NOON = dt.datetime(2024, 5, 6, 12, 0, 0, tzinfo=dt.UTC)


def _listing(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


# -- files written together --------------------------------------------------------------------

def test_a_group_replaces_every_file(tmp_path):
    a, b = tmp_path / "f.png", tmp_path / "f.png.json"
    a.write_bytes(b"old image")
    assert atomic_write_all({a: b"new image", b: b"new sidecar"}) == [a, b]
    assert _listing(tmp_path) == {"f.png": b"new image", "f.png.json": b"new sidecar"}


@pytest.mark.parametrize("old_b", [True, False], ids=["old-pair", "new-second-file"])
def test_a_second_temporary_file_that_cannot_be_written_leaves_both_old_files(tmp_path, monkeypatch,
                                                                               old_b):
    a, b = tmp_path / "f.png", tmp_path / "f.png.json"
    a.write_bytes(b"old image")
    if old_b:
        b.write_bytes(b"old sidecar")
    before = _listing(tmp_path)
    real_open, opened = open, []

    def full_on_second(path, mode="r", *args, **kw):
        if "x" in mode:
            opened.append(path)
            if len(opened) == 2:
                raise OSError(28, "No space left on device", str(path))
        return real_open(path, mode, *args, **kw)

    monkeypatch.setattr(atomic, "open", full_on_second, raising=False)
    with pytest.raises(OSError, match="No space left") as err:
        atomic_write_all({a: b"new image", b: b"new sidecar"})
    assert err.value.filename == str(b)            # names the file, not its temporary
    assert len(opened) == 2
    assert _listing(tmp_path) == before            # neither replaced, no temporary left


@pytest.mark.parametrize("old_a", [True, False], ids=["old-first-file", "new-first-file"])
def test_a_second_rename_that_fails_puts_the_first_file_back(tmp_path, monkeypatch, old_a):
    a, b = tmp_path / "f.png", tmp_path / "f.png.json"
    if old_a:
        a.write_bytes(b"old image")
    b.write_bytes(b"old sidecar")
    before = _listing(tmp_path)
    real_replace, calls = os.replace, []

    def fail_second(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(5, "Input/output error", str(src))
        return real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", fail_second)
    with pytest.raises(OSError, match="Input/output error"):
        atomic_write_all({a: b"new image", b: b"new sidecar"})
    assert calls[:2] == [a, b]
    assert _listing(tmp_path) == before           # first file restored (or removed), no temp left


def test_a_group_refuses_one_file_twice_and_streams(tmp_path):
    a = tmp_path / "f.png"
    a.write_bytes(b"old")
    (tmp_path / "f.png.json").symlink_to(a)
    with pytest.raises(ValueError, match="they are the same file"):
        atomic_write_all({a: b"image", tmp_path / "f.png.json": b"sidecar"})
    with pytest.raises(ValueError, match="it is a stream"):
        atomic_write_all({a: b"image", "-": b"sidecar"})
    assert a.read_bytes() == b"old" and not list(tmp_path.glob(temp_glob(a)))


# -- an output is never an input ---------------------------------------------------------------

def test_refuse_same_file_by_path_symlink_and_hard_link(tmp_path):
    cap = tmp_path / "victim.mp4"
    cap.write_bytes(b"capture")
    link, hard = tmp_path / "link.csv", tmp_path / "hard.csv"
    link.symlink_to(cap)
    os.link(cap, hard)
    other = tmp_path / "sub" / ".." / "victim.mp4"
    (tmp_path / "sub").mkdir()
    for out in (cap, str(cap), link, hard, other):
        with pytest.raises(ValueError, match="it is also an input") as err:
            refuse_same_file(out, tmp_path / "manifest.json", cap)
        assert str(cap) in str(err.value) and "\n" not in str(err.value)
    assert cap.read_bytes() == b"capture"


def test_refuse_same_file_passes_other_files_none_and_streams(tmp_path):
    cap = tmp_path / "cap.mp4"
    cap.write_bytes(b"capture")
    refuse_same_file(tmp_path / "report.csv", cap, None)
    refuse_same_file(None, cap)
    refuse_same_file("-", "-", cap)
    refuse_same_file("/dev/null", "/dev/null")
    (tmp_path / "cap.mp4.csv").write_bytes(b"an earlier report")
    refuse_same_file(tmp_path / "cap.mp4.csv", cap)


def test_refuse_same_file_without_an_existing_output_compares_resolved_paths(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    with pytest.raises(ValueError):
        refuse_same_file(tmp_path / "alias" / "new.csv", tmp_path / "real" / "new.csv")


# -- moving a bad file aside -------------------------------------------------------------------

def test_move_aside_never_replaces_an_earlier_copy(tmp_path):
    p = tmp_path / "decisions.json"
    names = []
    for n in range(3):
        p.write_bytes(f"corrupt {n}".encode())
        names.append(move_aside(p, "corrupt", now=NOON))
    assert [d.name for d in names] == ["decisions.json.corrupt-20240506-120000",
                                       "decisions.json.corrupt-20240506-120000-1",
                                       "decisions.json.corrupt-20240506-120000-2"]
    assert [d.read_bytes() for d in names] == [b"corrupt 0", b"corrupt 1", b"corrupt 2"]
    assert not p.exists()


def test_move_aside_on_a_file_system_without_hard_links_still_never_replaces(tmp_path, monkeypatch):
    def no_links(*args, **kw):
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(atomic.os, "link", no_links)
    p = tmp_path / "settings.json"
    p.write_bytes(b"first")
    first = move_aside(p, "unreadable", now=NOON)
    p.write_bytes(b"second")
    second = move_aside(p, "unreadable", now=NOON)
    assert (first.read_bytes(), second.read_bytes()) == (b"first", b"second") and first != second


def test_move_aside_uses_utc_and_moves_a_link_as_a_link(tmp_path):
    real = tmp_path / "real.json"
    real.write_bytes(b"kept")
    link = tmp_path / "preset.json"
    link.symlink_to(real)
    local = NOON.astimezone(dt.timezone(dt.timedelta(hours=2)))
    dest = move_aside(link, "corrupt", now=local)
    assert dest.name == "preset.json.corrupt-20240506-120000"
    assert dest.is_symlink() and not link.exists() and real.read_bytes() == b"kept"


@pytest.mark.parametrize("tag", ["", "Corrupt", "bad tag", "../x", "a--b", None])
def test_move_aside_refuses_a_bad_tag_and_moves_nothing(tmp_path, tag):
    p = tmp_path / "f.json"
    p.write_bytes(b"x")
    with pytest.raises(ValueError, match="reason_tag"):
        move_aside(p, tag)
    assert os.listdir(tmp_path) == ["f.json"]


def test_move_aside_of_a_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        move_aside(tmp_path / "gone.json", "corrupt")
