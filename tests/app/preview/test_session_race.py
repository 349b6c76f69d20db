"""A live race's candidate is its session's alone: each OutputSession holds its own race
override and passes it when its loop chooses a path, so one session's race never reaches
another's loop (or any choice made without it)."""

import pytest

from app.preview.session import OutputSession
from core.decisions import band_chain, choose_path_for
from core.patterns import make_spec

pytestmark = pytest.mark.qt


def _session(spec):
    return OutputSession(spec, presenter="raster", banner=False, read_decisions=False)


def test_one_sessions_race_never_reaches_another_sessions_loop(qtbot, monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.delenv("TESTCARD_RENDER_PATH", raising=False)
    spec = make_spec("checkerboard", {}, width=64, height=36, bit_depth=8)
    ours, theirs = _session(spec), _session(spec)
    try:
        assert ours.race is not theirs.race
        band = band_chain(spec, "rgb8")[0]
        ours.race.set(band, "cpu", "torch-eager")
        ours.loop.redecide()
        theirs.loop.redecide()
        assert (ours.loop.path, ours.loop.path_source) == ("torch-eager", "race")
        assert (theirs.loop.path, theirs.loop.path_source) == ("numpy", "default")
        assert choose_path_for(spec, "rgb8", "cpu", cache=ours.decisions).source == "default"
        theirs.race.set(band, "cpu", "numpy")       # their race names another candidate
        ours.loop.redecide()
        assert ours.loop.path == "torch-eager"
        ours.race.set(band, "cpu", None)            # our race ends: back to the default
        ours.loop.redecide()
        assert (ours.loop.path, ours.loop.path_source) == ("numpy", "default")
    finally:
        ours.close()
        theirs.close()


def test_rechoosing_the_path_says_the_new_path_or_why_it_stays(qtbot, monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.delenv("TESTCARD_RENDER_PATH", raising=False)
    spec = make_spec("checkerboard", {}, width=64, height=36, bit_depth=8)
    session = _session(spec)
    notes = []
    session.note.connect(notes.append)
    try:
        assert session.rechoose_path() is False and notes == []     # nothing changed: silent
        band = band_chain(spec, "rgb8")[0]
        session.race.set(band, "cpu", "torch-eager")
        assert session.rechoose_path() is True and session.loop.path == "torch-eager"
        assert notes == [f"render path now torch-eager: {session.loop.path_reason}"]

        def refuse():
            raise ValueError("no such device")

        monkeypatch.setattr(session.loop, "redecide", refuse)
        assert session.rechoose_path() is False and session.loop.path == "torch-eager"
        assert notes[-1] == "render path not changed: no such device"
    finally:
        session.close()
