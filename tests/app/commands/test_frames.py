"""``testcard bench frames``: figures as JSON and text; bad input is one line and exit 2."""

import json

import pytest
import torch

from app.cli import main
from core.engine import bench_frames, path_problem
from core.patterns import make_spec

KEYS = {"path", "device", "frames", "graphs", "compile_s", "render_ms", "transfer_ms", "baseline_ms", "ratio"}


@pytest.mark.parametrize("path", ["numpy", "torch-eager"])
def test_json_has_the_promised_keys(path, capsys):
    rc = main(["bench", "frames", "--pattern", "checkerboard", "--set", "invert_every=2", "--size", "64x36",
               "--path", path, "--frames", "12", "--format", "rgb10", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert KEYS <= set(out)
    assert out["path"] == path and out["device"] == "cpu" and out["frames"] == 12
    assert out["graphs"] == 0 and out["served"] == {path: 12} and out["errors"] == 0
    assert set(out["render_ms"]) >= {"median", "p99"} and set(out["transfer_ms"]) >= {"median", "p99"}
    assert out["baseline_ms"] > 0 and out["ratio"] == pytest.approx(out["render_ms"]["median"]
                                                                    / out["baseline_ms"], rel=0.05)


def test_text_output_names_the_figures(capsys):
    assert main(["bench", "frames", "--pattern", "ramp", "--set", "scroll=4", "--size", "64x36",
                 "--frames", "5"]) == 0
    text = capsys.readouterr().out
    for word in ("render", "transfer", "baseline", "ratio", "graphs", "compile"):
        assert word in text


@pytest.mark.parametrize("argv, message", [
    (["--path", "torch-jit"], "unknown render path 'torch-jit'"),
    (["--path", "torch-eager", "--device", "cuda:7"], "CUDA"),
    (["--path", "torch-eager", "--device", "banana"], "unknown device"),
    (["--path", "numpy", "--device", "mps"], ""),
    (["--format", "rgb12"], "unknown format 'rgb12'"),
    (["--format", "rgb8"], "do not fit rgb8"),
    (["--frames", "0"], "--frames"),
    (["--set", "tile=0"], "tile"),
])
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    rc = main(["bench", "frames", "--pattern", "checkerboard", "--size", "64x36", *argv])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert len(err.splitlines()) == 1 and err.startswith("testcard: error:") and message in err


def test_unknown_pattern_is_one_line(capsys):
    assert main(["bench", "frames", "--pattern", "nope", "--size", "64x36"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.slow
@pytest.mark.skipif(path_problem("torch-compiled", "cpu") is not None, reason="no C++ compiler")
def test_compiled_bench_counts_one_graph():
    torch._dynamo.reset()
    spec = make_spec("counter", {}, width=64, height=36)
    out = bench_frames(spec, path="torch-compiled", fmt="rgb10", frames=40)
    torch._dynamo.reset()
    assert out["graphs"] == 1 and out["compile_s"] > 0
    assert out["served"] == {"torch-compiled": 40} and out["errors"] == 0
