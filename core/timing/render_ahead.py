"""Frames rendered ahead of the presents that show them: the live loop's schedule (no Qt).

The loop presents frame N while frame N+1 (and N+2) is rendered on a thread of its own, into
buffers the presenter lends (mapped pixel buffers).  :class:`RenderAhead` decides which frame
is rendered next and which one a present shows; the render itself is injected.  Its calls
(all but the render) come from one thread, the loop's; the render runs on the worker thread,
or on the caller's in :meth:`RenderAhead.run` when ``threaded=False`` (which a new generation
may switch).

What it keeps, whatever the order of presents, pauses, steps and parameter changes:

* ``index`` is the frame the next present shows.  It advances by one per present while
  running (past the frame just shown) and stays while paused.
* A step or a changed frame (spec, path, device, presenter) starts a new *generation*.  Frames
  rendered for an older one are never shown: their buffers are given back, and a frame already
  handed over for a present that has not happened yet is withdrawn (the caller takes it back
  from its presenter), so the next present shows exactly the asked index of the new one.
* Within a generation each index is rendered at most once, in order, none skipped.
* While paused, and for a static frame (every index looks the same), the frame already handed
  over is presented again rather than rendered again: a paused loop renders exactly what is
  asked, once.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

STATIC = -1          # the one key of every index of a static frame


@dataclass(frozen=True)
class Job:
    """One frame to render: ``index`` of ``generation`` into ``buffer``."""

    generation: int
    index: int
    buffer: object
    first: bool            # the generation's first render (the loop mirrors it at once)


@dataclass(frozen=True)
class Handed:
    """What the next present shows: a frame just rendered (``job`` and its ``result``), or the
    frame already handed over, presented again (``job`` None)."""

    index: int
    generation: int
    job: Job | None = None
    result: object = None

    @property
    def fresh(self) -> bool:
        return self.job is not None


class RenderAhead:
    """The schedule of the frames ahead (see the module's text).

    ``render(job)`` returns the job's result; it should not raise (an exception it raises is
    the result).  ``give_back(buffer)`` receives every submitted buffer whose frame will not be
    shown, always on the caller's thread.  ``on_ready()`` is called from the worker thread
    after each render (the loop posts itself a notice).  ``depth`` frames at most are rendered
    ahead of the asked one.
    """

    def __init__(self, render: Callable[[Job], object], give_back: Callable[[object], None], *,
                 depth: int = 2, threaded: bool = True, on_ready: Callable[[], None] | None = None,
                 name: str = "testcard-render"):
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        self._render = render
        self._give_back = give_back
        self.depth = int(depth)
        self.threaded = bool(threaded)
        self._on_ready = on_ready or (lambda: None)
        self._name = name
        self._cond = threading.Condition()
        self._todo: deque[Job] = deque()               # submitted, not started
        self._busy: Job | None = None                  # being rendered now
        self._done: deque[tuple[Job, object]] = deque()  # rendered, in submit order
        self._stale: list[object] = []                 # buffers to give back
        self._thread: threading.Thread | None = None
        self._closed = False
        self.generation = 0
        self.index = 0
        self.paused = False
        self.static = False
        self.handed: Handed | None = None              # handed over, its present still to come
        self._next = 0                                 # next index to submit in this generation
        self._submitted = 0                            # submitted in this generation
        self._served: tuple[int, int] | None = None    # (generation, key) handed over last

    # ------------------------------------------------------------ state changes
    def set_paused(self, paused: bool) -> None:
        self.paused = bool(paused)

    def step(self, delta: int) -> bool:
        """Move the asked index by ``delta`` (never below 0); True when a handed-over frame was
        withdrawn (the caller takes it back from the presenter)."""
        index = max(0, self.index + int(delta))
        if index == self.index:
            return False
        self.index = index
        return self.invalidate()

    def invalidate(self, static: bool | None = None, threaded: bool | None = None,
                   depth: int | None = None) -> bool:
        """The frame changed (a new spec, path, device or presenter): a new generation; True
        when a handed-over frame was withdrawn.  ``static`` says whether every index of the new
        frame looks the same; ``threaded`` and ``depth`` where the new generation renders (the
        worker, or :meth:`run` on the caller's thread) and how far ahead (None: as before)."""
        if depth is not None and depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        with self._cond:
            self.generation += 1
            if static is not None:
                self.static = bool(static)
            if threaded is not None:
                self.threaded = bool(threaded)
            if depth is not None:
                self.depth = int(depth)
            self._next = self.index
            self._submitted = 0
            withdrawn, self.handed = self.handed is not None, None
            self._stale.extend(job.buffer for job in self._todo)
            self._todo.clear()
            self._stale.extend(job.buffer for job, _ in self._done)
            self._done.clear()
        self._flush()
        return withdrawn

    def drain(self, static: bool | None = None, threaded: bool | None = None,
              depth: int | None = None) -> bool:
        """:meth:`invalidate`, then wait for a render in progress: afterwards no buffer
        submitted so far is written to any more, and every one not handed over is given back
        (before the presenter frees its buffers or lends others of a new size)."""
        withdrawn = self.invalidate(static, threaded, depth)
        with self._cond:
            while self._busy is not None:
                self._cond.wait()
            self._stale.extend(job.buffer for job, _ in self._done)
            self._done.clear()
        self._flush()
        return withdrawn

    def close(self) -> None:
        """Stop the worker (a render in progress finishes first) and give every buffer back."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._thread = None
        self.drain()

    # ------------------------------------------------------------ the frames ahead
    def _key(self, index: int) -> int:
        return STATIC if self.static else index

    def ahead(self) -> int:
        """Frames of this generation submitted and not yet handed over."""
        with self._cond:
            busy = self._busy is not None and self._busy.generation == self.generation
            done = sum(1 for job, _ in self._done if job.generation == self.generation)
            return len(self._todo) + busy + done

    def wanted(self) -> int | None:
        """The index the next submitted buffer would be rendered for, or None: enough is ahead
        (or the loop is closed)."""
        self._flush()
        if self._closed:
            return None
        if self.static:                # one render a generation: then presented again
            return None if self._submitted else self.index
        if self.paused:                # the asked frame only, once
            return None if self._next > self.index else self.index
        if self.ahead() >= self.depth:
            return None
        return max(self._next, self.index)

    def submit(self, buffer) -> Job:
        """Render :meth:`wanted` into ``buffer``; refuses (``ValueError``) when nothing is wanted."""
        index = self.wanted()
        if index is None:
            raise ValueError("no frame is wanted now: check wanted() first")
        job = Job(self.generation, index, buffer, first=self._submitted == 0)
        self._next = index + 1
        self._submitted += 1
        with self._cond:
            self._todo.append(job)
            if self.threaded:
                self._start()
                self._cond.notify_all()
        return job

    def run(self, limit: int | None = None) -> int:
        """Render up to ``limit`` submitted jobs on this thread (``threaded=False``); how many."""
        n = 0
        while (limit is None or n < limit) and self._work_one(wait=False):
            n += 1
        self._flush()
        return n

    def take(self) -> Handed | None:
        """Hand over what the next present shows, if it is ready (None: not yet).  One frame is
        handed over at a time: call :meth:`presented` once it is on screen."""
        if self.handed is not None:
            raise ValueError("a frame is already handed over; its present comes first")
        gen, key = self.generation, self._key(self.index)
        got = None
        with self._cond:
            while self._done and self._done[0][0].generation != gen:
                self._stale.append(self._done.popleft()[0].buffer)
            if self._served == (gen, key):
                got = Handed(self.index, gen)
            elif self._done and (self.static or self._done[0][0].index == self.index):
                job, result = self._done.popleft()
                got = Handed(self.index, gen, job, result)
                self._served = (gen, key)
            self.handed = got
        self._flush()
        return got

    def presented(self) -> Handed:
        """The handed-over frame is on screen: the index moves past it unless paused."""
        got, self.handed = self.handed, None
        if got is None:
            raise ValueError("nothing was handed over")
        if not self.paused:
            self.index = got.index + 1
        return got

    # ------------------------------------------------------------ the worker
    def _start(self) -> None:
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(target=self._worker, name=self._name, daemon=True)
            self._thread.start()

    def _worker(self) -> None:
        while self._work_one(wait=True):
            self._on_ready()

    def _work_one(self, wait: bool) -> bool:
        with self._cond:
            while True:
                if self._closed and (wait or not self._todo):
                    return False
                # the worker takes jobs only while the loop renders threaded; run() any time
                if self._todo and (self.threaded or not wait):
                    job = self._todo.popleft()
                    if job.generation == self.generation:
                        break
                    self._stale.append(job.buffer)      # outdated before it started
                    continue
                if not wait:
                    return False
                self._cond.wait()
            self._busy = job
        try:
            result = self._render(job)
        except Exception as exc:  # the render's own failure is its result; the worker goes on
            result = exc
        with self._cond:
            self._busy = None
            self._done.append((job, result))
            self._cond.notify_all()
        return True

    def _flush(self) -> None:
        with self._cond:
            stale, self._stale = self._stale, []
        for buffer in stale:
            self._give_back(buffer)
