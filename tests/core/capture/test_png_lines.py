"""Lines of a PNG read alone equal those lines of the whole decode, for every colour type, bit
depth, line filter, deflate strategy and chunking; files it cannot promise that for are refused
(None), never misread.

A small encoder here writes each PNG line with a chosen filter type (0 None, 1 Sub, 2 Up,
3 Average, 4 Paeth), so every unfilter path of the decoder meets lines asked for after lines
of every kind; OpenCV's own encoder covers its strategies, levels and filter choices.  Each
test runs with every inflater the module may use here (zlib, and zlib-ng where installed).
"""

import importlib.util
import zlib

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.capture import png_lines
from core.capture.png_lines import read_png_lines
from core.imageio import decode_image, encode_image

DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
SBIT_BYTES = {0: 1, 2: 3, 3: 3, 4: 2, 6: 4}
STRATEGIES = (zlib.Z_DEFAULT_STRATEGY, zlib.Z_FILTERED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE, zlib.Z_FIXED)
ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))
INFLATERS = ["zlib"] + (["zlib_ng"] if importlib.util.find_spec("zlib_ng") else [])


@pytest.fixture(autouse=True, params=INFLATERS)
def inflater(request, monkeypatch):
    """The module's inflater for the test: each one available here, in turn."""
    if request.param == "zlib_ng":
        from zlib_ng import zlib_ng

        monkeypatch.setattr(png_lines, "_inflating", zlib_ng)
    else:
        monkeypatch.setattr(png_lines, "_inflating", zlib)
    return request.param


# ---------------------------------------------------------------- a small PNG encoder
def chunk(kind: bytes, body: bytes) -> bytes:
    return len(body).to_bytes(4, "big") + kind + body + zlib.crc32(kind + body).to_bytes(4, "big")


def packed(samples: np.ndarray, depth: int) -> np.ndarray:
    """(h, w[, c]) samples as (h, row bytes) of a PNG's unfiltered lines."""
    h = samples.shape[0]
    if depth == 16:
        return samples.astype(">u2").reshape(h, -1).view(np.uint8)
    if depth == 8:
        return samples.astype(np.uint8).reshape(h, -1)
    per = 8 // depth
    s = samples.reshape(h, -1)
    s = np.pad(s, ((0, 0), (0, (-s.shape[1]) % per))).reshape(h, -1, per).astype(np.uint8)
    shifts = (8 - depth * (np.arange(per) + 1)).astype(np.uint8)
    return np.bitwise_or.reduce(s << shifts, axis=2).astype(np.uint8)


def filtered(line: np.ndarray, above: np.ndarray, kind: int, bpp: int) -> bytes:
    """One line filtered as the PNG specification says (from the raw bytes)."""
    x, b = line.astype(np.int32), above.astype(np.int32)
    a = np.concatenate([np.zeros(bpp, np.int32), x[:-bpp]])[:x.size]
    c = np.concatenate([np.zeros(bpp, np.int32), b[:-bpp]])[:x.size]
    if kind == 0:
        out = x
    elif kind == 1:
        out = x - a
    elif kind == 2:
        out = x - b
    elif kind == 3:
        out = x - (a + b) // 2
    else:
        p = a + b - c
        pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
        out = x - np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))
    return bytes([kind]) + (out % 256).astype(np.uint8).tobytes()


