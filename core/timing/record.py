"""The timeline's CSV: its columns, its rows, and a writer that streams a long run to a file.

:class:`TimelineRecorder` keeps the full record of a run that the bounded live timeline does
not: rows arrive in batches (copies, handed over by :meth:`core.timing.Timeline.append`), a
thread of its own formats them into one buffered file opened once, and :meth:`close` flushes,
fsyncs and puts the file in place.  The file goes through :func:`core.atomic.atomic_path`: the
target is replaced whole when the recording closes, never half-written, and a failed write
(a full disk) leaves it as it was; until then the rows live in the temporary file beside it.
"""

from __future__ import annotations

import contextlib
import csv
import math
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core.atomic import atomic_path, require_writable

CSV_COLUMNS = ("frame", "index", "present_s", "interval_ms", "render_ms", "transfer_ms", "upload_ms",
               "present_ms", "path", "warmup", "paused", "error")


def _ms(v: float) -> str:
    return "" if math.isnan(v) else f"{v:.4f}"


def csv_rows(snap) -> Iterator[list]:
    """The CSV rows of a :class:`~core.timing.timeline.TimelineSnapshot` (no header); ``frame``
    counts from the start of the run, so rows written in batches line up."""
    intervals = snap.interval_ms
    first = snap.first_frame
    for i in range(len(snap)):
        yield [first + i, int(snap.index[i]), f"{snap.present_s[i]:.6f}", _ms(intervals[i]),
               _ms(snap.render_ms[i]), _ms(snap.transfer_ms[i]), _ms(snap.upload_ms[i]),
               _ms(snap.present_ms[i]), snap.path[i], int(snap.warmup[i]), int(snap.paused[i]),
               snap.errors.get(i, "")]


@dataclass(frozen=True)
class RecordResult:
    """How a recording ended: the file, the rows written, and the error that stopped it (one
    sentence; None when the file is complete)."""

    path: str
    rows: int
    error: str | None = None


class TimelineRecorder:
    """A CSV file written row batch by row batch while a run goes on (see the module's text).

    Refuses (``ValueError``, one sentence naming the path) an output that cannot be written,
    before the first row.  :meth:`submit` never blocks and never raises; a write that fails
    stops the recording, and :meth:`close` reports it.
    """

    BUFFER_BYTES = 1 << 16

    def __init__(self, path, *, thread_name: str = "testcard-timeline-csv"):
        self.path = str(path)
        require_writable(self.path)
        self.rows = 0
        self._error: str | None = None
        self._closed = False
        self._stack = contextlib.ExitStack()
        try:
            tmp = self._stack.enter_context(atomic_path(self.path))
            fh = self._stack.enter_context(open(tmp, "w", newline="", encoding="utf-8",
                                                buffering=self.BUFFER_BYTES))
            self._csv = csv.writer(fh)
            self._csv.writerow(CSV_COLUMNS)
        except OSError as exc:
            self._stack.close()
            raise ValueError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=thread_name, daemon=True)
        self._thread.start()

    @property
    def error(self) -> str | None:
        return self._error

    @property
    def active(self) -> bool:
        return not self._closed

    def submit(self, snap) -> None:
        """Queue a batch of rows (a snapshot the caller no longer touches)."""
        if not self._closed and self._error is None:
            self._queue.put(snap)

    def _run(self) -> None:
        while (snap := self._queue.get()) is not None:
            if self._error is not None:
                continue
            try:
                self._csv.writerows(csv_rows(snap))
                self.rows += len(snap)
            except (OSError, ValueError) as exc:
                self._error = f"cannot write {self.path}: {getattr(exc, 'strerror', None) or exc}"

    def close(self) -> RecordResult:
        """Write what is queued, flush and fsync, and put the file in place; says how it went."""
        if self._closed:
            return RecordResult(self.path, self.rows, self._error)
        self._closed = True
        self._queue.put(None)
        self._thread.join()
        if self._error is None:
            try:
                self._stack.close()      # closes the file, fsyncs it, renames it over the target
            except (OSError, ValueError) as exc:
                self._error = f"cannot write {self.path}: {getattr(exc, 'strerror', None) or exc}"
        else:
            # unwind with the failure: the temporary file goes, the target stays as it was
            failed = _Failed(self._error)
            with contextlib.suppress(Exception):
                self._stack.__exit__(_Failed, failed, None)
        return RecordResult(self.path, self.rows if self._error is None else 0, self._error)

    def __repr__(self) -> str:
        return f"TimelineRecorder({Path(self.path).name!r}, rows={self.rows})"


class _Failed(Exception):
    """Unwinds the recording's file with an exception, so that the target stays as it was."""
