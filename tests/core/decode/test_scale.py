"""Scale from a captured zone plate: a grid of chains 0.25x to 2x per axis, resampled by other
people's resamplers and degraded, read to within 0.02; no plate is an error, not a number."""

import json
import math
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.decode import (
    PlateGeometry,
    geometry_from_manifest,
    load_geometry,
    measure_scale,
    open_scale,
    scale_steps,
    zone_plate_scale,
)
from core.decode.scale import MIN_DIAMETER, plate_diameter
from core.imageio import write_frame
from core.manifest import save_frame
from core.patterns import make_spec, render, render_pattern
from tests.helpers.capture_sim import write_video
from tests.helpers.scale_sim import Degrade, captured_plate, degrade, embed, plate_light, resample

TOLERANCE = 0.02
PLATE = PlateGeometry(720)

SOFT = Degrade(blur=0.5, gamma=2.2, gain=0.9, lift=0.03, noise=0.01, bits=8, jpeg=85)
DIM = Degrade(blur=0.8, gamma=0.6, gain=0.7, lift=0.1, noise=0.02, bits=10)
HOT = Degrade(gain=1.2, noise=0.005, bits=8, jpeg=60, rgb=True)
GRAINY = Degrade(gamma=2.4, noise=0.03, bits=8)
EXACT10 = Degrade(bits=10)

# (scale across, scale down, resampler, what else the chain does): every axis from 0.25 to 2,
# the two axes apart (anamorphic), the band around half scale, each resampler and degradation
GRID = [
    (0.25, 0.25, "area", SOFT), (0.25, 1.6, "torch", DIM), (0.33, 0.5, "lanczos", HOT),
    (0.45, 0.55, "nearest", SOFT), (0.5, 0.5, "linear", DIM), (0.55, 0.45, "area", HOT),
    (0.5, 2.0, "cubic", GRAINY), (0.7, 1.0, "nearest", EXACT10), (1.0, 1.0, "lanczos", DIM),
    (1.0, 0.7, "torch", HOT), (1.25, 1.25, "cubic", SOFT), (1.6, 0.33, "area", GRAINY),
    (2.0, 2.0, "cubic", DIM), (2.0, 0.25, "lanczos", SOFT), (0.8, 1.9, "linear", EXACT10),
]


def _ids(case):
    sx, sy, how, d = case
    return f"{sx}x{sy}-{how}-{[k for k, v in GRADES.items() if v is d][0]}"


GRADES = {"soft": SOFT, "dim": DIM, "hot": HOT, "grainy": GRAINY, "exact10": EXACT10}


def assert_scale(reading, tx, ty):
    assert abs(reading.scale_x - tx) <= TOLERANCE, (reading, tx, ty)
    assert abs(reading.scale_y - ty) <= TOLERANCE, (reading, tx, ty)


@pytest.mark.parametrize("case", GRID, ids=[_ids(c) for c in GRID])
def test_the_grid_of_chains_reads_within_two_hundredths(case):
    sx, sy, how, grade = case
    capture, tx, ty = captured_plate(sx, sy, how, grade, seed=int(sx * 100 + sy))
    reading = zone_plate_scale(capture, PLATE)
    assert_scale(reading, tx, ty)
    assert 0.5 <= reading.match <= 1.0


@pytest.mark.slow
@pytest.mark.parametrize("grade", list(GRADES), ids=list(GRADES))
def test_a_denser_grid(grade):
    values = [0.25, 0.3, 0.4, 0.45, 0.5, 0.55, 0.65, 0.8, 1.0, 1.2, 1.5, 1.75, 2.0]
    hows = ["area", "cubic", "lanczos", "nearest", "linear", "torch"]
    for i, sx in enumerate(values):
        for j, sy in enumerate(values[(i % 3)::3]):
            how = hows[(i + j) % len(hows)]
            capture, tx, ty = captured_plate(sx, sy, how, GRADES[grade], seed=i * 31 + j)
            assert_scale(zone_plate_scale(capture, PLATE), tx, ty)