def scanlines(samples, depth, colour, filters) -> bytes:
    rows = packed(samples, depth)
    bpp = max(1, CHANNELS[colour] * depth // 8)
    above = np.zeros(rows.shape[1], np.uint8)
    out = []
    for y, line in enumerate(rows):
        out.append(filtered(line, above, filters[y % len(filters)], bpp))
        above = line
    return b"".join(out)


def encode_png(samples, depth, colour, filters=(0,), *, level=6, strategy=zlib.Z_DEFAULT_STRATEGY,
               wbits=15, pieces=(), before=(), after=(), interlace=False) -> bytes:
    """A PNG of ``samples`` (grey/index (h, w); else (h, w, channels)) written line by line
    with ``filters`` (cycled), deflated at ``level``/``strategy``/``wbits``, its stream cut
    into IDAT chunks at the offsets ``pieces``; ``before``/``after``: (kind, body) chunks."""
    h, w = samples.shape[:2]
    if interlace:
        data = b"".join(scanlines(samples[y0::dy, x0::dx], depth, colour, filters)
                        for x0, y0, dx, dy in ADAM7 if samples[y0::dy, x0::dx].size)
    else:
        data = scanlines(samples, depth, colour, filters)
    z = zlib.compressobj(level, zlib.DEFLATED, wbits, 8, strategy)
    stream = z.compress(data) + z.flush()
    cuts = sorted({0, len(stream), *(p % (len(stream) + 1) for p in pieces)})
    idat = [chunk(b"IDAT", stream[a:b]) for a, b in zip(cuts, cuts[1:], strict=False)]
    ihdr = w.to_bytes(4, "big") + h.to_bytes(4, "big") + bytes([depth, colour, 0, 0, int(interlace)])
    return b"".join([b"\x89PNG\r\n\x1a\n", chunk(b"IHDR", ihdr), *(chunk(k, b) for k, b in before),
                     *idat, *(chunk(k, b) for k, b in after), chunk(b"IEND", b"")])


def samples_for(rng, h, w, depth, colour):
    shape = (h, w) if CHANNELS[colour] == 1 else (h, w, CHANNELS[colour])
    top = (1 << depth) - 1
    return rng.integers(0, top + 1, shape, dtype=np.int64).astype(np.uint16 if depth == 16 else np.uint8)


def palette(rng, depth):
    n = 1 << depth
    return [(b"PLTE", rng.integers(0, 256, 3 * n, dtype=np.uint8).tobytes())]


def assert_lines_equal(data, lines, bit_depth=None):
    """The lines read alone equal the whole decode's; every other line is zero."""
    whole = decode_image(data, "t", bit_depth)
    part = read_png_lines(data, lines, bit_depth)
    assert part is not None, "refused a file it can read"
    assert part.shape == whole.shape and part.dtype == whole.dtype
    rows = sorted(set(lines))
    np.testing.assert_array_equal(part[rows], whole[rows])
    rest = np.setdiff1d(np.arange(whole.shape[0]), rows)
    assert not part[rest].any()


# ---------------------------------------------------------------- every path, deterministically
@pytest.mark.parametrize("colour, depth", [(c, d) for c, ds in DEPTHS.items() for d in ds])
@pytest.mark.parametrize("filters", [(0,), (1,), (2,), (3,), (4,), (4, 3, 2, 1, 0, 2, 3, 4, 4)])
def test_every_colour_type_depth_and_filter(colour, depth, filters):
    rng = np.random.default_rng(colour * 100 + depth * 10 + len(filters) + filters[0])
    h, w = 23, 13
    before = palette(rng, depth) if colour == 3 else []
    data = encode_png(samples_for(rng, h, w, depth, colour), depth, colour, filters, before=before)
    for lines in ([0], [h - 1], [5], [6, 7, 8], [2, 11, 12, 20], list(range(h))):
        assert_lines_equal(data, lines)


@pytest.mark.parametrize("strategy", range(5))
@pytest.mark.parametrize("level", [0, 1, 3, 9])
@pytest.mark.parametrize("flags", [cv2.IMWRITE_PNG_FILTER_NONE, cv2.IMWRITE_PNG_FILTER_SUB,
                                   cv2.IMWRITE_PNG_FILTER_UP, cv2.IMWRITE_PNG_FILTER_AVG,
                                   cv2.IMWRITE_PNG_FILTER_PAETH, cv2.IMWRITE_PNG_ALL_FILTERS])
def test_opencv_strategies_levels_and_filters(strategy, level, flags):
    rng = np.random.default_rng(strategy * 10 + level)
    img = rng.integers(0, 256, (40, 33, 3), dtype=np.uint8)
    img[10:20] = img[9]                          # repeats and runs, which deflate refers back to
    img[:, 5:15] = 7
    ok, enc = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_STRATEGY, strategy,
                                         cv2.IMWRITE_PNG_COMPRESSION, level, cv2.IMWRITE_PNG_FILTER, flags])
    assert ok
    assert_lines_equal(enc.tobytes(), [0, 9, 10, 19, 20, 39])


@pytest.mark.parametrize("channels, dtype", [(1, np.uint8), (1, np.uint16), (3, np.uint16), (4, np.uint8),
                                             (4, np.uint16)])
def test_opencv_grey_alpha_and_16_bit(channels, dtype):
    rng = np.random.default_rng(channels)
    shape = (31, 17) if channels == 1 else (31, 17, channels)
    img = rng.integers(0, np.iinfo(dtype).max + 1, shape, dtype=np.int64).astype(dtype)
    ok, enc = cv2.imencode(".png", img)
    assert_lines_equal(enc.tobytes(), [3, 4, 30])


