"""The parameter editor: colours that stay exact across bit depths, the depth that follows the
output surface, and the frame's APL (with the window's computed background) beside them."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.levels import Levels
from core.patterns import make_spec, render

pytestmark = pytest.mark.qt


# ---------------------------------------------------------------- what was typed stays exact
def test_200_typed_at_8_bits_comes_back_as_200_however_the_depth_is_stepped(qapp):
    from app.window.colour_edit import ColourEdit

    edit = ColourEdit(Levels(8), (0, 0, 0))
    edit.spins[0].setValue(200)                    # as if typed
    edit.spins[1].setValue(17)
    for depth in (7, 6, 9, 10, 16, 1, 8):
        edit.set_levels(Levels(depth))
    assert edit.value() == (200, 17, 0) and edit.shown() == (200, 17, 0)
    edit.set_levels(Levels(10))
    assert edit.value() == (802, 68, 0)             # round(v * 1023 / 255)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(1, 16), st.lists(st.integers(1, 16), min_size=1, max_size=6), st.data())
def test_any_walk_of_depths_returns_what_was_typed(qapp, start, walk, data):
    from app.window.colour_edit import ColourEdit

    top = Levels(start).top
    typed = tuple(data.draw(st.integers(0, top)) for _ in range(3))
    edit = ColourEdit(Levels(start), typed)
    for depth in walk:
        edit.set_levels(Levels(depth))
        assert all(0 <= v <= Levels(depth).top for v in edit.value())
    edit.set_levels(Levels(start))
    assert edit.value() == typed


def test_one_channel_edited_at_another_depth_leaves_the_others_typed(qapp):
    from app.window.colour_edit import ColourEdit

    edit = ColourEdit(Levels(8), (200, 200, 200))
    edit.set_levels(Levels(7))
    edit.spins[0].setValue(50)                      # R typed at 7 bits; G, B still typed at 8
    edit.set_levels(Levels(8))
    assert edit.value() == (100, 200, 200)          # round(50 * 255 / 127); G, B exact


def test_the_main_window_steps_8_to_7_to_8_and_keeps_the_palette(qtbot, main_window):
    win = main_window
    win.choose_pattern("checkerboard")
    pal = win.editor.editors["palette"]
    pal.rows[0].spins[0].setValue(200)
    assert win.spec.param_dict["palette"][0] == (200, 255, 255)
    for depth in (7, 6, 7, 8):
        win.frame_settings.bit_depth.setValue(depth)
    assert pal.value()[0] == (200, 255, 255)
    assert win.spec.param_dict["palette"] == ((200, 255, 255), (0, 0, 0))
    win.frame_settings.bit_depth.setValue(10)
    assert win.spec.param_dict["palette"][0] == (802, 1023, 1023)


def test_limited_range_converts_by_shift(qtbot, main_window):
    win = main_window
    win.choose_pattern("solid")
    win.frame_settings.range.setCurrentIndex(1)                 # limited, 8 bits
    win.editor.editors["color"].spins[0].setValue(235)
    win.editor.editors["color"].spins[1].setValue(16)
    win.frame_settings.bit_depth.setValue(10)
    assert win.spec.param_dict["color"][:2] == (940, 64)
    win.frame_settings.bit_depth.setValue(8)
    assert win.spec.param_dict["color"][:2] == (235, 16)


# ---------------------------------------------------------------- the surface's depth by default
def test_the_default_depth_is_the_surfaces_and_stored_colours_follow_it_exactly(qtbot):
    from app.settings import Settings
    from app.window import MainWindow

    stored = Settings(pattern="solid", params={"solid": {"color": [802, 802, 802]}}, size=[64, 36])
    assert stored.bit_depth == 10 and not stored.bit_depth_chosen
    win = MainWindow(settings=stored, persist=False)
    qtbot.addWidget(win)
    assert win.preview.surface_bits == 8                        # raster: an 8-bit surface
    assert win.spec.bit_depth == 8 and win.frame_settings.auto_depth.isChecked()
    assert win.spec.param_dict["color"] == (200, 200, 200)      # 802 at 10 bits, converted once
    win.close()


def test_a_chosen_depth_wins_over_the_surface_and_is_stored_as_chosen(qtbot):
    from app import settings as S
    from app.window import MainWindow

    win = MainWindow(settings=S.Settings(bit_depth=10, bit_depth_chosen=True, size=[64, 36]))
    qtbot.addWidget(win)
    assert win.spec.bit_depth == 10 and not win.frame_settings.auto_depth.isChecked()
    win.frame_settings.bit_depth.setValue(12)
    win.close()
    stored = S.load()
    assert stored.bit_depth == 12 and stored.bit_depth_chosen


def test_auto_goes_back_to_the_surface_and_a_later_surface_is_followed(qtbot, main_window):
    win = main_window
    fs = win.frame_settings
    fs.bit_depth.setValue(12)
    assert fs.bit_depth_chosen and win.spec.bit_depth == 12
    fs.auto_depth.setChecked(True)
    assert not fs.bit_depth_chosen and win.spec.bit_depth == 8
    # a surface that reports 10 bits once it exists (a GL window) moves an unchosen depth
    win.preview.surface_bits = 10
    win.preview.surface_ready.emit(10)
    assert win.spec.bit_depth == 10 and not fs.bit_depth_chosen
    fs.bit_depth.setValue(9)                                    # chosen: a surface no longer moves it
    win.preview.surface_bits = 8
    win.preview.surface_ready.emit(8)
    assert win.spec.bit_depth == 9
    win.preview.surface_bits = type(win.preview).surface_bits


# ---------------------------------------------------------------- APL in the editor and the status bar
def settle(qtbot, win):
    """The APL is computed off the GUI thread: wait until what is shown is the frame's."""
    qtbot.waitUntil(lambda: not win.figures.apl_pending, timeout=5000)


