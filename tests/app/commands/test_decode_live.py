"""`testcard decode --live SOURCE`: a video played as a live stream decoded as it arrives, the
capture's own drops kept apart, Ctrl-C returning the partial report; what it refuses."""

import json
import os
import signal

import pytest

from app.cli import build_parser, main
from app.commands.decode_live import run_live
from tests.helpers.live_sim import FakeSource, counter_plane, counter_spec
from tests.helpers.live_sources import write_gray_video

SPEC = counter_spec(320, 180, bits=10)


@pytest.mark.parametrize("argv, message", [
    (("decode",), "give PATH (a folder, glob or video of captured frames) or --live SOURCE"),
    (("decode", "frames/", "--live", "x11grab::0"), "give PATH or --live SOURCE, not both"),
    (("decode", "frames/", "--seconds", "3"), "--seconds applies to --live only"),
    (("decode", "--live", "x11grab::0", "--seconds", "-1"), "--seconds must be above 0"),
    (("decode", "--live", "bogus"), "unknown capture source 'bogus'"),
    (("decode", "--live", "x11grab::0", "--bits", "0"), "--bits must be 1..31"),
])
def test_refusals_are_one_line(capsys, argv, message):
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.startswith("testcard: error:") and message in err and err.count("\n") == 1, err


def test_a_video_played_live_is_decoded_as_it_arrives(capsys, tmp_path):
    shown = [*range(100, 130), *range(131, 160)]           # index 130 never reached the screen
    video = tmp_path / "capture.mkv"
    write_gray_video(video, [counter_plane(SPEC, i) for i in shown], fps=60)
    csv_path = tmp_path / "frames.csv"
    assert main(["decode", "--live", f"file:{video}", "--json", "--csv", str(csv_path),
                 "--display-fps", "60"]) == 0
    r = json.loads(capsys.readouterr().out)
    s = r["summary"]
    assert r["live"] is True and r["cancelled"] is False and r["capture"]["kind"] == "file"
    assert s["frames"] == len(shown) and s["ok"] == len(shown)
    assert s["dropped"] == [130] and s["dropped_count"] == 1 and s["capture_drops"] == 0
    assert [f["index"] for f in r["frames"]] == shown
    assert csv_path.read_text().count("\n") >= len(shown) + 1


def test_the_summary_keeps_capture_drops_apart(capsys, tmp_path):
    frames = [counter_plane(SPEC, i) for i in range(40)]
    args = build_parser().parse_args(["decode", "--live", "x11grab::0", "--capture-fps", "60"])
    # the source lost 3 frames before frame 20: they may have shown 20..22, not a display drop
    rc = run_live(args, lambda: FakeSource([*frames[:20], *frames[23:]], 60.0, lost={20: 3}))
    out = capsys.readouterr().out
    assert rc == 0
    assert "dropped: 0" in out
    assert "capture drops 3 (behind 0, lost by the source 3): the capture's, never counted as display drops" \
        in out


def test_ctrl_c_returns_the_partial_report(capsys):
    frames = [counter_plane(SPEC, i) for i in range(16)]

    def interrupt_at_40(k):
        if k == 40:
            os.kill(os.getpid(), signal.SIGINT)

    args = build_parser().parse_args(["decode", "--live", "x11grab::0", "--json"])
    before = signal.getsignal(signal.SIGINT)
    source = FakeSource(frames, 60.0, endless=True, on_read=interrupt_at_40)
    rc = run_live(args, lambda: source)
    out = capsys.readouterr()
    assert rc == 130 and "interrupted; the report covers the frames decoded so far" in out.err
    r = json.loads(out.out)
    assert r["cancelled"] is True and 40 <= r["summary"]["frames"] < 200
    assert source.closed and signal.getsignal(signal.SIGINT) is before


def test_distinct_indices_are_counted_once_across_the_live_windows(capsys):
    # 1,400 captures, each index held for two: more than two of the live decode's windows
    planes = {i: counter_plane(SPEC, i) for i in range(700)}
    frames = [planes[k // 2] for k in range(1400)]
    args = build_parser().parse_args(["decode", "--live", "x11grab::0", "--json"])
    assert run_live(args, lambda: FakeSource(frames, 120.0)) == 0
    s = json.loads(capsys.readouterr().out)["summary"]
    assert s["frames"] == 1400 and s["dropped_count"] == 0
    assert s["distinct_indices"] == 700
