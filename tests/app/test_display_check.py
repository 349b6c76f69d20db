"""A display that does not answer is one line and exit 2 before the QApplication exists: Qt's
xcb and wayland plugins would abort the interpreter (SIGABRT and a core dump) instead.

The unit tests ask fake displays (a socket that answers as an X server's first byte does, a
stale socket file, a Wayland socket); the command tests run testcard with ``DISPLAY`` naming
a display no server answers and no ``QT_QPA_PLATFORM``, as the systemd unit would."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading

import pytest

import core.capture.xdisplay as xdisplay
from app.display_check import display_refusal


def dead_display() -> str:
    """``:N`` for a display number no X server answers on this machine."""
    for n in range(987, 1100):
        if xdisplay.display_answers(f":{n}", timeout=0.2) is not None:
            return f":{n}"
    pytest.fail("every display from :987 to :1099 answers")


class FakeXServer:
    """A socket ``X{n}`` in ``folder`` that answers a connection setup with one byte (success)."""

    def __init__(self, folder, n):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(folder / f"X{n}"))
        self.sock.listen(4)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._answer, daemon=True)
        self.thread.start()

    def _answer(self):
        self.sock.settimeout(0.05)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                if len(conn.recv(12)) == 12:
                    conn.sendall(b"\1" + b"\0" * 7)

    def close(self):
        self.stop.set()
        self.thread.join(timeout=5)
        self.sock.close()


@pytest.fixture
def x11_sockets(tmp_path, monkeypatch):
    folder = tmp_path / "x11"
    folder.mkdir()
    monkeypatch.setattr(xdisplay, "X11_SOCKETS", str(folder))
    return folder


def test_a_display_whose_server_answers_is_no_refusal(x11_sockets):
    server = FakeXServer(x11_sockets, 42)
    try:
        assert display_refusal({"DISPLAY": ":42"}, platform="linux") is None
        assert display_refusal({"DISPLAY": ":42.1", "QT_QPA_PLATFORM": "xcb"}, platform="linux") is None
        # -display on the command line wins over DISPLAY, as Qt's xcb plugin reads it
        assert display_refusal({"DISPLAY": ":41"}, ["testcard", "-display", ":42"], platform="linux") is None
    finally:
        server.close()


def test_a_dead_display_is_one_sentence_saying_what_to_do(x11_sockets):
    (x11_sockets / "X43").touch()            # a socket file left behind: nothing listens
    for env in ({"DISPLAY": ":43"}, {"DISPLAY": ":44"}, {"DISPLAY": ":43", "QT_QPA_PLATFORM": "xcb"}):
        assert display_refusal(env, platform="linux") == (
            f"cannot open display {env['DISPLAY']!r}: no X server answers (start one, or set "
            "QT_QPA_PLATFORM=offscreen)")
    assert "DISPLAY is not set" in display_refusal({"QT_QPA_PLATFORM": "xcb"}, platform="linux")


def test_platforms_that_open_no_display_are_not_asked(x11_sockets):
    for qpa in ("offscreen", "minimal", "offscreen:configfile=x.json", "vnc"):
        assert display_refusal({"DISPLAY": ":43", "QT_QPA_PLATFORM": qpa}, platform="linux") is None
    argv = ["testcard", "-platform", "offscreen"]
    assert display_refusal({"DISPLAY": ":43"}, argv, platform="linux") is None
    assert display_refusal({"DISPLAY": ":43"}, platform="win32") is None
    assert display_refusal({"DISPLAY": ":43"}, platform="darwin") is None


def test_wayland_is_asked_at_its_socket_and_a_list_falls_back_as_qt_does(tmp_path, x11_sockets):
    env = {"XDG_RUNTIME_DIR": str(tmp_path), "WAYLAND_DISPLAY": "wayland-7", "QT_QPA_PLATFORM": "wayland"}
    why = display_refusal(env, platform="linux")
    assert why.startswith(f"cannot open Wayland display '{tmp_path / 'wayland-7'}': no compositor answers")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as compositor:
        compositor.bind(str(tmp_path / "wayland-7"))
        compositor.listen(1)
        assert display_refusal(env, platform="linux") is None
    # wayland gone, xcb next in the list: refused only when neither answers, with the first reason
    server = FakeXServer(x11_sockets, 45)
    try:
        listed = dict(env, QT_QPA_PLATFORM="wayland;xcb", DISPLAY=":45")
        (tmp_path / "wayland-7").unlink()
        assert display_refusal(listed, platform="linux") is None
    finally:
        server.close()
    assert display_refusal(dict(listed, DISPLAY=":46"), platform="linux").startswith(
        "cannot open Wayland display")


COMMANDS = [
    ["serve", "--resolve", "127.0.0.1:1"],
    ["show"],
    ["gui"],
    ["bench", "preview"],
]


def _env(display: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE")}
    env["DISPLAY"] = display
    return env


@pytest.mark.qt
@pytest.mark.parametrize("argv", [*COMMANDS, ["latency", "--source", "x11grab:", "--seconds", "1"]],
                         ids=["serve", "show", "gui", "bench preview", "latency x11grab"])
def test_window_commands_on_a_dead_display_exit_2_in_one_line(argv, tmp_path):
    display = dead_display()
    got = subprocess.run([sys.executable, "-m", "app", *argv], env=_env(display), cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert got.returncode != -signal.SIGABRT, f"Qt aborted: {got.stderr}"
    assert got.returncode == 2, got.stderr
    assert got.stderr.count("\n") == 1 and "Traceback" not in got.stderr
    assert f"cannot open display '{display}': no X server answers" in got.stderr
    assert not list(tmp_path.glob("core*"))


@pytest.mark.qt
def test_latency_output_on_a_dead_display_with_a_file_source(tmp_path):
    # the source is fine (a file); the output's display is not
    video = tmp_path / "in.mkv"
    video.write_bytes(b"")
    display = dead_display()
    got = subprocess.run([sys.executable, "-m", "app", "latency", "--source", str(video), "--seconds", "1"],
                         env=_env(display), cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert got.returncode == 2 and got.stderr == (
        f"testcard: error: cannot open display '{display}': no X server answers (start one, or set "
        "QT_QPA_PLATFORM=offscreen)\n")
