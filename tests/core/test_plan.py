"""A counter over one-value-per-line rows (vertical ramps) rides along as a patch.

The ramp's many narrow rows are never widened; the band's lines are painted
separately and written over their lines.  Every path must still write the
frame a per-pixel composition would.
"""

import numpy as np
import pytest
import torch

from core import xp as X
from core.decode import decode_counter
from core.engine import Engine, compiled_gather, frame_rows, gather_into, path_problem, realize_op
from core.engine import formats as F
from core.patterns import SCALE_CHART_MIN, make_spec, render, render_plan
from core.plan import Patch, Rows, full_width, materialize

W, H = 96, 60


def vramp(counter_bits=6, **params):
    return make_spec("ramp", {"direction": "vertical", **params}, width=W, height=H,
                     counter_bits=counter_bits)


def test_counter_over_a_vertical_ramp_keeps_its_rows_narrow(backend):
    xp, dev = backend
    spec = vramp()
    plan = render_plan(spec, 5, xp, dev)
    geom = spec.counter_geometry()
    assert plan.rows.shape[0] == H and plan.rows.shape[1] == 1
    assert plan.patch is not None and (plan.patch.y0, plan.patch.y1) == (geom.y0, geom.y1)


@pytest.mark.parametrize("frame", [0, 1, 37, 63])
def test_patched_frame_is_the_ramp_with_the_panel_painted_over_it(backend, to_np, frame):
    xp, dev = backend
    spec = vramp(scroll=3)
    geom = spec.counter_geometry()
    got = to_np(render(spec, frame, xp, dev))
    ramp = render(make_spec("ramp", {"direction": "vertical", "scroll": 3}, width=W, height=H), frame)
    # the panel painted pixel by pixel: one cell per bit, most significant first
    want = ramp.copy()
    assert geom.x1 == geom.x0 + geom.bits * geom.cell_w
    for i in range(geom.bits):
        lit = (frame >> (geom.bits - 1 - i)) & 1
        cells = slice(geom.x0 + i * geom.cell_w, geom.x0 + (i + 1) * geom.cell_w)
        want[geom.y0:geom.y1, cells] = spec.levels.white if lit else spec.levels.black
    np.testing.assert_array_equal(got, want)
    assert decode_counter(got, geom, bit_depth=spec.bit_depth) == frame % (1 << geom.bits)
    # folding the patch into ordinary rows gives the same frame
    plan = render_plan(spec, frame, xp, dev)
    folded = full_width(xp, plan)
    assert folded.patch is None and folded.rows.shape[1] == W
    np.testing.assert_array_equal(to_np(materialize(xp, folded)), to_np(materialize(xp, plan)))


def test_a_patch_with_gaps_in_its_mask_is_written_column_by_column(backend, to_np):
    # the counter's panel is one run of columns; the plan's contract is any mask
    xp, dev = backend
    t = X.is_torch(xp)
    rows = X.asarray(xp, [[[v, v + 1, v + 2]] for v in range(0, 60, 3)], dev)    # (20, 1, 3)
    lines = X.arange(xp, 20, dev)
    mask_np = (np.arange(9) % 3) == 1
    mask = torch.as_tensor(mask_np, device=dev) if t else mask_np
    values = X.take_rows(xp, rows, lines[4:7])                                    # (3, 1, 3)
    paint = X.asarray(xp, [[[900 + x, 901, 902] for x in range(9)]], dev)        # (1, 9, 3)
    plan = Rows(rows, lines, 9, 20, Patch(4, values, paint, mask))
    want = np.broadcast_to(to_np(rows), (20, 9, 3)).copy()
    want[4:7, mask_np] = to_np(paint)[0, mask_np]
    np.testing.assert_array_equal(to_np(materialize(xp, plan)), want)
    out = np.zeros((20, 9, 3), dtype=np.int64)
    target = torch.as_tensor(out, device=dev) if t else out
    gather_into(xp, plan, target)
    np.testing.assert_array_equal(to_np(target), want)
    np.testing.assert_array_equal(to_np(materialize(xp, full_width(xp, plan))), want)


