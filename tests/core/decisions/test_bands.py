import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.decisions import (
    BAND_FORMATS,
    RESOLUTIONS,
    Band,
    band_chain,
    families,
    fingerprint,
    format_band,
    is_fingerprint,
    make_band,
    parse_band,
    representative_spec,
)
from core.patterns import make_spec


@pytest.mark.parametrize("text,name", [
    ("counter@2160p/rgb10", "counter@2160p/rgb10"),
    ("animated@1080p/rgb8", "animated@1080p/rgb8"),
    ("static@3840x2160/rgb16", "static@2160p/rgb16"),
    ("STATIC@2160P/RGB16", "static@2160p/rgb16"),
    ("  checkerboard@1920x1200/rgb10 ", "checkerboard@1920x1200/rgb10"),
])
def test_canonical_names(text, name):
    assert format_band(text) == name
    assert format_band(name) == name


@pytest.mark.parametrize("text,msg", [
    ("counter@2160p", "FAMILY@RESOLUTION/FORMAT"),
    ("nosuch@1080p/rgb8", "unknown family 'nosuch'"),
    ("counter@1080/rgb8", "1080p, 1440p, 2160p or WxH"),
    ("counter@1080p/rgb12", "unknown format 'rgb12'"),
    ("counter@0x10/rgb8", "outside 1..16384"),
    ("counter@1080p/rgb8|x", "FAMILY@RESOLUTION/FORMAT"),
])
def test_bad_names_refused_with_reason(text, msg):
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace("|", r"\|")):
        parse_band(text)


@given(st.sampled_from(families()),
       st.one_of(st.sampled_from(list(RESOLUTIONS)),
                 st.tuples(st.integers(1, 16384), st.integers(1, 16384))),
       st.sampled_from(list(BAND_FORMATS)))
def test_format_parse_round_trip(family, res, fmt):
    band = make_band(family, res, fmt)
    assert parse_band(band.name) == band
    assert format_band(band.name) == band.name
    assert "|" not in band.name


def test_representative_specs():
    a = representative_spec("animated@64x36/rgb10")
    assert a.animated and a.pattern == "checkerboard" and a.counter_bits == 16 and a.bit_depth == 10
    s = representative_spec("static@64x36/rgb8")
    assert not s.animated and s.bit_depth == 8
    # a family that can animate is raced animated
    r = parse_band("ramp@64x36/rgb16").spec()
    assert r.animated and r.bit_depth == 16 and (r.width, r.height) == (64, 36)
    assert parse_band("bars@1080p/rgb10").spec().pattern == "bars"


def test_band_chain_specific_then_generic():
    spec = make_spec("checkerboard", {}, width=1920, height=1080)
    assert [b.name for b in band_chain(spec, "rgb10")] == ["checkerboard@1080p/rgb10",
                                                           "static@1080p/rgb10"]
    moving = make_spec("checkerboard", {}, width=64, height=36, counter_bits=8)
    assert band_chain(moving, "rgb8")[1] == Band("animated", 64, 36, "rgb8")
    assert band_chain(spec, "native") == []


def test_cpu_fingerprint_shape():
    fp = fingerprint("cpu")
    assert is_fingerprint(fp) and fp.startswith("cpu:") and "|" not in fp
    assert fp == fingerprint("cpu")
    assert not is_fingerprint("gpu:x") and not is_fingerprint("cpu:a|b") and not is_fingerprint("cpu:")


def test_missing_device_fingerprint_refused():
    with pytest.raises(ValueError, match="CUDA"):
        fingerprint("cuda:7")
