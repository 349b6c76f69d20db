"""Output placement over fake screen lists (no Qt)."""

import pytest

from app.preview import ScreenRecord, frame_rect, place_output, primary_screen

pytestmark = pytest.mark.qt

LAPTOP = ScreenRecord("eDP-1", 0, 0, 1920, 1200, dpr=1.0, refresh_hz=60.0, primary=True)
TV = ScreenRecord("HDMI-1", 1920, 0, 1920, 1080, dpr=2.0, refresh_hz=119.88)   # a 4K panel at 200 %
SIDE = ScreenRecord("DP-2", -2560, 0, 2560, 1440, dpr=1.0, refresh_hz=144.0)


def test_fullscreen_on_the_requested_screen_covers_its_geometry():
    p = place_output([LAPTOP, TV, SIDE], "HDMI-1")
    assert (p.screen, p.x, p.y, p.width, p.height, p.fullscreen) == ("HDMI-1", 1920, 0, 1920, 1080, True)
    assert p.note is None


def test_native_size_accounts_for_the_pixel_ratio():
    # a 3840x2160 frame maps 1:1 onto the 4K panel even at 200 % desktop scaling
    p = place_output([LAPTOP, TV], "HDMI-1")
    assert p.native == (3840, 2160) and p.dpr == 2.0
    assert TV.native_size == (3840, 2160)
    assert "3840x2160 @ 119.88 Hz" in TV.label


def test_screen_left_of_the_primary_keeps_negative_coordinates():
    p = place_output([LAPTOP, SIDE], "DP-2")
    assert (p.x, p.y, p.width, p.height) == (-2560, 0, 2560, 1440)


def test_none_means_the_primary_screen():
    p = place_output([TV, LAPTOP], None)
    assert p.screen == "eDP-1" and p.fullscreen


def test_missing_screen_falls_back_to_a_window_on_the_primary():
    p = place_output([LAPTOP, SIDE], "HDMI-1")
    assert p.screen == "eDP-1" and not p.fullscreen
    assert "HDMI-1" in p.note and "eDP-1" in p.note
    # inside the primary screen, smaller than it
    assert LAPTOP.x <= p.x and p.x + p.width <= LAPTOP.x + LAPTOP.width
    assert LAPTOP.y <= p.y and p.y + p.height <= LAPTOP.y + LAPTOP.height
    assert p.width < LAPTOP.width


def test_no_primary_flag_uses_the_first_screen_and_empty_is_refused():
    a = ScreenRecord("A", 0, 0, 800, 600)
    b = ScreenRecord("B", 800, 0, 800, 600)
    assert primary_screen([a, b]) is a
    assert place_output([a, b], "gone").screen == "A"
    with pytest.raises(ValueError, match="no screens"):
        place_output([], "A")


def test_frame_rect_one_to_one_is_centred_and_unscaled():
    assert frame_rect(64, 36, 100, 50, True) == (18, 7, 64, 36)
    # larger than the area: still 1:1, centred, cropped by the caller's viewport
    assert frame_rect(3840, 2160, 1920, 1080, True) == (-960, -540, 3840, 2160)


def test_frame_rect_fit_keeps_the_aspect():
    assert frame_rect(1920, 1080, 960, 1000, False) == (0, 230, 960, 540)
    assert frame_rect(1920, 1080, 1920, 1080, False) == (0, 0, 1920, 1080)
    assert frame_rect(0, 10, 10, 10, False) == (0, 0, 0, 0)
