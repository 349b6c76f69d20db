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


def test_every_x_screen_of_a_display_is_a_grab_source(capsys, monkeypatch):
    import json

    with xvfb_server("1920x1080", "1280x720") as display:
        for current in (display, f"{display}.1"):
            monkeypatch.setenv("DISPLAY", current)
            assert main(["capture", "--list"]) == 0
            out = capsys.readouterr().out
            assert f"x11grab:{display}.0  X screen 0 of {display}, 1920x1080" in out
            assert f"x11grab:{display}.1  X screen 1 of {display}, 1280x720" in out
        assert "(DISPLAY)" in out.split(f"x11grab:{display}.1")[1].splitlines()[0]
        assert main(["capture", "--list", "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        mine = [g for g in doc["x_screens"] if g["display"] == display]
        assert [(g["spec"], g["size"], g["default"]) for g in mine] == [
            (f"x11grab:{display}.0", "1920x1080", False), (f"x11grab:{display}.1", "1280x720", True)]
