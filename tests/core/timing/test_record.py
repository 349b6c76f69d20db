"""Streaming the full record of a long run to CSV while the bounded timeline forgets (no Qt)."""

import csv
import errno
import threading

import numpy as np
import pytest

from core.atomic import temp_glob
from core.timing import CSV_COLUMNS, Timeline, TimelineRecorder
from core.timing import record as record_mod


def _rows(path):
    return list(csv.DictReader(path.open(encoding="utf-8")))


def _recording_threads():
    return [t for t in threading.enumerate() if t.name == "testcard-timeline-csv" and t.is_alive()]


def test_a_recording_keeps_every_frame_the_ring_forgets(tmp_path):
    tl = Timeline(capacity=16)
    tl.extend(np.arange(10), np.arange(10) / 60.0, 1.0, 0.1, 0.2, 0.3, "numpy")   # before: not recorded
    out = tmp_path / "full.csv"
    assert tl.record_to(out) == str(out) and tl.recording == str(out)
    for i in range(10, 1010):
        tl.append(i, i / 60.0, 2.0, 0.1, 0.2, 0.3, "numpy", error="boom" if i == 500 else None)
    assert len(tl) == 16
    result = tl.stop_recording()
    assert result.error is None and result.rows == 1000 and tl.recording is None
    rows = _rows(out)
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [int(r["frame"]) for r in rows] == list(range(10, 1010))
    assert [int(r["index"]) for r in rows] == list(range(10, 1010))
    assert float(rows[0]["interval_ms"]) == pytest.approx(1000 / 60, abs=1e-4)   # from frame 9
    assert rows[490]["error"] == "boom" and sum(1 for r in rows if r["error"]) == 1
    assert not _recording_threads()
    assert not list(tmp_path.glob(temp_glob(out)))


def test_the_target_is_replaced_only_when_the_recording_closes(tmp_path):
    out = tmp_path / "t.csv"
    out.write_text("an earlier record\n")
    tl = Timeline(capacity=16)
    tl.record_to(out)
    tl.extend(np.arange(200), np.arange(200) / 60.0, 1.0, 0.1, 0.2, 0.3, "numpy")
    assert out.read_text() == "an earlier record\n"
    assert len(list(tmp_path.glob(temp_glob(out)))) == 1          # the rows so far live beside it
    assert tl.stop_recording().rows == 200
    assert len(_rows(out)) == 200


def test_a_full_disk_stops_the_recording_and_leaves_the_target(tmp_path, monkeypatch):
    out = tmp_path / "t.csv"
    out.write_text("keep me\n")
    real = record_mod.csv_rows
    calls = []

    def failing(snap):
        calls.append(len(snap))
        if len(calls) >= 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(snap)

    monkeypatch.setattr(record_mod, "csv_rows", failing)
    tl = Timeline(capacity=64)
    tl.record_to(out)
    for i in range(400):                                          # the loop never sees the failure
        tl.append(i, i / 60.0, 1.0, 0.1, 0.2, 0.3, "numpy")
    result = tl.stop_recording()
    assert result.error == f"cannot write {out}: No space left on device" and result.rows == 0
    assert out.read_text() == "keep me\n"
    assert not list(tmp_path.glob(temp_glob(out)))
    assert not _recording_threads() and len(tl) == 64


def test_refusals_are_one_sentence_and_nothing_starts(tmp_path):
    tl = Timeline(capacity=16)
    with pytest.raises(ValueError, match=r"^cannot write .*: its folder does not exist"):
        tl.record_to(tmp_path / "absent" / "t.csv")
    with pytest.raises(ValueError, match="it is a folder"):
        tl.record_to(tmp_path)
    assert tl.recording is None and not _recording_threads()
    tl.record_to(tmp_path / "a.csv")
    with pytest.raises(ValueError, match=r"already recording the timeline to .*a\.csv"):
        tl.record_to(tmp_path / "b.csv")
    assert tl.stop_recording().rows == 0 and tl.stop_recording() is None
    assert _rows(tmp_path / "a.csv") == [] and not (tmp_path / "b.csv").exists()


def test_a_reset_goes_on_recording_and_restarts_the_frame_count(tmp_path):
    tl = Timeline(capacity=16)
    out = tmp_path / "t.csv"
    tl.record_to(out)
    tl.extend(np.arange(5), np.arange(5) / 60.0, 1.0, 0.1, 0.2, 0.3, "numpy")
    tl.clear()
    tl.extend(np.arange(3), 1.0 + np.arange(3) / 60.0, 1.0, 0.1, 0.2, 0.3, "numpy")
    assert tl.stop_recording().rows == 8
    rows = _rows(out)
    assert [int(r["frame"]) for r in rows] == [0, 1, 2, 3, 4, 0, 1, 2]
    assert rows[5]["interval_ms"] == ""


def test_a_recorder_closes_once(tmp_path):
    rec = TimelineRecorder(tmp_path / "r.csv")
    first = rec.close()
    assert first == rec.close() and not rec.active and first.rows == 0


def test_a_detached_recording_closes_elsewhere_with_every_row(tmp_path):
    tl = Timeline(capacity=16)
    tl.record_to(tmp_path / "t.csv")
    tl.extend(np.arange(30), np.arange(30) / 60.0, 1.0, 0.1, 0.2, 0.3, "numpy")
    recorder = tl.detach_recording()
    tl.append(30, 0.5, 1.0, 0.1, 0.2, 0.3, "numpy")               # no longer recorded
    assert tl.recording is None and tl.detach_recording() is None
    done = []
    worker = threading.Thread(target=lambda: done.append(recorder.close()))
    worker.start()
    worker.join()
    assert done[0].rows == 30 and len(_rows(tmp_path / "t.csv")) == 30