@pytest.mark.parametrize("cut", [1, 2, 3, 7])
def test_the_zlib_header_split_over_chunks(cut):
    img = np.random.default_rng(cut).integers(0, 256, (12, 10, 3), dtype=np.uint8)
    assert_lines_equal(encode_png(img, 8, 2, (2, 4), pieces=[cut, cut + 1]), [0, 5, 11])


@pytest.mark.parametrize("bits", [1, 4, 7, 8, 10, 12, 16])
def test_significant_bits_shift_as_the_whole_decode(bits):
    """testcard's own files: N-bit codes MSB-aligned with sBIT, shifted back on reading."""
    rng = np.random.default_rng(bits)
    dtype = np.uint16 if bits > 8 else np.uint8
    frame = rng.integers(0, 1 << bits, (20, 24, 3), dtype=np.int64).astype(dtype)
    data = encode_image(frame, bits, ".png")
    assert_lines_equal(data, [1, 2, 19])
    assert_lines_equal(data, [1, 2, 19], bit_depth=bits)
    np.testing.assert_array_equal(read_png_lines(data, [7], bits)[7], frame[7])


def test_a_sidecar_depth_without_sbit_is_the_whole_pictures_to_judge():
    """Without sBIT a sidecar's depth below the sample size shifts samples only when some
    sample anywhere exceeds that depth: a few lines cannot tell, so the file is refused."""
    img = np.zeros((30, 10, 3), np.uint8)
    img[29] = 200                    # only the last line says the samples are MSB-aligned
    ok, enc = cv2.imencode(".png", img)
    data = enc.tobytes()
    assert read_png_lines(data, [0, 1], bit_depth=6) is None
    assert_lines_equal(data, [0, 1], bit_depth=8)
    assert_lines_equal(data, [0, 1], bit_depth=None)


def test_transparency_palette_and_ancillary_chunks_kept():
    rng = np.random.default_rng(3)
    idx = rng.integers(0, 16, (25, 9), dtype=np.uint8)
    before = palette(rng, 4) + [(b"tRNS", bytes(range(0, 160, 10))), (b"gAMA", (45455).to_bytes(4, "big")),
                                (b"tEXt", b"Software\x00test")]
    data = encode_png(idx, 4, 3, (4, 1, 2), before=before, after=[(b"tEXt", b"Comment\x00after")])
    assert_lines_equal(data, [0, 12, 24])
    grey = rng.integers(0, 256, (25, 9), dtype=np.uint8)
    data = encode_png(grey, 8, 0, (3,), before=[(b"tRNS", b"\x00\x07"), (b"sBIT", b"\x05")])
    assert_lines_equal(data, [13])


# ---------------------------------------------------------------- any of it, by hypothesis
@st.composite
def png_files(draw):
    colour = draw(st.sampled_from(sorted(DEPTHS)))
    depth = draw(st.sampled_from(DEPTHS[colour]))
    h, w = draw(st.integers(1, 40)), draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    samples = samples_for(rng, h, w, depth, colour)
    if draw(st.booleans()):          # runs and repeated lines, which deflate refers back to
        samples[h // 2:] = samples[h // 2]
    filters = draw(st.lists(st.integers(0, 4), min_size=1, max_size=8))
    before = palette(rng, depth) if colour == 3 else []
    sbit = None
    if draw(st.booleans()):
        sbit = draw(st.integers(1, 8 if colour == 3 else depth))
        before.append((b"sBIT", bytes([sbit]) * SBIT_BYTES[colour]))
    data = encode_png(samples, depth, colour, filters, level=draw(st.integers(0, 9)),
                      strategy=draw(st.sampled_from(STRATEGIES)), wbits=draw(st.integers(9, 15)),
                      pieces=draw(st.lists(st.integers(0, 10**6), max_size=6)), before=before)
    lines = draw(st.lists(st.integers(0, h - 1), min_size=1, max_size=12))
    bit_depth = draw(st.none() | st.integers(1, 16))
    return data, lines, bit_depth, depth, sbit


@given(png_files())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
def test_lines_read_alone_equal_the_whole_decode(case):
    data, lines, bit_depth, depth, sbit = case
    container = 16 if depth == 16 else 8
    if sbit is None and bit_depth is not None and 0 < bit_depth < container:
        assert read_png_lines(data, lines, bit_depth) is None
    else:
        assert_lines_equal(data, lines, bit_depth)


# ---------------------------------------------------------------- refused, never misread
def small_png() -> bytes:
    rng = np.random.default_rng(9)
    img = rng.integers(0, 256, (48, 30, 3), dtype=np.uint8)
    ok, enc = cv2.imencode(".png", img)
    return enc.tobytes()


def test_interlaced_is_refused_and_read_whole():
    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, (19, 21, 3), dtype=np.uint8)
    data = encode_png(img, 8, 2, (0, 1, 4), interlace=True)
    np.testing.assert_array_equal(decode_image(data), img)
    assert read_png_lines(data, [0, 3], None) is None


