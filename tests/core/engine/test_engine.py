"""The frame engine without compiling: paths, refusals, buffers, static reuse, failures."""

import threading
import tracemalloc

import numpy as np
import pytest

from core.engine import PATHS, Engine, RenderedFrame, available_paths, path_problem
from core.engine import engine as E
from core.engine import formats as F
from core.engine import renderers as R
from core.patterns import make_spec, render


def spec_of(name="checkerboard", w=64, h=36, **kw):
    params = kw.pop("params", {"invert_every": 2} if name == "checkerboard" else {})
    return make_spec(name, params, width=w, height=h, **kw)


# ---------------------------------------------------------------- availability
def test_available_paths_names_every_path_and_says_why_not():
    got = available_paths("cpu")
    assert tuple(got) == PATHS
    assert got["numpy"] is None and got["torch-eager"] is None
    assert "CUDA device" in got["torch-cudagraphs"]


def test_reasons_for_unknown_or_impossible_paths():
    assert "unknown render path" in path_problem("torch-jit", "cpu")
    assert "CPU only" in path_problem("numpy", "cuda")
    assert "unknown device" in path_problem("torch-eager", "tpu:7")
    assert "needs a CUDA device" in path_problem("torch-cudagraphs", "cpu")


def test_missing_cpp_compiler_is_named(monkeypatch):
    monkeypatch.setenv("PATH", "")
    monkeypatch.delenv("CXX", raising=False)
    from torch._inductor import config

    # config.patch restores the option; monkeypatch.setattr would delete it on undo and
    # break every later compile in the session
    with config.patch({"cpp.cxx": (None, "g++-that-does-not-exist")}):
        why = path_problem("torch-compiled", "cpu")
        assert why is not None and "needs a C++ compiler" in why and "torch-eager" in why
        assert path_problem("torch-eager", "cpu") is None
    assert config.cpp.cxx != (None, "g++-that-does-not-exist")


