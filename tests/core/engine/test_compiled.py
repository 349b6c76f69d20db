"""The compiled path on CPU Inductor: one graph per spec, background compile, identical bytes.

Frames are tiny so Inductor stays quick in CI; each spec compiles once per test.
"""

import threading

import numpy as np
import pytest
import torch
from torch._dynamo.utils import counters

from core.engine import Engine, path_problem
from core.engine import engine as E
from core.engine import formats as F
from core.patterns import make_spec, render

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(path_problem("torch-compiled", "cpu") is not None,
                       reason=str(path_problem("torch-compiled", "cpu"))),
]

# every animated pattern, a counter over a static one, and each display format
ANIMATED = [
    pytest.param("counter", {}, None, "rgb10", id="counter-rgb10"),
    pytest.param("checkerboard", {"invert_every": 3, "tile": 7}, None, "native", id="checkerboard-native"),
    pytest.param("ramp", {"scroll": 5}, None, "rgb16", id="ramp-scroll-rgb16"),
    pytest.param("ramp", {"scroll": 2, "direction": "vertical"}, None, "rgb10", id="vramp-scroll-rgb10"),
    pytest.param("bars", {}, 6, "rgb8", id="bars-counter-rgb8"),
    pytest.param("ramp", {"direction": "vertical"}, 6, "rgb10", id="vramp-counter-rgb10"),
]


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    counters.clear()
    yield
    torch._dynamo.reset()


def expected(spec, frame, fmt):
    return F.convert_frame(render(spec, frame), fmt, spec.bit_depth, spec.dtype)


@pytest.mark.parametrize("name, params, counter_bits, fmt", ANIMATED)
def test_two_hundred_frames_compile_exactly_one_graph(name, params, counter_bits, fmt):
    bits = 8 if fmt == "rgb8" else 10
    spec = make_spec(name, params, width=64, height=36, bit_depth=bits, counter_bits=counter_bits)
    assert spec.animated
    with torch._dynamo.config.patch(error_on_recompile=True):
        with Engine(spec, path="torch-compiled", fmt=fmt, background_compile=False) as eng:
            assert eng.compile_error is None
            for i in range(200):
                res = eng.render(i)
                assert res.error is None, res.error
                assert res.path == "torch-compiled"
                np.testing.assert_array_equal(res.data, expected(spec, i, fmt), err_msg=f"frame {i}")
            assert eng.graphs == 1
    assert counters["stats"]["unique_graphs"] == 1


def test_background_compile_serves_eager_then_compiled_with_identical_bytes(monkeypatch):
    gate = threading.Event()
    real_warm = E.CompiledRenderer.warm

    def gated_warm(self):
        assert gate.wait(120)
        real_warm(self)

    monkeypatch.setattr(E.CompiledRenderer, "warm", gated_warm)
    spec = make_spec("checkerboard", {"invert_every": 2, "tile": 5}, width=64, height=36, counter_bits=8)
    with Engine(spec, path="torch-compiled", fmt="rgb10") as eng:
        # the constructor returned while the compile is held: nothing stalled
        early = [eng.render(i) for i in range(6)]
        assert [r.path for r in early] == ["torch-eager"] * 6
        assert all(r.warmup for r in early)  # served while compiling: not for statistics
        early_bytes = [eng.render(i).data.copy() for i in range(6)]
        gate.set()
        # eager keeps serving, exactly, while the worker traces and compiles
        served, i = 0, 0
        while eng.active_path == "torch-eager" and served < 1_000_000:
            res = eng.render(i % 50)
            assert res.error is None
            if res.path == "torch-eager":
                np.testing.assert_array_equal(res.data, expected(spec, i % 50, "rgb10"))
                served += 1
            i += 1
            if eng.wait_compiled(timeout=0.001):
                break
        assert eng.wait_compiled(timeout=300), eng.compile_error
        later = []
        for i in range(6):
            r = eng.render(i)
            later.append((r.path, r.warmup))
            np.testing.assert_array_equal(r.data, early_bytes[i])  # data is reused: compare now
        assert [p for p, _ in later] == ["torch-compiled"] * 6
        assert later[0][1] and not any(w for _, w in later[1:])
        np.testing.assert_array_equal(eng.render(3).data, expected(spec, 3, "rgb10"))
        assert eng.graphs == 1 and eng.compile_seconds > 0

        # another spec compiles once in the background; going back reuses the first graph
        other = spec.replace(params={"invert_every": 4, "tile": 5})
        eng.set_spec(other)
        assert eng.render(0).path == "torch-eager"
        assert eng.wait_compiled(timeout=300), eng.compile_error
        assert eng.render(1).path == "torch-compiled"
        eng.set_spec(spec)
        res = eng.render(9)
        assert res.path == "torch-compiled" and eng.graphs == 2
        np.testing.assert_array_equal(res.data, expected(spec, 9, "rgb10"))
        eng.set_spec(other)
        assert eng.render(2).path == "torch-compiled" and eng.graphs == 2
    assert counters["stats"]["unique_graphs"] == 2


