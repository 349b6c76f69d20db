"""`testcard capture --list` against a real X server: listed while Xvfb runs, left out once it
has gone (its DISPLAY then names a dead display)."""

import pytest

from app.cli import main
from core.capture.xdisplay import display_answers
from tests.helpers.screens import xvfb_server

pytestmark = pytest.mark.xvfb


def test_a_live_xvfb_is_listed_and_a_stopped_one_is_not(capsys, monkeypatch):
    with xvfb_server("320x240") as display:
        assert display_answers(display) is None
        monkeypatch.setenv("DISPLAY", display)
        assert main(["capture", "--list"]) == 0
        assert f"x11grab:{display}  the X11 screen" in capsys.readouterr().out
    assert display_answers(display) is not None
    assert main(["capture", "--list"]) == 0
    out = capsys.readouterr().out
    assert f"x11grab:{display}  the X11 screen" not in out
    assert f"no screen grab of DISPLAY={display}: no server answers" in out
