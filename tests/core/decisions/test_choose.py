"""Choosing a render path (core.decisions.choose): pin > cache > default, fall-through,
per-band pins, the spec's band chain."""

import pytest

from core.decisions import choose_path, choose_path_for, parse_pin
from core.patterns import make_spec
from tests.helpers.decision_helpers import BAND, FP, OTHER, entry, runs_everywhere


def no_compiler(path, device):
    if path == "torch-compiled":
        return "no C++ compiler found (install g++ or clang)"
    if path == "torch-cudagraphs":
        return "CUDA graphs need a CUDA device"
    return None


# ---------------------------------------------------------------- precedence
def test_default_when_nothing_known(cache):
    d = choose_path(BAND, cache=cache, env={}, problem=runs_everywhere)
    assert (d.path, d.source, d.band) == ("numpy", "default", None)
    assert "no pin and no measurement for counter@2160p/rgb10" in d.reason
    assert d.fingerprint == FP and d.fallthrough == ()


def test_cache_beats_default(cache):
    cache.record(FP, BAND, entry("torch-eager"))
    d = choose_path(BAND, cache=cache, env={}, problem=runs_everywhere)
    assert (d.path, d.source, d.band) == ("torch-eager", "cache", BAND)
    assert "2025-03-01" in d.reason


def test_pin_beats_cache(cache):
    cache.record(FP, BAND, entry("torch-eager"))
    d = choose_path(BAND, cache=cache, env={"TESTCARD_RENDER_PATH": "torch-compiled"},
                    problem=runs_everywhere)
    assert (d.path, d.source) == ("torch-compiled", "pin")
    assert d.reason == "pinned by TESTCARD_RENDER_PATH=torch-compiled"


def test_other_devices_entries_are_inert(cache):
    cache.record(OTHER, BAND, entry("torch-cudagraphs", others=("torch-cudagraphs",)))
    d = choose_path(BAND, cache=cache, env={}, problem=runs_everywhere)
    assert d.source == "default"


def test_unrunnable_pin_falls_to_cache_then_unrunnable_cache_to_default(cache):
    cache.record(FP, BAND, entry("torch-compiled"))
    d = choose_path(BAND, cache=cache, env={"TESTCARD_RENDER_PATH": "torch-cudagraphs"},
                    problem=no_compiler)
    assert (d.path, d.source) == ("numpy", "default")
    assert d.fallthrough == (
        "pinned torch-cudagraphs cannot run here: CUDA graphs need a CUDA device",
        "cached torch-compiled for counter@2160p/rgb10 cannot run here: no C++ compiler found "
        "(install g++ or clang)")
    assert "CUDA graphs need a CUDA device" in d.reason and "no C++ compiler" in d.reason
    # the same pin with a runnable cached path: the cache decides, the pin's reason kept
    cache.record(FP, BAND, entry("torch-eager"))
    d = choose_path(BAND, cache=cache, env={"TESTCARD_RENDER_PATH": "torch-cudagraphs"},
                    problem=no_compiler)
    assert (d.path, d.source) == ("torch-eager", "cache") and len(d.fallthrough) == 1


def test_unknown_or_malformed_pin_falls_through(cache, caplog):
    d = choose_path(BAND, cache=cache, env={"TESTCARD_RENDER_PATH": "torch-fast"},
                    problem=runs_everywhere)
    assert d.source == "default"
    assert "'torch-fast' is not a render path" in d.fallthrough[0]
    assert "torch-fast" in caplog.text  # logged
    d = choose_path(BAND, cache=cache, env={"TESTCARD_RENDER_PATH": "nosuch@1080p/rgb8=numpy"},
                    problem=runs_everywhere)
    assert d.source == "default" and "pin ignored" in d.fallthrough[0]


def test_per_band_pins_first_match_wins(cache):
    env = {"TESTCARD_RENDER_PATH": "counter@2160p/rgb10=torch-compiled, *@1080p/*=torch-eager,*=numpy"}
    pick = lambda b: choose_path(b, cache=cache, env=env, problem=runs_everywhere)  # noqa: E731
    d = pick("counter@3840x2160/rgb10")
    assert (d.path, d.source, d.band) == ("torch-compiled", "pin", BAND)
    assert d.reason == "pinned by TESTCARD_RENDER_PATH: counter@2160p/rgb10=torch-compiled"
    assert pick("bars@1080p/rgb8").path == "torch-eager"
    assert pick("bars@2160p/rgb8").path == "numpy"
    # a per-band pin that matches nothing leaves the cache in charge
    cache.record(FP, "static@1440p/rgb8", entry("torch-eager"))
    d = choose_path("static@1440p/rgb8", cache=cache,
                    env={"TESTCARD_RENDER_PATH": "counter@2160p/rgb10=torch-compiled"},
                    problem=runs_everywhere)
    assert d.source == "cache"


def test_parse_pin_syntax():
    assert parse_pin("numpy") == [("*", "numpy")]
    assert parse_pin("COUNTER@3840x2160/RGB10=torch-compiled,*=numpy") == [
        ("counter@2160p/rgb10", "torch-compiled"), ("*", "numpy")]
    assert parse_pin("counter@*=torch-eager") == [("counter@*", "torch-eager")]
    for bad in ("numpy,", "=numpy", "counter@2160p/rgb10=", "counter@9p/rgb10=numpy"):
        with pytest.raises(ValueError):
            parse_pin(bad)


def test_spec_chain_specific_band_then_generic(cache):
    spec = make_spec("checkerboard", {"invert_every": 2}, width=1920, height=1080)
    cache.record(FP, "animated@1080p/rgb10", entry("torch-eager"))
    d = choose_path_for(spec, "rgb10", cache=cache, env={}, problem=runs_everywhere)
    assert (d.path, d.band) == ("torch-eager", "animated@1080p/rgb10")
    cache.record(FP, "checkerboard@1080p/rgb10", entry("torch-compiled"))
    d = choose_path_for(spec, "rgb10", cache=cache, env={}, problem=runs_everywhere)
    assert (d.path, d.band) == ("torch-compiled", "checkerboard@1080p/rgb10")


def test_default_is_the_first_path_that_runs_here(cache):
    def gpu_box(path, device):
        return "the numpy path runs on the CPU only" if path == "numpy" else None

    d = choose_path(BAND, cache=cache, env={}, problem=gpu_box)
    assert (d.path, d.source, d.fallthrough) == ("torch-eager", "default", ())
