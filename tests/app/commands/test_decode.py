"""``testcard decode`` and ``testcard bench decode`` from the command line."""

import csv
import json
import subprocess
import sys

import numpy as np
import pytest

from app.cli import main
from core.imageio import read_frame, write_frame
from core.manifest import save_frame
from core.patterns import make_spec, render
from tests.helpers import ROOT
from tests.helpers.capture_sim import write_video


def robust_folder(tmp_path, indices, bits=12, sidecars=False, name="cap"):
    spec = make_spec("counter", {"bits": bits, "layout": "robust"}, width=320, height=180, bit_depth=8,
                     dtype="uint8")
    folder = tmp_path / name
    folder.mkdir()
    for pos, idx in enumerate(indices):
        if sidecars:
            save_frame(folder / f"f{pos}.png", spec, render(spec, idx), idx)
        else:
            write_frame(folder / f"f{pos}.png", render(spec, idx), 8)
    return folder, spec


def run_json(capsys, argv):
    rc = main(argv + ["--json"])
    out = capsys.readouterr()
    return rc, json.loads(out.out), out.err


def test_json_document(tmp_path, capsys):
    folder, _ = robust_folder(tmp_path, [10, 11, 11, 13, 14])
    rc, doc, _ = run_json(capsys, ["decode", str(folder), "--capture-fps", "60"])
    assert rc == 0
    assert [f["index"] for f in doc["frames"]] == [10, 11, 11, 13, 14]
    for f in doc["frames"]:
        assert {"position", "timestamp", "index", "status", "confidence"} <= set(f)
        assert f["status"] == "ok"
    assert doc["frames"][3]["timestamp"] == pytest.approx(3 / 60, abs=1e-6)
    s = doc["summary"]
    for key in ("read", "decoded", "undecodable", "torn", "dropped", "repeated", "out_of_order"):
        assert key in s
    assert (s["read"], s["decoded"], s["dropped"], s["repeated"]) == (5, 5, [12], 1)
    assert s["layout"] == "robust" and s["bits"] == 12
    assert {e["kind"] for e in doc["events"]} == {"drop", "repeat"}


def test_fail_on_drop_exit_codes(tmp_path, capsys):
    clean, _ = robust_folder(tmp_path, [1, 2, 3], name="clean")
    gap, _ = robust_folder(tmp_path, [1, 3], name="gap")
    assert main(["decode", str(clean), "--fail-on-drop"]) == 0
    assert main(["decode", str(gap)]) == 0
    assert main(["decode", str(gap), "--fail-on-drop"]) == 1
    out = capsys.readouterr().out
    assert "dropped: 1 (2)" in out and "layout: robust, 12 bits" in out


def test_csv_and_plot(tmp_path, capsys):
    folder, _ = robust_folder(tmp_path, [5, 6, 8])
    (folder / "f9.png").write_bytes(b"broken")
    csv_path, plot_path = tmp_path / "frames.csv", tmp_path / "plot.png"
    assert main(["decode", str(folder), "--csv", str(csv_path), "--plot", str(plot_path)]) == 0
    rows = list(csv.DictReader(csv_path.open()))
    assert [r["index"] for r in rows] == ["5", "6", "8", ""]
    assert [r["status"] for r in rows] == ["ok", "ok", "ok", "unreadable"]
    assert "cannot read f9.png" in rows[3]["note"]
    img = read_frame(plot_path)
    assert img.shape == (640, 1280, 3) and img.dtype == np.uint8
    # the drop line is drawn in its colour
    assert ((img[..., 0] == 214) & (img[..., 1] == 39) & (img[..., 2] == 40)).any()


def test_manifest_and_bits_for_compat(tmp_path, capsys):
    spec = make_spec("counter", {"bits": 10}, width=320, height=180, bit_depth=10)
    folder = tmp_path / "compat"
    folder.mkdir()
    for pos, idx in enumerate([1000, 1001, 1002]):
        write_frame(folder / f"f{pos}.png", render(spec, idx), 10)
    save_frame(tmp_path / "ref.png", spec, render(spec, 0), 0)
    rc, doc, _ = run_json(capsys, ["decode", str(folder), "--manifest", str(tmp_path / "ref.png.json")])
    assert rc == 0 and [f["index"] for f in doc["frames"]] == [1000, 1001, 1002]
    assert doc["summary"]["layout"] == "compat" and doc["manifest"].endswith("ref.png.json")
    rc, doc, _ = run_json(capsys, ["decode", str(folder), "--bits", "10"])
    assert [f["index"] for f in doc["frames"]] == [1000, 1001, 1002] and doc["summary"]["bits"] == 10


