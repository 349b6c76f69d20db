"""Reading ahead on a few threads, in order, with a bound on what is in flight.

Decoding a PNG is the cost of ingesting a folder of captures, and the decoders (OpenCV,
PIL) release the GIL while they work, so a few threads decode the next files while the
caller reads counter panels from this one.  Results come back in the order of the items,
and at most ``ahead`` of them exist at once (the one the caller holds included), so memory
stays bounded however long the capture.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MAX_THREADS = 4


def default_threads() -> int:
    """Reading threads when none are asked for: the CPUs, at most :data:`MAX_THREADS`."""
    return max(1, min(MAX_THREADS, os.cpu_count() or 1))


class ReadAhead(Generic[T, R], Iterator[R]):
    """``read(item)`` for every item, in the items' order, up to ``ahead`` items ahead.

    At most ``ahead`` results exist at once, counting the one the caller holds: the read
    that takes its place starts when the caller asks for the next result.

    ``threads`` <= 1 reads each item when it is asked for, on the caller's thread.  An
    exception from ``read`` is raised where its item's result would have come (every
    earlier result has been handed back by then), and reading stops.  :meth:`close` (also
    on exhaustion, and when used as a context manager) cancels the reads not started and
    waits for the ones running, so no thread outlives it.
    """

    def __init__(self, items: Iterable[T], read: Callable[[T], R], threads: int,
                 ahead: int | None = None):
        if isinstance(threads, bool) or not isinstance(threads, int):
            raise ValueError(f"threads: expected a whole number, got {threads!r}")
        if ahead is not None and (isinstance(ahead, bool) or not isinstance(ahead, int) or ahead < 1):
            raise ValueError(f"ahead: expected a whole number >= 1, got {ahead!r}")
        self._items, self._read = iter(items), read
        self._pending: deque[Future] = deque()
        self._pool: ThreadPoolExecutor | None = None
        self._closed = False
        if threads > 1:
            self.ahead = ahead or 2 * threads
            self._pool = ThreadPoolExecutor(threads, thread_name_prefix="testcard-read")
            self._top_up()
        else:
            self.ahead = 1

    def _top_up(self) -> None:
        while len(self._pending) < self.ahead and self._submit():
            pass

    def _submit(self) -> bool:
        if self._closed or self._pool is None:   # only a pooled reader submits
            return False
        for item in self._items:
            try:
                self._pending.append(self._pool.submit(self._read, item))
            except RuntimeError:   # closed from another thread meanwhile
                return False
            return True
        return False

    def __next__(self) -> R:
        if self._closed:
            raise StopIteration
        if self._pool is None:
            for item in self._items:
                return self._read(item)
            self.close()
            raise StopIteration
        self._top_up()   # the caller is done with the last result: its place is free
        if not self._pending:
            self.close()
            raise StopIteration
        head = self._pending.popleft()
        try:
            return head.result()
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self._closed = True
        pending, self._pending = self._pending, deque()
        for f in pending:
            f.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
