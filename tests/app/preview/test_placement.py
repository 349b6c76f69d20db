"""Output placement and screen identity over plain screen records (no Qt objects)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.preview import (
    ScreenIdentity,
    ScreenRecord,
    banner_lines,
    frame_rect,
    match_screen,
    place_output,
    primary_screen,
    resolve_screen,
)
from app.preview.placement import distinguish, x_screen_numbers

pytestmark = pytest.mark.qt   # app.preview's door imports Qt; these tests use none of it

LAPTOP = ScreenRecord("eDP-1", 0, 0, 1920, 1200, dpr=1.0, refresh_hz=60.0, primary=True, index=0)
TV = ScreenRecord("HDMI-1", 1920, 0, 1920, 1080, dpr=2.0, refresh_hz=119.88, index=1)   # a 4K panel at 200 %
SIDE = ScreenRecord("DP-2", -2560, 0, 2560, 1440, dpr=1.0, refresh_hz=144.0, index=2)

# two identical monitors on a calibration bench: same name and model, told apart by serial
BENCH_A = ScreenRecord("DP-1", 0, 0, 1920, 1080, primary=True, index=0, manufacturer="Dell", model="U2720Q",
                       serial="4B1X")
BENCH_B = ScreenRecord("DP-1", 1920, 0, 1920, 1080, index=1, manufacturer="Dell", model="U2720Q",
                       serial="9C2Z")
# Xvfb's screens: same name, same geometry, nothing else known
TWIN_0 = ScreenRecord("screen", 0, 0, 1280, 720, primary=True, index=0)
TWIN_1 = ScreenRecord("screen", 0, 0, 1280, 720, index=1)


def ident(rec: ScreenRecord) -> ScreenIdentity:
    return rec.identity


def test_fullscreen_on_the_requested_screen_covers_its_geometry():
    p = place_output([LAPTOP, TV, SIDE], ident(TV))
    assert (p.screen, p.x, p.y, p.width, p.height, p.fullscreen) == (TV, 1920, 0, 1920, 1080, True)
    assert p.note is None


def test_native_size_accounts_for_the_pixel_ratio():
    # a 3840x2160 frame maps 1:1 onto the 4K panel even at 200 % desktop scaling
    p = place_output([LAPTOP, TV], ident(TV))
    assert p.native == (3840, 2160) and p.dpr == 2.0
    assert TV.native_size == (3840, 2160)
    assert TV.mode == "1920x1080 at (1920, 0), 119.88 Hz, scale 2 (3840x2160 pixels)"


def test_screen_left_of_the_primary_keeps_negative_coordinates():
    p = place_output([LAPTOP, SIDE], ident(SIDE))
    assert (p.x, p.y, p.width, p.height) == (-2560, 0, 2560, 1440)


def test_none_means_the_primary_screen():
    p = place_output([TV, LAPTOP], None)
    assert p.screen is LAPTOP and p.fullscreen and p.note is None


def test_labels_are_distinct_when_names_repeat():
    labels = [s.label for s in (BENCH_A, BENCH_B, TWIN_0, TWIN_1)]
    assert len(set(labels)) == 4
    assert BENCH_B.label == "1: DP-1 (Dell U2720Q, SN 9C2Z) \u2014 1920x1080 at (1920, 0), 60.00 Hz"
    assert TWIN_0.label == "0: screen \u2014 1280x720 at (0, 0), 60.00 Hz, primary"
    assert TWIN_1.label == "1: screen \u2014 1280x720 at (0, 0), 60.00 Hz"


def test_identity_key_is_serial_then_name_model_geometry_then_index():
    assert BENCH_A.identity.key == "serial=4B1X"
    assert TWIN_1.identity.key == "name=screen|model=|geometry=1280x720 at (0, 0)"
    assert ScreenIdentity(index=3).key == "index=3"
    assert BENCH_A.identity.key != BENCH_B.identity.key


def test_same_named_screens_are_matched_distinctly():
    for screens in ([BENCH_A, BENCH_B], [TWIN_0, TWIN_1]):
        for rec in screens:
            m = match_screen(screens, rec.identity)
            assert (m.screen, m.how, m.note) == (rec, "exact", None)
    # the second twin is chosen again even when listed first: its index tells it apart
    assert match_screen([TWIN_1, TWIN_0], TWIN_1.identity).screen is TWIN_1


def test_a_serial_follows_its_monitor_to_another_port_and_position():
    moved = ScreenRecord("DP-3", 0, 1080, 1920, 1080, index=2, manufacturer="Dell", model="U2720Q",
                         serial="9C2Z")
    m = match_screen([BENCH_A, moved], BENCH_B.identity)
    assert (m.screen, m.how) == (moved, "exact")


def test_a_gone_screen_falls_back_to_the_same_name_then_geometry_then_primary():
    gone = ScreenRecord("HDMI-1", 1920, 0, 1920, 1080, index=1, serial="OLD")
    same_name = ScreenRecord("HDMI-1", 3840, 0, 1280, 720, index=1)
    same_geometry = ScreenRecord("DP-5", 1920, 0, 1920, 1080, index=2)
    m = match_screen([LAPTOP, same_geometry, same_name], gone.identity)
    assert (m.screen, m.how) == (same_name, "name")
    assert m.note == ("screen 1 'HDMI-1' (SN OLD) 1920x1080 at (1920, 0) is not connected; "
                      "using screen 1: HDMI-1 (same name)")
    m = match_screen([LAPTOP, same_geometry], gone.identity)
    assert (m.screen, m.how) == (same_geometry, "geometry") and "(same geometry)" in m.note
    m = match_screen([LAPTOP, SIDE], gone.identity)
    assert (m.screen, m.how) == (LAPTOP, "primary") and "using the primary screen 0: eDP-1" in m.note


def test_same_name_fallback_prefers_the_same_geometry_then_index():
    gone = ScreenRecord("DP-1", 1920, 0, 1920, 1080, index=1, serial="GONE")
    a = ScreenRecord("DP-1", 0, 0, 1920, 1080, index=0)
    b = ScreenRecord("DP-1", 1920, 0, 1920, 1080, index=3)
    assert match_screen([a, b], gone.identity).screen is b


def test_missing_screen_falls_back_to_a_window_on_the_primary():
    p = place_output([LAPTOP, SIDE], ident(TV))
    assert p.screen is LAPTOP and not p.fullscreen
    assert "'HDMI-1'" in p.note and "eDP-1" in p.note and p.note.endswith("the output is a window there")
    # inside the primary screen, smaller than it
    assert LAPTOP.x <= p.x and p.x + p.width <= LAPTOP.x + LAPTOP.width
    assert LAPTOP.y <= p.y and p.y + p.height <= LAPTOP.y + LAPTOP.height
    assert p.width < LAPTOP.width


def test_same_name_fallback_stays_fullscreen_with_its_note():
    replugged = ScreenRecord("HDMI-1", 1920, 0, 3840, 2160, index=1)
    gone = ScreenIdentity("HDMI-1", serial="OLD", geometry=(1920, 0, 1920, 1080))
    p = place_output([LAPTOP, replugged], gone)
    assert p.screen is replugged and p.fullscreen and "(same name)" in p.note


def test_no_primary_flag_uses_the_first_screen_and_empty_is_refused():
    a = ScreenRecord("A", 0, 0, 800, 600)
    b = ScreenRecord("B", 800, 0, 800, 600, index=1)
    assert primary_screen([a, b]) is a
    assert place_output([a, b], ScreenIdentity("gone")).screen is a
    with pytest.raises(ValueError, match="no screens"):
        place_output([], ident(a))


def test_an_older_settings_file_names_the_screen_only():
    legacy = ScreenIdentity.from_settings(None, "HDMI-1")
    assert legacy == ScreenIdentity(name="HDMI-1")
    assert match_screen([LAPTOP, TV], legacy).screen is TV
    assert ScreenIdentity.from_settings(None, None) is None
    assert ScreenIdentity.from_settings(TV.identity.to_dict(), "ignored") == TV.identity


def test_identity_from_a_damaged_dict_keeps_what_is_usable():
    d = {"name": "DP-1", "serial": 5, "geometry": [0, 0, -1, 5], "index": True, "model": "U2720Q"}
    assert ScreenIdentity.from_dict(d) == ScreenIdentity(name="DP-1", model="U2720Q")
    assert ScreenIdentity.from_dict({"geometry": "big"}) is None
    assert ScreenIdentity.from_dict("DP-1") is None


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@given(name=_text, manufacturer=_text, model=_text, serial=_text,
       geometry=st.none() | st.tuples(st.integers(-8000, 8000), st.integers(-8000, 8000),
                                      st.integers(1, 8000), st.integers(1, 8000)),
       index=st.none() | st.integers(0, 16))
def test_identity_round_trips_through_its_dict(name, manufacturer, model, serial, geometry, index):
    i = ScreenIdentity(name, manufacturer, model, serial, geometry, index)
    back = ScreenIdentity.from_dict(i.to_dict())
    assert back == (None if i == ScreenIdentity() else i)


def test_screen_argument_takes_an_index_or_a_unique_name():
    screens = [LAPTOP, TV, ScreenRecord("HDMI-2", 0, 0, 640, 480, index=2),
               ScreenRecord("HDMI-2", 640, 0, 640, 480, index=3)]
    assert resolve_screen(screens, "1") is TV
    assert resolve_screen(screens, " hdmi-1 ") is TV            # case and spaces forgiven
    with pytest.raises(ValueError, match=r"--screen 'HDMI-2' names 2 screens \(2, 3\); give the index"):
        resolve_screen(screens, "HDMI-2")
    with pytest.raises(ValueError, match=r"--screen 7: there is no screen 7; connected: 0: eDP-1"):
        resolve_screen(screens, "7")
    with pytest.raises(ValueError, match="--screen 'VGA-1': no screen has that name or index"):
        resolve_screen(screens, "VGA-1")


def test_banner_says_which_screen_and_how_to_leave():
    assert banner_lines(BENCH_B) == ["Screen 1: DP-1 (Dell U2720Q, SN 9C2Z)",
                                     "1920x1080 at (1920, 0), 60.00 Hz", "Esc or F11 to leave"]


def test_frame_rect_one_to_one_is_centred_and_unscaled():
    assert frame_rect(64, 36, 100, 50, True) == (18, 7, 64, 36)
    # larger than the area: still 1:1, centred, cropped by the caller's viewport
    assert frame_rect(3840, 2160, 1920, 1080, True) == (-960, -540, 3840, 2160)


def test_frame_rect_fit_keeps_the_aspect():
    assert frame_rect(1920, 1080, 960, 1000, False) == (0, 230, 960, 540)
    assert frame_rect(1920, 1080, 1920, 1080, False) == (0, 0, 1920, 1080)
    assert frame_rect(0, 10, 10, 10, False) == (0, 0, 0, 0)


def test_the_settings_file_keeps_an_identity_and_refuses_a_damaged_one():
    from app.settings import Settings

    stored = Settings.from_dict({"schema": 1, "output_screen_id": BENCH_B.identity.to_dict()})
    assert ScreenIdentity.from_dict(stored.output_screen_id) == BENCH_B.identity and not stored.problems
    problems = []
    bad = Settings.from_dict({"schema": 1, "output_screen_id": {"name": "DP-1", "geometry": [0, 0, 0, 9]}},
                             problems)
    assert bad.output_screen_id is None
    assert len(problems) == 1 and problems[0].startswith(
        "settings.json: output_screen_id: geometry: expected null or [x, y, width, height], got [0, 0, 0, 9]")


# ---------------------------------------------------------------- screens the name does not tell apart
def test_qt_lists_the_connection_s_x_screen_first_then_the_others_in_order():
    # one screen per X screen (Xvfb -screen 0 ... -screen 1 ... -screen 2 ...), DISPLAY=:N.S
    assert x_screen_numbers([0, 1, 2], 0) == [0, 1, 2]
    assert x_screen_numbers([0, 1, 2], 1) == [1, 0, 2]
    assert x_screen_numbers([0, 1, 2], 2) == [2, 0, 1]
    # two RandR outputs on X screen 1 (siblings), one on X screen 0
    assert x_screen_numbers([0, 0, 1], 1) == [1, 1, 0]
    assert x_screen_numbers([0, 1], 7) == [0, 1]        # a default screen that is not there: as listed


def test_screens_without_a_name_of_their_own_are_named_by_x_screen_and_geometry():
    big = ScreenRecord("screen", 0, 0, 1920, 1080, primary=True, index=0)
    small = ScreenRecord("screen", 0, 0, 1280, 720, index=1)
    named = [*distinguish([small, big], ":9.1", [1, 0])]
    assert [s.title for s in named] == ["1: screen (X screen :9.1, 1280x720 at 0,0)",
                                        "0: screen (X screen :9.0, 1920x1080 at 0,0)"]
    twins = distinguish([TWIN_0, TWIN_1], "host:3", [0, 1])
    assert [s.title for s in twins] == ["0: screen (X screen host:3.0, 1280x720 at 0,0)",
                                        "1: screen (X screen host:3.1, 1280x720 at 0,0)"]
    assert len({s.label for s in twins}) == 2
    # no X screen known (offscreen, Wayland, or not confirmed by the server): the geometry alone
    assert distinguish([TWIN_0], None, None)[0].title == "0: screen (1280x720 at 0,0)"
    # a name of its own is left alone; a shared one gets the rest, its maker kept
    assert distinguish([LAPTOP, TV], ":0", [0, 0]) == [LAPTOP, TV]
    a, b = distinguish([BENCH_A, BENCH_B], ":0", [0, 0])
    assert a.title == "0: DP-1 (Dell U2720Q, SN 4B1X, X screen :0.0, 1920x1080 at 0,0)"
    assert b.identity == BENCH_B.identity          # naming is not identity: settings still match
