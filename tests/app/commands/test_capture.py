"""`testcard capture --list`: devices with their formats, the screen grab, and a plain sentence
when there is no capture device (no hardware needed: the device list is replaced)."""

import json
import socket
import threading

import pytest

import core.capture
import core.capture.xdisplay as xdisplay
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


class FakeX:
    """X display sockets in a folder of their own: ``serve(n)`` one whose "server" answers the
    connection setup (one byte, as an X server's reply begins), ``stale(n)`` a socket file no
    server listens on (a display whose server died), ``mute(n)`` one that accepts and never replies."""

    def __init__(self, folder):
        self.folder, self.socks, self.threads, self.stop = folder, [], [], threading.Event()

    def _bound(self, n):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(str(self.folder / f"X{n}"))
        self.socks.append(s)
        return s

    def serve(self, n):
        s = self._bound(n)
        s.listen(4)
        s.settimeout(0.05)

        def answer():
            while not self.stop.is_set():
                try:
                    conn, _ = s.accept()
                except OSError:
                    continue
                with conn:
                    conn.settimeout(2)
                    if len(conn.recv(12)) == 12:
                        conn.sendall(b"\1" + b"\0" * 7)

        t = threading.Thread(target=answer, daemon=True)
        t.start()
        self.threads.append(t)

    def stale(self, n):
        self._bound(n).close()      # the file stays; nothing listens

    def mute(self, n):
        self._bound(n).listen(1)

    def close(self):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=5)
        for s in self.socks:
            s.close()


@pytest.fixture
def xsockets(tmp_path, monkeypatch):
    folder = tmp_path / "x11"
    folder.mkdir()
    monkeypatch.setattr(xdisplay, "X11_SOCKETS", str(folder))
    fake = FakeX(folder)
    yield fake
    fake.close()


def listing(capsys, *extra):
    rc = main(["capture", "--list", *extra])
    out = capsys.readouterr()
    assert rc == 0 and out.err == ""
    return out.out


def test_no_device_is_said_plainly(capsys, devices, monkeypatch, xsockets):   # no other X server either
    monkeypatch.delenv("DISPLAY", raising=False)
    out = listing(capsys)
    assert out.splitlines() == [NONE_FOUND, "no X11 display (DISPLAY is not set): no screen grab"]


def test_devices_with_their_formats_and_the_screen_grab(capsys, devices, monkeypatch, xsockets):
    devices += [CARD, META, LOCKED]
    xsockets.serve(7)
    monkeypatch.setenv("DISPLAY", ":7")
    lines = listing(capsys).splitlines()
    assert lines[0].startswith("v4l2:/dev/video0  USB3 capture  [capture]  formats: YUYV (YUYV 4:2:2), "
                               "MJPG (Motion-JPEG)")
    assert "[no video capture" in lines[1] and "cannot be asked: Permission denied" in lines[2]
    assert NONE_FOUND not in lines
    assert lines[-1].startswith("x11grab::7  the X11 screen")


def test_json_lists_the_same(capsys, devices, monkeypatch, xsockets):
    devices += [META]
    xsockets.serve(3)
    monkeypatch.setenv("DISPLAY", ":3")
    doc = json.loads(listing(capsys, "--json"))
    assert doc["devices"][0]["spec"] == "v4l2:/dev/video1" and doc["capture_devices"] == 0
    assert doc["none_found"] == NONE_FOUND and doc["screen_grab"] == "x11grab::3"


def test_without_list_says_what_to_do(capsys):
    assert main(["capture"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("testcard: error: testcard capture needs --list") and err.count("\n") == 1


def test_a_dead_display_is_not_listed(capsys, devices, monkeypatch, xsockets):
    # DISPLAY names a display whose server is gone: its socket file is left, nothing listens
    xsockets.stale(7)
    monkeypatch.setenv("DISPLAY", ":7")
    out = listing(capsys)
    assert "x11grab::7" not in out
    assert out.splitlines()[-1] == "no screen grab of DISPLAY=:7: no server answers (Connection refused)"
    doc = json.loads(listing(capsys, "--json"))
    assert doc["screen_grab"] is None and doc["screen_grab_dead"].startswith("no server answers")
    # no socket at all
    monkeypatch.setenv("DISPLAY", ":9")
    assert "no screen grab of DISPLAY=:9: no server answers" in listing(capsys)


def test_other_displays_are_listed_only_when_they_answer(capsys, devices, monkeypatch, xsockets):
    xsockets.serve(2)
    xsockets.serve(5)
    xsockets.stale(4)
    monkeypatch.setenv("DISPLAY", ":2.0")
    lines = listing(capsys).splitlines()
    assert lines[1].startswith("x11grab::2.0  the X11 screen")
    assert lines[2:] == ["x11grab::5  another X11 screen on this machine (screen grab)",
                         "(1 X11 display socket without a server left out)"]


def test_a_socket_that_never_replies_is_no_display(xsockets):
    xsockets.mute(6)
    assert xdisplay.display_answers(":6", timeout=0.1) == "it does not answer"
    assert xdisplay.display_answers("nonsense") == "'nonsense' is not an X display name"
