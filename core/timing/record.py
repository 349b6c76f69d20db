"""The timeline's CSV: its columns, its rows, a snapshot of them, and a writer that streams a
long run to a file.

:class:`TimelineRecorder` keeps the full record of a run that the bounded live timeline does
not: rows arrive in batches (copies, handed over by :meth:`core.timing.Timeline.append`), a
thread of its own formats them into one buffered file opened once, and :meth:`close` flushes,
fsyncs and puts the file in place.  The file is a replacing :class:`core.streamed.StreamedFile`
(through :func:`core.atomic.atomic_path`): the target is replaced whole when the recording
closes, never half-written, and a failed write (a full disk) leaves it as it was; until then
the rows live in the temporary file beside it.

The last three columns carry the timeline's clock pairs (:mod:`core.timing.clocks`): on the
row recorded as a pair was taken, the wall clock (``clock_realtime_s``, CLOCK_REALTIME), the
present clock at the same moment (``clock_monotonic_s``, the clock of ``present_s``) and the
pair's uncertainty (``clock_uncertainty_s``); empty on every other row.  A pair is a reading of
the two clocks, not a time of that row's frame.
"""

from __future__ import annotations

import csv
import io
import math
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.atomic import atomic_path
from core.streamed import StreamedFile
from core.timing.clocks import ClockPair

CLOCK_COLUMNS = ("clock_realtime_s", "clock_monotonic_s", "clock_uncertainty_s")
CSV_COLUMNS = ("frame", "index", "present_s", "interval_ms", "render_ms", "transfer_ms", "upload_ms",
               "present_ms", "path", "warmup", "paused", "error", *CLOCK_COLUMNS)
_NO_PAIR = ("", "", "")


def _ms(v: float) -> str:
    return "" if math.isnan(v) else f"{v:.4f}"


def _pair_fields(pair: ClockPair) -> tuple[str, str, str]:
    return f"{pair.realtime_s:.7f}", f"{pair.monotonic_s:.7f}", f"{pair.uncertainty_s:.7f}"


def csv_rows(snap) -> Iterator[list]:
    """The CSV rows of a :class:`TimelineSnapshot` (no header); ``frame`` counts from the start
    of the run, so rows written in batches line up."""
    intervals = snap.interval_ms
    first = snap.first_frame
    pairs = {row: _pair_fields(p) for row, p in snap.clock_pairs}
    for i in range(len(snap)):
        yield [first + i, int(snap.index[i]), f"{snap.present_s[i]:.6f}", _ms(intervals[i]),
               _ms(snap.render_ms[i]), _ms(snap.transfer_ms[i]), _ms(snap.upload_ms[i]),
               _ms(snap.present_ms[i]), snap.path[i], int(snap.warmup[i]), int(snap.paused[i]),
               snap.errors.get(i, ""), *pairs.get(i, _NO_PAIR)]


@dataclass
class TimelineSnapshot:
    """A copy of timeline rows (:meth:`core.timing.Timeline.snapshot`), safe to write from a
    worker thread while the loop keeps appending."""

    index: np.ndarray
    present_s: np.ndarray
    render_ms: np.ndarray
    transfer_ms: np.ndarray
    upload_ms: np.ndarray
    present_ms: np.ndarray
    warmup: np.ndarray
    paused: np.ndarray
    path: list[str]
    errors: dict[int, str]          # row in this snapshot -> message
    first_frame: int = 0            # the first row's frame number since the run started
    before_s: float = math.nan      # when the frame before the first row was presented, if known
    clock_pairs: list[tuple[int, ClockPair]] = field(default_factory=list)   # (row, pair), in order

    def __len__(self) -> int:
        return len(self.index)

    @property
    def interval_ms(self) -> np.ndarray:
        """Present-to-present intervals; NaN for the run's first frame (none before it)."""
        out = np.full(len(self.present_s), np.nan)
        if len(self.present_s):
            out[0] = (self.present_s[0] - self.before_s) * 1e3
        if len(self.present_s) > 1:
            out[1:] = np.diff(self.present_s) * 1e3
        return out

    @property
    def leading_warmup(self) -> int:
        """How many frames at the start were warm-up (compile) frames."""
        not_warm = np.flatnonzero(~self.warmup)
        return int(not_warm[0]) if len(not_warm) else len(self.warmup)

    def write_csv(self, path) -> int:
        """Write every row to ``path`` (CSV with a header, whole or not at all); returns the
        row count."""
        with atomic_path(path) as tmp, open(tmp, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(CSV_COLUMNS)
            w.writerows(csv_rows(self))
        return len(self)


@dataclass(frozen=True)
class RecordResult:
    """How a recording ended: the file, the rows written, and the error that stopped it (one
    sentence; None when the file is complete)."""

    path: str
    rows: int
    error: str | None = None


class _CsvLine:
    """One CSV row as the text of its line (``\\r\\n`` included), exactly as ``csv.writer``
    writes it to a file opened with ``newline=""``."""

    def __init__(self) -> None:
        self._buf = io.StringIO(newline="")
        self._writer = csv.writer(self._buf)

    def __call__(self, row) -> str:
        self._buf.seek(0)
        self._buf.truncate()
        self._writer.writerow(row)
        return self._buf.getvalue()


class TimelineRecorder:
    """A CSV file written row batch by row batch while a run goes on (see the module's text).

    Refuses (``ValueError``, one sentence naming the path) an output that cannot be written,
    before the first row.  :meth:`submit` never blocks and never raises; a write that fails
    stops the recording, and :meth:`close` reports it.
    """

    BUFFER_BYTES = 1 << 16

    def __init__(self, path, *, thread_name: str = "testcard-timeline-csv"):
        self.path = str(path)
        self.rows = 0
        self._closed = False
        self._result: RecordResult | None = None
        self._line = _CsvLine()
        self._file = StreamedFile(self.path, mode="replace", buffer_bytes=self.BUFFER_BYTES)
        if not self._file.write_line(self._line(CSV_COLUMNS)):
            raise ValueError(self._file.close())
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=thread_name, daemon=True)
        self._thread.start()

    @property
    def error(self) -> str | None:
        return self._file.error

    @property
    def active(self) -> bool:
        return not self._closed

    def submit(self, snap) -> None:
        """Queue a batch of rows (a snapshot the caller no longer touches)."""
        if not self._closed and self._file.error is None:
            self._queue.put(snap)

    def _run(self) -> None:
        while (snap := self._queue.get()) is not None:
            if self._file.error is not None:
                continue
            try:
                lines = [self._line(row) for row in csv_rows(snap)]
            except (OSError, ValueError) as exc:
                self._file.fail(exc)
                continue
            if self._file.write_lines(lines):
                self.rows += len(snap)

    def close(self) -> RecordResult:
        """Write what is queued, flush and fsync, and put the file in place (after a failure:
        leave the target as it was); says how it went, the same on every call."""
        if self._result is None:
            self._closed = True
            self._queue.put(None)
            self._thread.join()
            error = self._file.close()
            self._result = RecordResult(self.path, self.rows if error is None else 0, error)
        return self._result

    def __repr__(self) -> str:
        return f"TimelineRecorder({Path(self.path).name!r}, rows={self.rows})"
