"""``testcard scale`` checks a sidecar against the plate it sees: a manifest claiming a render
larger or smaller than the captured plate is refused with one error line (exit 2), never read
as a confident wrong scale (the chirp alone fixes only scale**2 * diameter)."""

import shutil

import numpy as np
import pytest

from app.cli import main
from core.decode import PlateGeometry, zone_plate_scale
from core.decode.scale_check import PlateMismatch
from core.imageio import sidecar_path
from tests.helpers.scale_sim import Degrade, captured_plate, embed

SOFT = Degrade(blur=0.5, gamma=2.2, noise=0.01, bits=8, jpeg=85)


def rendered(tmp_path, size):
    out = tmp_path / f"render{size}.png"
    assert main(["render", "zone_plate", "--size", size, "--bit-depth", "8", "-o", str(out)]) == 0
    return out, sidecar_path(out)


def test_a_one_to_one_plate_with_a_sidecar_claiming_a_larger_render_is_refused(tmp_path, capsys):
    plate, _ = rendered(tmp_path, "1280x720")        # captured 1:1: the frame itself
    _, lie = rendered(tmp_path, "2560x1440")
    shutil.copy(lie, sidecar_path(plate))           # the capture's own sidecar lies
    capsys.readouterr()
    assert main(["scale", str(plate)]) == 2
    out = capsys.readouterr()
    assert "scale:" not in out.out and "0.7071" not in out.out
    assert out.err.count("\n") == 1 and out.err.startswith(
        "testcard: error: the zone plate does not match its manifest: rendered at 1440 px")
    assert "more than the 1280x720 capture holds" in out.err


def test_a_sidecar_claiming_a_smaller_render_is_refused(tmp_path, capsys):
    plate, _ = rendered(tmp_path, "1280x720")
    _, lie = rendered(tmp_path, "640x360")
    capsys.readouterr()
    assert main(["scale", str(plate), "--manifest", str(lie), "--json"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "its rings carry on past the edge a 360 px plate would have" in out.err


def test_the_true_sidecar_still_reads(tmp_path, capsys):
    plate, _ = rendered(tmp_path, "1280x720")
    capsys.readouterr()
    assert main(["scale", str(plate)]) == 0
    assert "scale: 1.0000 across, 1.0000 down" in capsys.readouterr().out


@pytest.mark.parametrize("s", [0.5, 0.8, 1.3, 2.0])
def test_true_plates_at_any_scale_in_clutter_are_not_refused(s):
    cap, tx, ty = captured_plate(s, s, "area", SOFT)
    h, w = cap.shape
    for img in (cap, embed(cap, (int(w * 1.5) + 40, int(h * 1.4) + 40), (30, 25))):
        r = zone_plate_scale(img, PlateGeometry(720))
        assert r.scale_x == pytest.approx(tx, abs=0.02) and r.scale_y == pytest.approx(ty, abs=0.02)


@pytest.mark.parametrize("claim", [360, 480, 1080, 1440])
def test_a_wrong_diameter_is_refused_not_read(claim):
    cap, _, _ = captured_plate(1.0, 1.0, "area", SOFT)      # 720 px at 1:1
    with pytest.raises(PlateMismatch, match="does not match its manifest"):
        zone_plate_scale(cap, PlateGeometry(claim))
    assert np.isfinite(zone_plate_scale(cap, PlateGeometry(720)).scale_x)