FORMATS = ["native", "rgb10", "rgb16"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("path", ["numpy", "torch-eager"])
def test_every_path_writes_the_patched_frame(path, fmt):
    spec = vramp()
    with Engine(spec, path=path, fmt=fmt, reuse_static=False) as eng:
        for i in (0, 5, 21):
            res = eng.render(i)
            assert res.error is None and res.path == path
            np.testing.assert_array_equal(res.data, F.convert_frame(render(spec, i), fmt, 10))


@pytest.mark.parametrize("fmt", FORMATS + ["rgb8"])
def test_the_graph_gather_without_a_host_buffer_writes_the_patched_frame(fmt):
    # the form a CUDA or MPS graph runs (no host buffer to write into), evaluated eagerly
    spec = make_spec("ramp", {"direction": "vertical"}, width=W, height=H, bit_depth=8, counter_bits=6)
    frame = torch.tensor(9)
    got = compiled_gather(torch, frame_rows(torch, spec, fmt, frame, torch.device("cpu")), realize_op())
    want = F.convert_frame(render(spec, 9), fmt, 8)
    np.testing.assert_array_equal(got.contiguous().view(-1).numpy().view(np.uint8),
                                  np.ascontiguousarray(want).view(np.uint8).reshape(-1))


@pytest.mark.slow
@pytest.mark.skipif(path_problem("torch-compiled", "cpu") is not None,
                    reason=str(path_problem("torch-compiled", "cpu")))
@pytest.mark.parametrize("fmt", FORMATS)
def test_compiled_patched_frame_is_exact_in_one_graph(fmt):
    torch._dynamo.reset()
    spec = vramp(scroll=2)
    with Engine(spec, path="torch-compiled", fmt=fmt, background_compile=False, reuse_static=False) as eng:
        assert eng.compile_error is None
        for i in (0, 1, 2, 40):
            res = eng.render(i)
            assert res.error is None and res.path == "torch-compiled"
            np.testing.assert_array_equal(res.data, F.convert_frame(render(spec, i), fmt, 10))
        assert eng.graphs == 1


@pytest.mark.slow
@pytest.mark.skipif(path_problem("torch-compiled", "cpu") is not None,
                    reason=str(path_problem("torch-compiled", "cpu")))
@pytest.mark.parametrize("name, params, counter_bits", [
    pytest.param("ramp", {"direction": "vertical", "scroll": 2}, 6, id="vramp-counter"),
    pytest.param("zone_plate", {}, None, id="zone-plate"),
    pytest.param("zone_plate", {}, 4, id="zone-plate-counter"),
])
@pytest.mark.parametrize("fmt", ["native", "rgb10"])
def test_the_graph_a_gpu_runs_compiles_exact_on_the_cpu(monkeypatch, name, params, counter_bits, fmt):
    # CUDA and MPS graphs return the frame (no host buffer inside the graph);
    # compile that same form with CPU Inductor
    from core.engine import engine as E

    real_init = E.CompiledRenderer.__init__

    def returning_frame(self, *a, **k):
        real_init(self, *a, **k)
        self.in_place = False

    monkeypatch.setattr(E.CompiledRenderer, "__init__", returning_frame)
    torch._dynamo.reset()
    spec = make_spec(name, params, width=W, height=H - 1, counter_bits=counter_bits)
    with Engine(spec, path="torch-compiled", fmt=fmt, background_compile=False, reuse_static=False) as eng:
        assert eng.compile_error is None
        for i in (0, 3):
            res = eng.render(i)
            assert res.error is None and res.path == "torch-compiled"
            np.testing.assert_array_equal(res.data, F.convert_frame(render(spec, i), fmt, 10))
        assert eng.graphs == 1


# ---------------------------------------------------------------- APL from the plan
APL_SIZES = [(160, 90), (333, 187), (1280, 720)]
APL_VARIANTS = [
    {},
    {"limited": True},
    {"counter_bits": 8},
    {"roi": (10, 7, 101, 53)},
]


def _apl_specs():
    from core.patterns import catalog

    for pat in catalog():
        variants = [dict(v) for v in APL_VARIANTS if not (pat.name == "counter" and "counter_bits" in v)]
        names = {p.name for p in pat.params}
        if "direction" in names:
            variants.append({"params": {"direction": "vertical"}, "counter_bits": 6})
        if pat.name == "window":
            variants.append({"params": {"background_mode": "apl", "apl": 30.0, "area": 25.0}})
        for v in variants:
            yield pat.name, v


@pytest.mark.parametrize("size", APL_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name, variant", list(_apl_specs()),
                         ids=[f"{n}-{i}" for i, (n, _v) in enumerate(_apl_specs())])
def test_plan_apl_equals_the_rendered_frame_exactly(name, variant, size):
    from core.plan import plan_apl

    variant = dict(variant)
    params = variant.pop("params", {})
    if name == "scale_chart":   # drawn at 1280x720 or more: the same steps above its smallest size
        size = (size[0] + SCALE_CHART_MIN[0], size[1] + SCALE_CHART_MIN[1])
    spec = make_spec(name, params, width=size[0], height=size[1], bit_depth=10, **variant)
    for frame in (0, 5):
        frame_px = render(spec, frame).astype(np.int64)
        apl = plan_apl(render_plan(spec, frame), spec.levels)
        assert apl.total == int(frame_px.sum()) and apl.count == frame_px.size
        assert apl.mean_code == int(frame_px.sum()) / frame_px.size          # the same float
        assert apl.channel_means == tuple(int(s) / (size[0] * size[1])
                                          for s in frame_px.sum(axis=(0, 1)))
        lv = spec.levels
        assert apl.percent == pytest.approx(100 * (frame_px.mean() - lv.black) / (lv.white - lv.black))


def test_plan_apl_on_torch_rows_is_the_numpy_figure(backend):
    from core.plan import plan_apl

    xp, dev = backend
    spec = vramp(scroll=3)
    ref = plan_apl(render_plan(spec, 7), spec.levels)
    assert plan_apl(render_plan(spec, 7, xp, dev), spec.levels) == ref


def test_plan_apl_of_a_patch_with_gaps_in_its_mask():
    from core.plan import plan_apl

    rows = np.arange(H * 3, dtype=np.int64).reshape(H, 1, 3) % 1024
    mask = (np.arange(W) % 3) == 0
    paint = np.full((1, W, 3), 1000, np.int64) - np.arange(W)[None, :, None]
    patch = Patch(11, rows[11:20], paint, mask)
    plan = Rows(rows, np.arange(H), W, H, patch)
    frame = materialize(np, plan)
    apl = plan_apl(plan, 10)
    assert apl.total == int(frame.sum())
    assert apl.percent == pytest.approx(100 * frame.mean() / 1023)
