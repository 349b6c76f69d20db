"""Image sizes are read from the header and capped before anything is decoded; a damaged
image is one unreadable frame, never a crash."""

import os
import struct
import zlib

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.capture import MAX_IMAGE_PIXELS, check_image, open_capture, read_header
from core.capture import files as F
from core.capture import header as H
from core.capture import video as V
from tests.helpers.capture_sim import write_video

BIG = 30000   # 30000 x 30000 = 900 Mpx: gigabytes and tens of seconds if it were decoded


def _encode(suffix, img) -> bytes:
    ok, enc = cv2.imencode(suffix, img)
    assert ok
    return enc.tobytes()


def _png_header(width, height) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk


def _tiff(width, height, order="<", big=False, kinds=(3, 4)) -> bytes:
    """A minimal TIFF (classic or BigTIFF) whose first directory holds width and height."""
    entries = [(256, kinds[0], width), (257, kinds[1], height), (258, 3, 8)]
    sizes = {3: "H", 4: "I", 16: "Q"}
    if big:
        head = (b"II" if order == "<" else b"MM") + struct.pack(order + "HHHQ", 43, 8, 0, 16)
        body = struct.pack(order + "Q", len(entries))
        for tag, kind, value in entries:
            raw = struct.pack(order + sizes[kind], value).ljust(8, b"\0")
            body += struct.pack(order + "HHQ", tag, kind, 1) + raw
        return head + body + struct.pack(order + "Q", 0)
    head = (b"II" if order == "<" else b"MM") + struct.pack(order + "HI", 42, 8)
    body = struct.pack(order + "H", len(entries))
    for tag, kind, value in entries:
        raw = struct.pack(order + sizes[kind], value).ljust(4, b"\0")
        body += struct.pack(order + "HHI", tag, kind, 1) + raw
    return head + body + struct.pack(order + "I", 0)


