"""Run slow one-off work (saving a frame, writing a CSV) off the GUI thread.

The function runs on a worker thread; its result (or exception) comes back
to a callback on the GUI thread through a queued signal.  :meth:`shutdown`
waits for the thread, so closing the window leaves none behind.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from PySide6.QtCore import QObject, Signal, Slot


class Worker(QObject):
    _done = Signal(object, object, object)   # callback, result, exception

    def __init__(self, parent=None):
        super().__init__(parent)
        self._pool: ThreadPoolExecutor | None = None
        self._done.connect(self._deliver)
        self.busy = 0

    def submit(self, fn, on_done, on_error) -> None:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="testcard-io")
        self.busy += 1

        def run():
            try:
                result = fn()
            except Exception as exc:  # handed to on_error on the GUI thread
                self._done.emit(on_error, None, exc)
            else:
                self._done.emit(on_done, result, None)

        self._pool.submit(run)

    @Slot(object, object, object)
    def _deliver(self, callback, result, exc) -> None:
        self.busy -= 1
        callback(exc if exc is not None else result)

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
