"""Reading ahead: the items' order, at most ``ahead`` reads in flight, errors at their
position, and no thread left once reading stops."""

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.capture import ReadAhead, open_capture
from core.imageio import write_frame


class Recorder:
    """A reader that counts the results in flight: reads started, results not yet done with.

    The caller waits (on a condition, with a timeout so a bug fails instead of hanging)
    before it is done with each result until the pool has had every chance to start as
    many reads as it may, ``ahead`` in flight or the items run out; a pool that started
    more shows at the high-water mark ``most``.
    """

    def __init__(self, total: int, ahead: int, fail_at=()):
        self.total, self.ahead, self.fail_at = total, ahead, set(fail_at)
        self.cond = threading.Condition()
        self.started = self.done = self.most = 0

    def read(self, item):
        with self.cond:
            self.started += 1
            self.most = max(self.most, self.started - self.done)
            self.cond.notify_all()
        if item in self.fail_at:
            raise OSError(f"item {item} failed")
        return item * 10

    def finished_with(self, value):
        with self.cond:
            self.cond.wait_for(lambda: self.started >= min(self.done + self.ahead, self.total),
                               timeout=5)
            self.done += 1


def drain(reader, rec):
    out = []
    for value in reader:
        out.append(value)
        rec.finished_with(value)
    return out


@pytest.mark.parametrize("threads, ahead", [(2, 2), (2, 5), (4, None), (3, 3)])
def test_order_kept_and_at_most_ahead_in_flight(threads, ahead):
    items = list(range(23))
    bound = ahead or 2 * threads
    rec = Recorder(len(items), bound)
    before = set(threading.enumerate())
    got = drain(ReadAhead(items, rec.read, threads, ahead), rec)
    assert got == [i * 10 for i in items]
    assert rec.most == bound          # reads did run ahead, and never further
    assert not [t for t in threading.enumerate() if t not in before and t.is_alive()]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 30), st.integers(1, 4), st.one_of(st.none(), st.integers(1, 6)))
def test_any_length_threads_and_depth_give_the_sequential_result(n, threads, ahead):
    rec = Recorder(n, (ahead or 2 * threads) if threads > 1 else 1)
    assert drain(ReadAhead(range(n), rec.read, threads, ahead), rec) == [i * 10 for i in range(n)]
    assert rec.most == min(rec.ahead, n)


def test_reads_run_side_by_side():
    # the first two reads meet at a barrier: read one after the other, they would time out
    meet = threading.Barrier(2, timeout=5)

    def read(item):
        if item < 2:
            meet.wait()
        return item

    assert list(ReadAhead(range(6), read, 2)) == list(range(6))


def test_one_thread_reads_on_the_callers_thread_when_asked():
    seen = []
    reader = ReadAhead(range(3), lambda i: seen.append(threading.get_ident()) or i, 1)
    assert seen == []                 # nothing read before it is asked for
    assert list(reader) == [0, 1, 2] and set(seen) == {threading.get_ident()}


def test_an_exception_comes_at_its_position_after_the_earlier_results():
    rec = Recorder(10, 4, fail_at={5})
    reader = ReadAhead(range(10), rec.read, 2, 4)
    got = []
    with pytest.raises(OSError, match="item 5 failed"):
        for value in reader:
            got.append(value)
            rec.finished_with(value)
    assert got == [0, 10, 20, 30, 40]
    assert list(reader) == []         # reading stopped there


def test_closing_midway_leaves_no_thread():
    rec = Recorder(50, 4)
    before = set(threading.enumerate())
    reader = ReadAhead(range(50), rec.read, 2, 4)
    assert next(reader) == 0
    reader.close()
    assert not [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert rec.started <= 1 + 4 and list(reader) == []


@pytest.mark.parametrize("bad", ["threads", "ahead"])
def test_bad_settings_are_one_clear_error(bad):
    with pytest.raises(ValueError, match=bad):
        ReadAhead([], lambda i: i, 2.5 if bad == "threads" else 2, 0 if bad == "ahead" else None)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_unreadable_file_in_the_middle_is_reported_at_its_position(tmp_path, threads):
    rng = np.random.default_rng(3)
    frames = [rng.integers(0, 256, (9, 13, 3), dtype=np.uint8) for _ in range(7)]
    for i, f in enumerate(frames):
        write_frame(tmp_path / f"f{i}.png", f, 8)
    (tmp_path / "f3.png").write_bytes(b"\x89PNG\r\n\x1a\nnot an image")
    before = set(threading.enumerate())
    with open_capture(tmp_path, read_threads=threads) as cap:
        got = list(cap.frames())
    assert [g.position for g in got] == list(range(7))
    assert [g.name for g in got] == [f"f{i}.png" for i in range(7)]
    assert got[3].image is None and "f3.png" in got[3].error
    for i in (0, 1, 2, 4, 5, 6):
        assert got[i].error is None and np.array_equal(got[i].image, frames[i])
    assert not [t for t in threading.enumerate() if t not in before and t.is_alive()]


def test_closing_the_capture_stops_its_readers(tmp_path):
    for i in range(12):
        write_frame(tmp_path / f"f{i}.png", np.full((8, 8, 3), i, np.uint8), 8)
    before = set(threading.enumerate())
    cap = open_capture(tmp_path, read_threads=2)
    frames = cap.frames()
    assert next(frames).position == 0
    cap.close()                       # as a decode job does when it is cancelled
    assert not [t for t in threading.enumerate() if t not in before and t.is_alive()]


def test_bad_read_threads_is_one_clear_error(tmp_path):
    write_frame(tmp_path / "a.png", np.zeros((4, 4, 3), np.uint8), 8)
    with pytest.raises(ValueError, match="read threads"):
        open_capture(tmp_path, read_threads=0)
