"""The remote log: one JSON object a line, written as testcard serves.

What calibration software asked for and when it was on screen: a ``shown`` record per patch
(its receive time, the frame index and present time of the first frame that showed it,
receive-to-present latency, the source and the patch), a ``not-shown`` record for a patch that
never reached the screen, and the transports' own events (listening, connected, refused, ...).

:class:`RemoteLog` takes records from any thread (:meth:`RemoteLog.write` never blocks and
never raises) into a bounded queue (:attr:`RemoteLog.MAX_QUEUED` records: a flood of requests
faster than the disk drops records, counted, and a ``dropped`` record says how many, rather
than growing memory).  A thread of its own writes them as they come to an appending
:class:`core.streamed.StreamedFile`: whole lines per ``write()``, a log that exists continued,
never replaced, and an fsync at most every :attr:`RemoteLog.FSYNC_S`, so a process killed
(even SIGKILL) leaves every line written before it, and a power cut every line up to the last
fsync.  The file is capped: past ``max_bytes`` it is renamed ``FILE.1`` (replacing an older
``FILE.1``) and a new ``FILE`` begun, so the log never takes more than about twice
``max_bytes``.  A stream (``-``, a pipe) is written the same way, never rotated.
:meth:`RemoteLog.close` writes what is queued (at most the queue's bound) and returns at once.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

from core.remote.patch import surface_codes
from core.streamed import StreamedFile

DEFAULT_MAX_BYTES = 32 * 1024 * 1024


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
    """How a log ended: the file, the lines written, the records dropped because the disk could
    not keep up, and the error that stopped it (one sentence; None when every line queued was
    written)."""

    path: str
    lines: int
    error: str | None = None
    dropped: int = 0


class RemoteLog:
    """A JSON-lines file written record by record while testcard serves (see the module).

    Refuses (``ValueError``, one sentence naming the path) a file that cannot be written,
    before the first record, and a ``max_bytes`` under 4 KiB.  ``utc`` (injectable) stamps each
    record with the wall-clock time it was queued, to line the log up with the calibration
    program's own.
    """

    MAX_QUEUED = 10_000       # records waiting for the disk, at most (a few MB)
    BATCH = 256               # records per write() call
    FSYNC_S = 1.0
    MIN_BYTES = 4096

    def __init__(self, path, *, utc: Callable[[], str] = _utc_now, max_bytes: int = DEFAULT_MAX_BYTES,
                 thread_name: str = "testcard-remote-log"):
        self.path = str(path)
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < self.MIN_BYTES:
            raise ValueError(f"log size cap: expected a whole number of bytes, at least "
                             f"{self.MIN_BYTES}, got {max_bytes!r}")
        self.max_bytes = max_bytes
        self.dropped = 0
        self._utc = utc
        self._closed = False
        self._file = StreamedFile(self.path, mode="append", max_bytes=max_bytes,
                                  sync_every_s=self.FSYNC_S)
        self._queue: queue.Queue = queue.Queue(self.MAX_QUEUED)
        self._lost = 0                           # dropped since the last dropped record
        self._lost_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=thread_name, daemon=True)
        self._thread.start()

    @property
    def error(self) -> str | None:
        return self._file.error

    @property
    def lines(self) -> int:
        """Lines written so far."""
        return self._file.lines

    @property
    def rotations(self) -> int:
        """How many times the file reached its cap and was renamed ``FILE.1``."""
        return self._file.rotations

    def write(self, record: dict) -> None:
        """Queue one record (a dict the caller no longer changes); from any thread.  Never
        blocks: with :attr:`MAX_QUEUED` records waiting, the record is dropped and counted."""
        if self._closed or self._file.error is not None:
            return
        try:
            self._queue.put_nowait(dict(record, utc=self._utc()))
        except queue.Full:
            with self._lost_lock:
                self._lost += 1
                self.dropped += 1

    # -- the writer thread
    def _run(self) -> None:
        while True:
            try:
                batch = [self._queue.get(timeout=self.FSYNC_S / 4)]
            except queue.Empty:
                batch = []
            while batch and len(batch) < self.BATCH:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            with self._lost_lock:
                lost, self._lost = self._lost, 0
            if lost:
                batch.insert(0, {"kind": "dropped", "source": "log", "count": lost, "utc": self._utc(),
                                 "message": f"{lost} records dropped: they came faster than the "
                                            "log could be written"})
            if batch and self._file.error is None:
                self._append(batch)
            self._file.sync(force=self._stop.is_set())
            if self._stop.is_set() and self._queue.empty():
                return

    def _append(self, batch: list[dict]) -> None:
        """Whole lines, one ``write()`` per run of lines that fits under the cap (a line never
        straddles a rotation: :class:`core.streamed.StreamedFile`)."""
        self._file.write_lines(log_line(record) + "\n" for record in batch)

    def close(self) -> LogResult:
        """Write what is queued, fsync, close; says how it went.  Returns within the time it
        takes to write at most :attr:`MAX_QUEUED` records."""
        if not self._closed:
            self._closed = True
            self._stop.set()
            self._thread.join()
            self._file.close()
        return LogResult(self.path, self.lines, self.error, self.dropped)


def shown_record(patch, frame: int | None, present_s: float | None, note: str | None = None,
                 pattern: str | None = None, surface: tuple[int, bool, int] | None = None) -> dict:
    """The log record of a patch that reached the screen (``frame`` and ``present_s``: the
    first frame that showed it), on the clock of ``patch.received_s``.

    ``surface``: ``(frame bit depth, frame limited, surface bits)``; the record's ``shown`` then
    holds the codes the surface shows (:func:`core.remote.patch.surface_codes`) and, when the
    surface's depth is not the frame's, ``note`` says how they were scaled and by which rule."""
    latency = None if present_s is None else (present_s - patch.received_s) * 1000.0
    shown = None
    if surface is not None:
        shown, change = surface_codes(patch, *surface)
        note = "; ".join(x for x in (note, change) if x) or None
    return {"kind": "shown", "source": patch.source, "message": patch.describe(),
            "received_s": patch.received_s, "frame": frame, "present_s": present_s,
            "latency_ms": latency, "pattern": pattern, "note": note, "shown": shown,
            "patch": patch.as_dict()}


def not_shown_record(patch, why: str) -> dict:
    """The log record of a patch that never reached the screen, and why."""
    return {"kind": "not-shown", "source": patch.source, "message": f"{patch.describe()}: {why}",
            "received_s": patch.received_s, "frame": None, "present_s": None, "why": why,
            "patch": patch.as_dict()}
