"""`testcard capture --list`: devices with their formats, the screen grab, and a plain sentence
when there is no capture device (no hardware needed: the device list is replaced)."""

import json

import pytest

import core.capture
from app.cli import main
from core.capture import NONE_FOUND, DeviceInfo

CARD = DeviceInfo("/dev/video0", "USB3 capture", True, ("YUYV (YUYV 4:2:2)", "MJPG (Motion-JPEG)"),
                  "uvcvideo")
META = DeviceInfo("/dev/video1", "USB3 capture", False, (), "uvcvideo")
LOCKED = DeviceInfo("/dev/video2", "", None, error="Permission denied")


@pytest.fixture
def devices(monkeypatch):
    found = []
    monkeypatch.setattr(core.capture, "list_devices", lambda: list(found))
    return found


def listing(capsys, *extra):
    rc = main(["capture", "--list", *extra])
    out = capsys.readouterr()
    assert rc == 0 and out.err == ""
    return out.out


def test_no_device_is_said_plainly(capsys, devices, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    out = listing(capsys)
    assert out.splitlines() == [NONE_FOUND, "no X11 display (DISPLAY is not set): no screen grab"]


def test_devices_with_their_formats_and_the_screen_grab(capsys, devices, monkeypatch):
    devices += [CARD, META, LOCKED]
    monkeypatch.setenv("DISPLAY", ":7")
    lines = listing(capsys).splitlines()
    assert lines[0].startswith("v4l2:/dev/video0  USB3 capture  [capture]  formats: YUYV (YUYV 4:2:2), "
                               "MJPG (Motion-JPEG)")
    assert "[no video capture" in lines[1] and "cannot be asked: Permission denied" in lines[2]
    assert NONE_FOUND not in lines
    assert lines[-1].startswith("x11grab::7  the X11 screen")


def test_json_lists_the_same(capsys, devices, monkeypatch):
    devices += [META]
    monkeypatch.setenv("DISPLAY", ":3")
    doc = json.loads(listing(capsys, "--json"))
    assert doc["devices"][0]["spec"] == "v4l2:/dev/video1" and doc["capture_devices"] == 0
    assert doc["none_found"] == NONE_FOUND and doc["screen_grab"] == "x11grab::3"


def test_without_list_says_what_to_do(capsys):
    assert main(["capture"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("testcard: error: testcard capture needs --list") and err.count("\n") == 1
