"""Real faults under core.atomic and core.imageio: a full or read-only disk (a small tmpfs in
a private mount namespace, or the patched stand-in where none can be made), a folder whose
mode bits refuse root, and SIGKILL during a write.  The old file is always whole."""

import contextlib
import io
import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

from core.atomic import temp_glob
from core.imageio import read_frame, sidecar_path, write_frame
from tests.helpers import ROOT
from tests.helpers.faults import PAGE, mode_bits_prefix, namespaces_work, on_small_disk, refused_folder

FRAME = np.arange(16 * 8 * 3, dtype=np.uint8).reshape(8, 16, 3)
# each mode runs everywhere: "tmpfs" falls back to the stand-in where no namespace can be made
MODES = [pytest.param(None, id="tmpfs"), pytest.param(False, id="patched")]


def _old_pair(tmp_path) -> dict[str, bytes]:
    src = tmp_path / "src"
    src.mkdir()
    write_frame(src / "f.png", FRAME, 8, {"frame": 1})
    return {p.name: p.read_bytes() for p in src.iterdir()}


def _report(script: str) -> str:
    """A script that runs ``script`` (which may raise OSError/ValueError) and prints JSON."""
    body = "\n".join("    " + line for line in script.strip().splitlines())
    return ("import json, numpy as np\nfrom core.atomic import *\nfrom core.imageio import write_frame\n"
            "FRAME = np.arange(16 * 8 * 3, dtype=np.uint8).reshape(8, 16, 3)\n"
            "try:\n" + body + "\n    print(json.dumps({'ok': True}))\n"
            "except (OSError, ValueError) as exc:\n"
            "    print(json.dumps({'type': type(exc).__name__, 'errno': getattr(exc, 'errno', None),"
            " 'filename': getattr(exc, 'filename', None), 'message': str(exc)}))\n")


def test_the_tmpfs_mode_is_real_where_a_namespace_can_be_made():
    # CI runs as root in a container like the one these tests are written in
    assert namespaces_work() == (os.geteuid() == 0 and subprocess.run(
        ["unshare", "-m", "true"], capture_output=True).returncode == 0)


@pytest.mark.parametrize("real", MODES)
def test_a_disk_full_between_frame_and_sidecar_leaves_the_old_pair(tmp_path, real):
    old = _old_pair(tmp_path)
    run = on_small_disk(tmp_path, old, ["python", _report(
        "write_frame(DISK + '/f.png', 255 - FRAME, 8, {'frame': 2})")], free=PAGE, real=real)
    got = json.loads(run.out)
    assert got["errno"] == 28 and got["filename"].endswith("/f.png.json")   # the image's temp fit
    assert run.files == old                       # both old, whole; no temporary file left


@pytest.mark.parametrize("real", MODES)
def test_a_full_disk_leaves_the_old_file_and_no_temporary(tmp_path, real):
    old = {"notes.txt": b"old and whole\n"}
    run = on_small_disk(tmp_path, old, ["python", _report(
        "atomic_text(DISK + '/notes.txt', 'new ' * 5000)")], free=0, real=real)
    got = json.loads(run.out)
    assert got["errno"] == 28 and got["filename"].endswith("/notes.txt")
    assert run.files == old


@pytest.mark.parametrize("real", MODES)
def test_a_read_only_disk_is_refused_before_and_at_the_write(tmp_path, real):
    old = {"notes.txt": b"old\n"}
    script = _report("require_writable(DISK + '/notes.txt')") + _report(
        "atomic_text(DISK + '/notes.txt', 'new')")
    run = on_small_disk(tmp_path, old, ["python", script], readonly=True, real=real)
    before, at = (json.loads(line) for line in run.out.splitlines())
    assert before["type"] == "ValueError" and "read-only file system" in before["message"].lower()
    assert at["errno"] == 30 and at["filename"].endswith("/notes.txt")
    assert run.files == old


