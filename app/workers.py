"""Work off the GUI thread: one worker for long jobs, one runner for one-off functions.

:class:`GeneratorWorker` follows superqt's ``GeneratorWorker``: a generator (a decode, a race)
runs on its own thread, what it yields arrives on the GUI thread, its return value arrives once,
and :meth:`~GeneratorWorker.quit` asks it to stop.  Unlike superqt's, yields are batched (a
decode yields 2,000 frames a second; the GUI wants a few updates a second) and the thread is a
plain ``threading.Thread`` named ``testcard-...``, so the tests' dangling-thread check sees it.

:class:`JobPanel` is the base of the panels that run such jobs: one long job at a time, their
one-off file work on a task runner, both stopped when the panel closes.

:class:`TaskRunner` runs one-off functions (save a frame, write a report, import decisions) one
at a time in submission order and hands ``(result, exception)`` to a callback on the GUI thread.

Both are QObjects living on the GUI thread; their signals are emitted from the worker thread and
so arrive queued, in order, on the GUI thread.  Keep a reference to either until its work is
done (``wait()``), and call ``wait()`` before the window closes so no thread outlives it.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Generator
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QWidget

# a long job: ``make_gen(cancel)``, a generator that may yield and return anything (a decode
# returns its report, a race its result)
MakeGen = Callable[[threading.Event], Generator[Any, Any, Any]]


class GeneratorWorker(QObject):
    """Run ``make_gen(cancel)``'s generator on a thread named ``name``.

    Signals, in this order: ``started``; ``yielded(list)`` with every item yielded since the
    last one (the first item at once, then at most every ``min_interval_s`` by ``clock``, and
    whatever is left before the outcome); exactly one outcome -- ``returned(value)``, the
    generator's return value, ``errored(exception)``, or ``aborted()``; ``finished()`` always last.

    :meth:`quit` only sets the ``cancel`` event the generator was made with; the generator
    decides what stopping means.  The abort rule: a generator that *returns* after ``quit()``
    reports through ``returned`` (a decode returns its partial report); one that *raises* after
    ``quit()`` -- whatever it raises -- reports ``aborted`` and no error (a race raises
    ``RaceCancelled``).  An exception before ``quit()``, or from ``make_gen`` itself, is
    ``errored``.  Only ``Exception`` is caught.
    """

    started = Signal()
    yielded = Signal(object)      # list of the items yielded since the last emit
    returned = Signal(object)     # the generator's return value
    errored = Signal(object)      # the exception
    aborted = Signal()
    finished = Signal()

    def __init__(self, make_gen: MakeGen, *, min_interval_s: float = 0.1,
                 clock: Callable[[], float] = time.monotonic, name: str = "testcard-job", parent=None):
        if not name.startswith("testcard-"):
            raise ValueError(f"worker thread names start with 'testcard-', got {name!r}")
        super().__init__(parent)
        self._make_gen = make_gen
        self.min_interval_s = min_interval_s
        self.clock = clock
        self.cancel = threading.Event()
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self.thread.start()

    def quit(self) -> None:
        """Ask the generator to stop (sets ``cancel``); returns at once."""
        self.cancel.set()

    @property
    def abort_requested(self) -> bool:
        return self.cancel.is_set()

    @property
    def is_running(self) -> bool:
        return self.thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Join the thread (if it was started); True when it is no longer running."""
        if self.thread.ident is not None and self.thread is not threading.current_thread():
            self.thread.join(timeout)
        return not self.thread.is_alive()

    def _run(self) -> None:
        self.started.emit()
        batch: list = []
        last = None
        try:
            gen = self._make_gen(self.cancel)
            while True:
                try:
                    item = next(gen)
                except StopIteration as stop:
                    value = stop.value
                    break
                batch.append(item)
                now = self.clock()
                if last is None or now - last >= self.min_interval_s:
                    self.yielded.emit(batch)
                    batch, last = [], now
        except Exception as exc:  # delivered as a signal; the app keeps running
            if batch:
                self.yielded.emit(batch)
            if self.cancel.is_set():
                self.aborted.emit()
            else:
                self.errored.emit(exc)
        else:
            if batch:
                self.yielded.emit(batch)
            self.returned.emit(value)
        finally:
            self.finished.emit()


