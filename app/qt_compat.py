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
"""

from __future__ import annotations

import ctypes
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
