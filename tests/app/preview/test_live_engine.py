"""The live output's engine and its path decision, without a loop or a presenter (no Qt)."""

import pytest

from app.preview.live_engine import LiveEngine
from core.patterns import make_spec


def spec_of(**kw):
    return make_spec("checkerboard", {}, **{"width": 64, "height": 36, "bit_depth": 8, **kw})


def test_a_new_spec_keeps_the_engine_while_the_decided_path_is_its_path():
    live = LiveEngine()
    assert live.engine is None and live.active_path == "numpy"
    assert live.rebuild(spec_of(), "rgb8", device="cpu", reuse_static=True)   # the first: a new layout
    engine = live.engine
    assert (live.path, live.path_source, live.fmt) == ("numpy", "default", "rgb8")
    assert not live.take(spec_of(counter_bits=8), "rgb8", device="cpu", reuse_static=True)
    assert live.engine is engine and live.engine.spec == spec_of(counter_bits=8)
    assert live.take(spec_of(width=128, height=72), "rgb8", device="cpu", reuse_static=True)
    assert live.engine is engine                          # another size: the same engine, a new layout
    assert live.redecide(spec_of(width=128, height=72), "rgb8", device="cpu", reuse_static=True) is None
    assert live.engine is engine
    live.close()


def test_another_display_format_builds_another_engine_and_says_what_its_depth_rounds():
    live = LiveEngine()
    live.rebuild(spec_of(bit_depth=10), "rgb8", device="cpu", reuse_static=True)
    first = live.engine
    assert live.rounding_note.startswith("8-bit surface: ")       # 10-bit codes on an 8-bit surface
    assert live.rebuild(spec_of(bit_depth=10), "rgb10", device="cpu", reuse_static=True)
    assert live.engine is not first and live.fmt == "rgb10" and live.rounding_note == ""
    live.close()


def test_a_pinned_path_is_its_decision_and_a_refused_spec_leaves_the_engine(monkeypatch):
    monkeypatch.setenv("TESTCARD_RENDER_PATH", "numpy")
    live = LiveEngine()
    live.rebuild(spec_of(), "rgb8", device="cpu", reuse_static=True)
    engine = live.engine
    assert (live.path, live.path_source) == ("numpy", "pin")
    with pytest.raises(ValueError):
        live.rebuild(spec_of(), "rgb8", device="no-such-device", reuse_static=True)
    assert live.engine is engine and live.path == "numpy"
    live.close()
