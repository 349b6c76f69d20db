"""Fault injection through the command line: an output that is an input, a bad output path,
a folder whose mode bits refuse root, a full or read-only disk, streams and links.  Every
refusal is one ``testcard: error:`` line on stderr, exit 2, no traceback, and every input
file's bytes unchanged."""

import os
import shutil
import stat
import subprocess
import sys

import numpy as np
import pytest

from app.cli import main
from core.imageio import write_frame
from core.manifest import save_frame
from core.patterns import make_spec, render
from tests.helpers import ROOT
from tests.helpers.capture_sim import write_video
from tests.helpers.faults import PAGE, cli, on_small_disk, run_unwritable

RENDER = ["render", "checkerboard", "--size", "64x36", "--bit-depth", "8", "--dtype", "uint8"]
PRESET = "full-on/full-off contrast"    # a built-in preset of two frames
MEASURE = ["measure", "--band", "animated@64x36/rgb10", "--candidates", "numpy", "--rounds", "1",
           "--frames", "1", "--warmup", "0"]


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A capture folder with sidecars, the same frames as a video, and a manifest."""
    root = tmp_path_factory.mktemp("source")
    spec = make_spec("counter", {"bits": 12, "layout": "robust"}, width=320, height=180, bit_depth=8,
                     dtype="uint8")
    (root / "frames").mkdir()
    frames = [render(spec, i) for i in range(3)]
    for i, f in enumerate(frames):
        save_frame(root / "frames" / f"f{i}.png", spec, f, i)
    shutil.copy(root / "frames" / "f0.png.json", root / "manifest.json")
    write_video(root / "cap.mp4", frames, fps=30)
    return root


@pytest.fixture
def work(source, tmp_path):
    """A copy of the source to run in (cwd-independent absolute paths)."""
    shutil.copytree(source, tmp_path / "w")
    return tmp_path / "w"


def snapshot(folder):
    return {str(p.relative_to(folder)): (os.readlink(p) if p.is_symlink() else
                                         p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


# -- an output is never an input ---------------------------------------------------------------

def _link(work, name, to, hard=False):
    (os.link if hard else os.symlink)(work / to, work / name)
    return work / name


@pytest.mark.parametrize("case", ["csv-over-video", "csv-through-symlink-to-video",
                                  "plot-over-first-frame", "plot-through-hard-link-to-a-frame",
                                  "csv-over-a-globbed-frame", "csv-over-a-sidecar",
                                  "csv-over-the-manifest", "csv-and-plot-one-file"])
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(work, case):
    w = str(work)
    args = {
        "csv-over-video": ["decode", f"{w}/cap.mp4", "--csv", f"{w}/cap.mp4"],
        "csv-through-symlink-to-video": ["decode", f"{w}/cap.mp4", "--csv",
                                         lambda: _link(work, "link.csv", "cap.mp4")],
        "plot-over-first-frame": ["decode", f"{w}/frames", "--plot", f"{w}/frames/f0.png"],
        "plot-through-hard-link-to-a-frame": ["decode", f"{w}/frames", "--plot",
                                              lambda: _link(work, "hard.png", "frames/f0.png", True)],
        "csv-over-a-globbed-frame": ["decode", f"{w}/frames/f*.png", "--csv", f"{w}/frames/f1.png"],
        "csv-over-a-sidecar": ["decode", f"{w}/frames", "--csv", f"{w}/frames/f2.png.json"],
        "csv-over-the-manifest": ["decode", f"{w}/frames", "--manifest", f"{w}/manifest.json",
                                  "--csv", f"{w}/manifest.json"],
        "csv-and-plot-one-file": ["decode", f"{w}/frames", "--csv", f"{w}/out.png",
                                  "--plot", f"{w}/out.png"],
    }[case]
    args = [a() if callable(a) else a for a in args]
    before = snapshot(work)
    line = cli(*args).refused()
    assert "also an input" in line or "the same file" in line
    assert snapshot(work) == before


def test_a_sidecar_linked_to_its_frame_is_refused(tmp_path):
    out = tmp_path / "f.png"
    assert cli(*RENDER, "-o", out).rc == 0
    (tmp_path / "f.png.json").unlink()
    (tmp_path / "f.png.json").symlink_to(out)
    before = snapshot(tmp_path)
    assert "the same file" in cli(*RENDER, "-o", out).refused()
    assert snapshot(tmp_path) == before


# -- bad output paths --------------------------------------------------------------------------

BAD = {"trailing-slash": ("new/", "ends in '/'"), "a-folder": ("afolder.png", "it is a folder"),
       "under-a-file": ("afile.png/x.png", "is not a folder"),
       "name-too-long": ("x" * 300 + ".png", "File name too long"),
       "missing-folder": ("nope/x.png", "does not exist"), "read-only-file": ("ro.png", "read-only")}


@pytest.mark.parametrize("command", ["render", "decode-csv", "decode-plot", "bench-preview"])
@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_output_path_is_one_line_before_any_work(work, command, case):
    (work / "afolder.png").mkdir()
    (work / "afile.png").write_bytes(b"a file")
    (work / "ro.png").write_bytes(b"read-only")
    (work / "ro.png").chmod(0o444)
    name, message = BAD[case]
    out = f"{work}/{name}"
    args = {"render": [*RENDER, "-o", out],
            "decode-csv": ["decode", work / "frames", "--csv", out],
            "decode-plot": ["decode", work / "frames", "--plot", out],
            "bench-preview": ["bench", "preview", "--size", "64x36", "--frames", "1", "--timeline", out],
            }[command]
    before = snapshot(work)
    line = cli(*args).refused()
    assert message in line and (name.rstrip("/")[:40] in line)
    assert snapshot(work) == before


def test_presets_refuse_a_file_for_a_folder_and_a_read_only_frame_before_rendering(tmp_path):
    (tmp_path / "file").write_bytes(b"x")
    assert "cannot create" in cli("presets", PRESET, "-o", tmp_path / "file").refused()
    scratch, out = tmp_path / "scratch", tmp_path / "out"
    assert cli("presets", PRESET, "--size", "64x36", "-o", scratch).rc == 0
    last = sorted(p.name for p in scratch.glob("*.png"))[-1]
    shutil.rmtree(scratch)
    out.mkdir()
    (out / last).write_bytes(b"keep")
    (out / last).chmod(0o444)
    before = snapshot(tmp_path)
    assert f"{last}: it is read-only" in cli("presets", PRESET, "--size", "64x36",
                                                  "-o", out).refused()
    assert snapshot(tmp_path) == before          # not even the first frame was written


# -- folders whose mode bits refuse (root included) --------------------------------------------

@pytest.mark.parametrize("command", ["render", "decode", "presets", "bench-preview",
                                     "install-desktop", "measure"])
def test_an_unwritable_folder_is_refused_before_the_work_starts(work, monkeypatch, command):
    locked = work / "locked"
    locked.mkdir()
    if command == "measure":
        monkeypatch.setenv("TESTCARD_DECISION_CACHE", str(locked / "decisions.json"))
    args = {"render": [*RENDER, "-o", locked / "f.png"],
            "decode": ["decode", work / "cap.mp4", "--csv", locked / "out.csv"],
            "presets": ["presets", PRESET, "--size", "64x36", "-o", locked],
            "bench-preview": ["bench", "preview", "--size", "64x36", "--timeline", locked / "t.csv"],
            "install-desktop": ["install-desktop", "--prefix", locked / "share"],
            "measure": MEASURE}[command]
    before = snapshot(work)
    run = run_unwritable(locked, *args)
    line = run.refused()
    assert "not writable" in line or "cannot create a file" in line
    assert "measure:" not in run.err            # the race never started
    assert snapshot(work) == before


# -- a full or read-only disk ------------------------------------------------------------------

MODES = [pytest.param(None, id="tmpfs"), pytest.param(False, id="patched")]


@pytest.mark.parametrize("real", MODES)
def test_render_on_a_full_disk_keeps_the_old_frame_and_sidecar(tmp_path, real):
    src = tmp_path / "src"
    src.mkdir()
    write_frame(src / "f.png", np.zeros((36, 64, 3), np.uint8), 8, {"frame": "old"})
    old = {p.name: p.read_bytes() for p in src.iterdir()}
    run = on_small_disk(tmp_path, old, [*RENDER, "-o", "{disk}/f.png"], free=PAGE, real=real)
    line = run.refused()
    assert "f.png.json: No space left on device" in line
    assert run.files == old


@pytest.mark.parametrize("real", MODES)
def test_decode_csv_on_a_full_disk_keeps_the_old_csv(work, tmp_path, real):
    old = {"out.csv": b"an earlier report\n" * 100}
    run = on_small_disk(tmp_path, old, ["decode", work / "frames", "--csv", "{disk}/out.csv"], free=0,
                        real=real)
    assert "out.csv: No space left on device" in run.refused()
    assert run.files == old


def test_measure_with_a_read_only_cache_folder_stops_before_the_race(tmp_path):
    old = {"decisions.json": b""}
    run = on_small_disk(tmp_path, old, MEASURE, readonly=True,
                        env={"TESTCARD_DECISION_CACHE": "{disk}/decisions.json"})
    line = run.refused()
    assert "decision cache" in line and "--no-record" in line and "measure:" not in run.err
    assert run.files == old


# -- streams and links -------------------------------------------------------------------------

def test_decode_csv_to_stdout_and_dev_null_write_the_stream(work):
    run = cli("decode", work / "frames", "--csv", "-", "--json")
    assert run.rc == 0 and run.out.startswith("position,timestamp,index")
    before = os.stat("/dev/null")
    assert cli("decode", work / "frames", "--csv", "/dev/null").rc == 0
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert not (work / "-").exists()


def test_outputs_through_symlinks_land_in_their_targets_and_keep_the_links(work):
    (work / "real").mkdir()
    (work / "report.csv").symlink_to(work / "real" / "report.csv")
    (work / "frame.png").symlink_to(work / "real" / "frame.png")
    assert cli("decode", work / "frames", "--csv", work / "report.csv").rc == 0
    assert cli(*RENDER, "-o", work / "frame.png").rc == 0
    assert (work / "report.csv").is_symlink() and (work / "frame.png").is_symlink()
    assert (work / "real" / "report.csv").read_text().startswith("position,")
    assert sorted(os.listdir(work / "real")) == ["frame.png", "report.csv"]


def test_a_read_only_output_is_refused_even_for_root(work):
    out = work / "keep.csv"
    out.write_bytes(b"precious")
    out.chmod(0o444)
    assert "keep.csv: it is read-only" in cli("decode", work / "frames", "--csv", out).refused()
    assert out.read_bytes() == b"precious"


# -- what main() does with what a command raises -----------------------------------------------

def test_a_closed_stdout_ends_quietly_with_141():
    read, write = os.pipe()
    os.close(read)                      # the reader is gone before testcard writes a byte
    try:
        proc = subprocess.run([sys.executable, "-m", "app", "patterns"], cwd=ROOT, stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)
    assert (proc.returncode, proc.stderr) == (141, "")


def _raising(monkeypatch, exc):
    from app.commands import patterns

    def run(args):
        raise exc

    monkeypatch.setattr(patterns, "run", run)


def test_ctrl_c_exits_130_quietly(monkeypatch, capsys):
    _raising(monkeypatch, KeyboardInterrupt())
    assert main(["patterns"]) == 130
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("exc, text", [
    (PermissionError(13, "Permission denied", "/x/out.csv"), "/x/out.csv: Permission denied"),
    (OSError(28, "No space left on device"), "No space left on device"),
    (OSError(18, "Invalid cross-device link", "/a", None, "/b"), "/a -> /b: Invalid cross-device link"),
    (ValueError("--size takes WxH,\nnot this"), "--size takes WxH,\\nnot this"),
])
def test_os_and_value_errors_are_one_line_and_exit_2(monkeypatch, capsys, exc, text):
    _raising(monkeypatch, exc)
    assert main(["patterns"]) == 2
    err = capsys.readouterr().err
    assert err == f"testcard: error: {text}\n"


def test_a_bug_is_one_line_and_exit_70_unless_debugging(monkeypatch, capsys):
    _raising(monkeypatch, ZeroDivisionError("division by zero"))
    monkeypatch.delenv("TESTCARD_DEBUG", raising=False)
    assert main(["patterns"]) == 70
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ZeroDivisionError: division by zero" in err
    assert "Traceback" not in err
    monkeypatch.setenv("TESTCARD_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        main(["patterns"])


def test_a_missing_optional_dependency_is_one_line_and_exit_2(monkeypatch, capsys):
    _raising(monkeypatch, ModuleNotFoundError("No module named 'av'", name="av"))
    assert main(["patterns"]) == 2
    assert capsys.readouterr().err == ("testcard: error: No module named 'av'; this command needs "
                                       "av installed\n")
