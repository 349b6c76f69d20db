"""The raw per-frame record of the live loop (numpy arrays; no Qt).

One row per presented frame: the frame index shown, when the present
completed (monotonic seconds), and what each stage cost.  Arrays grow by
doubling, so appending is cheap at any rate; :meth:`snapshot` hands out copies
that a worker thread may write to CSV while the loop keeps appending.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass

import numpy as np

from core.atomic import atomic_path

FLOAT_COLUMNS = ("present_s", "render_ms", "transfer_ms", "upload_ms", "present_ms")
CSV_COLUMNS = ("frame", "index", "present_s", "interval_ms", "render_ms", "transfer_ms", "upload_ms",
               "present_ms", "path", "warmup", "paused", "error")


@dataclass
class TimelineSnapshot:
    index: np.ndarray
    present_s: np.ndarray
    render_ms: np.ndarray
    transfer_ms: np.ndarray
    upload_ms: np.ndarray
    present_ms: np.ndarray
    warmup: np.ndarray
    paused: np.ndarray
    path: list[str]
    errors: dict[int, str]

    def __len__(self) -> int:
        return len(self.index)

    @property
    def interval_ms(self) -> np.ndarray:
        """Present-to-present intervals; the first frame has none (NaN)."""
        out = np.full(len(self.present_s), np.nan)
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
        intervals = self.interval_ms
        with atomic_path(path) as tmp, open(tmp, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(CSV_COLUMNS)
            for i in range(len(self)):
                w.writerow([i, int(self.index[i]), f"{self.present_s[i]:.6f}", _ms(intervals[i]),
                            _ms(self.render_ms[i]), _ms(self.transfer_ms[i]), _ms(self.upload_ms[i]),
                            _ms(self.present_ms[i]), self.path[i], int(self.warmup[i]),
                            int(self.paused[i]), self.errors.get(i, "")])
        return len(self)


def _ms(v: float) -> str:
    return "" if math.isnan(v) else f"{v:.4f}"


class Timeline:
    """Append-only per-frame record with amortised O(1) appends."""

    def __init__(self, capacity: int = 1024):
        self._cap = max(16, capacity)
        self.clear()

    def clear(self) -> None:
        self._n = 0
        self._index = np.zeros(self._cap, np.int64)
        self._f = {c: np.zeros(self._cap, np.float64) for c in FLOAT_COLUMNS}
        self._warmup = np.zeros(self._cap, bool)
        self._paused = np.zeros(self._cap, bool)
        self._path_codes = np.zeros(self._cap, np.int16)
        self._path_names: list[str] = []
        self._errors: dict[int, str] = {}

    def __len__(self) -> int:
        return self._n

    def append(self, index: int, present_s: float, render_ms: float, transfer_ms: float,
               upload_ms: float, present_ms: float, path: str, warmup: bool = False,
               paused: bool = False, error: str | None = None) -> None:
        if self._n == len(self._index):
            self._grow()
        n = self._n
        self._index[n] = index
        for c, v in zip(FLOAT_COLUMNS, (present_s, render_ms, transfer_ms, upload_ms, present_ms),
                        strict=True):
            self._f[c][n] = v
        self._warmup[n] = warmup
        self._paused[n] = paused
        if path not in self._path_names:
            self._path_names.append(path)
        self._path_codes[n] = self._path_names.index(path)
        if error:
            self._errors[n] = error
        self._n = n + 1

    def _grow(self) -> None:
        size = len(self._index) * 2

        def grown(a):
            out = np.zeros(size, a.dtype)
            out[:len(a)] = a
            return out

        self._index = grown(self._index)
        self._f = {c: grown(a) for c, a in self._f.items()}
        self._warmup = grown(self._warmup)
        self._paused = grown(self._paused)
        self._path_codes = grown(self._path_codes)

    def column(self, name: str, last: int | None = None) -> np.ndarray:
        """A view of one float column (the last ``last`` rows); valid until the next append."""
        n = self._n
        start = 0 if last is None else max(0, n - last)
        if name == "index":
            return self._index[start:n]
        return self._f[name][start:n]

    def warmup_mask(self) -> np.ndarray:
        """A view of the per-frame warm-up flags; valid until the next append."""
        return self._warmup[:self._n]

    def leading_warmup(self) -> int:
        """How many frames at the start were warm-up (compile) frames."""
        not_warm = np.flatnonzero(~self._warmup[:self._n])
        return int(not_warm[0]) if len(not_warm) else self._n

    def snapshot(self) -> TimelineSnapshot:
        n = self._n
        return TimelineSnapshot(
            self._index[:n].copy(), *(self._f[c][:n].copy() for c in FLOAT_COLUMNS),
            self._warmup[:n].copy(), self._paused[:n].copy(),
            [self._path_names[c] for c in self._path_codes[:n]], dict(self._errors))
