"""RemotePatch and its testcard frame: code values land exactly, geometry pixel for pixel."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.patterns import make_spec, render, window_patch
from core.remote import (
    RemoteError,
    RemotePatch,
    clip_rect,
    convert_codes,
    patch_rect_px,
    pgenerator,
    resolve,
    senders,
    to_spec_params,
    upgci,
    window_rect,
)


def patch(color=(514, 514, 514), background=(0, 0, 0), bits=10, rect=(0.4, 0.4, 0.2, 0.2),
          video_levels=False, source="resolve"):
    return RemotePatch(color=color, background=background, bits=bits, rect=rect,
                       video_levels=video_levels, source=source, received_s=1.0, raw="x" * 500)


def expected_frame(p: RemotePatch, width: int, height: int, bit_depth: int) -> np.ndarray:
    """What the screen must show: the background, and the patch's pixels (patch_rect_px)."""
    x, y, w, h = patch_rect_px(p.rect, width, height)
    out = np.empty((height, width, 3), np.int64)
    out[:] = convert_codes(p.background, p.bits, p.video_levels, bit_depth)
    out[y:y + h, x:x + w] = convert_codes(p.color, p.bits, p.video_levels, bit_depth)
    return out


def shown(p: RemotePatch, width: int, height: int, bit_depth: int, limited: bool = False):
    name, params, note = to_spec_params(p, bit_depth, limited, size=(width, height))
    frame = render(make_spec(name, params, width=width, height=height, bit_depth=bit_depth,
                             limited=limited))
    return np.asarray(frame, np.int64), note


# ---------------------------------------------------------------- the patch itself
def test_raw_is_cut_to_200_characters_and_fields_normalised():
    p = patch(color=[1, 2, 3], rect=[0.4, 0.4, 0.2, 0.2])
    assert len(p.raw) == 200 and p.color == (1, 2, 3) and isinstance(p.rect, tuple)
    assert p.as_dict()["color"] == [1, 2, 3]
    assert "10-bit 1,2,3 on 0,0,0" in p.describe()


@pytest.mark.parametrize("kwargs, words", [
    ({"bits": 0}, "bits"),
    ({"bits": 17}, "bits"),
    ({"bits": True}, "bits"),
    ({"color": (1024, 0, 0)}, "colour red 1024"),
    ({"background": (0, -1, 0)}, "background green -1"),
    ({"color": (1, 2)}, "expected 3 values"),
    ({"color": (1.5, 2, 3)}, "integer"),
    ({"rect": (0.5, 0.5, 0.0, 0.1)}, "above 0"),
    ({"rect": (0.5, 0.5, 0.6, 0.1)}, "not a rectangle on the screen"),
    ({"rect": (math.nan, 0, 1, 1)}, "finite"),
    ({"source": "vnc"}, "source"),
])
def test_a_patch_refuses_what_no_screen_can_show(kwargs, words):
    with pytest.raises(RemoteError, match=words):
        patch(**kwargs)


def test_clip_rect_clips_to_the_screen_and_refuses_off_screen():
    assert clip_rect(-0.1, 0.5, 0.3, 0.7) == pytest.approx((0.0, 0.5, 0.2, 0.5))
    with pytest.raises(RemoteError, match="wholly off the screen"):
        clip_rect(1.2, 0.0, 0.5, 0.5)
    with pytest.raises(RemoteError, match="above 0"):
        clip_rect(0.0, 0.0, -0.5, 0.5)


def test_window_rect_is_centred_with_the_screens_aspect():
    x, y, w, h = window_rect(25)
    assert (w, h) == (0.5, 0.5) and (x, y) == (0.25, 0.25)
    assert window_rect(100) == (0.0, 0.0, 1.0, 1.0)
    with pytest.raises(RemoteError):
        window_rect(0)


def test_patch_rect_px_rounds_size_then_centre_half_up_and_keeps_a_pixel():
    assert patch_rect_px((0.4, 0.4, 0.2, 0.2), 1920, 1080) == (768, 432, 384, 216)
    # 0.5 * 1917 = 958.5 -> 959 wide; the centre 958.5 - 479.5 = 479
    assert patch_rect_px((0.25, 0.0, 0.5, 1.0), 1917, 10) == (479, 0, 959, 10)
    assert patch_rect_px((0.999, 0.999, 0.001, 0.001), 100, 100) == (99, 99, 1, 1)
    assert patch_rect_px((0.0, 0.0, 1.0, 1.0), 7, 5) == (0, 0, 7, 5)


# ---------------------------------------------------------------- colours
def test_ten_bit_values_land_unchanged_on_a_ten_bit_surface():
    name, params, note = to_spec_params(patch(), 10, False)
    assert params["color"] == (514, 514, 514) and note is None


def test_ten_bit_on_eight_bit_is_rounded_by_rescale_code_and_says_so():
    name, params, note = to_spec_params(patch(color=(514, 1023, 0)), 8, False)
    assert params["color"] == (128, 255, 0)
    assert "10-bit colour 514,1023,0 shown as 8-bit 128,255,0" in note and "rounded" in note


def test_video_levels_go_by_shift():
    p = patch(color=(940, 64, 502), background=(64, 64, 64), video_levels=True)
    name, params, note = to_spec_params(p, 8, True)
    assert params["color"] == (235, 16, 126) and params["background"] == (16, 16, 16)
    assert "by shift" in note and "rounded" in note  # 502 is 125.5 at 8 bits
    _, up, note_up = to_spec_params(patch(color=(235, 16, 128), bits=8, video_levels=True), 10, True)
    assert up["color"] == (940, 64, 512) and "rounded" not in note_up


