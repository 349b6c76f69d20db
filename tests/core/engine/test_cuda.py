"""CUDA legs of the frame engine (opt in with ``pytest -m cuda``; never in CI).

The timing targets are checked by ``packaging/gpu_check.py``, not here: tests
never assert wall-clock times.
"""

import subprocess
import sys

import numpy as np
import pytest

from core.engine import Engine, path_problem
from core.engine import formats as F
from core.patterns import make_spec, render
from tests.helpers import ROOT


@pytest.fixture(autouse=True)
def fresh_dynamo():
    import torch

    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def test_gpu_check_prints_one_json_document_without_a_gpu():
    if path_problem("torch-eager", "cuda") is None:
        pytest.skip("this box has CUDA; the cuda legs below run the real checks")
    import json

    out = subprocess.run([sys.executable, str(ROOT / "packaging" / "gpu_check.py")], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 2
    doc = json.loads(out.stdout)
    assert doc["ok"] is False and "CUDA" in doc["reason"]


# few rows; one value per line with a counter patch; many full-width rows (per pixel)
SPECS = [
    pytest.param("checkerboard", {"invert_every": 2, "tile": 5}, 8, id="checkerboard"),
    pytest.param("ramp", {"direction": "vertical", "scroll": 3}, 6, id="vramp-counter"),
    pytest.param("zone_plate", {}, None, id="zone-plate"),
]


@pytest.mark.cuda
@pytest.mark.parametrize("path", ["torch-eager", "torch-compiled", "torch-cudagraphs"])
@pytest.mark.parametrize("fmt", ["native", "rgb10", "rgb16"])
@pytest.mark.parametrize("name, params, counter_bits", SPECS)
def test_cuda_paths_are_exact_and_land_in_pinned_memory(path, fmt, name, params, counter_bits):
    spec = make_spec(name, params, width=64, height=36, counter_bits=counter_bits)
    with Engine(spec, path=path, device="cuda", fmt=fmt, background_compile=False,
                reuse_static=False) as eng:
        assert eng.compile_error is None
        assert eng._target.host_tensor.is_pinned()
        buf = None
        for i in range(12):
            res = eng.render(i)
            assert res.error is None and res.path == path
            buf = buf if buf is not None else res.data
            assert res.data is buf
            np.testing.assert_array_equal(res.data, F.convert_frame(render(spec, i), fmt, 10))
        if path != "torch-eager":
            assert eng.graphs == 1


@pytest.mark.cuda
def test_cudagraph_outputs_are_copied_before_the_next_replay():
    spec = make_spec("counter", {}, width=64, height=36)
    with Engine(spec, path="torch-cudagraphs", device="cuda", fmt="rgb10", background_compile=False) as eng:
        kept = [eng.render(i).data.copy() for i in range(8)]
    for i, frame in enumerate(kept):
        np.testing.assert_array_equal(frame, F.convert_frame(render(spec, i), "rgb10", 10))
