"""Preset playback's schedule on an injected clock: each entry up for exactly its dwell, in order.

The "screen" here is simulated the way the GUI drives it: after each present the schedule is
told the frame that first showed a requested entry (``shown``) and asked whether the dwell is
up (``advance``); a change asked for at frame k is first on screen at frame k + 1.
"""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.patterns import EntryChange, Playback, PlaybackLog, PlayRecord, get_preset

T = 1 / 64      # a frame period that binary floats hold exactly, so times compare exactly


class Screen:
    """A frame loop presenting at t = k * period, applying changes the way the GUI does."""

    def __init__(self, pb: Playback, period: float = T):
        self.pb, self.period = pb, period
        self.frame = 0
        self.on_screen: list[int | None] = []   # the entry each presented frame showed
        self.showing: int | None = None
        self.first_action = lambda _now: pb.start()   # asked for in a present, as the GUI does

    @property
    def now(self) -> float:
        return self.frame * self.period

    def present(self, n: int = 1, action=None) -> None:
        for _ in range(n):
            now = self.now
            self.on_screen.append(self.showing)
            self.pb.shown(self.frame, now)
            change = None
            for act in (self.first_action, action):
                if act is not None:
                    change = act(now) or change
            self.first_action = action = None
            change = self.pb.advance(now, self.period) or change
            if change is not None and change.position is not None:
                self.showing = change.position
            self.frame += 1

    def run_until_ended(self, limit: int = 100_000) -> None:
        while not self.pb.ended and self.frame < limit:
            self.present()


def runs(seq):
    """[(value, count)] of consecutive equal values."""
    out = []
    for v in seq:
        if out and out[-1][0] == v:
            out[-1][1] += 1
        else:
            out.append([v, 1])
    return [tuple(x) for x in out]


def test_each_entry_is_presented_for_exactly_its_dwell_and_logged_in_order():
    pb = Playback([0.5, 0.25, 1.0], preset="p", names=["a", "b", "c"], patterns=["solid"] * 3)
    screen = Screen(pb)
    screen.run_until_ended()
    assert pb.finished
    # frame 0 still showed what was there before; then 32, 16 and 64 frames of the entries, and
    # the last stays on screen: frame 113, whose present ends its dwell, still shows it
    assert runs(screen.on_screen) == [(None, 1), (0, 32), (1, 16), (2, 64 + 1)]
    log = list(pb.log)
    assert [(r.entry, r.name, r.pattern) for r in log] == [(1, "a", "solid"), (2, "b", "solid"),
                                                          (3, "c", "solid")]
    assert [r.frame for r in log] == [1, 33, 49]
    assert [r.left_frame for r in log] == [33, 49, 113]
    assert [r.on_screen_s for r in log] == [0.5, 0.25, 1.0]      # exact on this clock
    assert [r.shown_s for r in log] == [1 * T, 33 * T, 49 * T]
    assert [r.left_by for r in log] == ["dwell"] * 3
    assert pb.advance(screen.now, T) is None and pb.remaining(screen.now) is None


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(0.001, 3.0), min_size=1, max_size=4),
       st.sampled_from([1 / 24, 1 / 50, 1 / 60, 1 / 144]))
def test_a_dwell_lasts_the_whole_number_of_frames_nearest_to_it_and_at_least_one(dwells, period):
    pb = Playback(dwells)
    screen = Screen(pb, period)
    screen.run_until_ended()
    for record, dwell in zip(pb.log, dwells, strict=True):
        frames = record.left_frame - record.frame
        if dwell / period > 0.5:
            assert abs(frames - dwell / period) <= 0.5 + 1e-6
        else:
            assert frames == 1
        assert math.isclose(record.on_screen_s, frames * period, abs_tol=1e-9)


def test_without_a_period_the_change_comes_at_the_first_present_past_the_deadline():
    pb = Playback([1.0])
    pb.start()
    pb.shown(0, 10.0)
    assert pb.advance(10.99) is None
    assert pb.remaining(10.5) == pytest.approx(0.5)
    assert pb.advance(11.0) == EntryChange(None, "dwell")
    pb.shown(7, 11.02)
    assert pb.finished and [r.left_s for r in pb.log] == [11.02]


