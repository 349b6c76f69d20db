"""A live race drives an output session, never a window: LiveOutput on a bare OutputSession (no
MainWindow anywhere) opens the output on the screen it is told, presents each candidate, and
puts back the pattern, path, device and output as they were."""

import threading

import pytest

from app.panels import LiveOutput
from app.preview import OutputSession, screen_records
from core.decisions import LiveOutputLost, parse_band
from core.patterns import make_spec

pytestmark = pytest.mark.qt


MADE: list = []     # main windows constructed during a test (none may be)


def no_main_window() -> bool:
    return not MADE


@pytest.fixture
def session(qapp, monkeypatch):
    from app.window import MainWindow

    monkeypatch.delenv("TESTCARD_RENDER_PATH", raising=False)
    MADE.clear()

    def made(self, *args, **kwargs):     # a race that built a window would be seen here
        MADE.append(self)
        raise AssertionError("a live race on a session built a MainWindow")

    monkeypatch.setattr(MainWindow, "__init__", made)
    before = set(threading.enumerate())
    spec = make_spec("checkerboard", {}, width=64, height=36, bit_depth=8)
    s = OutputSession(spec, presenter="raster", banner=False, read_decisions=False)
    s.start(fullscreen=False)            # the loop runs; the race opens the output
    yield s
    s.close()
    qapp.processEvents()
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not left, f"threads left running after close: {left}"


def test_a_race_on_a_bare_session_opens_presents_and_puts_everything_back(qtbot, session):
    pytest.importorskip("torch")
    loop, notes = session.loop, []
    session.note.connect(notes.append)
    wanted = screen_records()[0].identity
    asked = []

    def screen():
        asked.append(wanted)
        return wanted

    before = (loop.spec, loop.path, loop.device, loop.reuse_static)
    out = LiveOutput(session, screen=screen)
    band = out.open(parse_band("counter@64x36/rgb10"), "cpu")
    assert band.name == "counter@64x36/rgb8"           # the 8-bit raster surface's format
    assert session.is_open and asked == [wanted] and session.output.wanted == wanted
    assert loop.spec.pattern == "counter" and not loop.reuse_static
    assert no_main_window()
    frames = out.present("torch-eager", 6)              # from the GUI thread: a nested loop
    assert len(frames) == 6 and (loop.path, loop.path_source) == ("torch-eager", "race")
    assert session.race.get(band, "cpu") == "torch-eager"
    assert f"render path now torch-eager: {loop.path_reason}" in notes   # through the session
    out.close()
    assert not session.is_open
    assert (loop.spec, loop.path, loop.device, loop.reuse_static) == before
    assert session.race.get(band, "cpu") is None and no_main_window()


def test_an_output_open_before_the_race_stays_open_and_primary_is_the_default(qtbot, session):
    session.open_output(None)
    qtbot.waitUntil(lambda: session.loop.presented_count > 0, timeout=10_000)
    out = LiveOutput(session)                            # no screen: it never opens one itself
    out.open(parse_band("checkerboard@64x36/rgb8"), "cpu")
    assert len(out.present("numpy", 3)) == 3
    out.close()
    assert session.is_open                              # not the race's to close
    session.close_output()
    out = LiveOutput(session)
    out.open(parse_band("checkerboard@64x36/rgb8"), "cpu")
    assert session.is_open and session.output.wanted is None     # the primary
    out.close()
    assert not session.is_open


def test_a_spec_the_session_shows_mid_race_ends_it_and_is_what_comes_back(qtbot, session):
    loop = session.loop
    out = LiveOutput(session)
    out.open(parse_band("counter@64x36/rgb8"), "cpu")
    other = make_spec("solid", {}, width=64, height=36, bit_depth=8)
    assert session.show(other)                          # the operator picks another pattern
    with pytest.raises(LiveOutputLost, match="the pattern on the live output changed"):
        out.present("numpy", 3)
    out.close()
    assert loop.spec == other and not session.is_open    # not the spec from before the race