@pytest.mark.parametrize("how", ["nearest", "linear", "area"])
def test_half_scale_is_never_read_as_one_minus_the_scale(how):
    # 0.45 and 0.55 are 0.1 apart, so within 0.02 of the truth is never the other one; the
    # aliasing resamplers (nearest, plain bilinear) fold the rings there, area averaging does not
    light = plate_light(720)
    for k, s in enumerate((0.45, 0.47, 0.49, 0.5, 0.51, 0.53, 0.55)):
        for sy in (s, 1 - s):
            img, tx, ty = resample(light, s, sy, how)
            reading = zone_plate_scale(degrade(img, SOFT, seed=k), PLATE)
            assert_scale(reading, tx, ty)


@pytest.mark.parametrize("sx, how, diameter, at", [
    (0.5, "area", 720, (1133, 157)),
    (1.3, "cubic", 720, (40, 61)),
    (0.8, "linear", 360, (702, 511)),
    (1.0, "lanczos", 144, (1390, 30)),
])
def test_a_plate_anywhere_in_a_cluttered_capture_is_found(sx, how, diameter, at):
    plate, tx, ty = captured_plate(sx, sx, how, Degrade(), diameter=diameter)
    size = (max(1600, at[0] + plate.shape[1] + 10), max(1000, at[1] + plate.shape[0] + 10))
    capture = embed(plate, size, at, seed=diameter)
    capture = degrade(capture.astype(np.float32) / 255, SOFT)
    reading = zone_plate_scale(capture, PlateGeometry(diameter))
    assert_scale(reading, tx, ty)
    # where it is: the centre of the pasted plate
    assert reading.centre[0] == pytest.approx(at[0] + (plate.shape[1] - 1) / 2, abs=1.5)
    assert reading.centre[1] == pytest.approx(at[1] + (plate.shape[0] - 1) / 2, abs=1.5)


def test_a_given_centre_is_used_and_gives_the_same_scale():
    capture, tx, ty = captured_plate(0.6, 0.9, "area", SOFT)
    centre = ((capture.shape[1] - 1) / 2, (capture.shape[0] - 1) / 2)
    found = zone_plate_scale(capture, PLATE)
    given_ = zone_plate_scale(capture, PlateGeometry(720, centre))
    assert_scale(given_, tx, ty)
    assert given_.scale_x == pytest.approx(found.scale_x, abs=1e-3)
    # told a place well off the centre, it still reads the scale and finds the centre
    off = zone_plate_scale(capture, PlateGeometry(720, (centre[0] - 115, centre[1] + 176)))
    assert_scale(off, tx, ty)
    assert off.centre == pytest.approx(centre, abs=1.5)
    # told a corner, where too little of the plate is near to confirm it, it refuses
    with pytest.raises(ValueError, match="zone plate"):
        zone_plate_scale(capture, PlateGeometry(720, (3.0, 3.0)))


def _no_plate_captures():
    rng = np.random.default_rng(7)
    h, w = 540, 960

    def pattern(name, **kw):
        return render_pattern(name, w, h, bit_depth=8, dtype="uint8", **kw)

    import cv2

    blobs = cv2.GaussianBlur(rng.random((h, w)).astype(np.float32), (0, 0), 4)
    chart = render(make_spec("scale_chart", {}, width=1280, height=720, bit_depth=8, dtype="uint8"))
    return {
        "flat grey": np.full((h, w), 128, np.uint8),
        "noise": rng.integers(0, 256, (h, w), dtype=np.uint8),
        "blobs": np.clip((blobs - blobs.mean()) * 2000 + 128, 0, 255).astype(np.uint8),
        "ramp": pattern("ramp"),
        "checkerboard": pattern("checkerboard"),
        "pixel grid": pattern("pixel_grid", mode="lines", size=5),
        "crosshatch": pattern("grid"),
        "bars": pattern("bars"),
        "counter": pattern("counter"),
        "scale chart": cv2.resize(chart, (1000, 562), interpolation=cv2.INTER_AREA),
    }