def test_a_looped_run_goes_round_and_counts_laps_until_stopped():
    pb = Playback([0.25, 0.25], loop=True)
    screen = Screen(pb)
    screen.present(16 * 5)
    assert not pb.ended
    assert [(r.entry, r.lap) for r in pb.log] == [(1, 1), (2, 1), (1, 2), (2, 2)]
    assert pb.position == 0 and pb.lap == 3
    pb.stop(screen.frame - 1, screen.now - T)
    assert pb.state == "stopped"
    last = pb.log.records[-1]
    assert (last.entry, last.lap, last.left_by, last.left_frame) == (1, 3, "stop", screen.frame - 1)
    assert pb.advance(screen.now, T) is None and pb.next() is None


def test_pause_holds_the_entry_and_its_remaining_dwell_and_logs_the_pause():
    pb = Playback([0.5, 0.5])
    screen = Screen(pb)
    screen.present(9)                        # entry 1 up since frame 1: 8 frames = 0.125 s in
    assert pb.remaining(screen.now) == 0.5 - 8 * T
    screen.present(1, action=pb.pause)       # paused at frame 9
    assert pb.paused and pb.remaining(screen.now + 100) == 0.5 - 8 * T
    screen.present(64)                       # one second paused: nothing moves
    assert set(screen.on_screen[-64:]) == {0} and len(pb.log) == 0
    screen.present(1, action=pb.resume)      # resumed at frame 74
    screen.run_until_ended()
    first, second = pb.log
    assert first.paused_s == 65 * T
    assert first.on_screen_s == 0.5 + 65 * T
    assert second.on_screen_s == 0.5 and second.paused_s == 0.0


@pytest.mark.parametrize("leave", ["next", "previous"])
def test_an_entry_left_while_paused_logs_the_pause_it_had(leave):
    pb = Playback([0.5, 0.5, 0.5])
    screen = Screen(pb)
    screen.present(1)                                      # entry 1 asked for at frame 0
    screen.present(1, action=lambda _now: pb.next())       # shown at 1; entry 2 shown at 2
    screen.present(4)
    screen.present(1, action=pb.pause)                     # paused at frame 6
    screen.present(269)                                    # 4.2 s paused (and a bit)
    screen.present(1, action=lambda _now: getattr(pb, leave)())   # left at frame 276, still paused
    screen.present(1)                                      # what follows first shown at frame 277
    left = [r for r in pb.log if r.entry == 2][0]
    assert left.left_by == leave and left.left_frame == 277
    assert left.paused_s == (277 - 6) * T                  # paused until what followed was shown
    assert left.on_screen_s == (277 - 2) * T
    # the entry stepped to while paused waits too: left paused again, its own pause is logged
    screen.present(10)
    screen.present(1, action=lambda _now: pb.next())
    screen.present(1)
    after = pb.log.records[-1]
    assert after.left_by == "next" and after.paused_s == after.on_screen_s == 12 * T
    # and the play log file carries them
    assert [r.paused_s for r in PlaybackLog.from_csv(pb.log.to_csv())] == [r.paused_s for r in pb.log]


def test_an_entry_stopped_while_paused_logs_the_pause_it_had():
    pb = Playback([0.5, 0.5])
    screen = Screen(pb)
    screen.present(3)
    screen.present(1, action=pb.pause)                     # paused at frame 3
    screen.present(100)
    pb.stop(screen.frame - 1, screen.now - T)              # at the last present, frame 103
    (only,) = pb.log
    assert only.left_by == "stop" and only.paused_s == 100 * T


def test_next_and_previous_move_at_once_and_the_new_entry_gets_its_whole_dwell():
    pb = Playback([1.0, 0.5, 0.25])
    screen = Screen(pb)
    screen.present(5)
    screen.present(1, action=lambda _now: pb.next())          # at frame 5
    screen.present(8)
    screen.present(1, action=lambda _now: pb.previous())      # at frame 14
    screen.run_until_ended()
    log = list(pb.log)
    assert [(r.entry, r.left_by) for r in log] == [(1, "next"), (2, "previous"), (1, "dwell"),
                                                   (2, "dwell"), (3, "dwell")]
    assert (log[0].frame, log[0].left_frame) == (1, 6)
    assert (log[1].frame, log[1].left_frame) == (6, 15)
    assert [r.on_screen_s for r in log[2:]] == [1.0, 0.5, 0.25]


def test_previous_on_the_first_entry_restarts_it_unless_the_run_loops():
    once = Playback([1.0, 1.0])
    once.start()
    assert once.previous() == EntryChange(0, "previous")
    looped = Playback([1.0, 1.0], loop=True)
    looped.start()
    looped.shown(0, 0.0)
    assert looped.previous() == EntryChange(1, "previous")


