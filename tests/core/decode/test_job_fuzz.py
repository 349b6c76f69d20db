"""Fuzzed input never crashes the decoder: every frame gets a status, or the input one clear error."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from core.decode import STATUSES, CaptureDecoder, decode_path
from core.imageio import write_frame
from core.patterns import make_spec, render
from tests.helpers.capture_sim import as_captured

SPEC = make_spec("counter", {"bits": 9, "layout": "robust"}, width=320, height=180, bit_depth=8,
                 dtype="uint8")

dtypes = st.sampled_from([np.uint8, np.uint16, np.int16, np.int32, np.float32, np.float64, np.bool_])


@st.composite
def images(draw):
    dt = draw(dtypes)
    h, w = draw(st.integers(1, 60)), draw(st.integers(1, 90))
    shape = draw(st.sampled_from([(h, w), (h, w, 1), (h, w, 2), (h, w, 3), (h, w, 4), (h,), (h, w, 3, 2)]))
    elements = None
    if np.dtype(dt).kind == "f":
        elements = st.floats(allow_nan=True, allow_infinity=True, width=32)
    return draw(hnp.arrays(dt, shape, elements=elements))


def check(results, n):
    assert [r.position for r in results] == list(range(n))
    for r in results:
        assert r.status in STATUSES
        assert 0.0 <= r.confidence <= 1.0
        if r.status in ("undecodable", "unreadable"):
            assert r.index is None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(images(), min_size=1, max_size=10))
def test_random_arrays(arrays):
    dec = CaptureDecoder(as_captured(arrays))
    check(list(dec), len(arrays))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 12))
def test_random_pictures_mixed_with_real_frames_never_misread(seed, n):
    rng = np.random.default_rng(seed)
    frames, truth = [], []
    for i in range(n):
        kind = rng.integers(0, 3)
        if kind == 0:
            frames.append(render(SPEC, i))
            truth.append(i)
        elif kind == 1:
            frames.append(rng.integers(0, 256, (180, 320, 3), dtype=np.uint8))
            truth.append(None)
        else:   # a real frame with a block of noise pasted over part of it
            img = render(SPEC, i).copy()
            y, x = rng.integers(0, 150), rng.integers(0, 280)
            img[y:y + 30, x:x + 40] = rng.integers(0, 256, (30, 40, 3)).astype(np.uint8)[: 180 - y, : 320 - x]
            frames.append(img)
            truth.append(i)
    results = list(CaptureDecoder(as_captured(frames)))
    check(results, n)
    for r, t in zip(results, truth, strict=True):
        if r.status in ("ok", "torn"):
            assert t is not None and r.index == t, (r, t)


def damaged_files(folder, rng):
    good = render(SPEC, 7)
    write_frame(folder / "a00.png", good, 8)
    write_frame(folder / "a01.tif", good, 8)
    write_frame(folder / "a02.npy", good, 8)
    import cv2

    ok, jpg = cv2.imencode(".jpg", good[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, 90])
    (folder / "a03.jpg").write_bytes(jpg.tobytes())
    names = ["a00.png", "a01.tif", "a02.npy", "a03.jpg"]
    for i, name in enumerate(names):
        data = (folder / name).read_bytes()
        cut = int(rng.integers(0, len(data)))
        (folder / f"b{i:02d}{name[3:]}").write_bytes(data[:cut])                 # truncated
        noisy = bytearray(data)
        for k in rng.integers(0, len(data), 20):
            noisy[int(k)] = int(rng.integers(0, 256))
        (folder / f"c{i:02d}{name[3:]}").write_bytes(bytes(noisy))               # scribbled over
        (folder / f"d{i:02d}{name[3:]}").write_bytes(rng.integers(0, 256, 300, dtype=np.uint8).tobytes())


@pytest.mark.parametrize("seed", range(4))
def test_truncated_scribbled_and_random_files(tmp_path, seed):
    damaged_files(tmp_path, np.random.default_rng(seed))
    report = decode_path(tmp_path)
    frames = report["frames"]
    assert len(frames) == 16
    for f in frames:
        assert f["status"] in STATUSES
        if f["status"] == "ok":
            assert f["index"] == 7, f      # a damaged file reads right or not at all
        if f["status"] == "unreadable":
            assert f["note"].startswith("cannot read ")
    assert [f["status"] for f in frames[:4]] == ["ok"] * 4


def test_empty_folder_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no image files"):
        decode_path(tmp_path)
