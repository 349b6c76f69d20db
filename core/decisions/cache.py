"""The decision cache: which render path serves each band on each device, as measured.

One JSON file (``decisions.json`` in :func:`core.paths.cache_dir`; the
``TESTCARD_DECISION_CACHE`` environment variable names another file), in the document
schema of :mod:`core.decisions.schema`::

    {"kind": "testcard-decisions", "schema": 2, "testcard": "0.1.0",
     "entries": {"cpu:AMD EPYC x2|counter@2160p/rgb10": {
         "winner": "torch-compiled", "form": "render",
         "candidates": {"numpy": {"status": "ok", "median_ms": 9.1, "spread_ms": 0.2,
                                  "compile_s": 0.0, "reason": ""}, ...},
         "rounds": 9, "frames": 50, "margin": 0.03, "reason": "...",
         "measured_at": "2025-01-01T12:00:00+00:00", "testcard": "0.1.0", "torch": "2.13.0+cpu"}}}

Entries are keyed ``fingerprint|band`` (:mod:`core.decisions.fingerprint`, :mod:`core.decisions.bands`);
a verdict raced in the live loop is keyed ``fingerprint|band|live`` beside it, with the screen's
``period_ms`` and each candidate's ``late`` frames, ``interval_p99_ms`` and ``cost_p99_ms``.

Which path renders a band is :mod:`core.decisions.choose`'s (pin > this cache > default).

Lookups are indexed: each cache file has one in-memory index per registry
(:class:`~core.decisions.index.Indexes`; a dict keyed ``fingerprint|band``, shared by every
:class:`DecisionCache` of that file made with that registry: ``indexes=``, else one of its own),
parsed once and parsed again only when the file's signature (device, inode, size, mtime, ctime)
changes; a write through a cache sharing it puts its new entries in directly.  :meth:`DecisionCache.hold`
(for a GUI thread) stops lookups touching the disk at all: the holder refreshes the index with
:meth:`DecisionCache.refresh` off that thread, and until the first refresh it reads as empty.

Writes are safe: read-modify-write happens under a cross-process lock (``filelock``, next to
the file), and the new file goes through :func:`core.atomic.atomic_write`, so a reader never
sees a partial file and a killed writer leaves the old file whole.  A write that would take
the file over :data:`~core.decisions.schema.MAX_ENTRIES` entries or
:data:`~core.decisions.schema.MAX_FILE_BYTES` is refused, and every operating-system error on
the write path is one :class:`DecisionFileError` naming the file.

A bad cache never stops a lookup (each one is reported once, as a
:class:`DecisionCacheWarning` and in :attr:`DecisionCache.notes`):

- a corrupt one (not JSON, not UTF-8, nested too deeply, over the size or entry cap, not a
  decision document) is moved aside with :func:`core.atomic.move_aside`, never overwritten;
  where it cannot be moved (a read-only folder) it is left in place and ignored; lookups use
  the default either way;
- one written by a newer testcard (a higher schema) is left alone and ignored (upgrade
  testcard); writes to it are refused;
- an unusable entry (out of range, a future time, a control character...) is skipped and
  reported; the file is not rewritten for it.  The next write keeps the entries that are
  usable and moves the previous file aside first, so what was dropped is kept and said;
- one written in an older schema (1, before forms) is read as it is, every verdict a render
  one; the next write turns it into this schema and keeps the old file beside it, and says so.

Decision files (:mod:`core.decisions.exchange`) use the same schema.  An import validates
the whole file first; any invalid entry refuses the whole file and nothing changes.  Exporting
over the cache itself (by any link) and importing the cache itself are refused.

One module, a little over 400 lines, because the index, the lock and the write path keep one
promise together (a lookup never sees a half-written verdict); the document schema, the index
signature and the live-verdict fields already live in their own modules.
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

import core.decisions.index as ix
from core.atomic import atomic_write, move_aside, require_writable, temp_glob
from core.decisions.bands import Band, format_band
from core.decisions.fingerprint import fingerprint
from core.decisions.racing import RaceResult
from core.decisions.schema import (
    MAX_ENTRIES,
    MAX_FILE_BYTES,
    SCHEMA,
    DecisionFileError,
    NewerSchemaError,
    encode,
    entry_from_result,
    make_key,
    parse_cache_schema,
    split_key,
    validate_entry,
)
from core.engine import PATHS
from core.paths import cache_dir

ENV_CACHE = "TESTCARD_DECISION_CACHE"
LOCK_TIMEOUT_S = 60.0
ASIDE_LOCK_TIMEOUT_S = 2.0     # a lookup that would move a corrupt file aside waits no longer

log = logging.getLogger("testcard.decisions")


class DecisionCacheWarning(UserWarning):
    """The cache (or an entry of it) is not used, or a write dropped unusable entries: each
    said once, when it is first seen."""


def cache_path() -> Path:
    """The cache file: ``$TESTCARD_DECISION_CACHE``, else ``decisions.json`` in
    :func:`core.paths.cache_dir`."""
    env = os.environ.get(ENV_CACHE, "").strip()
    if env:
        return Path(env).expanduser()
    return cache_dir() / "decisions.json"


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


class DecisionCache:
    """The local cache file.  Reads need no lock (files are replaced whole) and are served
    from the file's in-memory index; every read-modify-write holds the cross-process lock.
    ``clock`` (an aware ``datetime``) is what a ``measured_at`` may not lie beyond; ``indexes``
    the registry whose index of the file it shares (None: a registry of its own, shared with no one)."""

    def __init__(self, path: str | os.PathLike | None = None, *,
                 clock: Callable[[], _dt.datetime] | None = None, indexes: ix.Indexes | None = None):
        self.path = Path(path) if path is not None else cache_path()
        self.clock = clock
        self.indexes = indexes if indexes is not None else ix.Indexes()
        self._index = self.indexes.index_for(self.path)

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    @contextlib.contextmanager
    def locked(self, timeout: float = LOCK_TIMEOUT_S):
        """Hold the cross-process lock; ``DecisionFileError`` (one sentence) when the folder
        cannot be made or written, or another testcard holds the lock past ``timeout``."""
        from filelock import FileLock, Timeout

        lock = FileLock(str(self.lock_path), timeout=timeout)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lock.acquire()
        except Timeout:
            raise DecisionFileError(f"the decision cache {self.path} is locked by another testcard "
                                    f"for over {timeout:.0f} s") from None
        except OSError as exc:
            raise DecisionFileError(f"cannot write the decision cache {self.path}: {_why(exc)} "
                                    f"({exc.filename or self.path.parent})") from None
        try:
            yield
        finally:
            lock.release()

    # -- reading
    def now(self) -> _dt.datetime:
        """The cache's clock: what a ``measured_at`` may not lie beyond (aware)."""
        return self.clock() if self.clock is not None else _dt.datetime.now(_dt.UTC)

    def _stat(self) -> tuple | None | OSError:
        try:
            return ix.stat_signature(self.path)
        except OSError as exc:
            return exc

    def _parse(self) -> ix.State:
        """Read and parse the file now (nothing is moved or written)."""
        try:
            data, sig = ix.read_file(self.path)
        except FileNotFoundError:
            return ix.MISSING
        except DecisionFileError as exc:
            st = self._stat()
            return ix.State("corrupt", st if isinstance(st, tuple) else None, problem=str(exc))
        except OSError as exc:
            return ix.State("unreadable", ("unreadable",), problem=(
                f"cannot read the decision cache {self.path}: {_why(exc)}; using the defaults"))
        try:
            entries, rejected, schema = parse_cache_schema(data, self.now(), source=self.path.name)
        except NewerSchemaError as exc:
            return ix.State("newer", sig, problem=f"the decision cache {self.path} was {exc}; "
                            "ignoring it")
        except DecisionFileError as exc:
            return ix.State("corrupt", sig, problem=str(exc))
        return ix.State("ok", sig, entries, rejected, schema=schema)

    def _set_aside(self, corrupt: ix.State, *, have_lock: bool = False) -> ix.State:
        """Move a corrupt file aside (under the lock, after reading it again); never raises."""
        why = corrupt.problem
        try:
            with contextlib.nullcontext() if have_lock else self.locked(ASIDE_LOCK_TIMEOUT_S):
                again = self._parse()
                if again.kind != "corrupt":
                    return again       # another testcard replaced it meanwhile
                why = again.problem
                dest = move_aside(self.path, "corrupt")
        except (OSError, ValueError) as exc:
            reason = _why(exc) if isinstance(exc, OSError) else str(exc)
            return ix.State("corrupt", corrupt.sig, problem=(
                f"the decision cache {self.path} is corrupt ({why}) and could not be moved aside "
                f"({reason}); ignoring it and using the defaults"))
        return ix.State("missing", None, problem=(
            f"the decision cache {self.path} was corrupt ({why}) and was moved aside to "
            f"{Path(dest).name}; using the defaults until paths are measured again"))

    def _current(self, state: ix.State | None, sig) -> bool:
        return state is not None and not isinstance(sig, OSError) and state.sig == sig

    def _state(self, *, disk: bool = False) -> ix.State:
        """The index's state, refreshed from the disk unless held (``disk``: even then);
        never raises.  Held and never loaded, it is the empty ``loading`` state."""
        idx = self._index
        state = idx.state
        if idx.held and not disk:
            return state if state is not None else ix.State(
                "loading", problem=f"the decision cache {self.path} is still being read")
        if state is not None and self._current(state, self._stat()):
            return state
        with idx.lock:
            if idx.state is not None and self._current(idx.state, self._stat()):
                return idx.state
            new = self._parse()
            if new.kind == "corrupt":
                new = self._set_aside(new)
            self._publish(new)
            return new

    def _publish(self, new: ix.State) -> None:
        old = self._index.state
        self._index.state = new
        if old is not None and (old.problem, old.rejected) == (new.problem, new.rejected):
            return   # said already
        for note in self._notes(new):
            log.warning(note)
            warnings.warn(note, DecisionCacheWarning, stacklevel=4)

    def _notes(self, state: ix.State) -> list[str]:
        notes = [state.problem] if state.problem else []
        if state.rejected:
            n = len(state.rejected)
            first = next(iter(state.rejected.values()))
            notes.append(f"the decision cache {self.path}: {n} unusable entr{'y' if n == 1 else 'ies'} "
                         f"ignored ({first}); the file is left as it is until the next write, "
                         "which keeps a copy of it")
        return notes

    @property
    def problem(self) -> str | None:
        """Why the cache file as a whole is not used (``None`` when it is, or has no file)."""
        return self._state().problem

    @property
    def loading(self) -> bool:
        """Held and not yet read: lookups see an empty cache until :meth:`refresh`."""
        return bool(self._index.held) and self._index.state is None

    @property
    def notes(self) -> list[str]:
        """Every reason the cache is not used whole: the file's problem, skipped entries."""
        return self._notes(self._state())

    def load(self) -> dict[str, dict]:
        """Every usable entry (a copy; the index is not re-read while the file is unchanged).
        Never raises: a bad file reads as empty, a bad entry is left out; :attr:`notes` says why."""
        return dict(self._state().entries)

    def lookup(self, key: str) -> tuple[dict | None, str | None]:
        """(entry, None) for ``fingerprint|band``; (None, why) when its entry was skipped as
        unusable; (None, None) when there is none.  From the index; never raises."""
        state = self._state()
        entry = state.entries.get(key)
        return entry, (None if entry is not None else state.rejected.get(key))

    def hold(self) -> None:
        """From now on serve lookups of this file (through any DecisionCache of it sharing this
        one's :attr:`indexes`) from memory, never touching the disk: for a GUI thread.  Until
        the first :meth:`refresh` (on a worker thread) the index reads as empty, ``loading``.
        Every write through those caches still updates it.  :meth:`release` ends it."""
        with self._index.lock:
            self._index.held += 1

    def refresh(self) -> bool:
        """Check the file now (parsing only when it changed), also while held: for a worker
        thread.  True when what lookups see changed; :attr:`notes` says what is wrong."""
        before = self._index.state
        return self._state(disk=True) is not before

    def release(self) -> None:
        """Undo one :meth:`hold`: once none is left, lookups check the file again."""
        with self._index.lock:
            self._index.held = max(0, self._index.held - 1)

    # -- writing
    def check_writable(self) -> None:
        """Refuse now, with one sentence (``DecisionFileError``), what a write would refuse
        later: a folder that cannot be made or written, a read-only file, a file that cannot
        be read or was written by a newer testcard.  For a long job that records at its end."""
        with self.locked():
            state = self._parse()
            if state.kind in ("newer", "unreadable"):
                raise DecisionFileError(f"{state.problem}; refusing to write to it")
            self._writable()

    def _writable(self) -> None:
        try:
            require_writable(self.path)
        except ValueError as exc:
            raise DecisionFileError(f"the decision cache: {exc}") from None

    def _locked_state(self) -> ix.State:
        """The file's state, under the lock: the index when the file is unchanged."""
        state = self._index.state
        if state is not None and state.kind == "ok" and self._current(state, self._stat()):
            return state
        return self._parse()

    def update(self, change: Callable[[dict[str, dict]], Any]) -> Any:
        """Read, ``change`` the entries in place, write back; all under the lock.

        A corrupt cache is moved aside first; a newer or unreadable one is refused; a change
        that would take the cache over its caps is refused and nothing is written.  Every
        failure is a ``DecisionFileError`` naming the file."""
        with self.locked():
            state = self._locked_state()
            if state.kind in ("newer", "unreadable"):
                self._publish(state)
                raise DecisionFileError(f"{state.problem}; refusing to overwrite it")
            if state.kind == "corrupt":
                aside = self._set_aside(state, have_lock=True)
                self._publish(aside)
                if aside.kind == "corrupt":
                    raise DecisionFileError(f"{aside.problem}; refusing to overwrite it")
                state = ix.MISSING
            entries = dict(state.entries)
            out = change(entries)
            if entries == state.entries:
                self._publish(state)
            else:
                self._write(state, entries)
            return out

    def _write(self, state: ix.State, entries: dict[str, dict]) -> None:
        if len(entries) > MAX_ENTRIES:
            raise DecisionFileError(f"refusing to write the decision cache {self.path}: "
                                    f"{len(entries)} entries is over the limit of {MAX_ENTRIES} "
                                    "(remove some with testcard decisions clear)")
        data = encode(entries)
        if len(data) > MAX_FILE_BYTES:
            raise DecisionFileError(f"refusing to write the decision cache {self.path}: "
                                    f"{len(data)} bytes is over the {MAX_FILE_BYTES}-byte limit")
        self._writable()
        try:
            kept = move_aside(self.path, "unusable") if state.rejected else None
            # an older schema is rewritten only by a write, and its file kept beside it
            older = (move_aside(self.path, f"schema{state.schema}")
                     if state.schema is not None and state.schema < SCHEMA and kept is None else None)
            for stale in self.path.parent.glob(temp_glob(self.path)):
                # only writers holding this lock create these: any left is a killed writer's
                with contextlib.suppress(OSError):
                    stale.unlink()
            atomic_write(self.path, data, make_parent=True)
            sig = ix.stat_signature(self.path)
        except OSError as exc:
            raise DecisionFileError(f"cannot write the decision cache {self.path}: "
                                    f"{_why(exc)}") from None
        self._index.state = ix.State("ok", sig, entries, schema=SCHEMA)
        if older is not None:
            note = (f"the decision cache {self.path} was written in schema {state.schema}; it is now "
                    f"schema {SCHEMA} (every verdict kept, each read as a render race), and the "
                    f"previous file is kept as {Path(older).name}")
            log.warning(note)
            warnings.warn(note, DecisionCacheWarning, stacklevel=4)
        if kept is not None:
            n = len(state.rejected)
            note = (f"the decision cache {self.path}: dropped {n} unusable entr"
                    f"{'y' if n == 1 else 'ies'} ({next(iter(state.rejected.values()))}); "
                    f"the previous file is kept as {Path(kept).name}")
            log.warning(note)
            warnings.warn(note, DecisionCacheWarning, stacklevel=4)

    # -- conveniences
    def record(self, fp: str, band: str | Band, entry: dict) -> str:
        """Store one verdict (replacing the same device, band and form: a live verdict is kept
        beside a render one).  Refuses a winner that is not a declared candidate, an unknown
        form, and any invalid entry."""
        if isinstance(entry, dict) and entry.get("winner") not in PATHS:
            raise ValueError(f"refusing to record {entry.get('winner')!r:.60}: not a declared "
                             f"candidate ({', '.join(PATHS)})")
        form = entry.get("form", "render") if isinstance(entry, dict) else "render"
        try:
            key = make_key(fp, band, form)
        except ValueError as exc:
            raise ValueError(f"refusing to record: {exc}") from None
        clean = validate_entry(key, entry, self.now())

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


