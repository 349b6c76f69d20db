"""Whether each torch path runs here is asked lazily: the Measure panel's set-up shows numpy's
verdict at once and the torch paths as being checked; the answer comes from a worker once the
set-up is on screen, or at once when a caller needs the candidates."""

import pytest

from app.panels import race_setup
from app.panels.race_setup import CHECKING, RaceSetup
from app.workers import TaskRunner
from core.decisions import RaceSettings

pytestmark = pytest.mark.qt

ANSWER = {"numpy": None, "torch-eager": None, "torch-compiled": "no compiler here",
          "torch-cudagraphs": "needs CUDA"}


@pytest.fixture
def asked(monkeypatch):
    calls = []

    def available_paths(device):
        calls.append(device)
        return dict(ANSWER)

    monkeypatch.setattr(race_setup, "available_paths", available_paths)
    return calls


def test_nothing_is_asked_until_needed_then_once(qtbot, asked):
    setup = RaceSetup(RaceSettings(), live=False)
    qtbot.addWidget(setup)
    setup.set_device("cpu")
    assert asked == []
    texts = [setup.candidate_list.item(i).text() for i in range(setup.candidate_list.count())]
    assert texts[0] == "numpy" and all(CHECKING in t for t in texts[1:])
    assert setup.checked_paths() == ("numpy", "torch-eager")    # needed: asked at once
    assert asked == ["cpu"]
    setup.set_candidates({"torch-eager"})
    assert setup.checked_paths() == ("torch-eager",) and asked == ["cpu"]


def test_on_screen_the_answer_comes_from_the_worker(qtbot, asked):
    runner = TaskRunner("testcard-test-paths")
    setup = RaceSetup(RaceSettings(), live=False)
    qtbot.addWidget(setup)
    setup.set_device("cpu", runner)
    assert asked == []                      # not shown: not asked
    setup.candidate_list.item(0).setCheckState(race_setup.Qt.Unchecked)   # unticked meanwhile
    setup.show()
    qtbot.waitUntil(lambda: setup.candidate_list.item(1).text() == "torch-eager")   # read, not asked
    runner.wait()
    assert asked == ["cpu"]
    items = setup.candidate_items()
    assert "no compiler here" in items["torch-compiled"].text()
    assert setup.checked_paths() == ("torch-eager",)     # numpy stays unticked
    assert asked == ["cpu"]


def test_the_live_form_says_before_start_that_it_takes_the_output_screen(qtbot):
    setup = RaceSetup(RaceSettings(), live=True)
    qtbot.addWidget(setup)
    setup.show()
    setup.set_form("live")
    assert setup.live_note.isVisible() and "takes over the output screen" in setup.live_note.text()
    setup.set_form("render")
    assert not setup.live_note.isVisible()
