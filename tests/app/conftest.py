"""Widget tests: offscreen platform (set in tests/conftest.py), small frames, no sleeps."""

import importlib.util
import threading

import pytest

if importlib.util.find_spec("PySide6") is not None:   # absent in the headless run
    from app.qt_compat import guard_singleton_refcounts

    # PySide6 6.12.0 on CPython 3.11 drops references to None/True on every void call and
    # signal emit; without the guard a long test session aborts in the interpreter.
    guard_singleton_refcounts()


@pytest.fixture
def small_settings():
    """Settings for a 64x36 8-bit checkerboard (exact in rgb8) that the window must not persist."""
    from app.settings import Settings

    return Settings(pattern="checkerboard", bit_depth=8, size=[64, 36])


@pytest.fixture
def main_window(qtbot, small_settings):
    """A shown main window; closed afterwards, and no thread may outlive it."""
    from app.window import MainWindow

    before = set(threading.enumerate())
    win = MainWindow(settings=small_settings)
    qtbot.addWidget(win)
    win.resize(900, 600)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not left, f"threads left running after close: {left}"
