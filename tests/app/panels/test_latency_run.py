"""The latency measurement's pieces: the present log recorded from a frame loop, the present
clock put on the capture's, the captures that show the screen as it was before the run, and the
live slices agreeing with the final join frame by frame."""

import threading
import time

import numpy as np
import pytest
from PySide6.QtCore import QObject, Signal

from app.panels.latency_run import (
    LatencyRequest,
    PresentRecorder,
    fresh_captures,
    joined_presents,
    latency_steps,
    present_clock_offset,
)
from core.capture import LiveFrame
from core.decode import AHEAD, CaptureLog, CaptureSample, LiveRequest, latency_report
from core.timing import Timeline
from tests.helpers.latency_sim import Run
from tests.helpers.live_sim import counter_plane, counter_spec
from tests.helpers.live_sources import ListSource

pytestmark = pytest.mark.qt


class Loop(QObject):
    """What the recorder reads of a frame loop."""

    frame_presented = Signal(int)

    def __init__(self):
        super().__init__()
        self.timeline = Timeline()
        self.last_error = None

    def present(self, index, t, error=None):
        self.timeline.append(index, t, 1.0, 0.0, 0.0, 0.0, "numpy", error=error)
        self.last_error = error
        self.frame_presented.emit(index)


def test_present_clock_is_the_capture_clock_or_mapped_onto_it():
    if time.get_clock_info("perf_counter").implementation == time.get_clock_info("monotonic").implementation:
        assert present_clock_offset() == 0.0            # Linux: CLOCK_MONOTONIC both
    assert present_clock_offset(lambda: 10.0, lambda: 15.5, same=False) == pytest.approx(5.5)


def test_recorder_keeps_presents_while_on_and_leaves_out_failed_renders():
    loop = Loop()
    rec = PresentRecorder(loop)
    loop.present(0, 1.0)                 # before start: not kept
    rec.start()
    for i in range(1, 6):
        loop.present(i, 1.0 + i / 60, error="frame 3: boom" if i == 3 else None)
    rec.stop()
    loop.present(6, 2.0)                 # after stop: not kept
    log = rec.log()
    assert log.index.tolist() == [1, 2, 4, 5] and len(rec) == 4
    assert rec.log(1.02, 1.07).index.tolist() == [2, 4]
    assert len(rec.log(5.0, 6.0)) == 0


def test_captures_of_the_screen_before_the_run_are_left_out():
    loop = Loop()
    rec = PresentRecorder(loop)
    rec.start()
    for i in range(10, 20):
        loop.present(i, 100.0 + (i - 10) / 60)
    t0 = 100.0 + 5 / 60                  # the join starts at the present of index 15
    samples = [CaptureSample(t0 - 0.01, "ok", (14,)), CaptureSample(t0 + 0.005, "ok", (14,)),
               CaptureSample(t0 + 0.01, "torn", (14, 15)), CaptureSample(t0 + 0.02, "ok", (14,)),
               CaptureSample(t0 + 0.03, "ok", (15,))]
    kept = fresh_captures(CaptureLog(samples, 1 << 16), rec, t0)
    # the first capture showing a frame of the run, and everything after it
    assert kept == tuple(samples[2:])


def test_the_last_capture_may_show_a_frame_presented_just_after_its_stamp():
    """A grab is stamped before it is taken and a present after its swap returns: the last
    capture can show a frame whose present comes a moment after it (seen under load: 0.1 ms).
    That frame is joined, and no more than the join's allowance past the capture."""
    loop = Loop()
    rec = PresentRecorder(loop)
    rec.start()
    for i in range(100, 130):
        loop.present(i, 10.0 + (i - 100) / 60)
    t = lambda i: 10.0 + (i - 100) / 60          # noqa: E731
    samples = [CaptureSample(t(i) + 0.008 * (i > 100), "ok", (i,)) for i in range(100, 110)]
    samples.append(CaptureSample(t(110) - 1e-4, "ok", (110,)))    # stamped before 110's present
    log = CaptureLog(samples, 1 << 16)
    present = joined_presents(rec, log)
    assert present.index.tolist() == list(range(100, 110 + AHEAD))
    report = latency_report(present, log)
    assert report["unmatched_captures"] == 0 and report["matched"] == 11
    assert report["frames"][10]["latency_ms"] == pytest.approx(-0.1)
    # what the old slice (presents up to the last capture) made of it
    assert latency_report(rec.log(samples[0].t_s, samples[-1].t_s), log)["unmatched_captures"] == 1
    # no present at all while the capture ran: nothing to join, nothing invented
    late = CaptureLog([CaptureSample(5.0, "ok", (1,)), CaptureSample(5.5, "ok", (1,))], 1 << 16)
    assert len(joined_presents(rec, late)) == 0 and len(joined_presents(rec, CaptureLog([], 1 << 16))) == 0


def test_live_slices_agree_with_the_final_join_frame_by_frame():
    run = Run(frames=150, display_hz=60.0, capture_hz=60.0 * 1.9, latency_s=0.025, t0=500.0, drops=(70, 71),
              capture_until_s=0.3)
    present, captures = run.build()
    loop = Loop()
    rec = PresentRecorder(loop)
    rec.start()
    for i, t in zip(present.index, present.t_s, strict=True):
        loop.present(int(i), float(t))
    spec = counter_spec(160, 120)
    planes = {}
    frames = []
    for s in captures.samples:
        if s.index is not None and s.index not in planes:
            planes[s.index] = counter_plane(spec, s.index)
        frames.append(LiveFrame(planes.get(s.index, np.zeros((120, 160), np.uint8)), s.t_s, "monotonic",
                                None, 0))
    source = ListSource(frames, run.capture_hz)
    request = LatencyRequest(lambda: source, LiveRequest(batch_s=1e-6))
    steps = latency_steps(request, rec, threading.Event())
    updates = []
    while True:
        try:
            updates.append(next(steps))
        except StopIteration as stop:
            report = stop.value
            break
    assert source.closed and len([u for u in updates if len(u.present_s)]) > 3
    t = np.concatenate([u.present_s for u in updates])
    ms = np.concatenate([u.latency_ms for u in updates])
    status = [s for u in updates for s in u.status]
    assert np.all(np.diff(t) > 0)                        # each frame in one slice, in order
    final = {f["present_s"]: f for f in report["frames"]}
    for ti, mi, si in zip(t, ms, status, strict=True):
        f = final[round(float(ti), 6)]
        assert si == f["status"]
        assert (np.isnan(mi) and f["latency_ms"] is None) or mi == pytest.approx(f["latency_ms"])
    assert report["display_drops"] == 2 and report["dropped"] == [70, 71]
    assert updates[-1].display_drops == 2 and updates[-1].matched <= report["matched"]
    assert report["decode"]["frames"] == len(frames)
    assert report["present_clock"].startswith("time.perf_counter")
