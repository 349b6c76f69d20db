"""``testcard decode`` reports only what the capture shows: a stale or bad manifest is not
believed, gaps are not drops (nor a pass where they may hide one), a whole-capture freeze fails
``--fail-on-drop`` at known rates (and cannot be verified without them), and a counter that
jumps back is one event."""

import csv
import json

import pytest

from app.cli import main
from core.imageio import write_frame
from core.manifest import manifest
from core.patterns import make_spec, render


def spec(bits=16, layout="robust"):
    return make_spec("counter", {"bits": bits, "layout": layout}, width=320, height=180, bit_depth=8,
                     dtype="uint8")


def folder(tmp_path, indices, sp=None, name="cap"):
    sp = sp or spec()
    d = tmp_path / name
    d.mkdir()
    for pos, idx in enumerate(indices):
        if idx == "x":
            (d / f"f{pos:03d}.png").write_bytes(b"\x89PNG\r\n\x1a\n broken")
        else:
            write_frame(d / f"f{pos:03d}.png", render(sp, idx), 8)
    return d


def run_json(capsys, argv):
    rc = main(argv + ["--json"])
    out = capsys.readouterr()
    return rc, json.loads(out.out)


def test_stale_compat_sidecar_beside_a_robust_capture(tmp_path, capsys):
    """The issue's case: 30/30 frames `ok` at the clock row, and --fail-on-drop passed."""
    d = folder(tmp_path, list(range(100, 115)) + list(range(116, 131)))
    (d / "f000.png.json").write_text(json.dumps(manifest(spec(16, "compat"), 0)))
    rc, doc = run_json(capsys, ["decode", str(d), "--fail-on-drop"])
    assert rc == 1                                 # the real drop (115) is found
    assert [f["index"] for f in doc["frames"]][:3] == [100, 101, 102]
    assert 43690 not in [f["index"] for f in doc["frames"]]
    assert doc["summary"]["layout"] == "robust" and doc["summary"]["dropped"] == [115]
    assert any("stale" in n for n in doc["notes"])
    main(["decode", str(d)])
    out = capsys.readouterr().out
    assert "(not used: see notes)" in out and "note: sidecar ignored as stale" in out


@pytest.mark.parametrize("field,value,words", [
    ("bits", 0, "counter.bits must be 1.."),
    ("bits", 32, "counter.bits must be 1..31"),
    ("cell_w", 0, "counter.cell_w must be 1.."),
    ("pad_x", 4000, "outside"),
    ("bits", True, "must be a whole number, got True"),
    ("bits", 16.0, "must be a whole number, got 16.0"),
    ("width", "wide", "must be a whole number, got 'wide'"),
])
def test_bad_manifest_geometry_is_one_line_and_exit_2(tmp_path, capsys, field, value, words):
    d = folder(tmp_path, [1, 2])
    doc = manifest(spec(), 0)
    doc["counter"][field] = value
    (tmp_path / "m.json").write_text(json.dumps(doc))
    rc = main(["decode", str(d), "--manifest", str(tmp_path / "m.json")])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and err.startswith("testcard: error: ")
    assert words in err and "m.json" in err


def test_unreadable_frames_are_gaps_not_drops(tmp_path, capsys):
    d = folder(tmp_path, [10, 11, "x", 13, 14, "x", "x", 17])
    # not a failure: the gaps may have shown the three indices, or they were dropped (exit 3)
    assert main(["decode", str(d), "--fail-on-drop"]) == 3
    out = capsys.readouterr()
    assert out.err == ("testcard: could not verify: 3 indices unseen across gaps of unknown content "
                       "(shown there or dropped: unknown)\n")
    assert main(["decode", str(d), "--fail-on-gap"]) == 1
    assert main(["decode", str(d), "--fail-on-drop", "--fail-on-gap"]) == 1   # the verified failure wins
    out = capsys.readouterr().out
    assert "dropped: 0" in out and "gaps: 3 frames of unknown content in 2 runs" in out
    rc, doc = run_json(capsys, ["decode", str(d)])
    s = doc["summary"]
    assert (s["dropped_count"], s["gap_frames"], s["gap_runs"], s["gap_indices"]) == (0, 3, 2, 3)
    assert {e["kind"] for e in doc["events"]} == {"unreadable", "gap"}
    # a real drop beside a gap still fails --fail-on-drop
    d2 = folder(tmp_path, [10, 11, "x", 15, 16], name="cap2")
    assert main(["decode", str(d2), "--fail-on-drop"]) == 1
    assert "dropped: 2" in capsys.readouterr().out


def test_csv_carries_gaps_and_events(tmp_path, capsys):
    d = folder(tmp_path, [10, 11, "x", 14, 15])
    out = tmp_path / "f.csv"
    assert main(["decode", str(d), "--csv", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert [r["gap"] for r in rows] == ["0", "0", "1", "0", "0"]
    assert rows[2]["events"] == "unreadable" and rows[3]["events"] == "gap drop"
    assert rows[0]["events"] == ""


def test_whole_capture_freeze_fails_only_at_known_rates(tmp_path, capsys):
    d = folder(tmp_path, [77] * 12)
    assert main(["decode", str(d), "--fail-on-drop"]) == 3   # a freeze cannot be told: not verified
    out = capsys.readouterr().out
    assert "frozen: unknown" in out and "--display-fps" in out
    assert main(["decode", str(d), "--fail-on-drop", "--capture-fps", "60"]) == 3
    capsys.readouterr()
    rc = main(["decode", str(d), "--fail-on-drop", "--capture-fps", "60", "--display-fps", "60"])
    out = capsys.readouterr().out
    assert rc == 1 and "FROZEN: the display showed index 77 for the whole capture" in out
    rc, doc = run_json(capsys, ["decode", str(d), "--capture-fps", "60", "--display-fps", "60"])
    assert rc == 0 and doc["summary"]["frozen"] is True
    assert [e["kind"] for e in doc["events"]] == ["freeze"]
    # two captures of one presentation are not a freeze
    d2 = folder(tmp_path, [77, 77], name="two")
    assert main(["decode", str(d2), "--fail-on-drop", "--capture-fps", "120", "--display-fps", "60"]) == 0


def test_a_counter_that_jumps_back_is_one_event(tmp_path, capsys):
    d = folder(tmp_path, list(range(400, 420)) + list(range(5, 25)))
    rc, doc = run_json(capsys, ["decode", str(d), "--fail-on-drop"])
    s = doc["summary"]
    assert rc == 0 and (s["jumps_back"], s["out_of_order"], s["dropped_count"]) == (1, 0, 0)
    assert [e["kind"] for e in doc["events"]] == ["jump_back"]
    main(["decode", str(d)])
    assert "jump_back: back 414 to index 5 after 419" in capsys.readouterr().out


@pytest.mark.parametrize("argv,message", [
    (["--display-fps", "0"], "--display-fps must be above 0"),
    (["--display-fps", "-60"], "--display-fps must be above 0"),
    (["--display-fps", "inf"], "--display-fps must be above 0"),
    (["--display-fps", "nan"], "--display-fps must be above 0"),
    (["--capture-fps", "inf"], "--capture-fps must be above 0"),
])
def test_bad_rates_are_one_line_and_exit_2(tmp_path, capsys, argv, message):
    d = folder(tmp_path, [1, 2])
    rc = main(["decode", str(d), *argv])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and message in err
