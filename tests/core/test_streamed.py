"""core.streamed: a file written line by line while something runs, appended (straight to the
file, capped by rotation) or replaced whole at close, with failures recorded as one sentence;
real faults (a full or read-only disk) through the same small disk as tests/core/test_faults.py."""

import json
import os

import pytest

from core.atomic import temp_glob
from core.streamed import StreamedFile
from tests.helpers.faults import PAGE, on_small_disk

# each mode runs everywhere: "tmpfs" falls back to the stand-in where no namespace can be made
MODES = [pytest.param(None, id="tmpfs"), pytest.param(False, id="patched")]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_appended_lines_are_in_the_file_before_it_closes_and_an_old_file_is_continued(tmp_path):
    out = tmp_path / "log.jsonl"
    out.write_text("earlier\n")
    f = StreamedFile(out)
    assert f.size == len("earlier\n")
    assert f.write_lines(["one\n", "two\n"]) and f.write_line("three\n")
    assert out.read_text() == "earlier\none\ntwo\nthree\n"      # nothing held in the process
    assert f.close() is None and f.lines == 3 and f.closed
    assert f.close() is None                                     # twice is harmless
    assert not f.write_line("late\n") and out.read_text().endswith("three\n")


def test_a_capped_file_rotates_into_file_1_and_no_line_straddles(tmp_path):
    out = tmp_path / "log.txt"
    f = StreamedFile(out, max_bytes=100)
    lines = [f"{i:09d}\n" for i in range(35)]                    # 10 bytes each
    assert f.write_lines(lines[:25]) and f.write_lines(lines[25:])
    assert f.close() is None and f.rotations == 3 and f.lines == 35
    assert out.read_text() == "".join(lines[30:])
    assert (tmp_path / "log.txt.1").read_text() == "".join(lines[20:30])   # replaced each time
    big = StreamedFile(tmp_path / "big.txt", max_bytes=100)
    assert big.write_line("y" * 150 + "\n") and big.write_line("z\n")      # a line over the cap
    big.close()
    assert (tmp_path / "big.txt.1").read_text() == "y" * 150 + "\n"
    assert (tmp_path / "big.txt").read_text() == "z\n" and big.rotations == 1


def test_a_stream_gets_each_line_as_it_comes_and_is_never_rotated(tmp_path):
    r, w = os.pipe()
    f = StreamedFile(f"/dev/fd/{w}", max_bytes=10)
    with os.fdopen(r, "rb", buffering=0) as fh:
        assert f.write_line("a first line over the cap\n")
        assert fh.readline() == b"a first line over the cap\n"   # before close
        assert f.write_line("second\n")
        assert fh.readline() == b"second\n"
        assert f.close() is None and f.rotations == 0
    os.close(w)


def test_a_replaced_file_appears_whole_at_close_and_the_old_one_stays_until_then(tmp_path):
    out = tmp_path / "t.csv"
    out.write_text("an earlier file\n")
    f = StreamedFile(out, mode="replace")
    assert f.write_lines(["a,b\r\n", "1,2\r\n"])
    assert out.read_text() == "an earlier file\n" and len(list(tmp_path.glob(temp_glob(out)))) == 1
    assert f.close() is None
    assert out.read_bytes() == b"a,b\r\n1,2\r\n" and not list(tmp_path.glob(temp_glob(out)))


def test_a_recorded_failure_drops_later_lines_and_leaves_a_replaced_target(tmp_path):
    out = tmp_path / "t.csv"
    out.write_text("keep me\n")
    f = StreamedFile(out, mode="replace")
    f.write_line("new\n")
    assert f.fail(OSError(28, "No space left on device")) == \
        f"cannot write {out}: No space left on device"
    assert f.fail(ValueError("a later one")) == f"cannot write {out}: No space left on device"
    assert not f.write_line("more\n") and f.lines == 1
    assert f.close() == f"cannot write {out}: No space left on device"
    assert out.read_text() == "keep me\n" and not list(tmp_path.glob(temp_glob(out)))


def test_a_line_that_is_not_utf8_is_a_recorded_failure_not_an_exception(tmp_path):
    f = StreamedFile(tmp_path / "x.txt")
    assert not f.write_line("\udcff\n")
    assert f.error.startswith(f"cannot write {tmp_path / 'x.txt'}: ") and "encode" in f.error
    f.close()


