"""The guard against PySide6 6.12.0's missing references to None/True on CPython 3.11."""

import subprocess
import sys

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.qt


LOOP = """
import sys
from app.qt_compat import guard_singleton_refcounts
guarded = guard_singleton_refcounts()
from PySide6.QtCore import QObject, Signal
class P(QObject):
    fired = Signal(int)
p = P()
p.fired.connect(lambda i: None)
for i in range(200_000):
    p.fired.emit(i)        # returns True
    p.setObjectName("x")   # returns None
print("survived", guarded)
"""


def test_a_long_run_of_emits_and_void_calls_survives():
    # without the guard, this binding frees None/True within the first few thousand calls
    # and the interpreter aborts ("none_dealloc"/"bool_dealloc"); with it, nothing happens
    out = subprocess.run([sys.executable, "-c", LOOP], capture_output=True, text=True, cwd=ROOT,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("survived")


def test_guard_is_idempotent_and_leaves_counts_sane():
    from app.qt_compat import guard_singleton_refcounts

    first = guard_singleton_refcounts()
    assert guard_singleton_refcounts() == first
    assert sys.getrefcount(None) > 1000 and sys.getrefcount(True) > 1000


# ------------------------------------------------------------ garbage on the GUI thread
def test_with_a_qapplication_garbage_is_collected_on_the_gui_thread_only(qtbot):
    import gc
    import threading
    import weakref

    from PySide6.QtWidgets import QMenu, QWidget

    from app import qt_compat

    c = qt_compat.collect_on_gui_thread()
    assert c is not None and c is qt_compat.collector() and not gc.isenabled()
    assert c.timer.isActive() and c.timer.interval() == qt_compat.CHECK_EVERY_MS
    widget = QWidget()
    QMenu(widget).addAction("a window's menu")
    widget.cycle = widget                 # garbage only a collection frees
    gone = weakref.ref(widget)
    del widget

    def churn():                          # a worker thread allocating as a compile does
        junk = []
        for _ in range(50_000):
            pair = [None]
            pair[0] = pair
            junk.append(pair)
            if len(junk) > 1000:
                junk.clear()

    t = threading.Thread(target=churn)
    t.start()
    t.join()
    assert gone() is not None             # the worker's allocations collected nothing
    qtbot.waitUntil(lambda: gone() is None, timeout=5000)   # the GUI thread's timer did
    assert sum(c.collections) > 0


def test_the_collector_collects_what_is_due_and_a_full_collection_by_cpythons_rule(monkeypatch):
    from app import qt_compat

    c = qt_compat.GuiThreadCollector()
    done = []
    young = {0: [object()] * 30, 1: [object()] * 20, 2: [object()] * 400}
    monkeypatch.setattr(qt_compat.gc, "collect", lambda g: done.append(g) or 10)   # 10 found
    monkeypatch.setattr(qt_compat.gc, "get_objects", lambda generation: young[generation])
    c.long_lived, c.pending = 400, 0
    t0, t1, t2 = c.threshold
    counts = {"v": (t0, 0, 0)}
    monkeypatch.setattr(qt_compat.gc, "get_count", lambda: counts["v"])
    assert c.check() is None and done == []                  # under the first threshold
    counts["v"] = (t0 + 1, 0, 0)
    assert c.check() == 0
    counts["v"] = (t0 + 1, t1 + 1, 0)
    assert c.check() == 1 and c.pending == 30 + 20 - 10      # the survivors were promoted
    counts["v"] = (t0 + 1, t1 + 1, t2 + 1)
    assert c.check() == 1 and c.pending == 80                # 80 of 400 long-lived: not yet
    assert c.check() == 1 and c.pending == 120               # past a quarter: the next is full
    assert c.check() == 2 and c.pending == 0 and c.long_lived == 400
    assert done == [0, 1, 1, 1, 2] and c.collections == [1, 3, 1]
