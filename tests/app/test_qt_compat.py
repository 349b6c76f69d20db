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
