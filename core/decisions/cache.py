"""The decision cache: which render path serves each band on each device, as measured.

One JSON file (``decisions.json`` in :func:`core.paths.cache_dir`; the
``TESTCARD_DECISION_CACHE`` environment variable names another file), in the document
schema of :mod:`core.decisions.schema`::

    {"kind": "testcard-decisions", "schema": 1, "testcard": "0.1.0",
     "entries": {"cpu:AMD EPYC x2|counter@2160p/rgb10": {
         "winner": "torch-compiled",
         "candidates": {"numpy": {"status": "ok", "median_ms": 9.1, "spread_ms": 0.2,
                                  "compile_s": 0.0, "reason": ""}, ...},
         "rounds": 9, "frames": 50, "margin": 0.03, "reason": "...",
         "measured_at": "2025-01-01T12:00:00+00:00", "testcard": "0.1.0", "torch": "2.13.0+cpu"}}}

Entries are keyed ``fingerprint|band`` (:mod:`core.decisions.fingerprint`, :mod:`core.decisions.bands`).

Which path renders a band is :mod:`core.decisions.choose`'s (pin > this cache > default).

Writes are safe: read-modify-write happens under a cross-process lock
(``filelock``, next to the file), and the new file goes through
:func:`core.atomic.atomic_write`, so a reader never sees a partial file and a killed
writer leaves the old file whole.  A corrupt cache is moved aside (``decisions.json.corrupt-<time>``), never
overwritten, with a warning; lookups then use the default.  A cache written by a
newer testcard (higher schema) is left alone: lookups use the default and writes
are refused.

Decision files (:mod:`core.decisions.exchange`) use the same schema.  An import validates
the whole file first; any invalid entry refuses the whole file and nothing changes.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import logging
import os
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from core.atomic import atomic_write, temp_glob
from core.decisions.bands import Band, format_band
from core.decisions.fingerprint import fingerprint
from core.decisions.race import RaceResult
from core.decisions.schema import (
    DecisionFileError,
    encode,
    entry_from_result,
    make_key,
    parse_document,
    split_key,
    validate_entry,
)
from core.engine import PATHS
from core.paths import cache_dir

ENV_CACHE = "TESTCARD_DECISION_CACHE"
LOCK_TIMEOUT_S = 60.0

log = logging.getLogger("testcard.decisions")


class DecisionCacheWarning(UserWarning):
    """The cache was corrupt and was moved aside, or was written by a newer testcard."""


def cache_path() -> Path:
    """The cache file: ``$TESTCARD_DECISION_CACHE``, else ``decisions.json`` in
    :func:`core.paths.cache_dir`."""
    env = os.environ.get(ENV_CACHE, "").strip()
    if env:
        return Path(env).expanduser()
    return cache_dir() / "decisions.json"


class DecisionCache:
    """The local cache file.  Reads need no lock (files are replaced whole); every
    read-modify-write holds the cross-process lock."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else cache_path()
        self.problem: str | None = None   # why the last read found no usable cache

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    @contextlib.contextmanager
    def locked(self):
        from filelock import FileLock, Timeout

        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self.lock_path), timeout=LOCK_TIMEOUT_S)
        try:
            lock.acquire()
        except Timeout:
            raise DecisionFileError(f"the decision cache {self.path} is locked by another testcard "
                                    f"for over {LOCK_TIMEOUT_S:.0f} s") from None
        try:
            yield
        finally:
            lock.release()

    def _read(self) -> tuple[bytes | None, dict[str, dict] | None, DecisionFileError | None]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None, {}, None
        except OSError as exc:
            raise DecisionFileError(f"cannot read the decision cache {self.path}: {exc}") from None
        try:
            return data, parse_document(data), None
        except DecisionFileError as exc:
            return data, None, exc

    @staticmethod
    def _newer(exc: DecisionFileError) -> bool:
        return "newer testcard" in str(exc)

    def _move_aside(self, why: DecisionFileError) -> Path:
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        dest = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        n = 1
        while dest.exists():
            dest = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{n}")
            n += 1
        os.replace(self.path, dest)
        msg = (f"the decision cache {self.path} was corrupt ({why}); moved it aside to {dest.name} "
               "and using defaults until paths are measured again")
        log.warning(msg)
        warnings.warn(msg, DecisionCacheWarning, stacklevel=3)
        return dest

    def load(self) -> dict[str, dict]:
        """Every entry.  A corrupt file is moved aside (warning) and reads as empty; a file
        from a newer testcard reads as empty and stays.  ``self.problem`` says which."""
        self.problem = None
        data, entries, err = self._read()
        if err is None:
            return entries
        if self._newer(err):
            self.problem = f"the decision cache {self.path} was {err}; ignoring it"
            warnings.warn(self.problem, DecisionCacheWarning, stacklevel=2)
            return {}
        with self.locked():
            data2, entries, err = self._read()
            if err is None:
                return entries
            if self._newer(err):
                self.problem = f"the decision cache {self.path} was {err}; ignoring it"
                return {}
            dest = self._move_aside(err)
            self.problem = f"the decision cache was corrupt and was moved aside to {dest.name}"
            return {}

    def update(self, change: Callable[[dict[str, dict]], Any]) -> Any:
        """Read, ``change`` the entries in place, write back; all under the lock.

        A corrupt cache is moved aside first; a newer one is refused."""
        with self.locked():
            _, entries, err = self._read()
            if err is not None:
                if self._newer(err):
                    raise DecisionFileError(f"the decision cache {self.path} was {err}; "
                                            "refusing to overwrite it")
                self._move_aside(err)
                entries = {}
            before = dict(entries)
            out = change(entries)
            if entries != before:
                for stale in self.path.parent.glob(temp_glob(self.path)):
                    # only writers holding this lock create these: any left is a killed writer's
                    with contextlib.suppress(OSError):
                        stale.unlink()
                atomic_write(self.path, encode(entries), make_parent=True)
            return out

    # -- conveniences
    def record(self, fp: str, band: str | Band, entry: dict) -> str:
        """Store one verdict (replacing the same device and band).  Refuses a winner that is
        not a declared candidate, and any invalid entry."""
        if isinstance(entry, dict) and entry.get("winner") not in PATHS:
            raise ValueError(f"refusing to record {entry.get('winner')!r}: not a declared candidate "
                             f"({', '.join(PATHS)})")
        key = make_key(fp, band)
        clean = validate_entry(key, entry)

        def put(entries):
            entries[key] = clean

        self.update(put)
        return key

    def clear(self, bands: Iterable[str] | None = None, fingerprints: Iterable[str] | None = None) -> int:
        bands = {format_band(b) for b in bands} if bands else None
        fps = set(fingerprints) if fingerprints else None

        def drop(entries):
            gone = [k for k in entries
                    if (bands is None or split_key(k)[1] in bands)
                    and (fps is None or split_key(k)[0] in fps)]
            for k in gone:
                del entries[k]
            return len(gone)

        return self.update(drop)


def record_result(result: RaceResult, cache: DecisionCache | None = None) -> str:
    """Record a finished race's verdict for this box's ``result.device``; returns the key."""
    cache = cache or DecisionCache()
    return cache.record(fingerprint(result.device), result.band, entry_from_result(result))


