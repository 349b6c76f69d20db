"""Code-value rescaling between bit depths and the swatch colour, headless."""

from core.levels import Levels, rescale_code, swatch_rgb


def test_rescale_by_shift_in_limited_range_and_by_proportion_in_full_range():
    assert rescale_code(64, Levels(10, True), Levels(8, True)) == 16
    assert rescale_code(940, Levels(10, True), Levels(8, True)) == 235
    assert rescale_code(1023, Levels(10, False), Levels(8, False)) == 255
    assert rescale_code(255, Levels(8, False), Levels(16, False)) == 65535
    assert rescale_code(300, Levels(8, False), Levels(8, False)) == 255   # clamped to the depth


def test_swatch_maps_black_to_white_onto_0_to_255():
    lv = Levels(10, True)
    assert swatch_rgb((64, 940, 0), lv) == (0, 255, 0)