@pytest.mark.parametrize("kwargs, message", [
    ({"path": "torch-jit"}, "unknown render path"),
    ({"path": "torch-eager", "device": "quantum"}, "unknown device"),
    ({"path": "numpy", "device": "cuda"}, "CPU only"),
    ({"path": "torch-cudagraphs"}, "needs a CUDA device"),
    ({"fmt": "rgb12"}, "unknown format"),
    ({"fmt": "rgb8"}, "do not fit rgb8"),
])
def test_engine_refuses_bad_requests_with_a_reason(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Engine(spec_of(), **kwargs)


def test_rounding_is_allowed_on_request_and_said():
    with Engine(spec_of(bit_depth=16), fmt="rgb8", allow_rounding=True) as eng:
        assert not eng.exact and eng.note.endswith("scaled by round(v*255/65535), rounded")
    with Engine(spec_of(bit_depth=10), fmt="rgb16") as eng:
        assert eng.exact


# ---------------------------------------------------------------- frames and buffers
@pytest.mark.parametrize("path", ["numpy", "torch-eager"])
def test_frames_match_the_reference_and_reuse_one_buffer(path):
    spec = spec_of("ramp", params={"scroll": 5}, counter_bits=6)
    with Engine(spec, path=path, fmt="rgb10") as eng:
        first = eng.render(0)
        assert isinstance(first, RenderedFrame) and first.path == path and first.warmup
        buf = first.data
        for i in range(1, 40):
            res = eng.render(i)
            assert res.data is buf and not res.warmup and res.error is None
            assert res.render_ms >= 0 and res.transfer_ms == 0
            np.testing.assert_array_equal(res.data, F.convert_frame(render(spec, i), "rgb10", 10))
        assert eng.active_path == path and eng.graphs == 0


def test_numpy_steady_state_allocates_no_frame_sized_arrays():
    # (a counter over a vertical ramp is left out: overlay_counter widens that plan's
    # one-value-per-line rows to full int64 width before painting the band)
    for name, params, counter in [("checkerboard", {"invert_every": 1}, 8), ("ramp", {"scroll": 3}, 8),
                                  ("ramp", {"scroll": 3, "direction": "vertical"}, None)]:
        spec = make_spec(name, params, width=512, height=288, counter_bits=counter)
        with Engine(spec, path="numpy", fmt="rgb10") as eng:
            eng.render(0)
            tracemalloc.start()
            try:
                for i in range(1, 5):
                    eng.render(i)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            frame_bytes = eng.render(5).data.nbytes
            assert peak < frame_bytes / 4, f"{name} {params}: {peak} bytes for a {frame_bytes}-byte frame"


def test_static_pattern_is_rendered_once_and_reused(monkeypatch):
    calls = []
    real = R.frame_rows
    monkeypatch.setattr(R, "frame_rows", lambda *a, **k: calls.append(1) or real(*a, **k))
    spec = spec_of("bars")
    assert not spec.animated
    with Engine(spec, path="torch-compiled", background_compile=True) as eng:
        results = [eng.render(i) for i in range(10)]
        assert len(calls) == 1
        # a static spec never compiles: there is nothing per frame to gain
        assert eng.graphs == 0 and eng.active_path == "torch-eager"
    assert all(r.path == "torch-eager" for r in results)
    assert all(r.render_ms == 0 for r in results[1:])
    np.testing.assert_array_equal(results[-1].data, render(spec, 0))
    # benchmarks ask for the work every frame
    calls.clear()
    with Engine(spec, reuse_static=False) as eng:
        for i in range(3):
            eng.render(i)
    assert len(calls) == 3


def test_counter_overlay_makes_a_static_pattern_animate():
    spec = spec_of("bars", counter_bits=4)
    with Engine(spec) as eng:
        a = eng.render(1).data.copy()
        b = eng.render(2).data.copy()
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(b, render(spec, 2))


def test_set_spec_switches_frames_and_buffers():
    with Engine(spec_of(), fmt="rgb16") as eng:
        eng.render(0)
        other = spec_of("ramp", params={"scroll": 1}, w=32, h=18)
        eng.set_spec(other)
        res = eng.render(3)
        assert res.data.shape == (18, 32, 4)
        np.testing.assert_array_equal(res.data, F.convert_frame(render(other, 3), "rgb16", 10))
        eng.set_spec(other)  # the same spec again changes nothing
        assert eng.spec is other


def test_bad_frame_index_is_refused():
    with Engine(spec_of()) as eng:
        for bad in (-1, 1.5, "3", True):
            with pytest.raises(ValueError, match="frame index"):
                eng.render(bad)


# ---------------------------------------------------------------- failures never reach the caller
@pytest.mark.parametrize("path", ["numpy", "torch-eager"])
def test_a_failing_render_reports_the_frame_and_keeps_the_last_good_one(path, monkeypatch):
    spec = spec_of()
    with Engine(spec, path=path) as eng:
        good = eng.render(4).data.copy()
        real = R.frame_rows

        def broken(xp, s, fmt, frame, device=None, into=None):
            raise RuntimeError("device lost")

        monkeypatch.setattr(R, "frame_rows", broken)
        res = eng.render(5)
        assert res.error is not None and "frame 5" in res.error and "device lost" in res.error
        np.testing.assert_array_equal(res.data, good)
        monkeypatch.setattr(R, "frame_rows", real)
        res = eng.render(6)
        assert res.error is None and res.path == path
        np.testing.assert_array_equal(res.data, render(spec, 6))


def test_a_failing_compiled_path_falls_back_to_eager(monkeypatch):
    gate = threading.Event()
    monkeypatch.setattr(E.CompiledRenderer, "warm", lambda self: gate.set())

    def explode(self):
        raise RuntimeError("kernel crashed")

    monkeypatch.setattr(E.CompiledRenderer, "produce", explode)
    spec = spec_of()
    with Engine(spec, path="torch-compiled") as eng:
        assert eng.wait_compiled(timeout=30)
        res = eng.render(7)
        assert res.error and "frame 7" in res.error and "torch-compiled" in res.error
        assert eng.active_path == "torch-eager"
        after = eng.render(8)
        assert after.error is None and after.path == "torch-eager"
        np.testing.assert_array_equal(after.data, render(spec, 8))
        assert "kernel crashed" in eng.compile_error


def test_a_failing_compile_leaves_eager_serving(monkeypatch):
    def fail(self):
        raise RuntimeError("no compiler today")

    monkeypatch.setattr(E.CompiledRenderer, "warm", fail)
    with Engine(spec_of(), path="torch-compiled") as eng:
        assert not eng.wait_compiled(timeout=30)
        assert "no compiler today" in eng.compile_error
        res = eng.render(3)
        assert res.error is None and res.path == "torch-eager"


def test_close_never_waits_for_a_compile_unless_asked(monkeypatch):
    gate, started = threading.Event(), threading.Event()

    def held(self):
        started.set()
        assert gate.wait(30)

    monkeypatch.setattr(E.CompiledRenderer, "warm", held)
    eng = Engine(spec_of(), path="torch-compiled")
    assert started.wait(30)
    eng.close()                     # returns while the compile is still held
    worker = next(iter(eng._jobs.values()))
    assert worker.is_alive()
    gate.set()
    eng.close(wait=True)
    assert not worker.is_alive()
    assert eng.render(1).path == "torch-eager"  # a closed engine drops late compiles
