"""The one rule for a decode's checks: failed (1) wins over could not verify (3), and only checks
verified and passed are 0; what no decoded frame supports is "unknown", never a figure."""

import pytest

from core.decode import FrameReading, analyse, headline, verdict, with_verdict


def seq(items, fps=None):
    """items: int (ok), None (undecodable), 'x' (unreadable)."""
    def reading(pos, it):
        ts = None if fps is None else pos / fps
        if it is None or it == "x":
            return FrameReading(pos, ts, None, "undecodable" if it is None else "unreadable", 0.0)
        return FrameReading(pos, ts, it, "ok", 1.0, (it,))
    return [reading(pos, it) for pos, it in enumerate(items)]


def report(items, capture_fps=None, display_fps=None, modulus=256, **extra):
    fps = capture_fps or None
    rep = analyse(seq(items, fps=fps), modulus, capture_fps, display_fps).to_dict()
    rep.update(extra)
    return rep


def results(v):
    return {c.name: c.result for c in v.checks}


def test_a_clean_run_is_verified_and_passes():
    v = verdict(report(range(10, 30)), ("drop", "gap"))
    assert results(v) == {"drop": "passed", "gap": "passed"}
    assert (v.result, v.exit_status, v.verified) == ("passed", 0, True)
    assert v.checks[0].reason == "no frame dropped and no freeze across 20 decoded frames"


def test_a_drop_fails_and_is_verified():
    v = verdict(report([1, 2, 5, 6]), ("drop",))
    assert (v.result, v.exit_status, v.verified) == ("failed", 1, True)
    assert v.checks[0].reason == "2 frames dropped"


def test_nothing_decoded_cannot_be_verified():
    v = verdict(report([None] * 30, capture_fps=60), ("drop",))
    assert (v.result, v.exit_status, v.verified) == ("unverified", 3, False)
    assert v.why_unverified() == "no frame decoded (30 undecodable of 30)"
    # the compat bit count that never settled is named with what to do
    rep = report([None] * 3, decoder={"bits_from": "not settled"})
    assert "bit count never settled: give --bits or --manifest" in verdict(rep).why_unverified()
    one = verdict(report([None, 7, "x"]))
    assert one.why_unverified() == ("only one frame decoded (a drop shows between two) "
                                    "(1 undecodable and 1 unreadable of 3)")


def test_one_index_throughout_is_verified_only_at_known_rates():
    still = verdict(report([42] * 30, capture_fps=60))
    assert still.exit_status == 3 and "cannot be told from a capture of one presentation" in \
        still.why_unverified()
    frozen = verdict(report([42] * 30, capture_fps=60, display_fps=60))
    assert frozen.exit_status == 1 and frozen.checks[0].reason == \
        "the display froze on index 42 for the whole capture"
    once = verdict(report([42, 42], capture_fps=120, display_fps=60))   # one presentation, twice
    assert once.exit_status == 0


def test_indices_hidden_by_gaps_cannot_be_verified_but_a_drop_beside_them_fails():
    hidden = verdict(report([10, 11, "x", 13, 14]))
    assert hidden.exit_status == 3
    assert hidden.why_unverified() == "1 index unseen across gaps of unknown content (shown there or " \
                                      "dropped: unknown)"
    # a gap between two frames of one hold, or next to a repeat, hides nothing
    assert verdict(report([10, 11, None, 11, 12])).exit_status == 0
    assert verdict(report([10, 11, "x", 15, 16])).exit_status == 1


def test_a_capture_slower_than_the_display_cannot_verify_drops():
    v = verdict(report([1, 3, 5, 7], capture_fps=30, display_fps=60))
    assert v.exit_status == 3 and "slower than the display" in v.why_unverified()


def test_the_gap_check():
    assert verdict(report([1, 2, 3]), ("gap",)).exit_status == 0
    gap = verdict(report([1, None, 3]), ("gap",))
    assert gap.exit_status == 1 and gap.checks[0].reason == "1 captured frame could not be read or decoded"
    # nothing decoded: the gaps are verified; the drop check is not, and the failure wins
    both = verdict(report([None] * 30), ("drop", "gap"))
    assert results(both) == {"drop": "unverified", "gap": "failed"}
    assert (both.exit_status, both.verified) == (1, False)


def test_a_cancelled_decode_verifies_only_what_failed():
    assert verdict(report([1, 2, 3], cancelled=True), ("drop", "gap")).exit_status == 3
    assert verdict(report([1, 3], cancelled=True), ("drop",)).exit_status == 1


def test_the_report_keys_and_headline():
    rep = report([None] * 4)
    v = with_verdict(rep, ("drop", "gap"))
    assert rep["verified"] is False and rep["verdict"]["exit_status"] == v.exit_status == 1
    assert rep["verdict"]["checks"]["drop"]["result"] == "unverified"
    assert rep["verdict"]["reasons"] == ["drop: no frame decoded (4 undecodable of 4)"]
    assert headline(rep) == ("failed", "failed: 4 captured frames could not be read or decoded")
    with_verdict(rep)
    assert headline(rep) == ("unverified", "could not verify: no frame decoded (4 undecodable of 4)")
    clean = report([1, 2])
    with_verdict(clean)
    assert clean["verified"] is True and headline(clean)[0] == "passed"
    assert headline({"summary": {}}) == ("unverified", "could not verify: the report carries no verdict")
    with pytest.raises(ValueError, match="unknown check 'tear'"):
        verdict(clean, ("tear",))


# ---------------------------------------------------------------- derived figures
def test_figures_no_decoded_frame_supports_are_unknown():
    s = report([None] * 30, capture_fps=60)["summary"]
    assert s["captures_per_frame"] is None and s["display_fps"] is None
    assert s["unknown"]["captures_per_frame"] == "no frame decoded"
    assert set(s["unknown"]) >= {"dropped_count", "repeated", "frozen", "captures_per_frame", "display_fps"}
    still = report([42] * 30, capture_fps=60)["summary"]
    assert still["captures_per_frame"] is None and still["display_fps"] is None
    assert {"frozen", "repeated", "captures_per_frame", "display_fps"} <= set(still["unknown"])
    assert "dropped_count" not in still["unknown"]     # no index was skipped: that the frames show


def test_figures_the_frames_support_stay():
    s = report([1, 1, 2, 2, 3, 3, 4, 4], capture_fps=120)["summary"]
    assert (s["captures_per_frame"], s["display_fps"], s["unknown"]) == (2.0, 60.0, {})
    # the rates given support the ratio whatever the frames show
    s = report([None] * 5, capture_fps=120, display_fps=60)["summary"]
    assert s["captures_per_frame"] == 2.0 and s["display_fps"] == 60
    assert "captures_per_frame" not in s["unknown"] and "dropped_count" in s["unknown"]
    # no capture rate: the display rate is unknown, the ratio is not
    s = report([1, 1, 2, 2, 3, 3])["summary"]
    assert s["captures_per_frame"] == 2.0 and s["display_fps"] is None and "display_fps" in s["unknown"]
