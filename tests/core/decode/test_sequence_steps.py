"""analyse's steps on their own: observations, the walk, torn frames, gaps, event order."""

from core.decode import analyse
from core.decode.job import FrameReading
from core.decode.sequence import (
    count_gap_runs,
    count_statuses,
    follow_counter,
    gap_events,
    observations,
    sort_events,
    torn_events,
)


def ok(pos, index, ts=None):
    return FrameReading(pos, ts, index, "ok", 1.0, (index,))


def torn(pos, *indices):
    return FrameReading(pos, None, indices[0], "torn", 0.9, tuple(indices))


def gap(pos, status="undecodable", note=None):
    return FrameReading(pos, None, None, status, 0.0, note=note)


def walk(results, modulus):
    _, gaps_before = count_statuses(results)
    return follow_counter(results, observations(results, modulus), modulus, gaps_before)


def test_a_torn_frame_observes_both_indices_top_first_unwrapped_across_the_wrap():
    results = [ok(0, 6), torn(1, 7, 0), gap(2), ok(3, 1)]
    obs = observations(results, 8)
    assert [(i, u, idx) for i, _, u, idx in obs] == [(0, 6, 6), (1, 7, 7), (1, 8, 0), (3, 9, 1)]


def test_a_step_of_half_the_modulus_or_more_is_taken_backwards():
    assert [u for _, _, u, _ in observations([ok(0, 1), ok(1, 5)], 8)] == [1, 5]     # +4: forwards
    assert [u for _, _, u, _ in observations([ok(0, 1), ok(1, 6)], 8)] == [1, -2]    # +5: back 3


def test_the_walk_records_the_jump_with_its_gap_frames_and_distance():
    w = walk([ok(0, 2, 0.0), gap(1), ok(2, 5, 0.5)], 256)
    (j,) = w.jumps
    assert (j.high, j.u, j.gap_frames, j.captures, j.seconds) == (2, 5, 1, 2, 0.5)
    assert (w.high, w.last, w.unwrapped) == (5, 5, [2, None, 5])


def test_a_repeat_at_the_wrap_of_the_modulus():
    # modulus 8: the last value before the wrap held three presentations, then 0, 1
    r = analyse([ok(i, v) for i, v in enumerate([5, 6, 7, 7, 7, 0, 1])], 8, 60, 60)
    s = r.summary
    assert (s["repeated"], s["wraps"], s["dropped_count"], s["out_of_order"]) == (2, 1, 0, 0)
    assert [(e["kind"], e["index"]) for e in r.events] == [("repeat", 7), ("wrap", 0)]
    # the same with the hold on the first value after the wrap
    r = analyse([ok(i, v) for i, v in enumerate([6, 7, 0, 0, 1])], 8, 60, 60)
    assert [(e["kind"], e["index"], e.get("extra")) for e in r.events] == [
        ("wrap", 0, None), ("repeat", 0, 1)]


def test_a_torn_frame_is_an_event_with_its_indices_and_never_a_drop():
    results = [ok(0, 2), torn(1, 3, 4), ok(2, 5)]
    assert torn_events(results) == [{"kind": "torn", "position": 1, "timestamp": None, "indices": [3, 4]}]
    assert walk(results, 256).jumps == []
    assert analyse(results, 256).summary["dropped_count"] == 0


def test_gap_runs_fold_per_status_and_count_together():
    results = [gap(0, note="blurred"), gap(1), gap(2, "unreadable", "bad file"), ok(3, 1), gap(4)]
    assert gap_events(results) == [
        {"kind": "undecodable", "position": 0, "timestamp": None, "count": 2, "last_position": 1,
         "note": "blurred"},
        {"kind": "undecodable", "position": 4, "timestamp": None, "count": 1},
        {"kind": "unreadable", "position": 2, "timestamp": None, "count": 1, "note": "bad file"}]
    assert count_gap_runs(results) == 2   # frames 0-2 are one run of unknown content


def test_events_at_one_position_sort_by_kind_and_keep_their_order():
    events = [{"kind": "repeat", "position": 3}, {"kind": "drop", "position": 3, "n": 1},
              {"kind": "unobservable", "position": 3}, {"kind": "drop", "position": 3, "n": 2},
              {"kind": "torn", "position": 5}, {"kind": "unreadable", "position": 3}]
    assert [(e["kind"], e.get("n")) for e in sort_events(events)] == [
        ("unreadable", None), ("drop", 1), ("unobservable", None), ("drop", 2), ("repeat", None),
        ("torn", None)]
