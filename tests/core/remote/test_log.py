"""The remote log: JSON lines from any thread, appended as they come (a killed process keeps
them), bounded in memory (a flood drops records, counted) and on disk (rotated at its cap)."""

from __future__ import annotations

import json
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.jsonfile import parse_json
from core.remote import RemoteLog, RemotePatch, log_line, not_shown_record, shown_record


def patch(received_s=10.0):
    return RemotePatch(color=(940, 64, 512), background=(0, 0, 0), bits=10,
                       rect=(0.25, 0.25, 0.5, 0.5), video_levels=False, source="pgenerator",
                       received_s=received_s, raw="RGB=RECTANGLE10bit;...")


def read_lines(path) -> list[dict]:
    return [parse_json(line, source="log line") for line in path.read_text().splitlines()]


def test_records_from_several_threads_land_one_a_line_in_order_as_they_come(tmp_path):
    out = tmp_path / "serve.jsonl"
    log = RemoteLog(out, utc=lambda: "2025-01-01T00:00:00.000+00:00")
    threads = [threading.Thread(target=lambda n=n: [log.write({"kind": "event", "n": n, "i": i})
                                                    for i in range(50)]) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wait_for(lambda: len(read_lines(out)) == 200)       # written while the log is still open
    result = log.close()
    assert result.error is None and result.lines == 200 and result.dropped == 0
    lines = read_lines(out)
    assert len(lines) == 200
    assert {(r["n"], r["i"]) for r in lines} == {(n, i) for n in range(4) for i in range(50)}
    assert all(r["utc"] == "2025-01-01T00:00:00.000+00:00" for r in lines)
    # per writer, in order
    for n in range(4):
        assert [r["i"] for r in lines if r["n"] == n] == list(range(50))
    assert log.close() == result       # twice is harmless
    log.write({"kind": "late"})        # after close: dropped, never raises


def test_an_existing_log_is_continued_never_replaced(tmp_path):
    out = tmp_path / "serve.jsonl"
    out.write_text('{"kind":"earlier"}\n')
    log = RemoteLog(out)
    log.write({"kind": "now"})
    assert log.close().error is None
    assert [r["kind"] for r in read_lines(out)] == ["earlier", "now"]


def test_a_flood_is_bounded_in_memory_and_the_drops_are_counted_in_the_log(tmp_path):
    out = tmp_path / "serve.jsonl"
    log = RemoteLog(out)
    gate = threading.Event()
    real = log._append
    log._append = lambda batch: (gate.wait(), real(batch))   # the disk stalls
    for i in range(RemoteLog.MAX_QUEUED * 3):
        log.write({"kind": "command", "i": i})
    assert log._queue.qsize() <= RemoteLog.MAX_QUEUED          # memory: the bound, not the flood
    assert log.dropped >= RemoteLog.MAX_QUEUED * 3 - RemoteLog.MAX_QUEUED - RemoteLog.BATCH
    gate.set()
    result = log.close()
    records = read_lines(out)
    dropped = [r for r in records if r["kind"] == "dropped"]
    assert result.dropped == log.dropped and sum(r["count"] for r in dropped) == result.dropped
    assert len(records) - len(dropped) + result.dropped == RemoteLog.MAX_QUEUED * 3


def test_the_log_is_capped_by_rotating_into_file_1(tmp_path):
    out = tmp_path / "serve.jsonl"
    log = RemoteLog(out, max_bytes=RemoteLog.MIN_BYTES)
    for i in range(2000):
        log.write({"kind": "command", "message": "x" * 40, "i": i})
    assert log.close().error is None
    older = out.with_name("serve.jsonl.1")
    assert out.stat().st_size <= RemoteLog.MIN_BYTES and older.stat().st_size <= RemoteLog.MIN_BYTES
    assert log.rotations > 2
    kept = [r["i"] for r in read_lines(older) + read_lines(out)]
    assert kept == list(range(kept[0], 2000))                  # the newest records, in order


def test_a_stream_gets_each_line_as_it_comes(tmp_path):
    import os

    r, w = os.pipe()
    log = RemoteLog(f"/dev/fd/{w}")
    log.write({"kind": "first"})
    with os.fdopen(r, "rb", buffering=0) as fh:
        line = fh.readline()                                   # before close: no waiting for the end
        assert parse_json(line.decode(), source="log")["kind"] == "first"
        log.close()
    os.close(w)


def wait_for(condition, timeout_s=10.0):
    import time

    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)   # the log's own thread writes; nothing here to wait on a signal of


def test_a_shown_record_has_the_present_time_frame_and_latency():
    rec = shown_record(patch(received_s=10.0), 1234, 10.0421, note=None, pattern="window")
    assert rec["kind"] == "shown" and rec["frame"] == 1234 and rec["present_s"] == 10.0421
    assert rec["latency_ms"] == pytest.approx(42.1)
    assert rec["source"] == "pgenerator" and rec["patch"]["color"] == [940, 64, 512]
    gone = not_shown_record(patch(), "replaced before it was presented")
    assert gone["present_s"] is None and "replaced" in gone["message"]


def test_an_unwritable_log_is_refused_before_anything_starts(tmp_path):
    (tmp_path / "dir").mkdir()
    with pytest.raises(ValueError, match="dir"):
        RemoteLog(tmp_path / "dir")


@settings(max_examples=100, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20))
def test_any_record_is_one_line_of_strict_json(value):
    line = log_line({"kind": "x", "value": value})
    assert "\n" not in line and "\r" not in line
    back = json.loads(line)            # strict: no NaN or Infinity slipped through
    assert back["kind"] == "x"