def test_syncs_come_at_most_every_period_and_when_forced(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    clock = Clock()
    f = StreamedFile(tmp_path / "log", sync_every_s=1.0, clock=clock)
    f.sync(force=True)
    assert synced == []                                   # nothing written: nothing to sync
    f.write_line("a\n")
    clock.now = 0.5
    f.sync()
    assert synced == []
    clock.now = 1.0
    f.sync()
    assert len(synced) == 1
    f.sync()
    assert len(synced) == 1                               # nothing new since
    f.write_line("b\n")
    f.sync(force=True)
    assert len(synced) == 2
    f.write_line("c\n")
    assert f.close() is None and len(synced) == 3         # close syncs what is left
    never = StreamedFile(tmp_path / "never", clock=clock)
    never.write_line("a\n")
    clock.now = 100.0
    never.sync()
    assert len(synced) == 3
    never.close()


def test_make_parent_makes_the_folders_and_refusals_come_before_the_first_line(tmp_path):
    deep = tmp_path / "a" / "b" / "log.txt"
    with pytest.raises(ValueError, match=r"^cannot write .*: its folder does not exist"):
        StreamedFile(deep)
    assert not (tmp_path / "a").exists()
    for mode in ("append", "replace"):
        f = StreamedFile(tmp_path / mode / "x" / "f.txt", mode=mode, make_parent=True)
        f.write_line("ok\n")
        assert f.close() is None and (tmp_path / mode / "x" / "f.txt").read_text() == "ok\n"
    with pytest.raises(ValueError, match="it is a folder"):
        StreamedFile(tmp_path)
    ro = tmp_path / "ro.txt"
    ro.write_text("")
    ro.chmod(0o444)
    with pytest.raises(ValueError, match="it is read-only"):
        StreamedFile(ro)
    with pytest.raises(ValueError, match="'append' or 'replace'"):
        StreamedFile(tmp_path / "m", mode="rewrite")
    with pytest.raises(ValueError, match="whole number of bytes above 0"):
        StreamedFile(tmp_path / "m", max_bytes=0)
    with pytest.raises(ValueError, match="only an appended file rotates"):
        StreamedFile(tmp_path / "m", mode="replace", max_bytes=4096)
    assert not (tmp_path / "m").exists()


# -- real faults -------------------------------------------------------------------------------

_REPORT = """
import json
from core.streamed import StreamedFile
try:
    f = StreamedFile(DISK + '/{name}', mode='{mode}', buffer_bytes={buffer})
except ValueError as exc:
    print(json.dumps({{'refused': str(exc)}}))
else:
    n = 0
    while n < {most} and f.write_line('x' * 99 + '\\n'):
        n += 1
    error = f.close()
    print(json.dumps({{'written': n, 'lines': f.lines, 'error': error, 'disk': DISK}}))
"""


def _script(name, mode="append", buffer=1 << 16, most=2000) -> str:
    return _REPORT.format(name=name, mode=mode, buffer=buffer, most=most)


@pytest.mark.parametrize("real", MODES)
def test_a_full_disk_stops_an_appended_file_with_every_line_before_it_kept(tmp_path, real):
    run = on_small_disk(tmp_path, {}, ["python", _script("log.txt")], real=real)
    got = json.loads(run.out)
    assert got["error"] == f"cannot write {got['disk']}/log.txt: No space left on device"
    data = run.files["log.txt"]
    assert 0 < got["written"] == got["lines"] == len(data) // 100 < 2000
    # what reached the disk is what was written, in order: at most the last line is cut short
    assert data == (b"x" * 99 + b"\n") * got["written"] + data[got["written"] * 100:]
    assert set(data[got["written"] * 100:]) <= {ord("x")}


@pytest.mark.parametrize("real", MODES)
def test_a_full_disk_leaves_a_replaced_target_as_it_was_and_no_temporary(tmp_path, real):
    old = {"t.csv": b"old and whole\n"}
    run = on_small_disk(tmp_path, old, ["python", _script("t.csv", "replace", PAGE, 200)],
                        free=0, real=real)
    got = json.loads(run.out)
    assert got["error"] == f"cannot write {got['disk']}/t.csv: No space left on device"
    assert run.files == old


@pytest.mark.parametrize("real", MODES)
def test_a_read_only_disk_is_refused_before_the_first_line(tmp_path, real):
    old = {"log.txt": b"old\n"}
    run = on_small_disk(tmp_path, old, ["python", _script("log.txt")], readonly=True, real=real)
    got = json.loads(run.out)
    assert got["refused"].startswith("cannot write ") and "read-only file system" in got["refused"].lower()
    assert run.files == old