def _jpeg_claiming(width, height) -> bytes:
    """A real JPEG whose frame header is rewritten to declare another size."""
    data = bytearray(_encode(".jpg", np.full((16, 24, 3), 128, np.uint8)))
    sof = data.find(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


@pytest.mark.parametrize("suffix, dtype", [(".png", np.uint8), (".png", np.uint16), (".tif", np.uint8),
                                           (".tif", np.uint16), (".jpg", np.uint8)])
def test_real_files_report_their_size(tmp_path, suffix, dtype):
    p = tmp_path / f"f{suffix}"
    p.write_bytes(_encode(suffix, np.zeros((37, 53, 3), dtype)))
    h = check_image(p)
    assert (h.width, h.height) == (53, 37)
    assert h.format == {".png": "png", ".tif": "tiff", ".jpg": "jpeg"}[suffix]
    assert F.read_image(p).shape == (37, 53, 3)


def test_npy_header_is_read_without_loading_and_a_short_file_is_refused(tmp_path):
    p = tmp_path / "f.npy"
    np.save(p, np.zeros((21, 34, 3), np.uint16))
    h = read_header(p)
    assert (h.format, h.width, h.height) == ("npy", 34, 21)
    p.write_bytes(p.read_bytes()[:-10])
    with pytest.raises(ValueError, match=r"cannot read f.npy: a .npy file cut short \(4,274 of 4,284"):
        F.read_image(p)


@pytest.mark.parametrize("order, big, kinds", [("<", False, (3, 4)), (">", False, (4, 3)),
                                               ("<", True, (16, 4)), (">", True, (3, 16))])
def test_tiff_headers_little_big_endian_and_bigtiff(tmp_path, order, big, kinds):
    p = tmp_path / "f.tif"
    p.write_bytes(_tiff(640, 480, order, big, kinds))
    h = read_header(p)
    assert (h.format, h.width, h.height) == ("tiff", 640, 480)


@pytest.mark.parametrize("name, data", [
    ("big.png", _png_header(BIG, BIG) + b"\0" * 1000),
    ("big.tif", _tiff(BIG, BIG)),
    ("big.tiff", _tiff(BIG, BIG, ">", True, (16, 16))),
    ("big.jpg", _jpeg_claiming(BIG, BIG)),
    ("wide.png", _png_header(2**31 - 1, 1)),
])
def test_a_header_over_the_cap_is_refused_before_any_decoding(tmp_path, monkeypatch, name, data):
    p = tmp_path / name
    p.write_bytes(data)

    def never(*a, **k):
        raise AssertionError("decoded an image its header refuses")

    monkeypatch.setattr(F, "read_frame", never)
    with pytest.raises(ValueError) as info:
        F.read_image(p)
    text = str(info.value)
    assert text.startswith(f"cannot read {name}: its header declares ")
    assert text.endswith(f"over the limit of {MAX_IMAGE_PIXELS:,} pixels")


def test_the_cap_is_2_27_pixels_and_the_limit_itself_passes(tmp_path):
    assert MAX_IMAGE_PIXELS == 2**27 == 16384 * 8192
    p = tmp_path / "edge.png"
    p.write_bytes(_png_header(16384, 8192))
    # the pixel cap itself passes; what decoding it costs in memory is capped too (test_memory_cap)
    assert check_image(p, max_bytes=2**40).pixels == MAX_IMAGE_PIXELS
    p.write_bytes(_png_header(16384, 8193))
    with pytest.raises(ValueError, match="16384x8193 pixels"):
        check_image(p)
    p.write_bytes(_png_header(10, 10))
    with pytest.raises(ValueError, match="over the limit of 99 pixels"):
        check_image(p, max_pixels=99)


@pytest.mark.parametrize("name, data, message", [
    ("empty.png", b"", "empty file"),
    ("short.png", _png_header(8, 8)[:12], "its header is cut short"),
    ("zero.png", _png_header(0, 8), "its header declares 0x8 pixels"),
    ("bmp.png", b"BM" + b"\0" * 60, "not a PNG, TIFF, JPEG or .npy file (it starts with b'BM"),
    ("webp.png", b"RIFF\0\0\0\0WEBPVP8 ", "not a PNG, TIFF, JPEG or .npy file"),
    ("nosize.tif", b"II*\x00\x08\x00\x00\x00\x01\x00" + struct.pack("<HHI4s", 258, 3, 1, b"\x08\0\0\0"),
     "a TIFF without its width and height"),
    ("farifd.tif", b"II*\x00" + struct.pack("<I", 10**9), "its header is cut short"),
    ("nosof.jpg", b"\xff\xd8\xff\xe0\x00\x04\0\0\xff\xda\x00\x02", "without a frame header"),
    ("junk.jpg", b"\xff\xd8\xff\xe0\x00\x04\0\0garbage!", "segments do not follow one another"),
])
def test_bad_headers_are_one_error_naming_the_file(tmp_path, name, data, message):
    p = tmp_path / name
    p.write_bytes(data)
    with pytest.raises(ValueError) as info:
        F.read_image(p)
    assert str(info.value).startswith(f"cannot read {name}: ") and message in str(info.value)


def test_in_a_folder_a_huge_or_damaged_image_is_a_gap_not_a_crash(tmp_path):
    good = _encode(".png", np.full((8, 8, 3), 200, np.uint8))
    (tmp_path / "f1.png").write_bytes(good)
    (tmp_path / "f2.png").write_bytes(_png_header(BIG, BIG) + good[33:])    # lying header
    (tmp_path / "f3.png").write_bytes(good[: len(good) - 12])               # truncated
    (tmp_path / "f4.jpg").write_bytes(_jpeg_claiming(BIG, BIG // 4))        # over the cap too
    jpg = _encode(".jpg", np.full((8, 8, 3), 200, np.uint8))
    (tmp_path / "f5.jpg").write_bytes(jpg[: len(jpg) // 2])                 # truncated
    (tmp_path / "f6.png").write_bytes(good)
    frames = list(open_capture(tmp_path).frames())
    assert [f.position for f in frames] == list(range(6))
    assert [f.image is None for f in frames] == [False, True, True, True, True, False]
    assert "over the limit" in frames[1].error and "over the limit" in frames[3].error
    for f in frames[1:5]:
        assert f.error.startswith(f"cannot read {f.name}")


def _mutations():
    sources = [_encode(".png", np.arange(48 * 3, dtype=np.uint8).reshape(4, 12, 3)),
               _encode(".tif", np.arange(48 * 3, dtype=np.uint16).reshape(4, 12, 3)),
               _encode(".jpg", np.arange(48 * 3, dtype=np.uint8).reshape(4, 12, 3))]
    return st.tuples(st.sampled_from(sources), st.integers(0, 10**6), st.integers(0, 255),
                     st.sampled_from(["flip", "cut", "both"]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_mutations())
def test_any_damaged_image_reads_or_is_one_value_error(tmp_path, case):
    data, at, byte, how = case
    if how in ("flip", "both"):
        i = at % len(data)
        data = data[:i] + bytes([byte]) + data[i + 1:]
    if how in ("cut", "both"):
        data = data[: at % (len(data) + 1)]
    p = tmp_path / "m.png"
    p.write_bytes(data)
    try:
        img = F.read_image(p)
    except ValueError as exc:
        assert str(exc).startswith("cannot read m.png") and "\n" not in str(exc)
        return
    assert img.ndim in (2, 3) and img.shape[0] * img.shape[1] <= MAX_IMAGE_PIXELS


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from([b"\x89PNG\r\n\x1a\n", b"II*\x00", b"MM\x00*", b"II+\x00", b"\xff\xd8\xff",
                        b"\x93NUMPY", b""]), st.binary(max_size=80))
def test_any_bytes_after_a_magic_are_a_header_or_one_value_error(tmp_path, magic, rest):
    p = tmp_path / "h.bin"
    p.write_bytes(magic + rest)
    try:
        h = read_header(p)
    except ValueError as exc:
        assert str(exc).startswith("cannot read h.bin: ")
        return
    assert h.width >= 1 and h.height >= 1


def test_a_video_over_the_cap_is_refused_from_its_container_header(tmp_path):
    frames = [np.full((48, 64, 3), 50 * i, np.uint8) for i in range(3)]
    path = tmp_path / "v.mkv"
    write_video(path, frames, codec="ffv1", pix_fmt="bgr0")
    with pytest.raises(ValueError, match=r"cannot open video v.mkv: its 64x48 frames \(3,072 pixels\) "
                                         r"are over the limit of 3,000 pixels"):
        V.VideoCapture(path, max_pixels=3000)
    cap = V.VideoCapture(path)
    assert [f.image.shape[:2] for f in cap.frames()] == [(48, 64)] * 3


def test_a_video_frame_over_the_cap_is_an_unreadable_frame(tmp_path):
    frames = [np.full((48, 64, 3), 50 * i, np.uint8) for i in range(3)]
    path = tmp_path / "v.mkv"
    write_video(path, frames, codec="ffv1", pix_fmt="bgr0")
    cap = V.VideoCapture(path)
    cap.max_pixels = 3000   # as if the stream changed size after its header
    got = list(cap.frames())
    assert [f.position for f in got] == [0, 1, 2] and all(f.image is None for f in got)
    assert all("64x48 is over the limit of 3,000 pixels" in f.error for f in got)


def _y4m(path, width, height, frames=0):
    """A YUV4MPEG2 stream as FFmpeg writes one: the header line, then FRAME + 4:2:0 planes."""
    data = bytearray(f"YUV4MPEG2 W{width} H{height} F25:1 Ip A1:1 C420jpeg\n".encode())
    for i in range(frames):
        data += b"FRAME\n" + bytes([40 + 50 * i]) * (width * height) + b"\x80" * (width * height // 2)
    path.write_bytes(bytes(data))
    return path


def test_a_y4m_claiming_a_huge_frame_is_refused_from_its_first_line(tmp_path):
    path = _y4m(tmp_path / "claim.y4m", BIG, BIG)
    with pytest.raises(ValueError, match=rf"cannot open video claim.y4m: its {BIG}x{BIG} frames "
                                         r"\(900,000,000 pixels\) are over the limit"):
        F.open_capture(path)


def test_a_small_y4m_still_decodes_and_one_without_a_size_is_named(tmp_path):
    cap = F.open_capture(_y4m(tmp_path / "ok.y4m", 16, 8, frames=2))
    got = [f.image for f in cap.frames()]
    assert [g.shape[:2] for g in got] == [(8, 16)] * 2
    path = tmp_path / "nosize.y4m"
    path.write_bytes(b"YUV4MPEG2 F25:1 C420jpeg\nFRAME\n")
    with pytest.raises(ValueError, match="nosize.y4m: its YUV4MPEG2 header gives no frame size"):
        F.open_capture(path)


FRAME_4X2 = b"FRAME\n" + b"\x50" * 8 + b"\x80" * 4


@pytest.mark.parametrize("first_line", [
    b"YUV4MPEG2 W4 F25:1 C420jpeg H2\r\n",     # CR LF, H last
    b"YUV4MPEG2 W4x H2 F25:1 C420jpeg\n",       # strtol stops at the x
    b"YUV4MPEG2\tW4 H2 F25:1 C420jpeg\n",       # any byte after the magic
    b"YUV4MPEG2 W9 H9 W4 H2 F25:1 C420jpeg\n",  # the last of each counts
])
def test_y4m_headers_ffmpeg_reads_are_read_the_same(tmp_path, first_line):
    path = tmp_path / "odd.y4m"
    path.write_bytes(first_line + FRAME_4X2)
    assert H.y4m_size(path) == (4, 2)
    assert [f.image.shape[:2] for f in F.open_capture(path).frames()] == [(2, 4)]


@pytest.mark.parametrize("first_line, message", [
    (b"YUV4MPEG2\tW30000 H30000 F25:1\n", r"its 30000x30000 frames \(900,000,000 pixels\) are over"),
    (b"YUV4MPEG2xW30000 H30000 F25:1\n", r"its 30000x30000 frames"),
    (b"YUV4MPEG2 W30000 H30000\r\n", r"its 30000x30000 frames"),
    (b"YUV4MPEG2 W0 H0 F25:1\n", r"its YUV4MPEG2 header gives a frame size of 0x0"),
    (b"YUV4MPEG2 Wx H-3 F25:1\n", r"its YUV4MPEG2 header gives a frame size of 0x-3"),
])
def test_y4m_claims_ffmpeg_would_fail_on_are_refused_by_testcard(tmp_path, first_line, message):
    path = tmp_path / "claim.y4m"
    path.write_bytes(first_line + FRAME_4X2)
    with pytest.raises(ValueError, match=r"cannot open video claim.y4m: " + message):
        F.open_capture(path)


def test_a_fifo_is_never_read_for_its_y4m_header(tmp_path):
    # the stream's first bytes belong to the video reader; opening a FIFO would also block
    fifo = tmp_path / "live.ts"
    os.mkfifo(fifo)
    assert H.y4m_size(fifo) is None