class TaskRunner(QObject):
    """Run one-off functions off the GUI thread, one at a time, in the order submitted.

    ``submit(fn, on_done)`` calls ``fn()`` on a thread named ``name`` and then
    ``on_done(result, None)`` -- or ``on_done(None, exception)`` -- on the GUI thread.  ``busy``
    counts submitted functions whose callback has not run yet.  A thread runs only while there
    is work; :meth:`wait` joins it.
    """

    _done = Signal(object, object, object)   # callback, result, exception

    def __init__(self, name: str = "testcard-task", parent=None):
        if not name.startswith("testcard-"):
            raise ValueError(f"worker thread names start with 'testcard-', got {name!r}")
        super().__init__(parent)
        self.name = name
        self.busy = 0
        self._lock = threading.Lock()
        self._queue: deque = deque()
        self._draining = False
        self._threads: list[threading.Thread] = []
        self._done.connect(self._deliver)

    def submit(self, fn: Callable[[], object], on_done: Callable[[object, Exception | None], None]) -> None:
        self.busy += 1
        with self._lock:
            self._queue.append((fn, on_done))
            if self._draining:
                return
            self._draining = True
            t = threading.Thread(target=self._drain, name=self.name, daemon=True)
            self._threads = [x for x in self._threads if x.is_alive()] + [t]
        t.start()

    def _drain(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._draining = False
                    return
                fn, on_done = self._queue.popleft()
            try:
                result = fn()
            except Exception as exc:  # handed to on_done on the GUI thread
                self._done.emit(on_done, None, exc)
            else:
                self._done.emit(on_done, result, None)

    @Slot(object, object, object)
    def _deliver(self, callback, result, exc) -> None:
        self.busy -= 1
        callback(result, exc)

    def wait(self) -> None:
        """Join every thread started so far (the functions submitted have all run after it)."""
        with self._lock:
            threads, self._threads = self._threads, []
        for t in threads:
            t.join()


class JobPanel(QWidget):
    """A panel that runs one long job at a time on a :class:`GeneratorWorker` and its one-off
    file work on :attr:`tasks`, and stops both when it closes (or :meth:`shutdown` is called,
    as the main window does)."""

    def __init__(self, tasks_name: str, parent=None):
        super().__init__(parent)
        self.worker: GeneratorWorker | None = None
        self.tasks = TaskRunner(tasks_name, self)

    @property
    def running(self) -> bool:
        return self.worker is not None

    def start_job(self, make_gen: MakeGen, *, name: str,
                  yielded: Callable, returned: Callable, errored: Callable,
                  aborted: Callable) -> GeneratorWorker:
        """The job's worker with its outcome slots connected; the caller starts it once its
        widgets show the job running."""
        worker = GeneratorWorker(make_gen, name=name)
        worker.yielded.connect(yielded)
        worker.returned.connect(returned)
        worker.errored.connect(errored)
        worker.aborted.connect(aborted)
        self.worker = worker
        return worker

    def cancel_job(self) -> bool:
        """Ask the running job to stop; False when there is none."""
        if self.worker is None:
            return False
        self.worker.quit()
        return True

    def end_job(self) -> None:
        """Join the job's thread and let go of it (its outcome slots call this)."""
        worker, self.worker = self.worker, None
        if worker is not None:
            worker.wait()
            for sig in (worker.yielded, worker.returned, worker.errored, worker.aborted):
                sig.disconnect()

    def shutdown(self) -> None:
        """Cancel a running job and wait for every worker thread."""
        self.cancel_job()
        self.end_job()
        self.tasks.wait()

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        self.shutdown()
        super().closeEvent(event)


def either(on_result, on_error):
    """A :class:`TaskRunner` callback: ``on_result(result)`` or ``on_error(exc)``."""
    return lambda result, exc: on_error(exc) if exc is not None else on_result(result)