def test_video_through_the_cli(tmp_path, capsys):
    spec = make_spec("counter", {"bits": 8, "layout": "robust"}, width=320, height=180, bit_depth=8,
                     dtype="uint8")
    frames = [render(spec, i % 256) for i in range(250, 262)]
    path = tmp_path / "cap.mp4"
    write_video(path, frames, fps=30)
    rc, doc, _ = run_json(capsys, ["decode", str(path)])
    assert rc == 0 and doc["capture"]["fps"] == 30.0 and doc["capture"]["kind"] == "video"
    assert [f["index"] for f in doc["frames"]] == [i % 256 for i in range(250, 262)]
    assert doc["summary"]["wraps"] == 1 and doc["summary"]["dropped"] == []


@pytest.mark.parametrize("argv,message", [
    (["decode", "{tmp}/missing"], "does not exist"),
    (["decode", "{tmp}/empty"], "no image files"),
    (["decode", "{tmp}/cap", "--bits", "0"], "--bits must be 1..31"),
    (["decode", "{tmp}/cap", "--capture-fps", "-2"], "--capture-fps must be above 0"),
    (["decode", "{tmp}/cap", "--plot", "{tmp}/p.jpg"], "must end in .png"),
    (["decode", "{tmp}/cap", "--csv", "{tmp}/nope/f.csv"], "folder does not exist"),
    (["decode", "{tmp}/cap", "--manifest", "{tmp}/none.json"], "does not exist"),
    (["decode", "{tmp}/cap", "--manifest", "{tmp}/nocounter.json"], "describes no counter panel"),
    (["decode", "{tmp}/cap", "--manifest", "{tmp}/garbage.json"], "cannot read manifest"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, message):
    robust_folder(tmp_path, [1, 2])
    (tmp_path / "empty").mkdir()
    (tmp_path / "nocounter.json").write_text(json.dumps({"pattern": "ramp", "counter": None}))
    (tmp_path / "garbage.json").write_text("{not json")
    rc = main([a.format(tmp=tmp_path) for a in argv])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith("testcard: error: ") and message in err
    assert not (tmp_path / "p.jpg").exists()


def test_all_frames_unreadable_still_reports(tmp_path, capsys):
    folder = tmp_path / "bad"
    folder.mkdir()
    for i in range(3):
        (folder / f"f{i}.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(i))
    rc, doc, _ = run_json(capsys, ["decode", str(folder)])
    assert rc == 0 and doc["summary"]["unreadable"] == 3 and doc["summary"]["read"] == 0


def test_plot_stays_headless():
    code = ("import sys, tempfile, pathlib\n"
            "from app.cli import main\n"
            "from core.imageio import write_frame\n"
            "from core.patterns import render_pattern\n"
            "d = pathlib.Path(tempfile.mkdtemp())\n"
            "write_frame(d / 'a.png', render_pattern('counter', 320, 180, bit_depth=8, dtype='uint8',"
            " layout='robust', bits=8, frame=3), 8)\n"
            "rc = main(['decode', str(d), '--plot', str(d / 'p.png'), '--json'])\n"
            "print('QT', any(k.startswith(('PySide6', 'pyqtgraph')) for k in sys.modules), rc,"
            " file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert "QT False 0" in out.stderr


def test_bench_decode_prints_figures(capsys):
    rc = main(["bench", "decode", "--size", "480x270", "--bits", "8", "--frames", "4", "--no-files",
               "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert rc == 0
    cases = [r["case"] for r in rows]
    assert cases[0].startswith("locate") and "in memory, RGB 8-bit" in cases
    assert all(r["frames_per_s"] > 0 for r in rows)
    assert not any("WRONG" in r["note"] for r in rows)


def test_bench_decode_sets_reading_threads_against_one(capsys):
    rc = main(["bench", "decode", "--size", "320x180", "--bits", "8", "--frames", "5", "--files", "5",
               "--threads", "3", "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert rc == 0
    files = {r["case"]: r for r in rows if "(read + decode)" in r["case"]}
    assert "PNG files (read + decode), one thread" in files
    assert "PNG files (read + decode), 3 threads" in files
    assert all(r["note"].endswith("5 decoded") for r in files.values() if r["frames"])


def test_bench_decode_refuses_no_threads(capsys):
    assert main(["bench", "decode", "--threads", "0", "--no-files"]) == 2
    assert "--threads must be at least 1" in capsys.readouterr().err


def test_rendered_10_bit_pngs_decode_to_exact_indices(tmp_path, capsys):
    """``testcard render`` writes 10-bit frames MSB-aligned with sBIT; ``testcard decode`` reads
    the exact code values back, so every index is exact."""
    folder = tmp_path / "ten"
    folder.mkdir()
    indices = [4093, 4094, 4095, 4097]
    for pos, idx in enumerate(indices):
        assert main(["render", "counter", "--size", "320x180", "--bit-depth", "10", "--set", "bits=13",
                     "--frame", str(idx), "-o", str(folder / f"f{pos}.png")]) == 0
    img = read_frame(folder / "f0.png")
    assert img.dtype == np.uint16 and int(img.max()) == 1023
    rc, doc, _ = run_json(capsys, ["decode", str(folder)])
    assert rc == 0 and [f["index"] for f in doc["frames"]] == indices
    assert all(f["status"] == "ok" for f in doc["frames"])
