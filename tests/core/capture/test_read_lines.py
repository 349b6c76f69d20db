"""A capture asked for some lines: PNG frames hold just those (exactly as read whole), every
other file and kind of source reads whole, order and errors are as ever, and ``whole()``
gives the picture back."""

import cv2
import numpy as np
import pytest

from core.capture import open_capture
from core.capture.files import read_image, read_image_lines
from core.imageio import write_frame
from tests.helpers.capture_sim import write_video

LINES = (2, 3, 17, 30)


def pictures(n, h=32, w=24, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for _ in range(n)]


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_frames_read_after_asking_hold_the_lines_asked_for(tmp_path, threads):
    imgs = pictures(9)
    for i, img in enumerate(imgs):
        write_frame(tmp_path / f"f{i}.png", img, 8)
    cap = open_capture(tmp_path, read_threads=threads)
    seen = []
    for f in cap.frames():
        seen.append(f.position)
        if f.position == 0:
            assert f.lines is None
            cap.read_lines(reversed(LINES + (3,)))     # any order, repeats: kept sorted, once
        if f.lines is not None:
            assert f.lines == LINES
            np.testing.assert_array_equal(f.image[list(LINES)], imgs[f.position][list(LINES)])
            assert not np.delete(f.image, LINES, axis=0).any()
            whole = f.whole()
            assert whole.lines is None and whole.position == f.position and whole.name == f.name
            np.testing.assert_array_equal(whole.image, imgs[f.position])
        else:
            assert f.whole() is f
            np.testing.assert_array_equal(f.image, imgs[f.position])
        if f.position == 6:
            cap.read_lines(None)
    assert seen == list(range(9))
    got = [f.lines for f in open_capture(tmp_path, read_threads=1).frames()]
    assert got == [None] * 9                            # a request lasts for its capture only


def test_other_files_read_whole_and_errors_stay_as_they_were(tmp_path):
    imgs = pictures(5)
    write_frame(tmp_path / "f0.png", imgs[0], 8)
    write_frame(tmp_path / "f1.tif", imgs[1], 8)
    np.save(tmp_path / "f2.npy", imgs[2])
    write_frame(tmp_path / "f3.png", imgs[3], 8)
    (tmp_path / "f3.png").write_bytes((tmp_path / "f3.png").read_bytes()[:-30])      # cut short
    ok, enc = cv2.imencode(".jpg", imgs[4])
    (tmp_path / "f4.jpg").write_bytes(enc.tobytes())
    before = [(f.position, f.error) for f in open_capture(tmp_path, read_threads=1).frames()]
    cap = open_capture(tmp_path, read_threads=1)
    cap.read_lines(LINES)
    after = [(f.position, f.error, f.lines) for f in cap.frames()]
    assert [(p, e) for p, e, _ in after] == before
    assert before[3][1] and "f3.png" in before[3][1]
    assert [lines for _, _, lines in after] == [LINES, None, None, None, None]


def test_a_header_over_the_limit_is_refused_before_any_lines_are_read(tmp_path):
    write_frame(tmp_path / "f.png", pictures(1)[0], 8)
    with pytest.raises(ValueError, match="over the limit") as whole:
        read_image(tmp_path / "f.png", max_pixels=100)
    with pytest.raises(ValueError, match="over the limit") as lines:
        read_image_lines(tmp_path / "f.png", LINES, max_pixels=100)
    assert str(whole.value) == str(lines.value)


def test_a_video_reads_whole_pictures(tmp_path):
    frames = [np.full((32, 32, 3), 40 * i, np.uint8) for i in range(3)]
    write_video(tmp_path / "v.mp4", frames)
    cap = open_capture(tmp_path / "v.mp4")
    cap.read_lines(LINES)
    with cap:
        assert [f.lines for f in cap.frames()] == [None, None, None]