def test_next_on_the_last_entry_ends_a_run_that_does_not_loop():
    pb = Playback([1.0])
    screen = Screen(pb)
    screen.present(3)
    screen.present(1, action=lambda _now: pb.next())
    screen.present(1)
    assert pb.finished and [r.left_by for r in pb.log] == ["next"]


def test_two_quick_nexts_move_two_entries():
    pb = Playback([1.0, 1.0, 1.0])
    pb.start()
    pb.shown(0, 0.0)
    pb.next()
    assert pb.next() == EntryChange(2, "next")


def test_stepping_while_paused_keeps_the_new_entry_paused_with_its_whole_dwell():
    pb = Playback([0.5, 0.5])
    screen = Screen(pb)
    screen.present(3)
    screen.present(1, action=pb.pause)
    screen.present(1, action=lambda _now: pb.next())
    screen.present(200)
    assert pb.paused and pb.position == 1 and pb.remaining(screen.now) == 0.5
    assert set(screen.on_screen[-199:]) == {1}


def test_the_schedule_of_a_preset_uses_its_dwells_and_entry_names():
    preset = get_preset("meter greyscale 10 steps")
    pb = Playback.of(preset)
    assert pb.dwells == preset.dwells() and len(pb) == len(preset.entries)
    screen = Screen(pb, 1 / 60)
    screen.run_until_ended()
    assert [r.name for r in pb.log] == [f"grey {v} %" for v in range(0, 101, 10)]
    assert [r.left_frame - r.frame for r in pb.log] == [round(d * 60) for d in preset.dwells()]


@pytest.mark.parametrize("dwells, message", [
    ([], "at least one entry"),
    ([1.0, 0.0], "entry 2: dwell_s must be a positive"),
    ([-1.0], "positive"),
    ([math.inf], "finite"),
    ([math.nan], "finite"),
])
def test_a_schedule_refuses_what_cannot_be_played(dwells, message):
    with pytest.raises(ValueError, match=message):
        Playback(dwells)


# ------------------------------------------------------------------ the log as CSV
def _played_log() -> PlaybackLog:
    pb = Playback([0.25, 0.5], preset="meter, \"quoted\"", names=["grey 0 %", "line\nbreak"],
                  patterns=["window", "solid"])
    screen = Screen(pb)
    screen.present(20)
    screen.present(1, action=pb.pause)
    screen.present(3)
    pb.stop(screen.frame - 1, screen.now - T)
    return pb.log


def test_the_log_round_trips_through_a_csv_file(tmp_path):
    log = _played_log()
    path = tmp_path / "play.csv"
    assert log.write_csv(path) == 2
    again = PlaybackLog.read_csv(path)
    assert again.records == log.records
    header = path.read_text().splitlines()[0]
    assert header == ("preset,entry,lap,name,pattern,frame,shown_s,left_frame,left_s,paused_s,left_by,"
                      "on_screen_s")


def test_writing_the_log_into_a_missing_folder_is_refused_and_leaves_nothing(tmp_path):
    with pytest.raises(ValueError, match="folder does not exist"):
        _played_log().write_csv(tmp_path / "absent" / "play.csv")
    assert not (tmp_path / "absent").exists()


_records = st.builds(
    PlayRecord, preset=st.text(max_size=12), entry=st.integers(1, 500), lap=st.integers(1, 99),
    name=st.text(max_size=12), pattern=st.sampled_from(["solid", "window"]), frame=st.integers(0, 2**40),
    shown_s=st.floats(-1e9, 1e9), left_frame=st.none() | st.integers(0, 2**40),
    left_s=st.none() | st.floats(-1e9, 1e9), paused_s=st.floats(0, 1e6),
    left_by=st.sampled_from(["", "dwell", "next", "previous", "stop"]))


@settings(max_examples=60, deadline=None)
@given(st.lists(_records, max_size=5))
def test_any_log_round_trips_through_its_csv_text(records):
    log = PlaybackLog(records)
    assert PlaybackLog.from_csv(log.to_csv()).records == records


@pytest.mark.parametrize("text, message", [
    ("", "header"),
    ("entry,name\n1,a\n", "header"),
    (PlaybackLog().to_csv() + "p,1,1\n", "row 2: 3 cells"),
    (PlaybackLog().to_csv() + "p,x,1,n,solid,0,0.0,,,0.0,,\n", "row 2"),
    (PlaybackLog().to_csv() + "p,1,1,n,solid,0,nan,,,0.0,,\n", "row 2: shown_s"),
])
def test_a_csv_that_is_not_a_play_log_is_refused_naming_the_row(text, message):
    with pytest.raises(ValueError, match=message):
        PlaybackLog.from_csv(text)
