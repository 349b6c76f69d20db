"""The decision cache in memory: one index per cache file in each :class:`Indexes` registry,
and the one function that reads a cache file.

An index holds the last parse of its file (:class:`State`: the usable entries as a dict keyed
``fingerprint|band``, the entries skipped and why, the file's problem) with the signature of
the file it came from (device, inode, size, mtime, ctime).  :class:`~core.decisions.cache.DecisionCache`
parses again only when that signature changes, and a write through any cache sharing the index
puts its new entries in directly, so a lookup costs a ``stat`` -- or nothing while the index is held.
"""

from __future__ import annotations

import errno
import os
import stat as _stat
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from core.decisions.schema import MAX_FILE_BYTES, DecisionFileError


def signature(st: os.stat_result) -> tuple:
    """What says a file changed: device, inode (a replace makes a new one), size, mtime, ctime."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def stat_signature(path: Path) -> tuple | None:
    """:func:`signature` of ``path``; ``None`` when there is no file; ``OSError`` otherwise."""
    try:
        return signature(os.stat(path))
    except FileNotFoundError:
        return None


def read_file(path: Path) -> tuple[bytes, tuple]:
    """The cache file's bytes and signature from one open: the only place a cache is read.

    ``OSError`` when it cannot be read, or is a folder or other non-regular file (a FIFO is
    never waited on); ``DecisionFileError`` for a file over :data:`MAX_FILE_BYTES`, refused
    from its size before it is read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if _stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "it is a folder", str(path))
        if not _stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "it is not a regular file", str(path))
        if st.st_size > MAX_FILE_BYTES:
            raise DecisionFileError(f"{st.st_size} bytes is over the {MAX_FILE_BYTES}-byte limit")
        chunks, left = [], MAX_FILE_BYTES + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks), signature(st)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class State:
    """One parse of a cache file (or the lack of one).  Never changed once made."""

    kind: str                                       # ok, missing, newer, corrupt, unreadable, loading
    sig: tuple | None = None                        # the file it was read from (None: no file)
    entries: dict = field(default_factory=dict)     # {key: entry}, every one valid
    rejected: dict = field(default_factory=dict)    # {key: why} for entries skipped
    problem: str | None = None                      # why the file as a whole is not used
    schema: int | None = None                       # the schema the file is written in (when read)


MISSING = State("missing")


class Index:
    """The in-memory index of one cache file, shared by every DecisionCache of that file made
    with the same :class:`Indexes`."""

    def __init__(self):
        self.lock = threading.RLock()   # one refresh at a time; lookups read ``state`` lock-free
        self.state: State | None = None
        self.held = 0                   # holders: while any, lookups never touch the disk


INDEX_LIMIT = 32                        # files a registry indexes at once; the oldest unheld go first


class Indexes:
    """A registry of indexes, one per cache file: every :class:`~core.decisions.cache.DecisionCache`
    made with the same registry shares its file's index (what one holds or writes, the others
    see).  Whoever makes caches that must agree owns one and passes it (a doctor run's steps;
    the live output passes its one cache instead); a registry is never global.  It keeps at
    most ``limit`` indexes: making another drops the oldest unheld ones, never a held one."""

    def __init__(self, limit: int = INDEX_LIMIT):
        self.limit = limit
        self._lock = threading.Lock()
        self._indexes: OrderedDict[str, Index] = OrderedDict()

    def index_for(self, path: Path) -> Index:
        """This registry's index of the cache file ``path`` (made on first ask)."""
        key = os.path.abspath(path)
        with self._lock:
            idx = self._indexes.get(key)
            if idx is None:
                idx = self._indexes[key] = Index()
                unheld = [k for k, v in self._indexes.items() if not v.held]
                for old in unheld[:max(0, len(unheld) - self.limit)]:
                    del self._indexes[old]
            return idx

    def __len__(self) -> int:
        with self._lock:
            return len(self._indexes)
