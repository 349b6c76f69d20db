"""The remote log: JSON lines from any thread, one file opened once, put in place on close."""

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


def test_records_from_several_threads_land_one_a_line_and_the_file_appears_on_close(tmp_path):
    out = tmp_path / "serve.jsonl"
    log = RemoteLog(out, utc=lambda: "2025-01-01T00:00:00.000+00:00")
    threads = [threading.Thread(target=lambda n=n: [log.write({"kind": "event", "n": n, "i": i})
                                                    for i in range(50)]) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not out.exists()            # in place only once whole
    result = log.close()
    assert result.error is None and result.lines == 200
    lines = read_lines(out)
    assert len(lines) == 200
    assert {(r["n"], r["i"]) for r in lines} == {(n, i) for n in range(4) for i in range(50)}
    assert all(r["utc"] == "2025-01-01T00:00:00.000+00:00" for r in lines)
    # per writer, in order
    for n in range(4):
        assert [r["i"] for r in lines if r["n"] == n] == list(range(50))
    assert log.close() == result       # twice is harmless
    log.write({"kind": "late"})        # after close: dropped, never raises


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