@pytest.mark.parametrize("name", list(_no_plate_captures()))
def test_a_capture_with_no_plate_is_refused_with_one_sentence(name):
    capture = _no_plate_captures()[name]
    with pytest.raises(ValueError) as info:
        zone_plate_scale(capture, PLATE)
    text = str(info.value)
    assert "zone plate" in text and "\n" not in text


def test_a_plate_too_small_or_too_blurred_is_refused():
    # 64 px rendered, a third of that captured: 21 px across
    img, _, _ = resample(plate_light(64), 0.33, 0.33, "area")
    with pytest.raises(ValueError, match="too small|zone plate"):
        zone_plate_scale(degrade(img, Degrade()), PlateGeometry(64))
    with pytest.raises(ValueError, match="too small"):
        zone_plate_scale(np.zeros((10, 12), np.uint8), PLATE)
    blurred, _, _ = captured_plate(0.5, 0.5, "area", Degrade(blur=6.0))
    with pytest.raises(ValueError, match="zone plate"):
        zone_plate_scale(blurred, PLATE)
    with pytest.raises(ValueError, match="image"):
        zone_plate_scale(np.zeros((4, 5, 6, 7)), PLATE)


@pytest.mark.parametrize("kwargs, message", [
    ({"diameter": MIN_DIAMETER - 1}, "too small"),
    ({"diameter": True}, "whole number"),
    ({"diameter": 100.0}, "whole number"),
    ({"diameter": 100, "centre": (1.0, math.nan)}, "centre"),
    ({"diameter": 100, "centre": (1.0,)}, "centre"),
])
def test_plate_geometry_refuses_what_is_not_a_plate(kwargs, message):
    with pytest.raises(ValueError, match=message):
        PlateGeometry(**kwargs)


@pytest.mark.parametrize("size, pct", [((1280, 720), 100.0), ((1920, 1080), 50.0), ((333, 517), 77.7)])
def test_plate_diameter_is_the_rendered_circle(size, pct):
    w, h = size
    img = render_pattern("zone_plate", w, h, bit_depth=10, diameter=pct)[..., 0]
    mid = (0 + 1023 + 1) // 2
    row = img[h // 2]
    inside = np.flatnonzero(row != mid)
    # the circle's width on the centre line is the diameter (a pixel or so at the rim's quantisation)
    assert abs((inside[-1] - inside[0] + 1) - plate_diameter(w, h, pct)) <= 2


def test_geometry_from_a_zone_plate_manifest(tmp_path):
    spec = make_spec("zone_plate", {"diameter": 50}, width=1280, height=720)
    save_frame(tmp_path / "zp.png", spec, render(spec), 0)
    geo = load_geometry(tmp_path / "zp.png.json")
    assert geo == PlateGeometry(360)
    chart = make_spec("scale_chart", {}, width=1280, height=720)
    save_frame(tmp_path / "chart.png", chart, render(chart), 0)
    with pytest.raises(ValueError, match="not a zone_plate"):
        load_geometry(tmp_path / "chart.png.json")
    (tmp_path / "bad.json").write_text('{"pattern": "zone_plate", "width": 1e3, "height": 720}')
    with pytest.raises(ValueError, match="width"):
        load_geometry(tmp_path / "bad.json")


JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                       lambda kids: st.lists(kids, max_size=3)
                       | st.dictionaries(st.text(max_size=8), kids, max_size=3), max_leaves=10)


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({}, optional={"pattern": st.sampled_from(["zone_plate", "ramp"]) | JSONISH,
                                           "width": st.integers(-5, 5000) | JSONISH,
                                           "height": st.integers(-5, 5000) | JSONISH,
                                           "params": st.fixed_dictionaries(
                                               {}, optional={"diameter": st.floats(-10, 200) | JSONISH})
                                           | JSONISH}))
def test_any_manifest_document_is_a_plate_or_one_error_naming_the_manifest(doc):
    try:
        geo = geometry_from_manifest(doc, "m.json")
    except ValueError as exc:
        assert "\n" not in str(exc)
        assert "m.json" in str(exc) or "diameter" in str(exc)
        return
    assert isinstance(geo.diameter, int) and geo.diameter >= MIN_DIAMETER
    pct = doc.get("params", {}).get("diameter", 100)
    assert geo.diameter == plate_diameter(doc["width"], doc["height"], pct)


