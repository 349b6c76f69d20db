"""`testcard gui` and `testcard show` fullscreen on the second screen of a two-screen X server
(Xvfb with X screens of 1920x1080 and 1280x720), ended every way an operator ends them: the
frame limit, Esc, the window's close button (a ``WM_DELETE_WINDOW`` message, as a window
manager sends it) and SIGTERM.  Each must exit 0 with no crash, the output must have been on
screen 1's whole geometry (as the X server has it), and the settings must be as the command
promises: the GUI stores them on every way out, ``show`` stores nothing.

Qt's xcb platform lists each X screen as a ``QScreen``, in the X server's order, so
``--screen 1`` is X screen 1.  Its GL context is created for the primary screen (X screen 0)
whatever screen the window is on; closing the output window before deleting it made Qt bind
that context to a surface of X screen 1, and Mesa crashed (exit 139) at the end of every
``gui --screen 1 --fullscreen --frames N``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from tests.helpers import ROOT
from tests.helpers.screens import xvfb_server
from tests.helpers.xserver import close_window, need_xwininfo, press_key, wait_for, window_ids, windows

pytestmark = [pytest.mark.qt, pytest.mark.xvfb, pytest.mark.slow]

SCREEN_1 = (0, 0, 1280, 720)
OUTPUT = "testcard output"


@pytest.fixture(scope="module")
def display():
    need_xwininfo()
    with xvfb_server("1920x1080", "1280x720") as d:
        yield d


@pytest.fixture(autouse=True)
def no_process_outlives_its_test():
    """A test that fails before ``end()`` kills its process here: left running fullscreen on
    screen 1, it would be the output window the next test finds and presses Esc in."""
    yield
    while Run.started:
        proc = Run.started.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class Run:
    """One testcard process on ``display``, its settings in a folder of its own."""

    started: list[subprocess.Popen] = []

    def __init__(self, display, tmp_path, *args):
        self.display, self.config = display, tmp_path / "config"
        self.out, self.err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
        env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT),
                   TESTCARD_CONFIG_DIR=str(self.config), PYTHONFAULTHANDLER="1")
        env.pop("TESTCARD_PRESENTER", None)
        with open(self.out, "w") as out, open(self.err, "w") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "app", *args], cwd=ROOT, env=env,
                                         stdout=out, stderr=err)
        Run.started.append(self.proc)

    def output_on_screen_1(self) -> int:
        """Wait for the output window on screen 1; check it covers the screen; its X id."""
        def found():
            assert self.proc.poll() is None, f"exited {self.proc.returncode}: {self.err.read_text()}"
            ids = window_ids(self.display, 1, OUTPUT)
            return ids if ids else None

        ids = wait_for(found, 150, "the output window on screen 1")
        assert len(ids) == 1, f"{len(ids)} output windows on screen 1: one is not this process's"
        assert {w[1:] for w in windows(self.display, 1) if w[0] == OUTPUT} == {SCREEN_1}
        assert not window_ids(self.display, 0, OUTPUT)
        return ids[0]

    def output_gone(self) -> None:
        wait_for(lambda: not window_ids(self.display, 1, OUTPUT), 60, "the output window to go")

    def end(self, timeout=90) -> tuple[str, str]:
        """Wait for the exit: status 0, no crash; (stdout, stderr)."""
        try:
            rc = self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        out, err = self.out.read_text(), self.err.read_text()
        assert "Fatal Python error" not in err, err
        assert rc == 0, f"exit status {rc} ({-rc if rc < 0 else rc}): {err}"
        return out, err

    def settings(self) -> dict | None:
        f = self.config / "settings.json"
        return json.loads(f.read_text()) if f.exists() else None


def gui(display, tmp_path, *extra) -> Run:
    return Run(display, tmp_path, "gui", "--screen", "1", "--fullscreen", "--pattern", "checkerboard",
               *extra)


def show(display, tmp_path, *extra) -> Run:
    return Run(display, tmp_path, "show", "checkerboard", "--screen", "1", "--no-banner", *extra)


def assert_gui_saved(run: Run) -> None:
    s = run.settings()
    assert s is not None, "the GUI stored no settings"
    assert s["pattern"] == "checkerboard"
    assert s["output_screen_id"]["index"] == 1 and s["output_screen_id"]["geometry"] == list(SCREEN_1)


def close_main_window(run: Run) -> None:
    """The main window's close button (the only mapped "testcard" window on screen 0)."""
    (main,) = window_ids(run.display, 0, "testcard")
    close_window(run.display, 0, main)


@pytest.mark.parametrize("attempt", range(3))
def test_gui_frame_limit_on_screen_1_exits_0_and_stores_settings(display, tmp_path, attempt):
    run = gui(display, tmp_path, "--frames", "240")
    run.output_on_screen_1()
    out, _ = run.end()
    assert out.strip().splitlines()[-1].startswith("docks: ")      # run_gui returned normally
    assert_gui_saved(run)


def test_gui_esc_leaves_fullscreen_on_screen_1_then_the_close_button_exits_0(display, tmp_path):
    run = gui(display, tmp_path)
    wid = run.output_on_screen_1()
    press_key(display, 1, wid)                    # Esc: the output closes, the app stays
    run.output_gone()
    assert run.proc.poll() is None, run.err.read_text()
    close_main_window(run)
    run.end()
    assert_gui_saved(run)


def test_gui_output_closed_by_the_window_system_then_sigterm_exits_0(display, tmp_path):
    run = gui(display, tmp_path)
    wid = run.output_on_screen_1()
    close_window(display, 1, wid)                 # the output's close button: fullscreen ends
    run.output_gone()
    assert run.proc.poll() is None, run.err.read_text()
    run.proc.send_signal(signal.SIGTERM)
    run.end()
    assert_gui_saved(run)


def test_gui_sigterm_from_fullscreen_on_screen_1_exits_0_and_stores_settings(display, tmp_path):
    run = gui(display, tmp_path)
    run.output_on_screen_1()
    run.proc.send_signal(signal.SIGTERM)
    run.end()
    assert_gui_saved(run)


@pytest.mark.parametrize("how", ["frames", "frames", "Esc", "window closed", "SIGTERM"])
def test_show_on_screen_1_ends_with_exit_0_every_way(display, tmp_path, how):
    run = show(display, tmp_path, *(["--frames", "120"] if how == "frames" else []))
    wid = run.output_on_screen_1()
    if how == "Esc":
        press_key(display, 1, wid)
    elif how == "window closed":
        close_window(display, 1, wid)
    elif how == "SIGTERM":
        run.proc.send_signal(signal.SIGTERM)
    out, _ = run.end()
    why = "frame limit" if how == "frames" else how
    assert out.strip().splitlines()[-1] == f"testcard show: ended ({why})"
    assert run.settings() is None                 # show stores nothing
