"""``Engine.render(index, out=)``: the frame written straight into foreign memory (a mapped pixel
buffer), identical to the engine's own buffer, with no frame-sized copy; wrong buffers refused
before anything is written."""

import tracemalloc

import numpy as np
import pytest

from core.engine import Engine, path_problem
from core.engine import formats as F
from core.patterns import make_spec, render

FORMATS = [("rgb8", 8), ("rgb10", 10), ("rgb16", 10), ("native", 10)]


def expected(spec, index, fmt):
    return F.convert_frame(render(spec, index), fmt, spec.bit_depth, spec.dtype)


@pytest.mark.parametrize("path", ["numpy", "torch-eager"])
@pytest.mark.parametrize("fmt, bits", FORMATS)
def test_a_frame_written_into_out_is_the_frame(path, fmt, bits):
    spec = make_spec("counter", {"bits": 8}, width=64, height=36, bit_depth=bits)
    with Engine(spec, path=path, fmt=fmt) as eng:
        shape, dtype = eng.frame_layout
        own = eng.render(3).data
        before = own.copy()
        outs = [np.full(shape, 7, dtype), np.full(shape, 9, dtype)]
        for i, out in enumerate(outs):
            r = eng.render(10 + i, out=out)
            assert r.data is out and r.error is None and r.path == path
            np.testing.assert_array_equal(out, expected(spec, 10 + i, fmt))
        np.testing.assert_array_equal(own, before)          # its own buffer untouched
        np.testing.assert_array_equal(eng.render(4).data, expected(spec, 4, fmt))


def test_a_static_frame_is_rendered_into_every_out_asked():
    spec = make_spec("bars", {}, width=64, height=36, bit_depth=8)
    with Engine(spec, fmt="rgb8") as eng:
        eng.render(0)
        out = np.zeros(*eng.frame_layout)
        r = eng.render(1, out=out)
        assert r.data is out and eng.frames_rendered == 2   # the caller keeps what it shows
        np.testing.assert_array_equal(out, expected(spec, 0, "rgb8"))


def test_writing_into_out_allocates_no_frame_sized_arrays():
    spec = make_spec("checkerboard", {"invert_every": 1}, width=512, height=288, counter_bits=8)
    with Engine(spec, path="numpy", fmt="rgb10") as eng:
        out = np.zeros(*eng.frame_layout)
        eng.render(0, out=out)
        tracemalloc.start()
        try:
            for i in range(1, 5):
                eng.render(i, out=out)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < out.nbytes / 4, f"{peak} bytes for a {out.nbytes}-byte frame"


@pytest.mark.parametrize("make, what", [
    (lambda s, d: np.zeros((36, 63), d), "shape (36, 63)"),
    (lambda s, d: np.zeros(s, np.int32), "dtype int32"),
    (lambda s, d: np.zeros((36, 128), d)[:, ::2], "strided"),
    (lambda s, d: np.zeros(s, d).copy().view(), "read-only"),
    (lambda s, d: [0] * 4, "list"),
])
def test_a_wrong_out_is_refused_before_anything_is_written(make, what):
    spec = make_spec("counter", {"bits": 8}, width=64, height=36, bit_depth=10)
    with Engine(spec, fmt="rgb10") as eng:
        shape, dtype = eng.frame_layout
        out = make(shape, dtype)
        if what == "read-only":
            out.flags.writeable = False
        with pytest.raises(ValueError, match=r"out: expected a writable C-contiguous \(36, 64\) uint32") as e:
            eng.render(1, out=out)
        assert what in str(e.value)
        if isinstance(out, np.ndarray):
            assert not out.any()                              # nothing was written


@pytest.mark.slow
@pytest.mark.skipif(path_problem("torch-compiled", "cpu") is not None,
                    reason=str(path_problem("torch-compiled", "cpu")))
def test_the_compiled_graph_writes_into_out_without_another_graph():
    import torch

    torch._dynamo.reset()
    spec = make_spec("counter", {"bits": 8}, width=64, height=36, bit_depth=10)
    with Engine(spec, path="torch-compiled", fmt="rgb10", background_compile=False) as eng:
        outs = [np.zeros(*eng.frame_layout) for _ in range(2)]
        for i in range(6):
            r = eng.render(i, out=outs[i % 2])
            assert r.error is None and r.path == "torch-compiled" and r.data is outs[i % 2]
            np.testing.assert_array_equal(outs[i % 2], expected(spec, i, "rgb10"))
        assert eng.graphs == 1
    torch._dynamo.reset()
