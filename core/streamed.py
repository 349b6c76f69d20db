"""Files written a line at a time while something runs: the one streamed write path, beside
:func:`core.atomic.atomic_path` (the one write path for a file written whole).

A :class:`StreamedFile` is opened once, before the first line, and then written whole lines at a
time by one thread (its owner's writer thread).  It is one of two kinds:

- ``append``: each call's lines go straight to the file in one ``write()`` (nothing is held in
  the process), continuing a file that exists, so a killed process (even SIGKILL) leaves every
  line written before it; :meth:`StreamedFile.sync` fsyncs at most every ``sync_every_s``, so a
  power cut leaves every line up to the last fsync.  With ``max_bytes`` the file is capped: a
  line that would take it over the cap begins a new file and the old one is renamed ``FILE.1``
  (replacing an older ``FILE.1``), so the two take at most about twice the cap; a line never
  straddles a rotation.  A stream (``-``, a pipe, ``/dev/fd/N``) is written the same way and
  never rotated.
- ``replace``: the lines go, buffered, to the temporary file :func:`core.atomic.atomic_path`
  keeps beside the target, and :meth:`StreamedFile.close` puts it in place whole; a failed
  write (a full disk) removes it and leaves the target as it was.

Refusals come before the first line, as ``ValueError`` (one sentence naming the path): what
:func:`core.atomic.require_writable` refuses (a folder, a read-only file, a missing folder
unless ``make_parent``) and a file that cannot be opened.  Once open, nothing raises: the
first failure (a full disk, a file made unwritable) is recorded as one sentence,
:attr:`StreamedFile.error`, and every later line is dropped.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

from core.atomic import atomic_path, is_stream, require_writable, write_target

APPEND = "append"
REPLACE = "replace"


def _append_opener(path, flags: int) -> int:
    # the mode a log has always been created with (the umask applies)
    return os.open(path, flags, 0o644)


class _Failed(Exception):
    """Unwinds a ``replace`` file with an exception, so that its target stays as it was."""


class StreamedFile:
    """A file written line by line while something runs (see the module's text).

    ``mode``: ``"append"`` or ``"replace"``.  ``make_parent`` makes the file's folder (and the
    folders above it) when it is missing.  ``max_bytes`` caps an ``append`` file by rotation
    (``None``: no cap; a ``replace`` file is never rotated).  ``buffer_bytes``: the buffer of a
    ``replace`` file (an ``append`` file has none).  ``sync_every_s``: how often
    :meth:`sync` fsyncs at most (``None``: only when forced, and at :meth:`close`).  ``clock``
    (injectable) times those syncs.  Not thread-safe: one thread writes it.
    """

    def __init__(self, path, *, mode: str = APPEND, make_parent: bool = False,
                 max_bytes: int | None = None, buffer_bytes: int = 1 << 16,
                 sync_every_s: float | None = None, clock: Callable[[], float] = time.monotonic):
        if mode not in (APPEND, REPLACE):
            raise ValueError(f"a streamed file is {APPEND!r} or {REPLACE!r}, not {mode!r}")
        if max_bytes is not None:
            if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes <= 0:
                raise ValueError(f"a streamed file's cap: expected a whole number of bytes above 0, "
                                 f"got {max_bytes!r}")
            if mode == REPLACE:
                raise ValueError("a file replaced whole has no cap: only an appended file rotates")
        self.path = str(path)
        self.mode = mode
        self.max_bytes = max_bytes
        self.lines = 0                # lines written
        self.rotations = 0
        require_writable(self.path, make_parent=make_parent)
        self._error: str | None = None
        self._closed = False
        self._stream = is_stream(self.path)
        self._target: Path | None = None if self._stream else write_target(self.path)
        self._buffer_bytes = buffer_bytes
        self._every = sync_every_s
        self._clock = clock
        self._stack = contextlib.ExitStack()
        try:
            if make_parent and self._target is not None:
                self._target.parent.mkdir(parents=True, exist_ok=True)
            self._fh: BinaryIO = self._open()
            self._size = 0 if self._stream or mode == REPLACE else os.fstat(self._fh.fileno()).st_size
        except OSError as exc:
            with contextlib.suppress(Exception):
                self._stack.__exit__(type(exc), exc, None)
            raise ValueError(f"cannot write {self.path}: {exc.strerror or exc}") from None
        self._dirty = False
        self._synced = clock()

    def _open(self) -> BinaryIO:
        if self.mode == REPLACE:
            tmp = self._stack.enter_context(atomic_path(self.path))
            return self._stack.enter_context(open(tmp, "wb", buffering=self._buffer_bytes))
        if self.path == "-":
            fd = os.dup(1)
            try:
                return open(fd, "ab", buffering=0)
            except BaseException:
                os.close(fd)
                raise
        where = self.path if self._target is None else self._target
        return open(where, "ab", buffering=0, opener=_append_opener)

    @property
    def error(self) -> str | None:
        """The failure that stopped the file (one sentence), or None."""
        return self._error

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def size(self) -> int:
        """Bytes in the current file (an ``append`` file counts what it held when opened)."""
        return self._size

    def fail(self, exc: BaseException | str) -> str:
        """Record a failure met while writing (the first one wins; an ``OSError`` says its
        reason): every later line is dropped and :meth:`close` leaves a ``replace`` target as
        it was.  Returns the recorded sentence."""
        if self._error is None:
            self._error = f"cannot write {self.path}: {getattr(exc, 'strerror', None) or exc}"
        return self._error

    def write_line(self, line: str) -> bool:
        """:meth:`write_lines` for one line."""
        return self.write_lines((line,))

    def write_lines(self, lines: Iterable[str]) -> bool:
        """Write whole lines, each ending in its own line end, encoded as UTF-8: one
        ``write()`` for the run of lines that fits under the cap.  Never raises for the disk:
        False when the file has failed (now or before) or is closed."""
        if self._closed or self._error is not None:
            return False
        self._dirty = True
        try:
            run: list[bytes] = []
            size = self._size
            for line in lines:
                data = line.encode("utf-8")
                if self.max_bytes is not None and not self._stream and size \
                        and size + len(data) > self.max_bytes:
                    self._write(run)
                    run = []
                    self._rotate()
                    size = 0
                run.append(data)
                size += len(data)
            self._write(run)
        except (OSError, ValueError) as exc:
            self.fail(exc)
            return False
        return True

    def _write(self, lines: list[bytes]) -> None:
        view = memoryview(b"".join(lines))
        self._size += len(view)
        while view:
            n = self._fh.write(view)
            if n is None:                            # a non-blocking stream that is full
                raise OSError(errno.EAGAIN, os.strerror(errno.EAGAIN))
            view = view[n:]
        self.lines += len(lines)

    def _rotate(self) -> None:
        """The file over its cap becomes ``FILE.1``; a new one is begun."""
        assert self._target is not None   # only a file rotates, never a stream
        self._fsync()
        self._fh.close()
        os.replace(self._target, self._target.with_name(self._target.name + ".1"))
        self._fh = self._open()
        self._size = 0
        self.rotations += 1

    def _fsync(self) -> None:
        self._fh.flush()
        with contextlib.suppress(OSError):           # a pipe or a terminal: nothing to sync
            os.fsync(self._fh.fileno())

    def sync(self, *, force: bool = False) -> None:
        """fsync what was written since the last sync, when ``sync_every_s`` has passed since
        it (or ``force``); nothing when nothing was written.  Never raises."""
        if not self._dirty or self._closed:
            return
        now = self._clock()
        if not force and (self._every is None or now - self._synced < self._every):
            return
        try:
            self._fsync()
        except (OSError, ValueError) as exc:
            self.fail(exc)
        self._synced, self._dirty = now, False

    def close(self) -> str | None:
        """Flush, fsync and close; a ``replace`` file is put in place, or, after a failure,
        removed with its target left as it was.  Returns the error (None: every line written
        is in the file).  A second call returns the same."""
        if self._closed:
            return self._error
        if self.mode == APPEND:
            try:
                if self._dirty:
                    self._fsync()
                self._fh.close()
            except OSError as exc:
                self.fail(exc)
        elif self._error is None:
            try:
                self._stack.close()      # closes the file, fsyncs it, renames it over the target
            except (OSError, ValueError) as exc:
                self.fail(exc)
        else:
            with contextlib.suppress(Exception):
                self._stack.__exit__(_Failed, _Failed(self._error), None)
        self._closed = True
        return self._error

    def __repr__(self) -> str:
        return f"StreamedFile({self.path!r}, {self.mode}, lines={self.lines})"
