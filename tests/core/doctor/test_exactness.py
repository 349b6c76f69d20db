"""The paths check: exact against numpy, a mismatch names its first differing pixel, a missing
device is not available (never ok), compiled paths count their graphs with dynamo's counter."""

import numpy as np
import pytest

from core.doctor import CORRUPT_ENV, FAIL, NOT_AVAILABLE, OK, check_path, first_difference, targets
from core.doctor.exactness import Case, References, catalog_sample, compiled_sample, path_steps
from core.engine import PATHS
from core.patterns import make_spec


def small_cases():
    spec = make_spec("ramp", {"scroll": 3}, width=97, height=55, counter_bits=8)
    return [Case(spec, fmt, (0, 1, 7)) for fmt in ("native", "rgb8", "rgb10", "rgb16")]


def test_targets_cover_every_path_on_every_device_kind():
    got = targets()
    assert ("numpy", "cpu") in got and ("torch-cudagraphs", "cuda") in got
    assert {p for p, _ in got} == set(PATHS)
    assert ("numpy", "cuda") not in got and ("torch-cudagraphs", "cpu") not in got
    assert ("torch-compiled", "mps") in got


def test_the_catalog_sample_has_two_sizes_every_format_and_animates():
    cases = catalog_sample()
    assert {(c.spec.width, c.spec.height) for c in cases} == {(64, 36), (97, 55)}
    assert {c.fmt for c in cases} == {"native", "rgb8", "rgb10", "rgb16"}
    assert any(c.spec.animated and len(c.frames) > 1 for c in cases)
    compiled = compiled_sample()
    assert {c.fmt for c in compiled} == {"native", "rgb8", "rgb10", "rgb16"} and len(compiled) == 4


@pytest.mark.parametrize("path", ["numpy", "torch-eager"])
def test_an_exact_path_is_ok_with_its_frame_count(path):
    c = check_path(path, "cpu", small_cases(), References())
    assert c.verdict == OK, c
    assert c.data["frames"] == 12 and c.data["formats"] == ["native", "rgb10", "rgb16", "rgb8"]


@pytest.mark.parametrize("fmt", ["native", "rgb10"])
def test_a_path_forced_to_mismatch_fails_with_the_first_differing_pixel(monkeypatch, fmt):
    monkeypatch.setenv(CORRUPT_ENV, "torch-eager")
    spec = make_spec("bars", {}, width=97, height=55)
    refs = References()
    c = check_path("torch-eager", "cpu", [Case(spec, fmt, (0,))], refs)
    assert c.verdict == FAIL
    first = c.data["first_difference"]
    want = refs.get(Case(spec, fmt, (0,)), 0)
    y, x = 55 // 2, 97 // 3
    expect = want[y, x, 1] if fmt == "native" else (int(want[y, x]) >> 10) & 1023
    assert (first["y"], first["x"], first["channel"], first["want"]) == (y, x, 1, int(expect))
    assert first["got"] == int(expect) ^ 1
    assert f"first differing pixel y={y} x={x} channel 1" in c.figure
    # the hook names one path: the others stay exact
    assert check_path("numpy", "cpu", [Case(spec, fmt, (0,))], refs).verdict == OK


def test_first_difference_reads_rgb10_words_per_channel():
    want = np.full((2, 3), (3 << 30) | (100 << 20) | (200 << 10) | 300, np.uint32)
    got = want.copy()
    got[1, 2] = (3 << 30) | (100 << 20) | (200 << 10) | 301
    assert first_difference(got, want, "rgb10") == {"y": 1, "x": 2, "channel": 2, "got": 301, "want": 300}
    assert first_difference(want, want, "rgb10") is None
    assert first_difference(np.zeros((2, 2, 3)), np.zeros((2, 3, 3)), "native")["y"] is None


def test_a_missing_cuda_device_is_not_available(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for path in ("torch-eager", "torch-compiled", "torch-cudagraphs"):
        c = check_path(path, "cuda", small_cases(), References())
        assert c.verdict == NOT_AVAILABLE and "no CUDA device" in c.figure
        assert c.figure.startswith("not available: ")


def test_quick_does_not_run_the_compiled_paths():
    steps = {s.name: s for s in path_steps(quick=True)}
    assert steps["torch-compiled on cpu"].skip.startswith("not run (--quick)")
    assert steps["numpy on cpu"].skip is None and steps["torch-eager on cpu"].skip is None


def test_the_compiled_path_is_exact_with_one_graph_per_compile():
    import torch

    torch._dynamo.reset()
    spec = make_spec("counter", {}, width=64, height=36)
    c = check_path("torch-compiled", "cpu", [Case(spec, "rgb10", (0, 1, 977))], References())
    if c.verdict == NOT_AVAILABLE:
        pytest.fail(f"this box should compile on the CPU: {c.figure}")
    assert c.verdict == OK, c
    assert c.data["graphs"] == 1 and c.data["frames"] == 3


@pytest.mark.cuda
@pytest.mark.parametrize("path", ["torch-eager", "torch-compiled", "torch-cudagraphs"])
def test_cuda_paths_are_exact_and_pinned(path):
    import torch

    torch._dynamo.reset()
    cases = compiled_sample() if path != "torch-eager" else catalog_sample()
    c = check_path(path, "cuda", cases, References())
    assert c.verdict == OK, c
    assert c.data["pinned"] is True
    if path != "torch-eager":
        assert c.data["graphs"] == len(cases)
