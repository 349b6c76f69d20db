"""The capture checks: the sources listed as ``testcard capture --list`` lists them, and the
loop-back test, which the doctor does not run, never says ok."""

from core.doctor import NOT_AVAILABLE, NOT_RUN, OK, check_screen_grab, check_sources
from core.doctor.capture import latency_not_run


def test_no_display_and_no_device_is_not_available(monkeypatch):
    monkeypatch.setattr("core.doctor.capture.list_devices", lambda: [])
    c = check_sources(environ={})
    assert c.verdict == NOT_AVAILABLE and "no V4L2 capture devices" in c.figure
    assert check_screen_grab(environ={}).verdict == NOT_AVAILABLE


def test_the_screen_grab_is_listed_where_there_is_a_display(monkeypatch):
    monkeypatch.setattr("core.doctor.capture.list_devices", lambda: [])
    c = check_sources(environ={"DISPLAY": ":7"})
    assert c.verdict == OK and c.figure.startswith("x11grab::7") and c.data["screen_grab"] == "x11grab::7"


def test_the_loop_back_test_is_not_run_and_says_how_to_run_it():
    c = latency_not_run(environ={"DISPLAY": ":7"})
    assert c.verdict == NOT_RUN and c.figure.startswith("not run")
    assert c.detail == "testcard latency --source x11grab::7 --seconds 10"