def test_a_range_mismatch_is_said():
    _, _, note = to_spec_params(patch(), 10, True)
    assert "full-range codes on a limited-range surface" in note


def test_an_impossible_surface_is_refused_naming_it():
    with pytest.raises(ValueError, match="bit depth"):
        to_spec_params(patch(), 0, False)


# ---------------------------------------------------------------- geometry, pixel for pixel
def real_patches():
    """One patch from each real sender's bytes (see core.remote.senders for the sources)."""
    out = []
    framer = resolve.ResolveFramer()
    for msg in (senders.displaycal_calman((0.5,) * 3),                       # its first grey
                senders.displaycal_calman((128 / 255,) * 3, (0, 0, 0), 0.4, 0.4, 0.2, 0.2),
                senders.displaycal_calman((0,) * 3, x=0, y=0, w=1, h=1),     # its final black
                senders.displaycal_lightspace((1, 0, 0), 0.25, 0.25, 0.5, 0.5),
                senders.lightspace_two_rectangles((16, 16, 16), (128, 128, 128), (514, 514, 514),
                                                  10, 0.3, 0.3, 0.4, 0.4)):
        (text,) = framer.feed(msg)
        out.append(resolve.parse_resolve(text, received_s=0.0))
    for bits, rgb in ((8, (100, 200, 50)), (10, (400, 800, 200))):
        (text,) = pgenerator.PGeneratorFramer().feed(
            senders.hcfr_rectangle(10, 1920, 1080, rgb, (16, 16, 16), bits=bits))
        out.append(pgenerator.respond(text, resolution=(1920, 1080), received_s=0.0).patch)
    for msg in (senders.calman_rgb_s((940, 940, 940), 18),
                senders.calman_rgb_a((940, 64, 512), (100, 100, 100), 50)):
        (text,) = upgci.UpgciFramer().feed(msg)
        out.append(upgci.respond(text, upgci.UpgciSession(), received_s=0.0).patch)
    return out


@pytest.mark.parametrize("bit_depth", [10, 8])
@pytest.mark.parametrize("index", range(9))
def test_real_senders_patches_render_exactly(index, bit_depth):
    p = real_patches()[index]
    frame, note = shown(p, 1920, 1080, bit_depth)
    assert note is None or "geometry" not in note
    assert np.array_equal(frame, expected_frame(p, 1920, 1080, bit_depth))


def test_displaycal_first_and_last_patches():
    grey, mid, black = real_patches()[:3]
    assert grey.color == (512, 512, 512) and grey.full_screen       # round(0.5 * 1023)
    assert mid.color == (514, 514, 514)                              # 128/255 -> 514, not 512
    assert black.color == (0, 0, 0) and black.full_screen
    assert to_spec_params(black, 10, False, size=(1920, 1080))[0] == "solid"


def test_a_window_below_one_percent_is_drawn_at_its_own_size():
    # the window pattern's area form stops at 1 %; the rectangle form does not
    p = patch(rect=window_rect(0.5))
    name, params, note = to_spec_params(p, 10, False, size=(1920, 1080))
    assert name == "window" and params["geometry"] == "fraction" and note is None
    frame, _ = shown(p, 1920, 1080, 10)
    assert np.array_equal(frame, expected_frame(p, 1920, 1080, 10))
    assert patch_rect_px(p.rect, 1920, 1080)[2:] == (136, 76)


def test_a_square_patch_on_a_wide_screen_is_square_pixel_for_pixel():
    p = patch(rect=(0.4, 0.3, 300 / 1920, 300 / 1080))  # DisplayCAL's 300-pixel square
    name, params, note = to_spec_params(p, 10, False, size=(1920, 1080))
    assert name == "window" and note is None
    assert (params["x"], params["y"], params["w"], params["h"]) == p.rect
    assert patch_rect_px(p.rect, 1920, 1080) == (768, 324, 300, 300)
    frame, _ = shown(p, 1920, 1080, 10)
    assert np.array_equal(frame, expected_frame(p, 1920, 1080, 10))


SCREENS = [(1280, 720), (1366, 768), (1920, 1080), (1920, 1200), (2560, 1440), (3840, 2160),
           (4096, 2160), (1024, 768), (720, 576)]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(SCREENS), st.floats(0.01, 100.0))
def test_a_centred_window_on_a_real_screen_is_pixel_exact(screen, percent):
    """Calman's RGB_S and HCFR's windows: the window pattern covers exactly the pixels
    patch_rect_px names (checked on the geometry; the render is checked below)."""
    width, height = screen
    p = patch(rect=window_rect(percent), source="upgci")
    name, params, note = to_spec_params(p, 10, False, size=screen)
    assert note is None
    if name == "window":
        spec = make_spec(name, params, width=width, height=height, bit_depth=10)
        assert window_patch(width, height, spec.param_dict) == patch_rect_px(p.rect, width, height)
    else:
        assert patch_rect_px(p.rect, width, height) == (0, 0, width, height)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 200), st.integers(1, 200),
       st.tuples(*[st.floats(0.0, 1.0)] * 4), st.sampled_from([8, 10]))
def test_any_rectangle_renders_exactly(width, height, r, bit_depth):
    try:
        rect = clip_rect(r[0], r[1], r[2], r[3])
    except RemoteError:
        return
    p = patch(rect=rect, color=(1023, 0, 512), background=(1, 2, 3))
    frame, note = shown(p, width, height, bit_depth)
    assert note is None or "geometry" not in note
    assert np.array_equal(frame, expected_frame(p, width, height, bit_depth))
