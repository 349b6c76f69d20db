"""The one worker for long jobs and the one task runner: what arrives, in which order, on which
thread.  Clocks are injected and jobs block on events, so nothing here sleeps."""

import threading

import pytest
from PySide6.QtCore import QObject, Slot

from app.workers import GeneratorWorker, TaskRunner

pytestmark = pytest.mark.qt

OUTCOMES = ("returned", "errored", "aborted")


class StepClock:
    """A clock that advances one millisecond each time it is read."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 0.001
        return self.t


class Recorder(QObject):
    """Every signal of one worker, in the order it arrived, and the thread it arrived on."""

    def __init__(self, worker):
        super().__init__()
        self.seen: list[tuple[str, tuple]] = []
        self.threads: set[threading.Thread] = set()
        worker.started.connect(self.on_started)
        worker.yielded.connect(self.on_yielded)
        worker.returned.connect(self.on_returned)
        worker.errored.connect(self.on_errored)
        worker.aborted.connect(self.on_aborted)
        worker.finished.connect(self.on_finished)

    def _got(self, name, *args):
        self.seen.append((name, args))
        self.threads.add(threading.current_thread())

    @Slot()
    def on_started(self):
        self._got("started")

    @Slot(object)
    def on_yielded(self, batch):
        self._got("yielded", batch)

    @Slot(object)
    def on_returned(self, value):
        self._got("returned", value)

    @Slot(object)
    def on_errored(self, exc):
        self._got("errored", exc)

    @Slot()
    def on_aborted(self):
        self._got("aborted")

    @Slot()
    def on_finished(self):
        self._got("finished")

    @property
    def names(self):
        return [n for n, _ in self.seen]

    @property
    def batches(self):
        return [a[0] for n, a in self.seen if n == "yielded"]

    def outcome(self):
        """The one outcome signal and its arguments."""
        found = [(n, a) for n, a in self.seen if n in OUTCOMES]
        assert len(found) == 1, self.names
        return found[0]

    def done(self):
        return bool(self.seen) and self.seen[-1][0] == "finished"


def run_to_end(qtbot, worker):
    rec = Recorder(worker)
    worker.start()
    qtbot.waitUntil(rec.done, timeout=10_000)
    assert worker.wait(10) and not worker.is_running
    assert rec.names[0] == "started" and rec.names.count("finished") == 1
    assert rec.threads == {threading.main_thread()}    # queued onto the GUI thread
    return rec


def test_yields_arrive_batched_in_order_then_the_return_value(qtbot):
    def make_gen(cancel):
        yield from range(1000)
        return "all read"

    worker = GeneratorWorker(make_gen, min_interval_s=0.1, clock=StepClock())
    rec = run_to_end(qtbot, worker)
    batches = rec.batches
    assert all(isinstance(b, list) for b in batches)
    assert [x for b in batches for x in b] == list(range(1000))
    assert len(batches[0]) == 1                  # the first item at once
    assert len(batches) <= 12                    # then one batch per 100 ms of the clock, and a flush
    assert rec.outcome() == ("returned", ("all read",))
    assert rec.names[-2:] == ["returned", "finished"]


def test_an_exception_is_errored_after_what_was_yielded(qtbot):
    def make_gen(cancel):
        yield 1
        yield 2
        raise ValueError("boom")

    rec = run_to_end(qtbot, GeneratorWorker(make_gen))
    assert [x for b in rec.batches for x in b] == [1, 2]
    name, (exc,) = rec.outcome()
    assert name == "errored" and isinstance(exc, ValueError) and str(exc) == "boom"
    assert rec.names[-1] == "finished"


def test_make_gen_failing_is_errored_too(qtbot):
    def make_gen(cancel):
        raise FileNotFoundError("no such capture")

    rec = run_to_end(qtbot, GeneratorWorker(make_gen))
    name, (exc,) = rec.outcome()
    assert name == "errored" and isinstance(exc, FileNotFoundError)
    assert rec.names == ["started", "errored", "finished"]


def busy_until_cancelled(then):
    """A job that yields once and works until asked to stop; ``then(cancel)`` is how it ends."""
    def make_gen(cancel):
        yield "first"
        assert cancel.wait(30), "quit() never came"
        return then()
    return make_gen


def test_quit_lets_the_generator_return_its_partial_result(qtbot):
    worker = GeneratorWorker(busy_until_cancelled(lambda: {"cancelled": True, "frames": 1}))
    rec = Recorder(worker)
    worker.start()
    qtbot.waitUntil(lambda: rec.batches == [["first"]], timeout=10_000)
    assert worker.is_running and worker.thread in threading.enumerate()
    assert not worker.abort_requested
    worker.quit()
    assert worker.abort_requested
    qtbot.waitUntil(rec.done, timeout=10_000)
    assert rec.outcome() == ("returned", ({"cancelled": True, "frames": 1},))


def test_an_exception_after_quit_is_aborted_not_errored(qtbot):
    def stopped():
        raise RuntimeError("stopped on the way out")

    worker = GeneratorWorker(busy_until_cancelled(stopped))
    rec = Recorder(worker)
    worker.start()
    qtbot.waitUntil(lambda: rec.batches == [["first"]], timeout=10_000)
    worker.quit()
    qtbot.waitUntil(rec.done, timeout=10_000)
    assert rec.outcome() == ("aborted", ())
    assert rec.names == ["started", "yielded", "aborted", "finished"]


def test_the_thread_is_named_and_joined_by_wait(qtbot):
    worker = GeneratorWorker(busy_until_cancelled(lambda: None), name="testcard-unit")
    assert worker.wait() and not worker.is_running          # not started: nothing to wait for
    rec = Recorder(worker)
    worker.start()
    qtbot.waitUntil(lambda: rec.batches == [["first"]], timeout=10_000)
    assert worker.thread.name == "testcard-unit" and worker.thread in threading.enumerate()
    assert worker.is_running                                # still working
    worker.quit()
    assert worker.wait(10)
    assert not worker.thread.is_alive() and worker.thread not in threading.enumerate()
    qtbot.waitUntil(rec.done, timeout=10_000)
    with pytest.raises(ValueError, match="testcard-"):
        GeneratorWorker(busy_until_cancelled(lambda: None), name="job")


def test_task_runner_delivers_results_and_exceptions_on_the_gui_thread_in_order(qtbot):
    runner = TaskRunner("testcard-unit-io")
    ran_on, delivered = [], []

    def job(i):
        def fn():
            ran_on.append(threading.current_thread())
            if i == 2:
                raise OSError("disk full")
            return i * 10
        return fn

    for i in range(4):
        runner.submit(job(i), lambda result, exc, i=i: delivered.append((i, result, exc,
                                                                         threading.current_thread())))
    assert runner.busy == 4
    qtbot.waitUntil(lambda: runner.busy == 0, timeout=10_000)
    assert [(i, r) for i, r, _, _ in delivered] == [(0, 0), (1, 10), (2, None), (3, 30)]
    errors = [e for _, _, e, _ in delivered]
    assert errors[:2] == [None, None] and isinstance(errors[2], OSError) and errors[3] is None
    assert {t for *_, t in delivered} == {threading.main_thread()}
    assert ran_on and all(t is not threading.main_thread() and t.name == "testcard-unit-io" for t in ran_on)
    runner.wait()
    assert not any(t.name == "testcard-unit-io" for t in threading.enumerate())


def test_task_runner_wait_joins_work_in_flight(qtbot):
    runner = TaskRunner("testcard-unit-io")
    go = threading.Event()
    got = []
    runner.submit(lambda: go.wait(30) and "written", lambda result, exc: got.append((result, exc)))
    assert any(t.name == "testcard-unit-io" for t in threading.enumerate())
    go.set()
    runner.wait()
    assert not any(t.name == "testcard-unit-io" for t in threading.enumerate())
    qtbot.waitUntil(lambda: got == [("written", None)], timeout=10_000)
    assert runner.busy == 0


def test_job_panel_runs_one_job_and_closing_it_stops_the_job_and_joins_its_thread(qtbot):
    from app.workers import JobPanel

    panel = JobPanel("testcard-test-io")
    qtbot.addWidget(panel)
    got, returned = [], []
    release = threading.Event()

    def job(cancel):
        yield "first"
        release.wait(10)        # held until the test lets go: the job is running
        cancel.wait(10)
        return "partial" if cancel.is_set() else "whole"

    worker = panel.start_job(job, name="testcard-test-job", yielded=got.extend,
                             returned=returned.append, errored=pytest.fail, aborted=pytest.fail)
    assert panel.running and panel.worker is worker
    with qtbot.waitSignal(worker.yielded, timeout=5000):
        worker.start()
    thread = worker.thread
    release.set()
    with qtbot.waitSignal(worker.finished, timeout=5000):
        panel.close()           # closeEvent -> shutdown: cancel, join, let go
    assert not thread.is_alive() and not panel.running
    qtbot.waitUntil(lambda: returned == ["partial"], timeout=5000)
    assert got == ["first"]
    assert not panel.cancel_job()   # nothing left to cancel
