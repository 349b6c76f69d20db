"""The X server helpers the kiosk tests lean on, under the race that broke them: windows made
and destroyed while ``xwininfo -tree`` walks the tree (a starting Qt app does this).

A plain ``xwininfo -root -tree`` fails then ("X Error: 3: Bad Window"); :func:`tree` reads the
tree again.  Another client churns windows through libX11 meanwhile.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.screens import xvfb_server
from tests.helpers.xserver import GONE_MIDWALK, need_xwininfo, tree

pytestmark = [pytest.mark.xvfb]

CHURN = r"""
import ctypes, sys
x = ctypes.CDLL("libX11.so.6")
x.XOpenDisplay.restype, x.XOpenDisplay.argtypes = ctypes.c_void_p, [ctypes.c_char_p]
x.XRootWindow.restype, x.XRootWindow.argtypes = ctypes.c_ulong, [ctypes.c_void_p, ctypes.c_int]
x.XCreateSimpleWindow.restype = ctypes.c_ulong
x.XCreateSimpleWindow.argtypes = [ctypes.c_void_p, ctypes.c_ulong] + [ctypes.c_int] * 2 \
    + [ctypes.c_uint] * 3 + [ctypes.c_ulong] * 2
x.XDestroyWindow.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
x.XFlush.argtypes = [ctypes.c_void_p]
d = x.XOpenDisplay(sys.argv[1].encode())
root = x.XRootWindow(d, 0)
print("churning", flush=True)
while True:
    made = [x.XCreateSimpleWindow(d, root, 0, 0, 10, 10, 0, 0, 0) for _ in range(40)]
    x.XFlush(d)
    for w in made:
        x.XDestroyWindow(d, w)
    x.XFlush(d)
"""


def test_the_tree_is_read_whole_while_windows_come_and_go():
    need_xwininfo()
    with xvfb_server("640x480") as display:
        churn = subprocess.Popen([sys.executable, "-c", CHURN, display], stdout=subprocess.PIPE, text=True)
        try:
            assert churn.stdout.readline().strip() == "churning"
            failed = None
            for _ in range(2000):      # about one walk in ten fails here; stop at the first
                plain = subprocess.run(["xwininfo", "-display", f"{display}.0", "-root", "-tree"],
                                       capture_output=True, text=True, timeout=30)
                if plain.returncode != 0:
                    failed = plain
                    break
            assert failed is not None, "the churn never broke a plain walk: this test shows nothing here"
            assert GONE_MIDWALK.search(failed.stderr), failed.stderr
            for _ in range(100):
                assert "Root window id:" in tree(display, 0)
        finally:
            churn.kill()
            churn.wait()