def test_a_folder_whose_mode_bits_refuse_root_is_refused_before_the_write(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "old.csv").write_bytes(b"old")
    folder.chmod(0o555)
    script = _report(f"require_writable({str(folder / 'new.csv')!r})") + _report(
        f"atomic_text({str(folder / 'old.csv')!r}, 'new')")
    try:
        prefix = mode_bits_prefix()
        if prefix is not None:
            out = subprocess.run([*prefix, sys.executable, "-c", script], cwd=ROOT,
                                 capture_output=True, text=True, timeout=120).stdout
        else:
            buf = io.StringIO()
            with refused_folder(folder), contextlib.redirect_stdout(buf):
                exec(compile(script, "<fault>", "exec"), {})
            out = buf.getvalue()
    finally:
        folder.chmod(0o755)
    first, second = (json.loads(line) for line in out.splitlines())
    assert first["type"] == "ValueError" and "is not writable" in first["message"]
    assert second["errno"] == 13 and second["filename"] == str(folder / "old.csv")
    assert os.listdir(folder) == ["old.csv"] and (folder / "old.csv").read_bytes() == b"old"


# -- SIGKILL during a write --------------------------------------------------------------------

PAUSE = """
import os, sys
import numpy as np
from core import atomic
from core.imageio import write_frame

stage, path = sys.argv[1], sys.argv[2]
real_replace, real_seal, calls = os.replace, atomic._seal, []

def pause():
    print("paused", flush=True)
    sys.stdin.read()            # until killed

def replace(src, dst):
    calls.append(dst)
    if (stage, len(calls)) in (("before-renames", 1), ("between-renames", 2)):
        pause()
    return real_replace(src, dst)

def seal(tmp, old):
    if stage == "writing-temps" and tmp.name.startswith(".f.png.json"):
        pause()
    return real_seal(tmp, old)

atomic.os.replace, atomic._seal = replace, seal
write_frame(path, np.full((120, 160, 3), 700, np.uint16), 10, {"frame": 2})
print("finished", flush=True)
"""


def _kill_at(tmp_path, stage: str) -> dict:
    path = tmp_path / "f.png"
    write_frame(path, FRAME, 8, {"frame": 1})
    old = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    proc = subprocess.Popen([sys.executable, "-c", PAUSE, stage, str(path)], cwd=ROOT, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip() == "paused"
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=60) == -signal.SIGKILL
    finally:
        proc.kill()
        proc.wait()
    return old


@pytest.mark.parametrize("stage", ["writing-temps", "before-renames", "between-renames"])
def test_sigkill_during_a_frame_write_leaves_whole_files_and_recognisable_temps(tmp_path, stage):
    old = _kill_at(tmp_path, stage)
    image, sidecar = tmp_path / "f.png", sidecar_path(tmp_path / "f.png")
    left = {p.name for p in tmp_path.iterdir()} - {"f.png", "f.png.json"}
    assert all(tmp_path.joinpath(n).match(temp_glob(image)) or tmp_path.joinpath(n).match(
        temp_glob(sidecar)) for n in left), left
    assert sidecar.read_bytes() == old["f.png.json"]          # renamed last: still the old one
    if stage == "between-renames":
        assert image.read_bytes() != old["f.png"]             # the new image, whole:
        assert json.loads(sidecar.read_text())["frame"] == 1  # (a crash between two renames is
        assert read_frame(image).shape == (120, 160, 3)       # the one moment a pair can differ)
        assert any(n.endswith(".old.tmp") for n in left)      # and the old image kept, by name
    else:
        assert image.read_bytes() == old["f.png"]


KILL_LOOP = """
import sys
import numpy as np
from core.imageio import write_frame

frame = np.zeros((1024, 2048, 3), np.uint16)
for i in range(1, 50):
    print(f"writing {i}", flush=True)
    write_frame(sys.argv[1], frame + i, 16, {"frame": i})
"""


def test_sigkill_at_an_unplanned_moment_leaves_a_whole_old_or_new_frame(tmp_path):
    path = tmp_path / "big.npy"
    proc = subprocess.Popen([sys.executable, "-c", KILL_LOOP, str(path)], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE)
    try:
        while proc.stdout.readline().strip() != "writing 3":
            assert proc.poll() is None
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    arr = np.load(path)
    assert arr.shape == (1024, 2048, 3) and arr.min() == arr.max() and int(arr.max()) in (2, 3)
    assert json.loads(sidecar_path(path).read_text())["frame"] in (2, 3)
    left = {p.name for p in tmp_path.iterdir()} - {"big.npy", "big.npy.json"}
    assert all(tmp_path.joinpath(n).match(temp_glob(path)) or tmp_path.joinpath(n).match(
        temp_glob(sidecar_path(path))) for n in left), left
