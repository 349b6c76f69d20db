"""The live loop's per-frame record, bounded (numpy arrays; no Qt).

One row per presented frame: the frame index shown, when the present completed (monotonic
seconds), and what each stage cost.  The record is a ring of preallocated arrays holding the
last :attr:`Timeline.capacity` rows: by default ten minutes at the screen's rate with a 25 %
margin (between 4,096 and 262,144 rows), so a day-long run holds the memory of ten minutes and
a refresh computes over as many samples.  Beside it, :class:`~core.timing.totals.RunningTotals`
keeps the "since start" figures at O(1) per frame.  The full record can still be kept:
:meth:`Timeline.record_to` streams every row from then on to a CSV file.

:meth:`Timeline.append` (one frame, as the loop records) and :meth:`Timeline.extend` (a batch)
leave the same rows, totals and recording.  :meth:`Timeline.snapshot` hands out copies that a
worker thread may write to CSV while the loop keeps appending.

Beside the rows, the timeline keeps clock pairs (:mod:`core.timing.clocks`: the present clock
read between two wall-clock reads), so that a recording stamped by the wall clock can be joined
to the presents: one on the run's first row, one every :data:`~core.timing.clocks.REFRESH_S`
seconds' worth of frames (counted in frames, so the loop pays one comparison a frame and a few
clock reads every couple of seconds), and one on a recording's last row.  Snapshots and
recordings carry the pairs of their rows.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable

import numpy as np

from core.timing.clocks import REFRESH_S, ClockPair, take_clock_pair
from core.timing.record import CSV_COLUMNS, RecordResult, TimelineRecorder, TimelineSnapshot
from core.timing.totals import RunningTotals, check_period

FLOAT_COLUMNS = ("present_s", "render_ms", "transfer_ms", "upload_ms", "present_ms")
HISTORY_S = 600.0           # what the live window keeps at the screen's rate
RATE_MARGIN = 1.25          # a timer-paced loop may run a little faster than the screen
MIN_ROWS = 4096
MAX_ROWS = 1 << 18
MAX_PATHS = 256             # distinct render-path names; more are recorded as OTHER_PATH
OTHER_PATH = "(other)"
RECORD_BATCH = 64           # rows handed to a recording at a time (about 1 s at 60 Hz)

__all__ = ["CSV_COLUMNS", "HISTORY_S", "Timeline", "TimelineSnapshot", "history_rows"]


def history_rows(rate_hz: float, history_s: float = HISTORY_S) -> int:
    """Rows that hold ``history_s`` seconds at ``rate_hz`` with the margin, within the caps."""
    want = math.ceil(history_s * rate_hz * RATE_MARGIN) if rate_hz > 0 else MIN_ROWS
    return int(min(MAX_ROWS, max(MIN_ROWS, want)))


class Timeline:
    """The bounded per-frame record: a ring of the latest rows plus running totals.

    ``capacity`` fixes the ring's rows; without it the ring holds :data:`HISTORY_S` seconds at
    the screen's rate and follows :meth:`set_period`.  ``len()`` is the rows held; ``total``
    counts every frame since the start (or the last :meth:`clear`).
    """

    def __init__(self, capacity: int | None = None, *, period_ms: float = 1000.0 / 60.0,
                 history_s: float = HISTORY_S, clock_pair: Callable[[], ClockPair] = take_clock_pair,
                 clock_refresh_s: float = REFRESH_S):
        period = check_period(period_ms)
        self._clock_pair = clock_pair
        self._clock_refresh_s = float(clock_refresh_s)
        self._pair_rows: list[int] = []          # absolute row numbers, ascending
        self._pairs: list[ClockPair] = []
        self._next_pair = 0
        self.history_s = float(history_s)
        self._fixed = capacity is not None
        self._cap = max(16, int(capacity)) if capacity is not None else \
            history_rows(1000.0 / period, self.history_s)
        self.totals = RunningTotals(period)
        self._path_ids: dict[str, int] = {}
        self._path_names: list[str] = []
        self._recorder: TimelineRecorder | None = None
        self._recorded = 0
        self._pair_every = self._pair_interval()
        self._allocate()

    # ------------------------------------------------------------ storage
    def _allocate(self) -> None:
        # one row more than is shown: the row before the oldest gives the oldest its interval
        store = self._cap + 1
        self._store = store
        self._total = 0
        self._valid = 0                          # rows of the store written since allocation
        self._index = np.zeros(store, np.int64)
        self._f = {c: np.zeros(store, np.float64) for c in FLOAT_COLUMNS}
        self._warmup = np.zeros(store, bool)
        self._paused = np.zeros(store, bool)
        self._path_codes = np.zeros(store, np.int16)
        self._errors: dict[int, str] = {}        # ring slot -> message, dropped when overwritten

    def _arrays(self) -> list[np.ndarray]:
        return [self._index, *self._f.values(), self._warmup, self._paused, self._path_codes]

    @property
    def capacity(self) -> int:
        return self._cap

    @property
    def period_ms(self) -> float:
        return self.totals.period_ms

    @property
    def total(self) -> int:
        return self._total

    @property
    def nbytes(self) -> int:
        """Bytes held in arrays (the ring and the totals' histogram): fixed for a given rate."""
        return sum(a.nbytes for a in self._arrays()) + self.totals.nbytes

    def __len__(self) -> int:
        return min(self._valid, self._cap)

    def set_period(self, period_ms: float) -> None:
        """The screen's period from now on: later frames are judged against it and, unless the
        capacity was fixed, the ring is resized to hold :attr:`history_s` at the new rate
        (keeping the newest rows)."""
        self.totals.set_period(period_ms)
        self._pair_every = self._pair_interval()
        if self._fixed:
            return
        cap = history_rows(1000.0 / self.totals.period_ms, self.history_s)
        if cap != self._cap:
            self._resize(cap)

    def _resize(self, cap: int) -> None:
        self._feed(force=True)
        total = self._total
        keep = min(self._valid, cap + 1)
        r0 = total - keep
        kept = [self._take(a, r0, total).copy() for a in self._arrays()]
        errors = {self._row_of(s): m for s, m in self._errors.items()}
        self._cap = cap
        self._allocate()
        self._total, self._valid = total, keep
        for a, v in zip(self._arrays(), kept, strict=True):
            self._put(a, r0, v)
        self._errors = {j % self._store: m for j, m in errors.items() if j >= r0}

    # ------------------------------------------------------------ clock pairs
    def _pair_interval(self) -> int:
        return max(1, round(self._clock_refresh_s * 1000.0 / self.totals.period_ms))

    def _add_pair(self, row: int) -> None:
        """A clock pair on absolute row ``row`` (rare: every few seconds' worth of frames)."""
        self._pair_rows.append(row)
        self._pairs.append(self._clock_pair())
        self._next_pair = row + self._pair_every
        oldest = self._total - self._store
        if self._pair_rows[0] < oldest:          # pairs of rows the ring no longer holds go
            k = bisect.bisect_left(self._pair_rows, oldest)
            del self._pair_rows[:k], self._pairs[:k]

    @property
    def clock_pairs(self) -> list[ClockPair]:
        """The clock pairs of the rows held, oldest first."""
        return self._pairs_in(*self._window(None))[1]

    def _pairs_in(self, r0: int, r1: int) -> tuple[list[int], list[ClockPair]]:
        a = bisect.bisect_left(self._pair_rows, r0)
        b = bisect.bisect_left(self._pair_rows, r1)
        return self._pair_rows[a:b], self._pairs[a:b]

    def _row_of(self, slot: int) -> int:
        base = self._total - self._valid
        return base + (slot - base) % self._store

    def _take(self, a: np.ndarray, r0: int, r1: int) -> np.ndarray:
        """Rows ``r0 .. r1`` (held ones): a view where they are contiguous, else a copy."""
        s, m = r0 % self._store, r1 - r0
        if s + m <= self._store:
            return a[s:s + m]
        return np.concatenate([a[s:], a[:s + m - self._store]])

    def _put(self, a: np.ndarray, r0: int, values: np.ndarray) -> None:
        s, m = r0 % self._store, len(values)
        first = min(m, self._store - s)
        a[s:s + first] = values[:first]
        a[:m - first] = values[first:]

    def _code(self, path: str) -> int:
        code = self._path_ids.get(path)
        if code is None:
            if len(self._path_names) >= MAX_PATHS - 1 and path != OTHER_PATH:
                return self._code(OTHER_PATH)
            code = self._path_ids[path] = len(self._path_names)
            self._path_names.append(path)
        return code

    def clear(self) -> None:
        """Forget every row and total (a recording goes on: its ``frame`` column restarts at 0)."""
        self._feed(force=True)
        self.totals.clear()
        self._allocate()
        self._recorded = 0
        self._pair_rows, self._pairs, self._next_pair = [], [], 0

    # ------------------------------------------------------------ adding frames
    def append(self, index: int, present_s: float, render_ms: float, transfer_ms: float,
               upload_ms: float, present_ms: float, path: str, warmup: bool = False,
               paused: bool = False, error: str | None = None) -> None:
        """One presented frame (O(1): a few stores, nothing allocated)."""
        t = float(present_s)
        if not math.isfinite(t):
            raise ValueError(f"present_s must be a finite number of seconds, got {present_s!r}")
        s = self._total % self._store
        self._index[s] = index
        f = self._f
        f["present_s"][s] = t
        f["render_ms"][s] = render_ms
        f["transfer_ms"][s] = transfer_ms
        f["upload_ms"][s] = upload_ms
        f["present_ms"][s] = present_ms
        self._warmup[s] = warmup
        self._paused[s] = paused
        self._path_codes[s] = self._code(path)
        if self._errors:
            self._errors.pop(s, None)
        if error:
            self._errors[s] = error
        self.totals.add(t, float(render_ms), warmup)
        if self._total >= self._next_pair:
            self._add_pair(self._total)
        self._total += 1
        if self._valid < self._store:
            self._valid += 1
        if self._recorder is not None and self._total - self._recorded >= self._batch:
            self._feed()

    def extend(self, index, present_s, render_ms, transfer_ms, upload_ms, present_ms, path,
               warmup=False, paused=False, error=None) -> None:
        """Many frames at once: each argument is one value for every frame or one per frame
        (``path``: a name or a sequence of names; ``error``: None or a sequence of messages and
        Nones).  Leaves exactly what :meth:`append` frame by frame would."""
        t = np.asarray(present_s, dtype=np.float64).ravel()
        n = t.size
        if not np.isfinite(t).all():
            raise ValueError("present_s must be finite numbers of seconds")

        def col(v, dtype, name):
            a = np.asarray(v, dtype=dtype)
            if a.ndim == 0:
                return np.broadcast_to(a, (n,))
            if a.shape != (n,):
                raise ValueError(f"{name} has {a.size} values for {n} frames")
            return a

        cols = [col(index, np.int64, "index"), t,
                *(col(v, np.float64, name) for v, name in zip(
                    (render_ms, transfer_ms, upload_ms, present_ms), FLOAT_COLUMNS[1:], strict=True)),
                col(warmup, bool, "warmup"), col(paused, bool, "paused")]
        if isinstance(path, str):
            codes = np.broadcast_to(np.int16(self._code(path)), (n,))
        else:
            codes = col([self._code(p) for p in path], np.int16, "path")
        cols.append(codes)
        errors = None if error is None else list(error)
        if errors is not None and len(errors) != n:
            raise ValueError(f"error has {len(errors)} values for {n} frames")
        # while recording, feed rows in chunks that the ring still holds when they are handed over
        step = n if self._recorder is None else max(1, self._store - self._batch)
        for a in range(0, n, max(step, 1)):
            b = min(n, a + step)
            self._write([c[a:b] for c in cols], None if errors is None else errors[a:b])
            if self._recorder is not None and self._total - self._recorded >= self._batch:
                self._feed()

    def _write(self, cols: list[np.ndarray], errors: list | None) -> None:
        n = len(cols[0])
        self.totals.extend(cols[1], cols[2], cols[6])
        skip = max(0, n - self._store)             # rows the ring would overwrite at once
        r0 = self._total + skip
        m = n - skip
        if m >= self._store:
            self._errors.clear()
        elif self._errors:
            for s in [s for s in self._errors if (s - r0) % self._store < m]:
                del self._errors[s]
        for a, v in zip(self._arrays(), cols, strict=True):
            self._put(a, r0, v[skip:])
        if errors is not None:
            for k, msg in enumerate(errors[skip:]):
                if msg:
                    self._errors[(r0 + k) % self._store] = msg
        self._total += n
        self._valid = min(self._store, self._valid + n)
        oldest = self._total - self._store
        if self._next_pair < oldest:              # rows gone at once: no pairs for them
            self._next_pair += -(-(oldest - self._next_pair) // self._pair_every) * self._pair_every
        while self._next_pair < self._total:
            self._add_pair(self._next_pair)

    # ------------------------------------------------------------ reading
    def _window(self, last: int | None) -> tuple[int, int]:
        held = len(self)
        k = held if last is None else max(0, min(held, int(last)))
        return self._total - k, self._total

    def column(self, name: str, last: int | None = None) -> np.ndarray:
        """One column of the rows held (the last ``last`` of them): a view where they are
        contiguous in the ring, else a copy; a view is valid until the next append."""
        r0, r1 = self._window(last)
        return self._take(self._index if name == "index" else self._f[name], r0, r1)

    def warmup_mask(self, last: int | None = None) -> np.ndarray:
        """The per-frame warm-up flags of the rows held (as :meth:`column`)."""
        return self._take(self._warmup, *self._window(last))

    def leading_warmup(self) -> int:
        """How many of the rows held, from the oldest, were warm-up (compile) frames."""
        not_warm = np.flatnonzero(~self.warmup_mask())
        return int(not_warm[0]) if len(not_warm) else len(self)

    def snapshot(self, last: int | None = None) -> TimelineSnapshot:
        """A copy of the rows held (the last ``last`` of them)."""
        return self._snapshot(*self._window(last))

    def _snapshot(self, r0: int, r1: int) -> TimelineSnapshot:
        def take(a):
            return np.array(self._take(a, r0, r1))

        names = self._path_names
        errors = {}
        for s, msg in self._errors.items():
            j = self._row_of(s)
            if r0 <= j < r1:
                errors[j - r0] = msg
        errors = dict(sorted(errors.items()))
        before = math.nan
        if r0 > 0 and r0 - 1 >= self._total - self._valid:
            before = float(self._f["present_s"][(r0 - 1) % self._store])
        rows, pairs = self._pairs_in(r0, r1)
        # FLOAT_COLUMNS are the fields between index and warmup, in order; mypy cannot count a
        # starred generator, so it sees too many arguments
        return TimelineSnapshot(  # type: ignore[call-arg, misc]
            take(self._index), *(take(self._f[c]) for c in FLOAT_COLUMNS), take(self._warmup),
            take(self._paused), [names[c] for c in self._take(self._path_codes, r0, r1).tolist()],
            errors, first_frame=r0, before_s=before,
            clock_pairs=[(j - r0, p) for j, p in zip(rows, pairs, strict=True)])

    # ------------------------------------------------------------ streaming the full record
    @property
    def recording(self) -> str | None:
        """The file every row goes to from :meth:`record_to` on, or None."""
        return self._recorder.path if self._recorder is not None else None

    @property
    def recording_error(self) -> str | None:
        return self._recorder.error if self._recorder is not None else None

    def record_to(self, path) -> str:
        """Stream every frame from the next one on to ``path`` (CSV, the export's columns) until
        :meth:`stop_recording`.  ``ValueError`` (one sentence) when ``path`` cannot be written
        or a recording is already running."""
        if self._recorder is not None:
            raise ValueError(f"already recording the timeline to {self._recorder.path}")
        self._recorder = TimelineRecorder(path)
        self._recorded = self._total
        self._next_pair = self._total            # the first row recorded carries a pair
        return self._recorder.path

    @property
    def _batch(self) -> int:
        return max(1, min(RECORD_BATCH, self._cap // 4))

    def _feed(self, force: bool = False) -> None:
        # the newest row waits for the next batch (or the last), where the final pair goes
        end = self._total if force else self._total - 1
        if self._recorder is None or self._recorded >= end:
            return
        if force or end - self._recorded >= self._batch:
            self._recorder.submit(self._snapshot(self._recorded, end))
            self._recorded = end

    def detach_recording(self) -> TimelineRecorder | None:
        """Hand over the last rows and stop feeding the recording; the caller closes it (on a
        worker thread, say: closing waits for the writes and the fsync).  None when none ran."""
        if self._recorder is None:
            return None
        last = self._total - 1
        if last >= self._recorded and (not self._pair_rows or self._pair_rows[-1] != last):
            self._add_pair(last)                 # the recording ends with a pair
        self._feed(force=True)
        recorder, self._recorder = self._recorder, None
        return recorder

    def stop_recording(self) -> RecordResult | None:
        """:meth:`detach_recording` and close it (flushed, fsynced, in place); None when none was
        running.  Never raises: a failed write is in the result's ``error``."""
        recorder = self.detach_recording()
        return recorder.close() if recorder is not None else None
