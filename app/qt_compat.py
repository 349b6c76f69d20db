"""Work-arounds for defects in the Qt binding that would otherwise crash the app.

PySide6 6.12.0 on CPython 3.11 returns ``None`` (from every method that
returns nothing: ``update()``, ``QTimer.start()``, every ``gl*`` call) and
``True`` (from ``SignalInstance.emit()``) without taking a reference, as if
they were immortal -- which they are only from CPython 3.12 on.  Each such
call drops one reference; a live loop makes thousands a second, and within
a minute the interpreter aborts with "none_dealloc: deallocating None" or
"bool_dealloc: deallocating True or False".

:func:`guard_singleton_refcounts` detects the defect with a private object
and, only when it is present, raises the reference counts of ``None``,
``True`` and ``False`` by 2**48 -- what CPython 3.12 does to make them
immortal -- which outlasts any run.  It imports Qt, so only the GUI, its
benchmark and the widget tests call it.

Garbage collected on a worker thread can deadlock the app: when the collector, run by an
allocation on the compile or render thread, frees a wrapped QObject (a closed window's menus),
the binding's destructor holds a Qt mutex and waits for the GIL while the GUI thread, holding
the GIL, waits for that mutex in its own deletion.  :func:`collect_on_gui_thread` turns the
automatic collector off once a QApplication exists and collects on the GUI thread instead, on
a timer, by the automatic collector's own rules (so a full collection is as rare as it was).
"""

from __future__ import annotations

import ctypes
import gc
import sys

BOOST = 1 << 48
SINGLETONS = (None, True, False)
_guarded = False


def _refcnt(obj) -> ctypes.c_ssize_t:
    # CPython: ob_refcnt is the first field of every object, at its id()
    return ctypes.c_ssize_t.from_address(id(obj))


def dropped_references(calls: int = 16) -> dict[str, int]:
    """References to None and True lost by ``calls`` void calls and signal emits."""
    from PySide6.QtCore import QObject, Signal

    class _Probe(QObject):
        fired = Signal()

    probe = _Probe()
    before = {v: sys.getrefcount(v) for v in (None, True)}
    for _ in range(calls):
        probe.setObjectName("probe")   # returns None
        probe.fired.emit()             # returns True
    lost = {v: before[v] - sys.getrefcount(v) for v in (None, True)}
    for v, n in lost.items():
        if n > 0:
            _refcnt(v).value += n      # give back what the probe took
    return {repr(v): n for v, n in lost.items()}


def guard_singleton_refcounts() -> bool:
    """Protect None/True/False from the binding's missing references; True when needed."""
    global _guarded
    if _guarded:
        return True
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return False
    if not any(n >= 8 for n in dropped_references().values()):
        return False
    for v in SINGLETONS:
        _refcnt(v).value += BOOST
    _guarded = True
    return True


CHECK_EVERY_MS = 250


class GuiThreadCollector:
    """Python's generational collector, run from the GUI thread: :meth:`check` collects the
    generations whose thresholds were passed, by CPython's own rule: the young generations by
    their counts, the full collection (tens of ms with torch loaded: a late frame at 60 Hz) only
    once the objects promoted since the last one exceed a quarter of those that survived it."""

    def __init__(self):
        self.threshold = gc.get_threshold()
        self.long_lived = len(gc.get_objects(2))   # survivors of the last full collection
        self.pending = 0                            # promoted to the oldest generation since
        self.collections = [0, 0, 0]
        self.timer = None

    def check(self) -> int | None:
        """Collect what is due (the oldest generation due and those younger); the generation
        collected, or None."""
        counts, t = gc.get_count(), self.threshold
        if counts[0] <= t[0]:
            return None
        generation = 0
        if counts[1] > t[1]:
            generation = 1
            if counts[2] > t[2] and self.pending > self.long_lived // 4:
                generation = 2
        if generation == 2:
            gc.collect(2)
            self.long_lived, self.pending = len(gc.get_objects(2)), 0
        elif generation == 1:
            young = len(gc.get_objects(0)) + len(gc.get_objects(1))
            self.pending += max(0, young - gc.collect(1))      # the survivors move up
        else:
            gc.collect(0)
        self.collections[generation] += 1
        return generation


_collector: GuiThreadCollector | None = None


def collect_on_gui_thread() -> GuiThreadCollector | None:
    """Collect garbage on the GUI thread only, from now on (once a QCoreApplication exists;
    None before).  Idempotent; the automatic collector stays off for the process."""
    global _collector
    import threading

    from PySide6.QtCore import QCoreApplication, QTimer

    app = QCoreApplication.instance()
    if app is None:
        return None
    if _collector is None:
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("collect_on_gui_thread must be called on the GUI thread")
        _collector = GuiThreadCollector()
        timer = QTimer(app)
        timer.setObjectName("testcard-gc")
        timer.timeout.connect(_collector.check)
        timer.start(CHECK_EVERY_MS)
        _collector.timer = timer
    gc.disable()
    return _collector


def collector() -> GuiThreadCollector | None:
    """The GUI thread's collector, where :func:`collect_on_gui_thread` made one."""
    return _collector
