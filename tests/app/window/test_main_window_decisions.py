"""The main window and the decision cache: a bad cache is reported in the log dock and the
status bar and the window opens on the default path; the cache is read off the GUI thread,
once, and a pattern switch never touches the file."""

import threading

import pytest

import core.decisions.cache as cache_mod
import core.decisions.index as ix
from core.decisions import cache_path, make_key
from core.decisions.schema import encode
from tests.helpers.decision_helpers import FP, entry

pytestmark = [pytest.mark.qt, pytest.mark.filterwarnings("ignore::core.decisions.DecisionCacheWarning")]


@pytest.fixture
def open_window(qtbot, small_settings):
    """Opens a main window on demand (after the test has prepared the cache); closes it, and
    no thread may outlive it."""
    from app.window import MainWindow

    before = set(threading.enumerate())
    made = []

    def open_():
        win = MainWindow(settings=small_settings, persist=False)
        qtbot.addWidget(win)
        win.resize(900, 600)
        win.show()
        qtbot.waitExposed(win)
        made.append(win)
        return win

    yield open_
    for win in made:
        win.close()
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not left, f"threads left running after close: {left}"


def _said(win, text):
    return any(text in line for line in win.log_dock.lines)


def test_a_corrupt_cache_is_reported_and_the_window_opens(qtbot, open_window):
    cache_path().parent.mkdir(parents=True, exist_ok=True)
    cache_path().write_bytes(b"{not json")
    win = open_window()
    qtbot.waitUntil(lambda: _said(win, "moved aside"), timeout=10_000)
    assert "moved aside" in win.statusBar().currentMessage()
    assert (win.loop.path, win.loop.path_source) == ("numpy", "default")
    assert list(cache_path().parent.glob("decisions.json.corrupt-*"))


def test_a_corrupt_cache_that_cannot_be_moved_aside_still_opens(qtbot, open_window, monkeypatch):
    cache_path().parent.mkdir(parents=True, exist_ok=True)
    cache_path().write_bytes(b"\xff\xfe not UTF-8")

    def read_only_folder(path, tag):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(cache_mod, "move_aside", read_only_folder)
    win = open_window()
    qtbot.waitUntil(lambda: _said(win, "could not be moved aside (Permission denied)"), timeout=10_000)
    assert "not UTF-8" in win.statusBar().currentMessage()
    assert win.loop.path == "numpy"
    assert cache_path().read_bytes() == b"\xff\xfe not UTF-8"


def test_the_cache_is_read_once_off_the_gui_thread_and_pattern_switches_never_touch_it(
        qtbot, open_window, monkeypatch):
    path = cache_path()                            # written as another testcard would
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode({make_key(FP, band): entry("torch-eager")
                             for band in ("checkerboard@64x36/rgb8", "bars@64x36/rgb8",
                                          "static@64x36/rgb8")}))
    reads, gui_thread = [], threading.current_thread()
    real_read, real_stat = ix.read_file, ix.stat_signature

    def read(path):
        reads.append(("read", threading.current_thread() is gui_thread))
        return real_read(path)

    def stat(path):
        reads.append(("stat", threading.current_thread() is gui_thread))
        return real_stat(path)

    monkeypatch.setattr(ix, "read_file", read)
    monkeypatch.setattr(ix, "stat_signature", stat)
    win = open_window()
    qtbot.waitUntil(lambda: win.loop.path_source == "cache", timeout=10_000)
    assert win.loop.path == "torch-eager"
    assert ("read", False) in reads and not any(on_gui for _what, on_gui in reads)
    done = len(reads)
    for name in ("bars", "ramp", "checkerboard", "bars"):
        win.choose_pattern(name)
    assert len(reads) == done                      # not even a stat
    assert win.loop.path == "torch-eager"
