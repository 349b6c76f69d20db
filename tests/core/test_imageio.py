"""Frame files a viewer shows correctly: N-bit code values MSB-aligned in 8/16-bit samples,
marked (PNG sBIT, TIFF SMaxSampleValue), and read back exactly by testcard."""

import json
import struct
import zlib

import cv2
import numpy as np
import pytest

from core.capture import open_capture
from core.decode import decode_path
from core.imageio import decode_image, encode_image, read_frame, write_frame
from core.manifest import save_frame
from core.patterns import make_spec, render


def codes(bit_depth, shape=(9, 13, 3), seed=0):
    top = (1 << bit_depth) - 1
    arr = np.random.default_rng(seed).integers(0, top + 1, shape)
    arr.flat[:2] = (0, top)                           # black and full scale always present
    return arr.astype(np.uint8 if bit_depth <= 8 else np.uint16)


def png_chunks(data: bytes):
    """(type, body) of every chunk, CRC checked: an independent reading of the file."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, out = 8, []
    while pos < len(data):
        length = struct.unpack(">I", data[pos:pos + 4])[0]
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        assert zlib.crc32(kind + body) == crc, f"bad CRC on {kind}"
        out.append((kind.decode(), body))
        pos += 12 + length
    return out


def tiff_tags(data: bytes) -> dict:
    """IFD0 as {tag: values} for SHORT/LONG tags."""
    bo = "<" if data[:2] == b"II" else ">"
    assert struct.unpack(bo + "H", data[2:4])[0] == 42
    off = struct.unpack(bo + "I", data[4:8])[0]
    n = struct.unpack(bo + "H", data[off:off + 2])[0]
    tags = {}
    for i in range(n):
        tag, typ, count, raw = struct.unpack(bo + "HHI4s", data[off + 2 + 12 * i:off + 14 + 12 * i])
        if typ not in (3, 4):
            continue
        size = 2 if typ == 3 else 4
        blob = raw if size * count <= 4 else data[struct.unpack(bo + "I", raw)[0]:][:size * count]
        tags[tag] = list(struct.unpack(bo + ("H" if typ == 3 else "I") * count, blob[:size * count]))
    return tags


def cv2_rgb(path):
    return cv2.imread(str(path), cv2.IMREAD_UNCHANGED)[..., ::-1]


def test_a_10_bit_png_is_msb_aligned_with_sbit_10_in_an_independent_reader(tmp_path):
    frame = codes(10)
    path = write_frame(tmp_path / "f.png", frame, 10)
    samples = cv2_rgb(path)
    assert samples.dtype == np.uint16
    assert np.array_equal(samples, frame.astype(np.uint16) << 6)          # 1023 -> 65472
    assert np.array_equal(samples >> 6, frame)
    chunks = png_chunks(path.read_bytes())
    kinds = [k for k, _ in chunks]
    assert kinds[0] == "IHDR" and kinds.index("sBIT") < kinds.index("IDAT")
    assert dict(chunks)["sBIT"] == bytes([10, 10, 10])
    ihdr = dict(chunks)["IHDR"]
    assert ihdr[8] == 16 and ihdr[9] == 2                                # 16-bit RGB
    assert np.array_equal(read_frame(path), frame)


def test_a_10_bit_tiff_is_msb_aligned_with_its_maximum_sample_tagged(tmp_path):
    frame = codes(10)
    path = write_frame(tmp_path / "f.tif", frame, 10)
    assert np.array_equal(cv2_rgb(path), frame.astype(np.uint16) << 6)
    tags = tiff_tags(path.read_bytes())
    assert tags[258] == [16, 16, 16]                                     # BitsPerSample stays 16
    assert tags[341] == [1023 << 6] * 3                                  # SMaxSampleValue
    assert np.array_equal(read_frame(path), frame)


@pytest.mark.parametrize("suffix", [".png", ".tif"])
@pytest.mark.parametrize("bit_depth", range(1, 17))
def test_every_depth_reads_back_exactly(tmp_path, suffix, bit_depth):
    frame = codes(bit_depth, seed=bit_depth)
    path = write_frame(tmp_path / f"f{suffix}", frame, bit_depth)
    back = read_frame(path)
    assert back.dtype == (np.uint8 if bit_depth <= 8 else np.uint16)
    assert np.array_equal(back, frame)
    container = 8 if bit_depth <= 8 else 16
    assert np.array_equal(cv2_rgb(path) >> (container - bit_depth), frame)
    if suffix == ".png":
        sbit = dict(png_chunks(path.read_bytes())).get("sBIT")
        assert sbit == (None if bit_depth == container else bytes([bit_depth] * 3))


def test_8_bit_frames_stay_plain_8_bit_pngs(tmp_path):
    frame = codes(8)
    path = write_frame(tmp_path / "f.png", frame, 8)
    assert "sBIT" not in dict(png_chunks(path.read_bytes()))
    assert cv2_rgb(path).dtype == np.uint8 and np.array_equal(cv2_rgb(path), frame)


def test_npy_stays_raw_code_values(tmp_path):
    frame = codes(10)
    path = write_frame(tmp_path / "f.npy", frame, 10)
    assert np.array_equal(np.load(path), frame) and np.array_equal(read_frame(path), frame)


@pytest.mark.parametrize("suffix", [".png", ".tif"])
def test_older_files_with_codes_in_the_low_bits_read_as_they_stand(suffix):
    frame = codes(10)
    ok, data = cv2.imencode(suffix, np.ascontiguousarray(frame[..., ::-1]))
    assert ok
    assert np.array_equal(decode_image(data.tobytes()), frame)
    assert np.array_equal(decode_image(data.tobytes(), bit_depth=10), frame)   # sidecar: 10 bit


@pytest.mark.parametrize("suffix", [".png", ".tif"])
def test_a_file_whose_mark_was_stripped_is_shifted_by_the_sidecar_depth(suffix):
    frame = codes(10)
    ok, data = cv2.imencode(suffix, np.ascontiguousarray(frame[..., ::-1].astype(np.uint16) << 6))
    assert ok
    assert np.array_equal(decode_image(data.tobytes(), bit_depth=10), frame)
    assert np.array_equal(decode_image(data.tobytes()), frame.astype(np.uint16) << 6)   # no depth: as is


def test_a_foreign_tiff_maximum_is_not_taken_for_a_mark():
    frame = codes(10)
    data = encode_image(frame, 16, ".tif")            # 16-bit samples, codes in the low bits
    from core.imageio import tiff_with_smax

    tagged = tiff_with_smax(data, 1023)                # "largest sample 1023": not MSB-aligned
    assert np.array_equal(decode_image(tagged), frame)


def test_a_sequence_without_marks_uses_its_sidecar_depth(tmp_path):
    frame = codes(10)
    ok, data = cv2.imencode(".png", np.ascontiguousarray(frame[..., ::-1].astype(np.uint16) << 6))
    (tmp_path / "a.png").write_bytes(data.tobytes())
    (tmp_path / "a.png.json").write_text(json.dumps({"bit_depth": 10}))
    with open_capture(tmp_path) as cap:
        (only,) = list(cap.frames())
    assert only.error is None and np.array_equal(only.image, frame)


@pytest.mark.parametrize("suffix", [".png", ".tif"])
@pytest.mark.parametrize("layout", ["compat", "robust"])
def test_rendered_10_bit_counter_frames_decode_to_their_exact_indices(tmp_path, suffix, layout):
    spec = make_spec("counter", {"bits": 12, "layout": layout}, width=320, height=180, bit_depth=10)
    indices = [1000, 1001, 1003, 4000]
    for pos, idx in enumerate(indices):
        save_frame(tmp_path / f"f{pos}{suffix}", spec, render(spec, idx), idx)
        assert np.array_equal(read_frame(tmp_path / f"f{pos}{suffix}"), render(spec, idx))
    doc = decode_path(tmp_path)
    assert [f["index"] for f in doc["frames"]] == indices
    assert all(f["status"] == "ok" for f in doc["frames"])


def test_older_low_bit_counter_frames_still_decode_with_their_sidecar(tmp_path):
    spec = make_spec("counter", {"bits": 12}, width=320, height=180, bit_depth=10)
    indices = [7, 8, 9]
    for pos, idx in enumerate(indices):
        ok, data = cv2.imencode(".png", np.ascontiguousarray(render(spec, idx)[..., ::-1]))
        (tmp_path / f"f{pos}.png").write_bytes(data.tobytes())
        assert "sBIT" not in dict(png_chunks(data.tobytes()))
    side = save_frame(tmp_path / "ref.npy", spec, render(spec, 7), 7)      # f0's own sidecar
    (tmp_path / "f0.png.json").write_bytes(side.with_name("ref.npy.json").read_bytes())
    side.unlink()
    side.with_name("ref.npy.json").unlink()
    doc = decode_path(tmp_path)
    assert [f["index"] for f in doc["frames"]] == indices
    assert doc["manifest"].endswith("f0.png.json")
