"""The doctor's Qt checks on the offscreen platform: screens and the output's, HDR never claimed
where it was not granted, the granted GL format read as it is, and a surface with no GL said so."""

import pytest
from PySide6.QtGui import QSurfaceFormat

from app.doctor import PresentProbe, check_hdr, format_check, output_target, screen_checks, wait_for
from core.doctor import NOT_AVAILABLE, OK, TIMER_PACED, WARNING

pytestmark = pytest.mark.qt


def test_every_screen_and_the_output_screen_are_listed(qapp):
    target = output_target(None)
    checks = screen_checks(target)
    assert [c.name for c in checks][-1] == "output" and len(checks) == len(qapp.screens()) + 1
    first = checks[0]
    assert first.verdict == OK and first.data["geometry"][2:] == [qapp.screens()[0].geometry().width(),
                                                                   qapp.screens()[0].geometry().height()]
    assert {"name", "manufacturer", "model", "serial", "refresh_hz", "dpr"} <= set(first.data)
    assert checks[-1].data["how"] == "primary" and "primary" in checks[-1].figure


def test_screen_names_the_output_screen_and_refuses_one_not_connected(qapp):
    assert output_target("0").how == "--screen"
    with pytest.raises(ValueError, match="there is no screen 9"):
        output_target("9")


@pytest.mark.parametrize("platform", ["offscreen", "xcb"])
def test_hdr_is_not_available_where_qt_has_no_route(qapp, platform):
    c = check_hdr(output_target(None), platform=platform)
    assert c.verdict == NOT_AVAILABLE and "no HDR route" in c.figure
    assert c.data["granted"] is None and c.data["tagged"] is False


def test_an_old_qt_on_wayland_is_not_claimed_hdr(qapp):
    c = check_hdr(output_target(None), platform="wayland", qt_version="6.9.1")
    assert c.verdict == NOT_AVAILABLE and "does not tag Wayland surfaces" in c.figure


def fmt(bits, alpha, swap):
    f = QSurfaceFormat()
    f.setRedBufferSize(bits)
    f.setGreenBufferSize(bits)
    f.setBlueBufferSize(bits)
    f.setAlphaBufferSize(alpha)
    f.setSwapInterval(swap)
    return f


def test_the_granted_format_is_read_as_granted():
    ten = format_check(fmt(10, 2, 1), fmt(10, 2, 1))
    assert ten.verdict == OK and ten.data["ten_bit"] and "RGBA 10/10/10/2" in ten.figure
    eight = format_check(fmt(8, 0, 1), fmt(10, 2, 1))
    assert eight.verdict == WARNING and not eight.data["ten_bit"] and "granted 8/8/8" in eight.detail
    no_swap = format_check(fmt(10, 2, 0), fmt(10, 2, 1))
    assert no_swap.verdict == WARNING and "swap interval 0" in no_swap.detail


def test_the_offscreen_platform_has_no_surface_and_is_timer_paced(qapp):
    probe = PresentProbe(output_target(None), frames=30)
    surface = wait_for(probe.surface_known, probe.start)
    assert surface.verdict == NOT_AVAILABLE and "no OpenGL" in surface.figure
    presents = wait_for(probe.finished, probe.run_presents)
    assert presents.verdict == WARNING and presents.figure.startswith(TIMER_PACED)
