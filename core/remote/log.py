"""The remote log: one JSON object a line, streamed to one file opened once.

What calibration software asked for and when it was on screen: a ``shown`` record per patch
(its receive time, the frame index and present time of the first frame that showed it,
receive-to-present latency, the source and the patch), a ``not-shown`` record for a patch that
never reached the screen, and the transports' own events (listening, connected, refused, ...).

:class:`RemoteLog` takes records from any thread (:meth:`RemoteLog.write` never blocks and
never raises); a thread of its own writes them into one buffered file, each line flushed as it
is written.  The file goes through :func:`core.atomic.atomic_path`, as the timeline's record
does: until :meth:`RemoteLog.close` the lines are in the temporary file beside the target,
and closing puts the file in place whole; a failed write leaves the target as it was.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import math
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

from core.atomic import atomic_path, require_writable


def _utc_now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")


def _clean(value):
    """JSON-safe: non-finite floats as None, tuples as lists, anything else as its text."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return str(value)


def log_line(record: dict) -> str:
    """One record as one line of JSON (no line breaks inside, whatever the strings hold)."""
    return json.dumps(_clean(record), ensure_ascii=True, allow_nan=False, separators=(",", ":"))


@dataclass(frozen=True)
class LogResult:
    """How a log ended: the file, the lines written, and the error that stopped it (one
    sentence; None when the file is complete)."""

    path: str
    lines: int
    error: str | None = None


class RemoteLog:
    """A JSON-lines file written record by record while testcard serves (see the module).

    Refuses (``ValueError``, one sentence naming the path) a file that cannot be written,
    before the first record.  ``utc`` (injectable) stamps each record with the wall-clock
    time it was written, to line the log up with the calibration program's own.
    """

    BUFFER_BYTES = 1 << 16

    def __init__(self, path, *, utc: Callable[[], str] = _utc_now,
                 thread_name: str = "testcard-remote-log"):
        self.path = str(path)
        require_writable(self.path)
        self.lines = 0
        self._utc = utc
        self._error: str | None = None
        self._closed = False
        self._stack = contextlib.ExitStack()
        try:
            tmp = self._stack.enter_context(atomic_path(self.path))
            self._fh = self._stack.enter_context(open(tmp, "w", encoding="utf-8", newline="\n",
                                                      buffering=self.BUFFER_BYTES))
        except OSError as exc:
            self._stack.close()
            raise ValueError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=thread_name, daemon=True)
        self._thread.start()

    @property
    def error(self) -> str | None:
        return self._error

    def write(self, record: dict) -> None:
        """Queue one record (a dict the caller no longer changes); from any thread."""
        if not self._closed and self._error is None:
            self._queue.put(dict(record, utc=self._utc()))

    def _run(self) -> None:
        while (record := self._queue.get()) is not None:
            if self._error is not None:
                continue
            try:
                self._fh.write(log_line(record) + "\n")
                self._fh.flush()
                self.lines += 1
            except (OSError, ValueError) as exc:
                self._error = f"cannot write {self.path}: {getattr(exc, 'strerror', None) or exc}"

    def close(self) -> LogResult:
        """Write what is queued, flush and fsync, and put the file in place; says how it went."""
        if self._closed:
            return LogResult(self.path, self.lines, self._error)
        self._closed = True
        self._queue.put(None)
        self._thread.join()
        if self._error is None:
            try:
                self._stack.close()
            except (OSError, ValueError) as exc:
                self._error = f"cannot write {self.path}: {getattr(exc, 'strerror', None) or exc}"
        else:
            with contextlib.suppress(Exception):
                self._stack.__exit__(_Failed, _Failed(self._error), None)
        return LogResult(self.path, self.lines if self._error is None else 0, self._error)


class _Failed(Exception):
    """Unwinds the log's file with an exception, so that the target stays as it was."""


def shown_record(patch, frame: int | None, present_s: float | None, note: str | None = None,
                 pattern: str | None = None) -> dict:
    """The log record of a patch that reached the screen (``frame`` and ``present_s``: the
    first frame that showed it), on the clock of ``patch.received_s``."""
    latency = None if present_s is None else (present_s - patch.received_s) * 1000.0
    return {"kind": "shown", "source": patch.source, "message": patch.describe(),
            "received_s": patch.received_s, "frame": frame, "present_s": present_s,
            "latency_ms": latency, "pattern": pattern, "note": note, "patch": patch.as_dict()}


def not_shown_record(patch, why: str) -> dict:
    """The log record of a patch that never reached the screen, and why."""
    return {"kind": "not-shown", "source": patch.source, "message": f"{patch.describe()}: {why}",
            "received_s": patch.received_s, "frame": None, "present_s": None, "why": why,
            "patch": patch.as_dict()}
