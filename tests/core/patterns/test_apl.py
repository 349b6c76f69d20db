"""A frame's APL and the window's constant-APL target: what the editor and status bar show."""

import numpy as np
import pytest

from core.patterns import frame_apl, make_spec, render, window_geometry
from core.patterns.fills import window_background
from core.patterns.spec import Ctx


def window(width=320, height=180, bit_depth=10, **params):
    return make_spec("window", params, width=width, height=height, bit_depth=bit_depth)


def test_fixed_window_reports_the_frame_apl_and_no_target():
    spec = window(area=25.0)
    frame = render(spec).astype(np.int64)
    apl = frame_apl(spec)
    assert apl.mean_code == int(frame.sum()) / frame.size
    assert apl.percent == pytest.approx(100 * frame.mean() / 1023)
    assert apl.target is None and apl.computed == () and apl.reachable


@pytest.mark.parametrize("level", [10.0, 18.0, 50.0, 75.0])
@pytest.mark.parametrize("limited", [False, True])
def test_constant_apl_window_shows_the_background_on_screen_and_holds_the_target(level, limited):
    spec = make_spec("window", {"background_mode": "apl", "apl": level, "area": 10.0, "color": "75%"},
                     width=320, height=180, bit_depth=10, limited=limited)
    frame = render(spec).astype(np.int64)
    apl = frame_apl(spec)
    (name, background), = apl.computed
    assert name == "background"
    assert tuple(frame[0, 0]) == background                # the grey the screen shows
    assert background != (0, 0, 0) and background != spec.param_dict["background"]
    assert apl.reachable and apl.target == level
    # each channel's background is rounded to a code, so the mean is within half a code of it
    x, y, w, h = window_geometry(320, 180, 10.0, 0.5, 0.5)
    slack = 0.5 * (320 * 180 - w * h) / (320 * 180)
    assert abs(apl.mean_code - spec.levels.level(level)) <= slack
    assert apl.mean_code == int(frame.sum()) / frame.size


def test_the_computed_background_is_the_bodys_own():
    spec = window(background_mode="apl", apl=30.0, area=40.0)
    p = spec.param_dict
    x, y, w, h = window_geometry(spec.width, spec.height, p["area"], p["cx"], p["cy"])
    ctx = Ctx(np, None, spec.width, spec.height, spec.levels, 0)
    assert dict(frame_apl(spec).computed)["background"] == window_background(ctx, p, w * h)


def test_a_white_half_frame_window_cannot_hold_10_percent():
    spec = window(background_mode="apl", apl=10.0, area=50.0, color="100%")
    apl = frame_apl(spec)
    assert not apl.reachable
    assert "APL 10 % cannot be reached in red, green, blue" in apl.problem
    x, y, w, h = window_geometry(320, 180, 50.0, 0.5, 0.5)
    covered = 100 * w * h / (320 * 180)                         # 49.8 %: the patch is whole pixels
    assert f"over {covered:.1f} % of the frame allows {covered:.1f}..100.0 %" in apl.problem
    assert apl.percent == pytest.approx(covered)                # background clamped at black
    assert dict(apl.computed)["background"] == (0, 0, 0)


def test_a_target_above_what_a_dark_window_allows_is_flagged_too():
    apl = frame_apl(window(background_mode="apl", apl=95.0, area=50.0, color="0%"))
    assert not apl.reachable and "allows 0.0..50.2 %" in apl.problem


def test_only_the_channel_that_cannot_hold_it_is_named():
    apl = frame_apl(window(background_mode="apl", apl=40.0, area=50.0, color="1023,0,0"))
    assert not apl.reachable
    assert "cannot be reached in red:" in apl.problem


def test_a_full_frame_window_holds_only_its_own_level():
    lv = window().levels
    ok = frame_apl(window(background_mode="apl", apl=50.0, area=100.0, color=str(lv.level(50.0))))
    assert ok.reachable
    bad = frame_apl(window(background_mode="apl", apl=50.0, area=100.0, color="100%"))
    assert not bad.reachable


def test_fixed_mode_never_flags_the_apl_field():
    assert frame_apl(window(background_mode="fixed", apl=1.0, area=90.0)).reachable


def test_text_names_percent_mean_code_and_target():
    apl = frame_apl(window(bit_depth=8, background_mode="apl", apl=18.0))
    # 18 % at 8 bits is code 46; the background is whole codes, so the frame sits a little above
    assert apl.text() == "APL 18.1 % (mean code 46.2 of 255), target 18 %"
