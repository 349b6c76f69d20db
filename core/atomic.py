"""The one write path: every file testcard writes is replaced whole or not at all.

A write goes to a temporary file in the target's own folder (so ``os.replace`` is a rename on
one file system), is flushed and fsynced, then renamed over the target, and the folder is
fsynced so the rename itself survives a crash.  A failed write removes its temporary file and
leaves the target as it was.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path


def require_parent(path) -> Path:
    """``path`` as a Path whose folder exists; ``ValueError`` with one sentence when it does not."""
    p = Path(path)
    if not p.parent.exists():
        raise ValueError(f"cannot write {p}: its folder does not exist ({p.parent})")
    return p


def temp_glob(path) -> str:
    """The glob pattern matching :func:`atomic_path`'s temporary files for ``path``."""
    p = Path(path)
    return f".{p.name}.*.tmp"


def _fsync_dir(folder: Path) -> None:
    if hasattr(os, "O_DIRECTORY"):  # POSIX: make the rename durable
        with contextlib.suppress(OSError):
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


@contextlib.contextmanager
def atomic_path(path, *, make_parent: bool = False) -> Iterator[Path]:
    """A temporary path beside ``path`` for the caller to write; on success it is fsynced and
    renamed over ``path``, on any exception it is removed and ``path`` is untouched."""
    p = Path(path)
    if make_parent:
        p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.{secrets.token_hex(6)}.tmp")
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(p.parent)


def atomic_write(path, data: bytes, *, make_parent: bool = False) -> Path:
    """Write ``data`` to ``path`` so that no reader ever sees a partial file."""
    p = Path(path)
    with atomic_path(p, make_parent=make_parent) as tmp, open(tmp, "xb") as fh:
        fh.write(data)
    return p


def atomic_text(path, text: str, *, make_parent: bool = False) -> Path:
    """:func:`atomic_write` for text (UTF-8)."""
    return atomic_write(path, text.encode("utf-8"), make_parent=make_parent)
