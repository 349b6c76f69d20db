"""Ingesting captures: image sequences in natural order, videos through PyAV, bad input."""

import av
import cv2
import numpy as np
import pytest

from core.capture import natural_key, open_capture
from core.decode import decode_path
from core.imageio import write_frame
from core.manifest import save_frame
from core.patterns import make_spec, render
from tests.helpers.capture_sim import write_video


def robust_spec(bits=10, w=320, h=180, depth=8):
    return make_spec("counter", {"bits": bits, "layout": "robust"}, width=w, height=h, bit_depth=depth,
                     dtype="uint8" if depth == 8 else "uint16")


def frames_of(cap):
    return [(f.position, f.timestamp, None if f.image is None else f.image.copy(), f.name, f.error)
            for f in cap.frames()]


def test_natural_order():
    names = ["f10.png", "f2.png", "f1.png", "F3.png", "f2b.png"]
    assert sorted(names, key=natural_key) == ["f1.png", "f2.png", "f2b.png", "F3.png", "f10.png"]


def test_folder_of_mixed_files_in_natural_order(tmp_path):
    rng = np.random.default_rng(0)
    imgs = {}
    for i in (1, 2, 10, 11):
        img = rng.integers(0, 256, (12, 16, 3), dtype=np.uint8)
        write_frame(tmp_path / f"cap{i}.png", img, 8, sidecar={"n": i})
        imgs[i] = img
    (tmp_path / ".hidden.png").write_bytes(b"x")
    (tmp_path / "notes.txt").write_text("not a frame")
    cap = open_capture(tmp_path, capture_fps=50)
    assert cap.kind == "images" and cap.count == 4 and cap.manifest_path.name == "cap1.png.json"
    got = frames_of(cap)
    assert [g[3] for g in got] == ["cap1.png", "cap2.png", "cap10.png", "cap11.png"]
    assert [g[1] for g in got] == [0.0, 0.02, 0.04, 0.06]
    for (_, _, img, _, _), i in zip(got, (1, 2, 10, 11), strict=True):
        assert np.array_equal(img, imgs[i])


@pytest.mark.parametrize("suffix,depth", [(".png", 8), (".png", 16), (".tif", 8), (".tiff", 16)])
def test_png_and_tiff_8_and_16_bit_exact(tmp_path, suffix, depth):
    dt = np.uint8 if depth == 8 else np.uint16
    img = np.random.default_rng(1).integers(0, 2**depth, (9, 7, 3)).astype(dt)
    write_frame(tmp_path / f"a{suffix}", img, depth)
    (f,) = frames_of(open_capture(tmp_path / f"a{suffix}"))
    assert f[2].dtype == dt and np.array_equal(f[2], img)


def test_jpeg_and_npy(tmp_path):
    img = np.full((16, 16, 3), 200, np.uint8)
    ok, buf = cv2.imencode(".jpg", img)
    (tmp_path / "a1.jpg").write_bytes(buf.tobytes())
    np.save(tmp_path / "a2.npy", np.full((16, 16), 0.5, np.float32))         # greyscale
    np.save(tmp_path / "a3.npy", np.zeros((16, 16, 4), np.uint16))           # RGBA
    np.save(tmp_path / "a4.npy", np.ones((16, 16, 3), bool))
    got = frames_of(open_capture(tmp_path))
    assert [g[4] for g in got] == [None] * 4
    assert abs(int(got[0][2].mean()) - 200) <= 2
    assert got[1][2].shape == (16, 16, 3) and got[2][2].shape == (16, 16, 3) and got[3][2].dtype == np.uint8


def test_glob_and_single_file(tmp_path):
    for i in range(3):
        write_frame(tmp_path / f"x{i}.png", np.zeros((4, 4, 3), np.uint8), 8)
        write_frame(tmp_path / f"y{i}.png", np.zeros((4, 4, 3), np.uint8), 8)
    cap = open_capture(str(tmp_path / "y*.png"))
    assert [f[3] for f in frames_of(cap)] == ["y0.png", "y1.png", "y2.png"]
    assert open_capture(tmp_path / "x1.png").count == 1


