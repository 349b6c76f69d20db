"""`testcard gui --transfer`: checked like `testcard render --transfer` before any window exists,
and carried to the surface request (no Qt here)."""

import pytest

from app import cli
from app.commands.gui import plan_start
from app.settings import Settings
from core.patterns import builtin_presets


def plan(*argv):
    return plan_start(cli.build_parser().parse_args(["gui", *argv]), Settings(), builtin_presets())


def test_transfer_resolves_nits_and_is_what_the_surface_asks_for():
    start = plan("--pattern", "solid", "--set", "color=203nits", "--transfer", "pq", "--limited")
    assert start.transfer == "pq"
    assert start.settings.params["solid"]["color"] == [573, 573, 573]
    assert plan("--pattern", "solid").transfer == "sdr"


@pytest.mark.parametrize("argv, message", [
    (["--pattern", "solid", "--set", "color=203nits"], "color: a colour in cd/m2 needs transfer pq or hlg"),
    (["--pattern", "hdr_bars", "--transfer", "sdr"], "transfer: hdr_bars is drawn for pq or hlg only"),
])
def test_what_render_refuses_gui_refuses(argv, message):
    with pytest.raises(ValueError, match=message):
        plan(*argv)
