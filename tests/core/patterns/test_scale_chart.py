"""The scale chart: exact code values against a per-pixel reference, numpy and torch identical,
refused below 1280x720, its geometry in the manifest, and a non-1:1 chain visible in it."""

import cv2
import numpy as np
import pytest
import torch

from core.engine import Engine, path_problem
from core.engine import formats as F
from core.manifest import read_manifest, save_frame
from core.patterns import SCALE_CHART_MIN, chart_layout, make_spec, render, render_plan
from core.xp import to_numpy

STRIPES = np.concatenate([np.r_[np.ones(w, int), np.zeros(w, int)] for w in range(1, 9)])


def reference_codes(w: int, h: int) -> np.ndarray:
    """0 background, 1 foreground, 2 grey for every pixel, written out pixel by pixel from the
    layout (slice assignment is fine here: this is the reference, not a pattern body)."""
    lay = chart_layout(w, h)
    u, x0, x1 = lay["unit"], lay["x0"], lay["x1"]
    yy, xx = np.mgrid[0:h, 0:w]
    code = np.full((h, w), 2)

    def level(v):
        return (v % 10 == 0) * 1 + (v % 50 == 0) * 1 + (v % 100 == 0) * 1

    main = (xx >= x0) & (xx < x1)
    for band in lay["bands"]:
        y0, bh, name = band["y"], band["height"], band["name"]
        inb = main & (yy >= y0) & (yy < y0 + bh)
        t = yy - y0
        on = None
        if name in ("ticks_top", "ticks_bottom"):
            depth = t if name == "ticks_top" else bh - 1 - t
            need = np.where(depth < u // 2, 1, np.where(depth < u, 2, 3))
            on = level(xx) >= need
        elif name == "beat_across":
            sub = np.clip(t // u, 0, 2)
            period = np.array([2, 3, 4])[sub]
            on = np.where(t - sub * u < lay["reference"], xx % 10 == 0, xx % period == 0)
        elif name == "stripes_across":
            on = STRIPES[(xx - x0) % STRIPES.size] == 1
        if on is not None:
            code[inb] = on[inb]
        elif name == "beat_down":
            for blk in lay["beat_down_blocks"]:
                lo, hi, ref = blk["x"], blk["x"] + blk["width"], blk["x"] + lay["reference"]
                r = inb & (xx >= lo) & (xx < ref)
                g = inb & (xx >= ref) & (xx < hi)
                code[r] = (t % 10 == 0)[r]
                code[g] = (t % blk["period"] == 0)[g]
        elif name == "stripes_down":
            left = inb & (xx < (x0 + x1) // 2)
            code[left] = (STRIPES[t % STRIPES.size] == 1)[left]
        elif name == "ladder":
            for c in lay["ladder"]:
                cell = ((xx >= c["x"]) & (xx < c["x"] + c["width"])
                        & (yy >= c["y"]) & (yy < c["y"] + c["height"]))
                z = c["size"]
                code[cell] = ((((xx - c["x"]) // z + (yy - c["y"]) // z) % 2) == 0)[cell]
    tick = np.array([0, u // 2, u, lay["ruler"] - 1])[level(yy)]
    left = (xx < x0)
    right = (xx >= x1)
    code[left] = (xx - 1 < tick)[left]
    code[right] = (w - 2 - xx < tick)[right]
    code[(xx == 0) | (xx == w - 1) | (yy == 0) | (yy == h - 1)] = 1
    return code


@pytest.mark.parametrize("size", [(1280, 720), (1283, 721), (1920, 1080), (1300, 1900)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_pixel_is_the_reference_at_exact_code_values(size):
    w, h = size
    spec = make_spec("scale_chart", {"fg": "940,900,800", "bg": "64,70,80"}, width=w, height=h, bit_depth=10)
    img = render(spec)
    palette = np.array([[64, 70, 80], [940, 900, 800], [502, 485, 440]])   # bg, fg, (fg + bg + 1) // 2
    np.testing.assert_array_equal(img, palette[reference_codes(w, h)])


def test_default_levels_at_every_depth_and_range():
    for bits, limited in ((8, False), (8, True), (10, True), (12, False), (16, False)):
        spec = make_spec("scale_chart", {}, width=1280, height=720, bit_depth=bits, limited=limited)
        lv = spec.levels
        assert set(np.unique(render(spec))) == {lv.black, lv.white, (lv.black + lv.white + 1) // 2}


@pytest.mark.parametrize("kw", [
    dict(width=1280, height=720, bit_depth=10),
    dict(width=1921, height=1081, bit_depth=8, dtype="uint8", limited=True),
    dict(width=1280, height=720, bit_depth=12, roi=(100, 50, 900, 400), counter_bits=8),
    dict(width=2560, height=1440, bit_depth=10, dtype="int32", params={"fg": "0%", "bg": "100%"}),
], ids=["720p", "odd-8bit-limited", "roi-counter", "1440p-inverted-int32"])
def test_numpy_and_torch_render_identical_code_values(kw):
    kw = dict(kw)
    spec = make_spec("scale_chart", kw.pop("params", {}), **kw)
    for frame in (0, 7):
        a = render(spec, frame, np)
        b = to_numpy(render(spec, torch.tensor(frame), torch, torch.device("cpu")))
        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_it_is_rows_and_a_gather():
    plan = render_plan(make_spec("scale_chart", {}, width=1920, height=1080))
    assert plan.rows.shape[1] == 1920 and plan.rows.shape[0] <= 1080 // 4   # a few kinds of line


@pytest.mark.parametrize("w, h", [(1279, 720), (1280, 719), (640, 360), (16, 16)])
def test_smaller_than_1280x720_is_refused_naming_the_size(w, h):
    with pytest.raises(ValueError) as info:
        make_spec("scale_chart", {}, width=w, height=h)
    text = str(info.value)
    assert text.startswith("size:") and f"{w}x{h}" in text and "1280x720" in text and "does not fit" in text
    assert SCALE_CHART_MIN == (1280, 720)


def test_its_geometry_is_in_the_manifest(tmp_path):
    spec = make_spec("scale_chart", {}, width=1920, height=1080, bit_depth=10)
    save_frame(tmp_path / "chart.png", spec, render(spec), 0)
    doc = read_manifest(tmp_path / "chart.png.json")
    geo = doc["geometry"]
    assert geo == chart_layout(1920, 1080)
    assert geo["beat_periods"] == [2, 3, 4] and geo["stripe_widths"] == list(range(1, 9))
    assert [c["size"] for c in geo["ladder"]] == [1, 2, 3, 4, 5, 6, 8]
    bands = geo["bands"]   # the bands tile the frame top to bottom
    assert bands[0]["y"] == 0 and bands[-1]["y"] + bands[-1]["height"] == 1080
    assert all(a["y"] + a["height"] == b["y"] for a, b in zip(bands, bands[1:], strict=False))
    for c in geo["ladder"]:   # every rung a whole number of its checkers
        assert c["width"] % c["size"] == 0 and c["x"] >= geo["x0"] and c["x"] + c["width"] <= geo["x1"]


def _band(geo, name):
    return next(b for b in geo["bands"] if b["name"] == name)


def test_a_chain_that_is_not_one_to_one_shows():
    w, h = 1280, 720
    spec = make_spec("scale_chart", {}, width=w, height=h, bit_depth=8, dtype="uint8")
    img = render(spec)[..., 0].astype(np.float32)
    geo = chart_layout(w, h)
    beat_band = _band(geo, "beat_across")
    u = geo["unit"]

    def beat(picture, scale, k):
        # grating k's middle row, its mean over 12 px (a whole number of periods 2, 3 and 4)
        y = int((beat_band["y"] + k * u + u // 2) * scale)
        row = picture[y, int(geo["x0"] * scale) + 2:int(geo["x1"] * scale) - 2]
        return float(np.ptp(np.convolve(row, np.ones(12) / 12, mode="valid")))

    for k in range(3):
        assert beat(img, 1.0, k) < 1e-3                  # 1:1: an even grey, no beat
        for s, how in ((0.9, cv2.INTER_AREA), (0.95, cv2.INTER_LINEAR), (1.1, cv2.INTER_CUBIC)):
            scaled = cv2.resize(img, (round(w * s), round(h * s)), interpolation=how)
            assert beat(scaled, s, k) > 8, (k, s)         # light and dark beats
    # the zoom ladder at half scale: the 1 px rung goes grey, the 4 px rung keeps its contrast
    half = cv2.resize(img, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    rungs = {c["size"]: c for c in geo["ladder"]}

    def rung_std(z):
        c = rungs[z]
        x, y, s = c["x"] // 2 + 2, c["y"] // 2 + 2, c["width"] // 2 - 4
        return float(half[y:y + s, x:x + s].std())

    assert rung_std(1) < 5 and rung_std(4) > 100


@pytest.mark.slow
@pytest.mark.skipif(path_problem("torch-compiled", "cpu") is not None,
                    reason=str(path_problem("torch-compiled", "cpu")))
def test_compiled_it_is_one_graph_and_exact():
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    spec = make_spec("scale_chart", {}, width=1280, height=720, bit_depth=10, counter_bits=8)
    assert spec.animated
    try:
        with torch._dynamo.config.patch(error_on_recompile=True):
            with Engine(spec, path="torch-compiled", fmt="rgb10", background_compile=False) as eng:
                assert eng.compile_error is None
                for i in range(6):
                    res = eng.render(i)
                    assert res.error is None and res.path == "torch-compiled"
                    np.testing.assert_array_equal(res.data, F.convert_frame(render(spec, i), "rgb10", 10))
                assert eng.graphs == 1
        assert counters["stats"]["unique_graphs"] == 1
    finally:
        torch._dynamo.reset()


def test_the_pattern_benchmark_below_its_size_leaves_the_chart_out():
    from core.patterns import bench_patterns

    rows = bench_patterns(64, 36, backends=("numpy",), repeats=1, warmup=0)
    names = {r["pattern"] for r in rows}
    assert "scale_chart" not in names and "zone_plate" in names
    with pytest.raises(ValueError, match="does not fit"):   # named, it is refused as ever
        bench_patterns(64, 36, backends=("numpy",), patterns=["scale_chart"], repeats=1, warmup=0)
