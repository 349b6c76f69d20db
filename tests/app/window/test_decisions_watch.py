"""The window's decision cache read: what is wrong said once, the path chosen again on a change."""

import pytest

pytestmark = pytest.mark.qt


class Worker:
    """Runs what is submitted at once (the real one runs it on a thread)."""

    def submit(self, fn, on_done):
        try:
            result, exc = fn(), None
        except Exception as e:  # noqa: BLE001 - handed on as the real worker does
            result, exc = None, e
        on_done(result, exc)


class Cache:
    def __init__(self, changes):
        self.changes = list(changes)      # what each refresh returns (or raises)
        self.notes = ["decisions.json was moved aside"]

    def refresh(self):
        change = self.changes.pop(0)
        if isinstance(change, Exception):
            raise change
        return change


def watch(qtbot, cache):
    from app.window.decisions_watch import DecisionsWatch

    said = []
    w = DecisionsWatch(cache, lambda: said.append(("rechoose",)), Worker())
    w.notice.connect(lambda m: said.append(("notice", m)))
    w.warning.connect(lambda m: said.append(("warning", m)))
    w.path_changed.connect(lambda: said.append(("path",)))
    return w, said


def test_the_first_read_says_the_notes_and_a_change_rechooses_the_path(qtbot):
    w, said = watch(qtbot, Cache([False, False, True]))
    w.start()
    assert said == [("warning", "decisions.json was moved aside")]    # the first read, unchanged
    w.timer.timeout.emit()
    assert len(said) == 1                                              # unchanged again: silent
    w.timer.timeout.emit()
    assert said[1:] == [("warning", "decisions.json was moved aside"),
                        ("rechoose",), ("path",)]      # the session's rule says the new path
    w.stop()
    assert not w.timer.isActive()


def test_a_failed_read_is_one_notice_and_nothing_after_stop(qtbot):
    w, said = watch(qtbot, Cache([OSError("permission denied"), True]))
    w.start()
    assert said == [("notice", "the decision cache was not read: permission denied")]
    w.stop()
    w.timer.timeout.emit()                 # a read finishing after close changes nothing
    assert len(said) == 1