# ---------------------------------------------------------------- whole captures
def _manifest(tmp_path, diameter_pct=100.0):
    spec = make_spec("zone_plate", {"diameter": diameter_pct}, width=720, height=720)
    path = tmp_path / "rendered.png"
    save_frame(path, spec, render(spec), 0)
    return tmp_path / "rendered.png.json"


def test_a_folder_reports_every_frame_and_the_median(tmp_path):
    manifest = _manifest(tmp_path)
    folder = tmp_path / "cap"
    folder.mkdir()
    truths = []
    for i, s in enumerate((0.6, 0.62, 0.61)):
        img, tx, ty = captured_plate(s, 1.1, "area", SOFT, seed=i)
        write_frame(folder / f"f{i}.png", np.repeat(img[..., None], 3, axis=2), 8)
        truths.append((tx, ty))
    write_frame(folder / "f3.png", np.full((400, 400, 3), 90, np.uint8), 8)
    report = measure_scale(folder, manifest=manifest)
    assert [f["position"] for f in report["frames"]] == [0, 1, 2, 3]
    assert report["measured"] == 3 and report["failed"] == 1 and not report["cancelled"]
    assert "zone plate" in report["frames"][3]["error"]
    assert report["median"]["scale_x"] == pytest.approx(sorted(t[0] for t in truths)[1], abs=TOLERANCE)
    assert report["median"]["scale_y"] == pytest.approx(truths[0][1], abs=TOLERANCE)
    assert report["geometry"] == {"diameter": 720}
    json.dumps(report)   # the report is a JSON document as it stands


def test_the_captures_own_sidecar_says_the_plate_and_none_is_an_error(tmp_path):
    spec = make_spec("zone_plate", {}, width=1280, height=720)
    save_frame(tmp_path / "frame.png", spec, render(spec), 0)   # a 1:1 "capture" with its sidecar
    report = measure_scale(tmp_path / "frame.png")
    assert report["median"]["scale_x"] == pytest.approx(1.0, abs=TOLERANCE)
    write_frame(tmp_path / "bare.png", render(spec), 10)
    with pytest.raises(ValueError, match="no manifest"):
        open_scale(tmp_path / "bare.png")
    with pytest.raises(ValueError, match="does not exist"):
        open_scale(tmp_path / "missing.png", manifest=tmp_path / "frame.png.json")


def test_a_videos_frames_are_measured(tmp_path):
    manifest = _manifest(tmp_path)
    frames = []
    for i in range(3):
        img, tx, ty = captured_plate(0.75, 0.5, "area", Degrade(noise=0.01), seed=i)
        frames.append(np.repeat(img[..., None], 3, axis=2))
    path = tmp_path / "cap.mp4"
    write_video(path, frames)
    report = measure_scale(path, manifest=manifest)
    assert report["measured"] == 3
    assert report["median"]["scale_x"] == pytest.approx(tx, abs=TOLERANCE)
    assert report["median"]["scale_y"] == pytest.approx(ty, abs=TOLERANCE)


def test_cancel_stops_after_the_frame_being_measured(tmp_path):
    manifest = _manifest(tmp_path)
    folder = tmp_path / "cap"
    folder.mkdir()
    img, _, _ = captured_plate(0.5, 0.5, "area", Degrade())
    for i in range(4):
        write_frame(folder / f"f{i}.png", np.repeat(img[..., None], 3, axis=2), 8)
    cancel = threading.Event()
    steps = scale_steps(*open_scale(folder, manifest), cancel=cancel)
    first = next(steps)
    assert first["position"] == 0 and "scale_x" in first
    cancel.set()
    with pytest.raises(StopIteration) as stop:
        next(steps)
    report = stop.value.value
    assert report["cancelled"] and len(report["frames"]) == 1 and report["measured"] == 1
