"""``testcard decode`` never blames the display for what the capture could not have seen: a
capture slower than the display leaves indices unobservable (never drops; only a jump beyond
what the rate ratio allows is a proven drop), and a present log (``--timeline``) tells capture
misses (on screen less than a capture period) from display drops.  Nothing proven dropped and
indices unseen: the drop check cannot verify (exit 3)."""

import csv
import json

from app.cli import build_parser, main
from app.commands.decode_live import run_live
from core.imageio import write_frame
from core.patterns import make_spec, render
from tests.helpers.live_sim import FakeSource, counter_plane, counter_spec

HALF = list(range(0, 80, 2))     # a perfect half-rate capture of a 60 Hz display


def folder(tmp_path, indices, name="cap"):
    sp = make_spec("counter", {"bits": 16, "layout": "robust"}, width=320, height=180, bit_depth=8,
                   dtype="uint8")
    d = tmp_path / name
    d.mkdir()
    for pos, idx in enumerate(indices):
        write_frame(d / f"f{pos:03d}.png", render(sp, idx), 8)
    return d


def present_log(path, presents):
    """A timeline CSV as ``testcard show --timeline`` writes it: (index, present_s) rows."""
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["index", "present_s", "error"])
        for i, t in presents:
            w.writerow([i, f"{t:.6f}", ""])
    return path


def at_60hz(count, short=(), never=()):
    """Presents of indices 0..count-1 at 60 Hz; an index in ``short`` is replaced after 5 ms
    (its predecessor late by as much), one in ``never`` is not presented at all."""
    out, t = [], 0.0
    for i in range(count):
        if i in never:
            continue
        out.append((i, t))
        t += 0.005 if i in short else (2 / 60 - 0.005 if i + 1 in short else 1 / 60)
    return out


def decode_json(capsys, *argv):
    rc = main(["decode", *argv, "--json"])
    out = capsys.readouterr()
    return rc, json.loads(out.out), out.err


def test_a_perfect_half_rate_capture_is_not_39_drops(tmp_path, capsys):
    d = folder(tmp_path, HALF)
    rc = main(["decode", str(d), "--capture-fps", "30", "--display-fps", "60", "--fail-on-drop"])
    out = capsys.readouterr()
    # nothing is proven dropped, and 39 indices could not have been seen: could not verify
    assert rc == 3
    assert "dropped: 39" not in out.out and "dropped: 0" in out.out
    assert "unobservable: 39 indices (capture slower than display: 30 fps against 60 fps)" in out.out
    assert out.err.startswith("testcard: could not verify: 39 indices unobservable: the capture (30 fps) "
                              "is slower than the display (60 fps)")
    rc, doc, _ = decode_json(capsys, str(d), "--capture-fps", "30", "--display-fps", "60", "--fail-on-drop")
    s = doc["summary"]
    assert rc == 3 and s["dropped_count"] == 0 and s["dropped"] == []
    assert s["unobservable"] == 39 and s["unobservable_indices"] == list(range(1, 79, 2))
    assert not [e for e in doc["events"] if e["kind"] == "drop"]
    assert doc["verdict"]["checks"]["drop"]["result"] == "unverified"


def test_a_jump_beyond_the_rate_ratio_is_a_proven_drop(tmp_path, capsys):
    # 20 -> 24 in one capture period at 30 fps: a 60 Hz display shows at most 2 presentations
    # in it, so of 21, 22, 23 one may have been shown unseen and two were dropped
    d = folder(tmp_path, [*range(0, 21, 2), *range(24, 80, 2)])
    rc, doc, err = decode_json(capsys, str(d), "--capture-fps", "30", "--display-fps", "60",
                               "--fail-on-drop")
    s = doc["summary"]
    assert rc == 1 and "could not verify" not in err
    assert s["dropped_count"] == 2
    drops = [e for e in doc["events"] if e["kind"] == "drop"]
    assert [(e["after"], e["before"], e["count"], e["unobservable"]) for e in drops] == [(20, 24, 2, 1)]
    assert s["unobservable"] == 38    # 19 + 18 single steps, and one of 21..23
    assert doc["verdict"]["checks"]["drop"]["reason"].startswith("2 frames dropped (proven")


def test_a_lost_capture_widens_what_it_missed_never_what_it_blames(tmp_path, capsys):
    args = ("--capture-fps", "30", "--display-fps", "60", "--fail-on-drop")
    d = folder(tmp_path, HALF)
    (d / "f010.png").write_bytes(b"not a png")   # index 20's capture lost: 18 -> 22 over 2 periods
    rc, doc, _ = decode_json(capsys, str(d), *args)
    s = doc["summary"]
    assert rc == 3 and s["dropped_count"] == 0 and s["gap_indices"] == 3
    # 18 -> 24 over two periods is 6 steps where a 60 Hz display shows at most 4: two proven drops
    # (in one period it would have been four)
    d = folder(tmp_path, [*range(0, 19, 2), 20, *range(24, 80, 2)], name="jump")
    (d / "f010.png").write_bytes(b"not a png")
    rc, doc, _ = decode_json(capsys, str(d), *args)
    assert rc == 1 and doc["summary"]["dropped_count"] == 2 and doc["summary"]["gap_indices"] == 3


