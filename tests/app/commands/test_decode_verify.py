"""``testcard decode --fail-on-*``: 0 only for a check verified and passed, 1 for a verified
failure, 3 (with one ``testcard: could not verify:`` line) for a check the capture cannot decide;
figures no decoded frame supports read "unknown"."""

import json

from app.cli import build_parser, main
from app.commands.decode_live import run_live
from core.imageio import write_frame
from core.patterns import make_spec, render
from tests.helpers.live_sim import FakeSource, counter_plane, counter_spec


def folder(tmp_path, indices, layout="robust", name="cap"):
    sp = make_spec("counter", {"bits": 16, "layout": layout}, width=320, height=180, bit_depth=8,
                   dtype="uint8")
    d = tmp_path / name
    d.mkdir()
    for pos, idx in enumerate(indices):
        write_frame(d / f"f{pos:03d}.png", render(sp, idx), 8)
    return d


def test_thirty_copies_of_one_compat_frame_cannot_be_verified(tmp_path, capsys):
    d = folder(tmp_path, [1234] * 30, layout="compat")    # no sidecar: the bit count never settles
    rc = main(["decode", str(d), "--capture-fps", "60", "--fail-on-drop"])
    out = capsys.readouterr()
    assert rc == 3
    assert out.err == ("testcard: could not verify: no frame decoded (30 undecodable of 30); the compat "
                       "panel's bit count never settled: give --bits or --manifest\n")
    assert "dropped: unknown (no frame decoded)" in out.out
    assert "captures per displayed frame: unknown (no frame decoded), capture 60 fps, display fps unknown" \
        in out.out
    assert "~60 fps" not in out.out and "1.0 (from holds)" not in out.out
    assert "drop check: could not verify: no frame decoded" in out.out
    # the gaps themselves are verified: --fail-on-gap fails, and the failure wins
    assert main(["decode", str(d), "--fail-on-drop", "--fail-on-gap"]) == 1
    assert "could not verify" not in capsys.readouterr().err
    # without a check asked for, the report is only a report
    assert main(["decode", str(d)]) == 0


def test_json_says_not_verified_and_why(tmp_path, capsys):
    d = folder(tmp_path, [1234] * 30, layout="compat")
    rc = main(["decode", str(d), "--capture-fps", "60", "--fail-on-drop", "--json"])
    out = capsys.readouterr()
    doc = json.loads(out.out)
    assert rc == 3 and out.err.startswith("testcard: could not verify: no frame decoded")
    assert doc["verified"] is False
    assert doc["verdict"]["result"] == "unverified" and doc["verdict"]["exit_status"] == 3
    assert doc["verdict"]["reasons"][0].startswith("drop: no frame decoded (30 undecodable of 30)")
    s = doc["summary"]
    assert s["captures_per_frame"] is None and s["display_fps"] is None and s["capture_fps"] == 60
    assert s["unknown"]["captures_per_frame"] == "no frame decoded"
    assert s["unknown"]["dropped_count"] == "no frame decoded"
    assert s["dropped_count"] == 0 and s["captures_per_frame_from"] == "holds"   # older keys still read


def test_a_still_robust_capture_cannot_verify_a_freeze_from_the_capture_rate_alone(tmp_path, capsys):
    d = folder(tmp_path, [500] * 20)
    rc = main(["decode", str(d), "--capture-fps", "60", "--fail-on-drop"])
    out = capsys.readouterr()
    assert rc == 3 and out.err.count("\n") == 1
    assert "every decoded frame shows index 500" in out.err and "--display-fps" in out.err
    assert "captures per displayed frame: unknown (one index held for the whole capture" in out.out
    assert "display fps unknown" in out.out and "repeated: unknown" in out.out
    # with both rates the freeze is told, and fails
    assert main(["decode", str(d), "--capture-fps", "60", "--display-fps", "60", "--fail-on-drop"]) == 1
    assert "FROZEN" in capsys.readouterr().out


def test_a_verified_drop_fails_and_a_clean_capture_passes(tmp_path, capsys):
    dropped = folder(tmp_path, [10, 11, 12, 14, 15], name="dropped")
    rc = main(["decode", str(dropped), "--fail-on-drop", "--json"])
    out = capsys.readouterr()
    doc = json.loads(out.out)
    assert rc == 1 and out.err == "" and doc["verified"] is True
    assert doc["verdict"]["checks"]["drop"] == {"result": "failed", "reason": "1 frame dropped"}
    clean = folder(tmp_path, [10, 10, 11, 11, 12, 12], name="clean")
    rc = main(["decode", str(clean), "--capture-fps", "120", "--fail-on-drop", "--fail-on-gap", "--json"])
    out = capsys.readouterr()
    doc = json.loads(out.out)
    assert rc == 0 and out.err == "" and doc["verified"] is True and doc["verdict"]["result"] == "passed"
    assert doc["summary"]["captures_per_frame"] == 2.0 and doc["summary"]["display_fps"] == 60
    assert doc["summary"]["unknown"] == {}
    main(["decode", str(clean), "--capture-fps", "120", "--fail-on-drop"])
    out = capsys.readouterr().out
    assert "captures per displayed frame: 2.0 (from holds), capture 120 fps, display ~60 fps" in out
    assert "drop check: passed: no frame dropped and no freeze across 6 decoded frames" in out


def test_live_checks_follow_the_same_rule(capsys):
    spec = counter_spec(320, 180, bits=10)
    args = build_parser().parse_args(["decode", "--live", "x11grab::0", "--capture-fps", "60",
                                      "--fail-on-drop"])
    still = [counter_plane(spec, 77)] * 20
    assert run_live(args, lambda: FakeSource(still, 60.0)) == 3
    out = capsys.readouterr()
    assert out.err.startswith("testcard: could not verify: every decoded frame shows index 77")
    assert "captures per displayed frame: unknown" in out.out
    # frames the capture lost may hide indices: not a drop, not a pass
    frames = [counter_plane(spec, i) for i in range(40)]
    assert run_live(args, lambda: FakeSource([*frames[:20], *frames[23:]], 60.0, lost={20: 3})) == 3
    assert "3 indices unseen across gaps" in capsys.readouterr().err
    assert run_live(args, lambda: FakeSource([*frames[:20], *frames[21:]], 60.0)) == 1
    assert run_live(args, lambda: FakeSource(frames, 60.0)) == 0
    assert capsys.readouterr().err == ""