def test_unreadable_frames_reported_in_place_and_skipped(tmp_path):
    good = np.zeros((8, 8, 3), np.uint8)
    write_frame(tmp_path / "f1.png", good, 8)
    data = (tmp_path / "f1.png").read_bytes()
    (tmp_path / "f2.png").write_bytes(data[: len(data) // 2])           # truncated
    (tmp_path / "f3.png").write_bytes(b"")                              # empty
    (tmp_path / "f4.npy").write_bytes(b"\x93NUMPY garbage")            # not an array
    np.save(tmp_path / "f5.npy", np.zeros(5))                           # not an image
    np.save(tmp_path / "f6.npy", np.zeros((4, 4), complex))             # not sample values
    write_frame(tmp_path / "f7.png", good, 8)
    got = frames_of(open_capture(tmp_path))
    assert [g[0] for g in got] == list(range(7))
    assert [g[2] is None for g in got] == [False, True, True, True, True, True, False]
    for g in got[1:6]:
        assert g[4].startswith("cannot read f") and g[3] in g[4]


@pytest.mark.parametrize("bad,message", [
    ("missing", "does not exist"), ("empty", "no image files"), ("glob", "no image files match"),
    ("suffix", "unsupported file type"), ("fakevideo", "cannot open video"),
])
def test_bad_paths_give_one_clear_error(tmp_path, bad, message):
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "fake.mp4").write_bytes(b"this is no video" * 10)
    path = {"missing": tmp_path / "nope", "empty": tmp_path / "empty", "glob": str(tmp_path / "*.png"),
            "suffix": tmp_path / "notes.txt", "fakevideo": tmp_path / "fake.mp4"}[bad]
    with pytest.raises(ValueError, match=message):
        open_capture(path)


def test_bad_capture_rate():
    with pytest.raises(ValueError, match="capture rate"):
        open_capture(".", capture_fps=0)


def video_frames(n=6, w=320, h=180, start=100, depth=8):
    spec = robust_spec(10, w, h, depth)
    return [render(spec, start + i) for i in range(n)]


@pytest.mark.parametrize("container,codec,pix_fmt,depth", [
    ("mp4", "libx264", "yuv420p", 8),
    ("mkv", "libx264", "yuv420p10le", 10),
    ("mov", "libx264", "yuv422p", 8),
    ("mkv", "ffv1", "bgr0", 8),
])
def test_video_streamed_with_timestamps_and_decoded(tmp_path, container, codec, pix_fmt, depth):
    frames = video_frames(depth=16 if depth > 8 else 8)
    if depth > 8:   # 16-bit RGB in; the encoder keeps 10 bits
        frames = [(f.astype(np.uint16) * 257) if f.dtype == np.uint8 else f for f in frames]
    path = tmp_path / f"cap.{container}"
    write_video(path, frames, codec, pix_fmt, fps=50)
    cap = open_capture(path)
    assert cap.kind == "video" and cap.fps == 50.0
    got = frames_of(cap)
    assert [g[0] for g in got] == list(range(6))
    assert [g[1] for g in got] == pytest.approx([i / 50 for i in range(6)], abs=1e-3)
    img = got[0][2]
    if pix_fmt.startswith("yuv"):
        assert img.ndim == 2 and img.dtype == (np.uint16 if depth > 8 else np.uint8)
        assert img.max() <= (1023 if depth > 8 else 255)
    else:
        assert img.shape == (180, 320, 3)
    report = decode_path(path)
    assert [f["index"] for f in report["frames"]] == list(range(100, 106))
    assert report["summary"]["dropped"] == [] and report["decoder"]["layout"] == "robust"
    assert report["frames"][3]["timestamp"] == pytest.approx(0.06, abs=1e-3)


@pytest.mark.parametrize("container,codec", [("mp4", "libx264"), ("mkv", "ffv1"), ("mov", "libx264")])
def test_video_with_no_frames_is_one_clear_error(tmp_path, container, codec):
    path = tmp_path / f"empty.{container}"
    with av.open(str(path), "w") as out:
        s = out.add_stream(codec, rate=30)
        s.width, s.height, s.pix_fmt = 64, 64, "yuv420p"
        out.start_encoding()   # header and trailer, no frames
    with pytest.raises(ValueError, match=r"^(cannot open video empty|empty\.\w+ has no video stream)") as exc:
        decode_path(path)
    assert str(tmp_path) not in str(exc.value)


def test_truncated_and_damaged_video_never_crash(tmp_path):
    frames = video_frames(20)
    path = tmp_path / "cap.mkv"
    write_video(path, frames, "libx264", "yuv420p", options={"crf": "12", "preset": "ultrafast", "g": "5"})
    data = path.read_bytes()
    cut = tmp_path / "cut.mkv"
    cut.write_bytes(data[: int(len(data) * 0.6)])
    got = frames_of(open_capture(cut))
    assert 0 < len(got) < 20
    report = decode_path(cut)
    ok = [f for f in report["frames"] if f["status"] == "ok"]
    assert ok and all(f["index"] == 100 + f["position"] for f in ok)
    # scribble over the middle of the stream: frames may be lost or unreadable, never misread
    bad = bytearray(data)
    mid = len(bad) // 2
    bad[mid:mid + 2000] = bytes(np.random.default_rng(2).integers(0, 256, 2000, dtype=np.uint8))
    hurt = tmp_path / "hurt.mkv"
    hurt.write_bytes(bytes(bad))
    report = decode_path(hurt)
    assert report["summary"]["frames"] > 0
    for f in report["frames"]:
        assert f["status"] in ("ok", "undecodable", "unreadable", "torn")
        if f["status"] == "ok":
            assert 100 <= f["index"] < 120


def test_image_sequence_uses_its_sidecar_manifest(tmp_path):
    spec = robust_spec(12, 320, 180)
    for i in range(3):
        save_frame(tmp_path / f"frame{i}.png", spec, render(spec, 40 + i), 40 + i)
    report = decode_path(tmp_path)
    assert report["manifest"].endswith("frame0.png.json")
    assert report["decoder"]["panel"]["found_by"] == "manifest"
    assert [f["index"] for f in report["frames"]] == [40, 41, 42]
    assert [f["name"] for f in report["frames"]] == ["frame0.png", "frame1.png", "frame2.png"]
