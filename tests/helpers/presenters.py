"""A presenter that presents by itself and keeps what each present showed, for tests that need
the exact frame on screen (not a screenshot): any surface depth, on the offscreen platform.

Nothing here imports Qt at import time; :func:`showing_presenter` builds one.
"""

from __future__ import annotations


def showing_presenter(bits: int = 8, clock=None):
    """A :class:`~app.preview.presenter.Presenter` whose ``request_present`` presents on the
    next turn of the event loop: ``shown`` is a copy of the frame that present showed,
    ``shown_log`` every (present time, copy) pair since ``keep(True)``."""
    import time

    import numpy as np
    from PySide6.QtCore import QObject, QTimer, Signal

    clock = clock or time.perf_counter

    class ShowingPresenter(QObject):
        presented = Signal(float, float, float)
        key_pressed = Signal(object)
        surface_ready = Signal(int)
        releasing = Signal()
        kind = "test"
        vsync_capable = False
        updates_lines = False

        def __init__(self):
            super().__init__()
            self.surface_bits = bits
            self.pending = None      # the frame the next present shows (a copy)
            self.shown = None        # the frame the last present showed
            self.presents = 0
            self._asked = False

        def set_frame(self, data, lines=None, key=None):
            assert lines is None, "lines for a presenter that holds no frame"
            self.pending = np.array(data)

        def holds(self, key):
            return False

        def withdraw(self):
            self.pending = None

        def lend_buffer(self, shape, dtype):
            return np.empty(shape, dtype)

        def give_back(self, buffer):
            pass

        def request_present(self):
            if not self._asked:
                self._asked = True
                QTimer.singleShot(0, self._paint)

        def _paint(self):
            self._asked = False
            t0 = clock()
            if self.pending is not None:
                self.shown, self.pending = self.pending, None
            self.presents += 1
            self.presented.emit(t0, clock(), 0.0)

        def release(self):
            self.releasing.emit()

    return ShowingPresenter()