def window_apl(win, **params):
    win.choose_pattern("window")
    ed = win.editor.editors
    for name, value in params.items():
        w = ed[name]
        if hasattr(w, "setCurrentText"):
            w.setCurrentText(value)
        else:
            w.setValue(value)
    return ed


def test_the_constant_apl_background_shows_what_the_screen_shows(qtbot, main_window):
    win = main_window
    ed = window_apl(win, area=20.0, apl=30.0, background_mode="apl")
    settle(qtbot, win)
    frame = render(win.spec).astype(np.int64)
    bg = ed["background"]
    assert bg.shown() == tuple(frame[0, 0]) != (0, 0, 0)       # the grey on screen, not 0,0,0
    assert bg.spins[0].isReadOnly()
    assert bg.value() == (0, 0, 0)                              # what was typed is kept ...
    ed["background_mode"].setCurrentText("fixed")
    settle(qtbot, win)
    assert bg.shown() == (0, 0, 0) and not bg.spins[0].isReadOnly()   # ... and back in fixed mode
    assert win.spec.param_dict["background"] == (0, 0, 0)


def test_the_apl_readout_is_the_frames_mean_code_and_percent(qtbot, main_window):
    win = main_window
    for name, params in [("bars", {}), ("ramp", {"direction": "vertical"}), ("window", {})]:
        win.choose_pattern(name)
        for k, v in params.items():
            win.editor.editors[k].setCurrentText(v)
        settle(qtbot, win)
        frame = render(win.spec).astype(np.int64)
        mean = int(frame.sum()) / frame.size
        percent = 100 * mean / 255
        assert win.editor.apl.text().startswith(f"APL {percent:.1f} % (mean code {mean:.1f} of 255)")
        assert win.status_texts()["apl"] == f"APL {percent:.1f} % ({mean:.1f}/255)"
        assert win.editor.apl.icon.isHidden()


def test_an_unreachable_apl_target_is_flagged_in_red_in_the_editor_and_the_status_bar(qtbot, main_window):
    win = main_window
    window_apl(win, area=50.0, background_mode="apl", apl=10.0)
    settle(qtbot, win)
    readout = win.editor.apl
    assert "APL 10 % cannot be reached" in readout.text()
    assert not readout.icon.isHidden() and "#d33" in readout.label.styleSheet()
    status = win.status_texts()["apl"]
    assert "\u26a0 target 10 % out of reach" in status
    assert "cannot be reached" in win.status_bar.st_apl.toolTip()
    win.editor.editors["apl"].setValue(60.0)                   # reachable again: the flag goes
    settle(qtbot, win)
    assert "cannot" not in readout.text() and readout.icon.isHidden()
    assert "\u26a0" not in win.status_texts()["apl"]


def test_an_animated_frame_apl_is_the_shown_frames(qtbot, main_window):
    win = main_window
    win.choose_pattern("counter")
    win.set_paused(True)
    win.step(1)
    win.figures.refresh()
    settle(qtbot, win)
    spec, index = win.spec, win.loop.index
    frame = render(make_spec("counter", spec.param_dict, width=spec.width, height=spec.height,
                             bit_depth=8), index).astype(np.int64)
    mean = int(frame.sum()) / frame.size
    assert f"(mean code {mean:.1f} of 255)" in win.editor.apl.text()
