"""The frame loop's record of each present and its stall test hook (no Qt, no loop)."""

from types import SimpleNamespace

from app.preview.present_log import STALL_EVERY_ENV, PresentLog, stall_every
from core.timing import Timeline
from core.timing.render_ahead import Handed, Job


def rendered(index, path="numpy"):
    r = SimpleNamespace(render_ms=2.0, transfer_ms=0.5, path=path, warmup=False, error=None)
    return Handed(index, 0, Job(0, index, None, False), (r, None, None))


def test_the_hook_reads_a_count_and_nothing_else():
    assert stall_every({}) == 0
    assert stall_every({STALL_EVERY_ENV: " 20 "}) == 20
    assert stall_every({STALL_EVERY_ENV: "twenty"}) == 0
    assert stall_every({STALL_EVERY_ENV: "-3"}) == 0


def test_a_rendered_frame_and_a_repeat_of_the_frame_on_screen_are_rows_of_the_timeline():
    tl = Timeline()
    log = PresentLog(tl)
    log.presented(rendered(4, "torch-eager"), 1.000, 1.002, 0.3, paused=False)
    log.shown_path = "torch-eager"
    log.presented(Handed(4, 0), 1.016, 1.017, 0.1, paused=True)     # presented again, not rendered
    snap = tl.snapshot()
    assert log.count == 2 and list(snap.index) == [4, 4]
    assert list(snap.render_ms) == [2.0, 0.0] and list(snap.path) == ["torch-eager", "torch-eager"]
    assert round(float(snap.present_ms[0]), 6) == 2.0


def test_every_nth_present_the_hook_records_the_next_frame_as_presented_and_never_paused():
    tl = Timeline()
    log = PresentLog(tl, stall_every=3)
    due = []
    for i in range(6):
        log.presented(rendered(i), i / 60, i / 60 + 0.001, 0.0, paused=False)
        due.append(log.stalls(paused=False))
    assert due == [False, False, True, False, False, True]
    assert not log.stalls(paused=True)
    log.discarded(6, 5 / 60 + 0.001)
    assert log.count == 7 and tl.snapshot().index[-1] == 6
    assert not PresentLog(Timeline()).stalls(paused=False)      # off: never
