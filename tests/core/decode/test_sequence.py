"""Sequence analysis on hand-made result lists: every kind of event, exactly."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.decode import FrameReading, analyse


def seq(items, fps=None):
    """items: int (ok), None (undecodable), 'x' (unreadable), (a, b) (torn)."""
    out = []
    for pos, it in enumerate(items):
        ts = None if fps is None else pos / fps
        if it is None:
            out.append(FrameReading(pos, ts, None, "undecodable", 0.0))
        elif it == "x":
            out.append(FrameReading(pos, ts, None, "unreadable", 0.0, note="bad file"))
        elif isinstance(it, tuple):
            out.append(FrameReading(pos, ts, it[0], "torn", 0.9, tuple(it)))
        else:
            out.append(FrameReading(pos, ts, it, "ok", 1.0, (it,)))
    return out


def kinds(report, kind):
    return [e for e in report.events if e["kind"] == kind]


def test_clean_run():
    r = analyse(seq(range(10, 30)), 1 << 16)
    s = r.summary
    assert (s["frames"], s["decoded"], s["dropped"], s["repeated"], s["out_of_order"]) == (20, 20, [], 0, 0)
    assert (s["first_index"], s["last_index"], s["distinct_indices"]) == (10, 29, 20)
    assert r.events == []


def test_drops_listed_and_located():
    r = analyse(seq([1, 2, 5, 6, 7, 9], fps=60), 256)
    assert r.summary["dropped"] == [3, 4, 8] and r.summary["dropped_count"] == 3
    drops = kinds(r, "drop")
    assert [(e["position"], e["indices"]) for e in drops] == [(2, [3, 4]), (5, [8])]
    assert drops[0]["timestamp"] == pytest.approx(2 / 60, abs=1e-6)


def test_repeats_at_display_rate():
    r = analyse(seq([1, 2, 2, 3, 4, 4, 4, 5, 6]), 256)
    assert r.summary["repeated"] == 3
    assert [(e["index"], e["extra"]) for e in kinds(r, "repeat")] == [(2, 1), (4, 2)]


def test_repeats_at_twice_display_rate_from_holds_and_from_rates():
    items = [1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 5, 5, 6, 6]
    r = analyse(seq(items), 256)
    assert r.summary["captures_per_frame"] == 2.0
    assert r.summary["repeated"] == 1 and kinds(r, "repeat")[0]["index"] == 3
    r2 = analyse(seq(items, fps=120), 256, capture_fps=120, display_fps=60)
    assert r2.summary["repeated"] == 1 and r2.summary["captures_per_frame_from"] == "rates"
    assert analyse(seq(items, fps=120), 256, capture_fps=120).summary["display_fps"] == 60


def test_uneven_capture_rate_is_not_a_repeat():
    # 2.5 captures per presentation: holds of 2 and 3 alternate
    items = []
    for i, n in enumerate([2, 3] * 8):
        items += [i] * n
    r = analyse(seq(items), 256)
    assert r.summary["repeated"] == 0
    assert r.summary["captures_per_frame"] == pytest.approx(2.5, abs=0.1)


def test_wrap_around_is_not_a_drop():
    items = [i % 16 for i in range(10, 60)]
    r = analyse(seq(items), 16)
    s = r.summary
    assert s["dropped"] == [] and s["wraps"] == 3 and s["out_of_order"] == 0
    assert [e["index"] for e in kinds(r, "wrap")] == [0, 0, 0]


def test_drop_across_the_wrap():
    r = analyse(seq([13, 14, 1, 2]), 16)
    assert r.summary["dropped"] == [15, 0] and r.summary["wraps"] == 1


def test_out_of_order_fills_no_drop():
    r = analyse(seq([1, 2, 4, 3, 5, 6]), 256)
    s = r.summary
    assert s["out_of_order"] == 1 and s["dropped"] == []
    assert kinds(r, "out_of_order")[0]["position"] == 3


def test_stale_frame_shown_again_is_out_of_order():
    r = analyse(seq([1, 2, 3, 2, 4]), 256)
    assert r.summary["out_of_order"] == 1 and r.summary["repeated"] == 0


def test_torn_frames_count_both_indices():
    r = analyse(seq([1, 2, (2, 3), 3, 4, (4, 6), 6, 7]), 256)
    s = r.summary
    assert s["torn"] == 2 and s["dropped"] == [5] and s["repeated"] == 0
    assert [e["indices"] for e in kinds(r, "torn")] == [[2, 3], [4, 6]]


def test_undecodable_and_unreadable_runs_fold():
    r = analyse(seq([1, None, None, 2, "x", 3, None]), 256)
    s = r.summary
    assert (s["undecodable"], s["unreadable"], s["read"], s["decoded"]) == (3, 1, 6, 3)
    und = kinds(r, "undecodable")
    assert [(e["position"], e["count"]) for e in und] == [(1, 2), (6, 1)]
    assert und[0]["last_position"] == 2
    assert kinds(r, "unreadable")[0]["note"] == "bad file"


def test_gap_inside_a_hold_counts_in_the_hold():
    r = analyse(seq([1, 2, None, 2, 3]), 256)
    assert r.summary["repeated"] == 2   # index 2 held for three captures: shown twice more


def test_nothing_decoded():
    r = analyse(seq([None, "x"]), 256)
    s = r.summary
    assert s["first_index"] is None and s["last_index"] is None and s["dropped"] == []


def test_bad_modulus():
    with pytest.raises(ValueError, match="modulus"):
        analyse([], 1)


@settings(max_examples=60, deadline=None)
@given(start=st.integers(0, 255), steps=st.lists(st.integers(1, 3), min_size=1, max_size=60),
       holds=st.lists(st.integers(1, 2), min_size=61, max_size=61))
def test_drops_and_repeats_match_truth(start, steps, holds):
    idx = [start]
    for s in steps:
        idx.append(idx[-1] + s)
    items = []
    for i, ix in enumerate(idx):
        items += [ix % 256] * holds[i]
    r = analyse(seq(items), 256, capture_fps=60, display_fps=60)
    want_drops = [v % 256 for v in range(idx[0], idx[-1] + 1) if v not in set(idx)]
    assert r.summary["dropped"] == want_drops
    assert r.summary["repeated"] == sum(h - 1 for h in holds[:len(idx)])


# ---------------------------------------------------------------- gaps are not drops
def test_an_unreadable_frame_is_a_gap_not_a_drop():
    r = analyse(seq([1, 2, "x", 4, 5]), 256)
    s = r.summary
    assert (s["dropped"], s["dropped_count"]) == ([], 0)
    assert (s["gap_frames"], s["gap_runs"], s["gap_indices"]) == (1, 1, 1)
    gap = kinds(r, "gap")
    assert [(e["position"], e["frames"], e["indices_unknown"], e["after"], e["before"]) for e in gap] == [
        (3, 1, 1, 2, 4)]
    assert kinds(r, "drop") == []


def test_an_undecodable_run_hides_at_most_one_index_per_frame():
    r = analyse(seq([1, 2, None, None, 7, 8]), 256)   # 3..6 unseen, two frames could show two
    s = r.summary
    assert (s["dropped_count"], s["gap_indices"], s["gap_frames"]) == (2, 2, 2)
    assert s["dropped"] == []                 # which two the gap showed is unknown: counted, not listed
    (drop,) = kinds(r, "drop")
    assert (drop["count"], drop["after"], drop["before"]) == (2, 2, 7) and "indices" not in drop


def test_a_gap_before_the_jump_hides_nothing():
    r = analyse(seq([1, None, 2, 4]), 256)      # the gap frame came before 2: 3 was dropped
    assert r.summary["dropped"] == [3] and r.summary["gap_indices"] == 0
    assert r.summary["gap_frames"] == 1


def test_gap_frames_at_the_ends_count_as_gaps_only():
    r = analyse(seq(["x", None, 5, 6, 7, "x"]), 256)
    s = r.summary
    assert (s["gap_frames"], s["gap_runs"], s["gap_indices"], s["dropped_count"]) == (3, 2, 0, 0)


# ---------------------------------------------------------------- a frozen display
def test_whole_capture_on_one_index_is_a_freeze_at_known_rates():
    r = analyse(seq([42] * 30, fps=60), 256, capture_fps=60, display_fps=60)
    s = r.summary
    assert s["frozen"] is True and s["repeated"] == 29 and s["distinct_indices"] == 1
    (ev,) = kinds(r, "freeze")
    assert (ev["index"], ev["captures"], ev["extra"], ev["position"]) == (42, 30, 29, 0)
    assert kinds(r, "repeat") == []


def test_one_index_at_unknown_rates_is_not_called_either_way():
    r = analyse(seq([42] * 30, fps=60), 256, capture_fps=60)
    s = r.summary
    assert s["frozen"] is None and kinds(r, "freeze") == []
    assert s["display_fps"] is None           # no display rate is made up from one hold


def test_one_presentation_captured_twice_is_no_freeze():
    r = analyse(seq([42, 42], fps=120), 256, capture_fps=120, display_fps=60)
    assert r.summary["frozen"] is False and r.summary["repeated"] == 0


def test_a_running_counter_is_not_frozen():
    r = analyse(seq(range(10)), 256, capture_fps=60, display_fps=60)
    assert r.summary["frozen"] is False
    assert analyse(seq([None, 3]), 256).summary["frozen"] is None   # one frame read: cannot tell


# ---------------------------------------------------------------- one jump back is one event
def test_a_counter_that_restarts_is_one_event():
    items = list(range(500, 600)) + list(range(0, 100))
    r = analyse(seq(items), 1 << 16)
    s = r.summary
    assert (s["jumps_back"], s["out_of_order"], s["dropped_count"], s["repeated"]) == (1, 0, 0, 0)
    (ev,) = kinds(r, "jump_back")
    assert (ev["position"], ev["index"], ev["after"], ev["back"]) == (100, 0, 599, 599)
    assert len(r.events) == 1 and s["last_index"] == 99


def test_frames_after_a_jump_back_are_judged_against_the_new_run():
    items = list(range(200, 210)) + [50, 51, 53, 54, 54, 55] + list(range(56, 60))
    r = analyse(seq(items), 1 << 16, capture_fps=60, display_fps=60)
    s = r.summary
    assert (s["jumps_back"], s["out_of_order"]) == (1, 0)
    assert s["dropped"] == [52] and s["repeated"] == 1
    # a replay of indices the old run showed still counts its own drops
    r = analyse(seq([10, 11, 12, 13, 14, 8, 9, 11, 12]), 256)
    assert r.summary["jumps_back"] == 1 and r.summary["dropped"] == [10]


def test_a_stale_frame_is_still_out_of_order_not_a_jump():
    for items in ([1, 2, 4, 3, 5, 6], [1, 2, 3, 2, 4], [1, 2, 3, 2, 2, 4], [1, 2, 3, 2]):
        r = analyse(seq(items), 256)
        assert (r.summary["out_of_order"], r.summary["jumps_back"]) == (1, 0), items


@settings(max_examples=60, deadline=None)
@given(first=st.integers(100, 5000), back=st.integers(1, 99), n1=st.integers(2, 40), n2=st.integers(2, 40))
def test_one_jump_back_anywhere_is_one_event(first, back, n1, n2):
    a = list(range(first, first + n1))
    restart = a[-1] - back - n1 if a[-1] - back - n1 >= 0 else 0
    b = list(range(restart, restart + n2))
    r = analyse(seq(a + b), 1 << 16)
    assert r.summary["jumps_back"] + r.summary["out_of_order"] == 1
    assert r.summary["dropped_count"] == 0