# Inductor 2.13's C++ loop split drops the tail of a loop whose index divides by a
# constant above 8 that does not divide the size; these sizes would show it.
AWKWARD = [
    pytest.param("checkerboard", {"invert_every": 2, "tile": 16}, 72, 40, "native", id="tile16-72x40-native"),
    pytest.param("pixel_grid", {"size": 8, "mode": "vstripes"}, 72, 40, "rgb10", id="vstripes-72x40-rgb10"),
    pytest.param("grid", {"pitch": 32}, 200, 100, "rgb16", id="grid32-200x100-rgb16"),
    pytest.param("ramp", {"scroll": 16, "direction": "vertical"}, 66, 40, "native", id="vramp-66x40-native"),
    pytest.param("steps", {"count": 11, "direction": "vertical"}, 66, 40, "rgb16", id="vsteps-66x40-rgb16"),
]


@pytest.mark.parametrize("name, params, w, h, fmt", AWKWARD)
def test_sizes_that_do_not_divide_stay_exact(name, params, w, h, fmt):
    spec = make_spec(name, params, width=w, height=h, counter_bits=4)
    with Engine(spec, path="torch-compiled", fmt=fmt, background_compile=False, reuse_static=False) as eng:
        assert eng.compile_error is None
        for i in (0, 1, 2, 3, 33):
            res = eng.render(i)
            assert res.error is None and res.path == "torch-compiled"
            np.testing.assert_array_equal(res.data, expected(spec, i, fmt), err_msg=f"frame {i}")


# The zone plate is many full-width rows: the graph stores its top-half lines over the host
# buffer's first lines and finish_lines mirrors them after the graph (a region of interest
# leaves the lines out of order: the rows are gathered whole).
PER_PIXEL = [
    pytest.param({}, 65, 37, None, None, "rgb10", id="odd-65x37-rgb10"),
    pytest.param({"diameter": 40.0, "amplitude": 70.0}, 64, 36, None, None, "native", id="small-native"),
    pytest.param({}, 66, 40, 4, None, "rgb16", id="counter-rgb16"),
    pytest.param({}, 66, 41, None, (5, 3, 40, 30), "rgb10", id="roi-rgb10"),
]


@pytest.mark.parametrize("params, w, h, counter_bits, roi, fmt", PER_PIXEL)
def test_zone_plate_compiled_is_exact(params, w, h, counter_bits, roi, fmt):
    spec = make_spec("zone_plate", params, width=w, height=h, counter_bits=counter_bits, roi=roi)
    with Engine(spec, path="torch-compiled", fmt=fmt, background_compile=False, reuse_static=False) as eng:
        assert eng.compile_error is None
        for i in (0, 1, 5):
            res = eng.render(i)
            assert res.error is None and res.path == "torch-compiled"
            np.testing.assert_array_equal(res.data, expected(spec, i, fmt), err_msg=f"frame {i}")
        assert eng.graphs == 1