@pytest.mark.parametrize("cut", [1, 8, 20, 33, 60, -30, -13, -12, -1])
def test_a_truncated_file_is_refused(cut):
    data = small_png()
    assert read_png_lines(data[:cut], [0, 1], None) is None


@given(st.data())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_one_damaged_byte_is_refused_or_read_as_the_whole_decode(data):
    """A byte changed anywhere: refused, or read exactly as the whole decode reads it (a damaged
    ancillary chunk libpng skips); never lines from a file the whole decode refuses."""
    good = small_png()
    at = data.draw(st.integers(8, len(good) - 1))
    bad = bytearray(good)
    bad[at] ^= data.draw(st.integers(1, 255))
    lines = data.draw(st.lists(st.integers(0, 47), min_size=1, max_size=5))
    part = read_png_lines(bytes(bad), lines, None)
    if part is None:
        return
    try:
        whole = decode_image(bytes(bad), "t")
    except ValueError:
        pytest.fail("read lines of a file the whole decode refuses")
    np.testing.assert_array_equal(part[sorted(set(lines))], whole[sorted(set(lines))])


@pytest.mark.parametrize("extra", [
    [(b"ABCD", b"x")],                     # a critical chunk libpng does not know
    [(b"acTL", bytes(8))],                 # animated
])
def test_chunks_it_cannot_vouch_for_are_refused(extra):
    img = np.random.default_rng(2).integers(0, 256, (10, 10, 3), dtype=np.uint8)
    assert read_png_lines(encode_png(img, 8, 2, before=extra), [1], None) is None
    assert read_png_lines(encode_png(img, 8, 2, after=extra), [1], None) is None


def test_image_data_in_two_runs_and_chunks_out_of_place_are_refused():
    img = np.random.default_rng(2).integers(0, 256, (10, 10, 3), dtype=np.uint8)
    data = encode_png(img, 8, 2, pieces=[40])
    first = data.index(b"IDAT") - 4
    second = data.index(b"IDAT", first + 8) - 4
    split = data[:second] + chunk(b"tEXt", b"a\x00b") + data[second:]
    assert read_png_lines(split, [0], None) is None
    assert read_png_lines(encode_png(img, 8, 2, after=[(b"tRNS", bytes(6))]), [0], None) is None
    assert_lines_equal(encode_png(img, 8, 2, after=[(b"tIME", bytes(7)), (b"prVt", b"x")]), [0, 9])


def test_a_stream_that_ends_before_the_lines_asked_for_is_refused():
    rng = np.random.default_rng(4)
    img = rng.integers(0, 256, (20, 8, 3), dtype=np.uint8)
    half = zlib.compress(scanlines(img, 8, 2, (1,))[: 10 * 25 + 7])
    ihdr = (8).to_bytes(4, "big") + (20).to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", half) + chunk(b"IEND", b"")
    assert read_png_lines(data, [10], None) is None
    assert read_png_lines(data, [3, 9], None) is not None   # what it does not see (module text)
    with pytest.raises(ValueError):
        decode_image(data, "t")


def test_lines_outside_the_picture_or_none_at_all_are_refused():
    data = small_png()
    assert read_png_lines(data, [48], None) is None
    assert read_png_lines(data, [-1], None) is None
    assert read_png_lines(data, [], None) is None
    assert read_png_lines(b"not a png at all", [0], None) is None


def test_the_array_is_the_pictures_size_and_writable():
    """Only the lines asked for are written; the caller may write the rest."""
    rng = np.random.default_rng(8)
    img = rng.integers(0, 256, (300, 200, 3), dtype=np.uint8)
    ok, enc = cv2.imencode(".png", img)
    part = read_png_lines(enc.tobytes(), [150], None)
    assert part.shape == (300, 200, 3) and part.flags.writeable
    np.testing.assert_array_equal(part[150], img[150, :, ::-1])
