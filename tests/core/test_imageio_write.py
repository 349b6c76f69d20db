"""core.imageio's write path: a frame and its sidecar are one write, and outputs are checked."""

import json
import os

import numpy as np
import pytest

from core import atomic
from core.imageio import check_output_path, read_frame, sidecar_path, write_frame

FRAME = np.arange(16 * 8 * 3, dtype=np.uint8).reshape(8, 16, 3)


def _old_pair(tmp_path, name="f.png"):
    p = tmp_path / name
    write_frame(p, FRAME, 8, {"frame": 1})
    return p, {q.name: q.read_bytes() for q in tmp_path.iterdir()}


def test_a_frame_and_its_sidecar_are_written_together(tmp_path):
    p, _ = _old_pair(tmp_path)
    write_frame(p, 255 - FRAME, 8, {"frame": 2})
    assert np.array_equal(read_frame(p), 255 - FRAME)
    assert json.loads(sidecar_path(p).read_text()) == {"frame": 2}
    assert sorted(os.listdir(tmp_path)) == ["f.png", "f.png.json"]


def test_a_full_disk_at_the_sidecar_leaves_the_old_image_and_the_old_sidecar(tmp_path, monkeypatch):
    p, before = _old_pair(tmp_path)
    real_open = open

    def full_for_json(path, mode="r", *args, **kw):
        if "x" in mode and ".f.png.json." in str(path):
            raise OSError(28, "No space left on device", str(path))
        return real_open(path, mode, *args, **kw)

    monkeypatch.setattr(atomic, "open", full_for_json, raising=False)
    with pytest.raises(OSError, match="No space left") as err:
        write_frame(p, 255 - FRAME, 8, {"frame": 2})
    assert err.value.filename == str(sidecar_path(p))
    assert {q.name: q.read_bytes() for q in tmp_path.iterdir()} == before


def test_a_failed_sidecar_rename_puts_the_old_image_back(tmp_path, monkeypatch):
    p, before = _old_pair(tmp_path)
    real_replace = os.replace

    def replace(src, dst):
        if str(dst).endswith(".json"):
            raise OSError(5, "Input/output error", str(src))
        return real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", replace)
    with pytest.raises(OSError):
        write_frame(p, 255 - FRAME, 8, {"frame": 2})
    assert {q.name: q.read_bytes() for q in tmp_path.iterdir()} == before


def test_a_read_only_sidecar_is_refused_before_anything_is_written(tmp_path):
    p, before = _old_pair(tmp_path)
    sidecar_path(p).chmod(0o444)
    with pytest.raises(ValueError, match=r"f\.png\.json: it is read-only"):
        write_frame(p, 255 - FRAME, 8, {"frame": 2})
    assert {q.name: q.read_bytes() for q in tmp_path.iterdir()} == before
    write_frame(p, 255 - FRAME, 8)          # without a sidecar the image alone is written
    assert np.array_equal(read_frame(p), 255 - FRAME)


def test_a_sidecar_linked_to_its_own_image_is_refused(tmp_path):
    p = tmp_path / "f.png"
    write_frame(p, FRAME, 8)
    before = p.read_bytes()
    sidecar_path(p).symlink_to(p)
    with pytest.raises(ValueError, match="the same file"):
        write_frame(p, 255 - FRAME, 8, {"frame": 2})
    assert p.read_bytes() == before


def test_a_frame_written_through_a_symlink_lands_in_its_target(tmp_path):
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "f.png"
    link = tmp_path / "f.png"
    link.symlink_to(real)
    write_frame(link, FRAME, 8)
    assert link.is_symlink() and np.array_equal(read_frame(real), FRAME)


@pytest.mark.parametrize("bad, message", [
    ("folder/", "ends in '/'"), ("frame.txt", "must end in"), ("missing/f.png", "does not exist"),
])
def test_check_output_path_refuses_in_one_sentence(tmp_path, bad, message):
    with pytest.raises(ValueError, match=message):
        check_output_path(f"{tmp_path}/{bad}")


def test_check_output_path_checks_the_sidecar_only_when_asked(tmp_path):
    (tmp_path / "f.png.json").mkdir()
    assert check_output_path(tmp_path / "f.png") == tmp_path / "f.png"
    with pytest.raises(ValueError, match="f.png.json: it is a folder"):
        check_output_path(tmp_path / "f.png", sidecar=True)
