"""``testcard scale`` from the command line: the scale of an image or of a folder's frames and
their median, as text or JSON; no plate, or no manifest, is one error line and exit 2."""

import json
import subprocess
import sys

import numpy as np
import pytest

from app.cli import main
from core.imageio import write_frame
from tests.helpers import ROOT
from tests.helpers.scale_sim import Degrade, captured_plate

SOFT = Degrade(blur=0.5, gamma=2.2, noise=0.01, bits=8, jpeg=85)


@pytest.fixture
def rendered(tmp_path):
    """A zone plate rendered by `testcard render` (720x720, so the plate is 720 px) and its sidecar."""
    out = tmp_path / "plate.png"
    assert main(["render", "zone_plate", "--size", "720x720", "-o", str(out)]) == 0
    return tmp_path / "plate.png.json"


def _write(path, img):
    write_frame(path, np.repeat(img[..., None], 3, axis=2), 8)
    return path


def test_one_image_prints_its_scale_across_and_down(tmp_path, rendered, capsys):
    img, tx, ty = captured_plate(0.55, 1.3, "lanczos", SOFT)
    cap = _write(tmp_path / "cap.png", img)
    capsys.readouterr()
    assert main(["scale", str(cap), "--manifest", str(rendered)]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("scale:"))
    across, down = (float(v) for v in line.split()[1::2][:2])
    assert across == pytest.approx(tx, abs=0.02) and down == pytest.approx(ty, abs=0.02)
    assert "plate centre" in out and "720 px" in out


def test_a_folder_in_json_has_every_frame_and_the_median(tmp_path, rendered, capsys):
    folder = tmp_path / "cap"
    folder.mkdir()
    for i, s in enumerate((0.7, 0.72, 0.71)):
        img, _, ty = captured_plate(s, 0.4, "area", SOFT, seed=i)
        _write(folder / f"f{i}.png", img)
    write_frame(folder / "f3.png", np.full((300, 300, 3), 40, np.uint8), 8)
    capsys.readouterr()
    assert main(["scale", str(folder), "--manifest", str(rendered), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [f["position"] for f in doc["frames"]] == [0, 1, 2, 3]
    assert doc["measured"] == 3 and doc["failed"] == 1 and "error" in doc["frames"][3]
    assert doc["median"]["scale_x"] == pytest.approx(0.71, abs=0.02)
    assert doc["median"]["scale_y"] == pytest.approx(ty, abs=0.02)
    # the text form: a table of frames, then the median
    assert main(["scale", str(folder), "--manifest", str(rendered)]) == 0
    out = capsys.readouterr().out
    assert "median of 3 of 4 frames" in out and "f3.png" in out


def test_no_plate_no_manifest_and_missing_files_are_one_error_line(tmp_path, rendered, capsys):
    grey = tmp_path / "grey.png"
    write_frame(grey, np.full((200, 300, 3), 128, np.uint8), 8)
    for argv, message in (
            (["scale", str(grey), "--manifest", str(rendered)], "zone plate"),
            (["scale", str(grey)], "no manifest"),
            (["scale", str(tmp_path / "nope.png"), "--manifest", str(rendered)], "does not exist"),
            (["scale", str(grey), "--manifest", str(tmp_path / "nope.json")], "does not exist"),
            (["scale", str(grey), "--manifest", str(grey)], "manifest"),
    ):
        capsys.readouterr()
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("testcard: error:") and message in err and err.count("\n") == 1, err


def test_it_is_listed_and_runs_without_qt():
    code = ("import sys; from app.cli import main; rc = main(['scale', '--help']); "
            "assert 'PySide6' not in sys.modules; sys.exit(rc)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "--manifest" in out.stdout