def test_a_present_log_tells_capture_misses_from_display_drops(tmp_path, capsys):
    # at 60/60: 10 was on screen 5 ms (a capture miss); 30 was never presented, 40 was presented
    # a whole period and not captured (display drops)
    d = folder(tmp_path, [i for i in range(60) if i not in (10, 30, 40)])
    log = present_log(tmp_path / "tl.csv", at_60hz(60, short={10}, never={30}))
    base = [str(d), "--capture-fps", "60", "--display-fps", "60", "--fail-on-drop"]
    rc, doc, _ = decode_json(capsys, *base)
    assert rc == 1 and doc["summary"]["dropped"] == [10, 30, 40]        # without the log: all three
    rc, doc, _ = decode_json(capsys, *base, "--timeline", str(log))
    s = doc["summary"]
    assert rc == 1
    assert s["dropped"] == [30, 40] and s["dropped_count"] == 2
    assert s["capture_misses"] == 1 and s["capture_missed"] == [10]
    assert s["present_log"]["applied"] is True
    kinds = {e["kind"]: e for e in doc["events"] if e["kind"] in ("drop", "capture_miss")}
    assert kinds["capture_miss"]["indices"] == [10]
    rc = main(["decode", *base, "--timeline", str(log)])
    text = capsys.readouterr().out
    assert "dropped: 2 (30, 40)" in text
    assert "capture misses: 1 index the present log shows on screen for less than a capture period" in text


def test_capture_misses_alone_are_no_drop_and_cannot_be_verified(tmp_path, capsys):
    d = folder(tmp_path, [i for i in range(60) if i not in (10, 25)])
    log = present_log(tmp_path / "tl.csv", at_60hz(60, short={10, 25}))
    rc = main(["decode", str(d), "--capture-fps", "60", "--display-fps", "60", "--fail-on-drop",
               "--timeline", str(log)])
    out = capsys.readouterr()
    assert rc == 3
    assert "dropped: 0" in out.out
    assert "2 indices the present log shows on screen for less than a capture period went uncaptured " \
           "(capture misses, not display drops)" in out.err


def test_a_present_log_at_half_rate_keeps_unseen_presents_out_of_the_drops(tmp_path, capsys):
    d = folder(tmp_path, [*range(0, 21, 2), *range(24, 80, 2)])
    # the log shows 21, 22 and 23 presented for 16.7 ms each: shorter than the 33 ms capture period
    log = present_log(tmp_path / "tl.csv", at_60hz(80))
    rc, doc, _ = decode_json(capsys, str(d), "--capture-fps", "30", "--display-fps", "60",
                             "--fail-on-drop", "--timeline", str(log))
    s = doc["summary"]
    assert rc == 3 and s["dropped_count"] == 0
    assert s["capture_misses"] == 40 and {21, 22, 23} <= set(s["capture_missed"])
    assert s["unobservable"] == 0


def test_a_present_log_that_cannot_be_read_is_one_clear_error(tmp_path, capsys):
    d = folder(tmp_path, HALF[:4])
    bad = tmp_path / "tl.csv"
    bad.write_text("frame,when\n1,2\n")
    assert main(["decode", str(d), "--timeline", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("testcard: error: tl.csv has no index or present_s column")
    assert "Traceback" not in err
    assert main(["decode", str(d), "--timeline", str(tmp_path / "none.csv")]) == 2
    assert "present log" in capsys.readouterr().err


def live_args(*extra):
    return build_parser().parse_args(["decode", "--live", "x11grab::0", "--fail-on-drop", *extra])


def test_a_live_half_rate_capture_is_not_dropped(capsys):
    spec = counter_spec()
    frames = [counter_plane(spec, i) for i in HALF]
    rc = run_live(live_args("--display-fps", "60", "--json"), lambda: FakeSource(frames, 30.0))
    doc = json.loads(capsys.readouterr().out)
    s = doc["summary"]
    assert rc == 3 and s["dropped_count"] == 0 and s["unobservable"] == 39
    assert s["unobservable_indices"] == list(range(1, 79, 2))
    jump = [counter_plane(spec, i) for i in [*range(0, 21, 2), *range(24, 80, 2)]]
    assert run_live(live_args("--display-fps", "60"), lambda: FakeSource(jump, 30.0)) == 1
    out = capsys.readouterr().out
    assert "dropped: 2" in out and "unobservable: 38 indices (capture slower than display" in out


def test_a_live_decode_reads_the_present_log_when_it_ends(tmp_path, capsys):
    spec = counter_spec()
    frames = [counter_plane(spec, i) for i in range(60) if i not in (10, 30)]
    log = tmp_path / "tl.csv"

    def source():   # the log is written while the capture runs (testcard show writes it as it ends)
        presents = at_60hz(60, short={10})
        return FakeSource(frames, 60.0, on_read=lambda k: k == 5 and present_log(log, presents))

    rc = run_live(live_args("--display-fps", "60", "--timeline", str(log), "--json"), source)
    s = json.loads(capsys.readouterr().out)["summary"]
    assert rc == 1 and s["dropped"] == [30] and s["capture_missed"] == [10]
    # a log still missing when the run ends is said, and nothing is told apart by it
    rc = run_live(live_args("--display-fps", "60", "--timeline", str(tmp_path / "later.csv"), "--json"),
                  lambda: FakeSource(frames, 60.0))
    doc = json.loads(capsys.readouterr().out)
    assert rc == 1 and doc["summary"]["dropped"] == [10, 30]
    assert any(n.startswith("present log not used: cannot read") for n in doc["notes"])
