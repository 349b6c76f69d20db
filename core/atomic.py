"""The one write path: every file testcard writes is replaced whole or not at all.

A write goes to a temporary file in the target's own folder (so ``os.replace`` is a rename on
one file system), is flushed and fsynced, then renamed over the target, and the folder is
fsynced so the rename itself survives a crash.  A failed write removes its temporary file and
leaves the target as it was.  What else a write promises:

- a symlink is written through to its target; the link itself stays;
- ``-``, ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N`` and anything that is not a regular
  file (a FIFO, ``/dev/null``) are streams: written directly, never renamed over;
- a read-only file is refused (``ValueError``), never replaced, even by root;
- files written together (a frame and its sidecar) are replaced together or not at all;
- an output is never one of the command's inputs (:func:`refuse_same_file`);
- a file moved aside never replaces an earlier moved-aside copy (:func:`move_aside`).

:func:`require_writable` checks an output before long work starts, with a real probe file,
the only truthful test when root ignores mode bits.  An ``OSError`` from a write names the
file the caller asked for, not the temporary file.

One module, longer than most, because it is the one write path: every check a write makes
lives beside the write, so no caller can take the write without the checks.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

# A temporary file's name adds 18 characters: long names are cut so that the temporary name
# still fits the usual 255-byte limit on one name.
_STEM_BYTES = 200
_TAG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def require_parent(path) -> Path:
    """``path`` as a Path whose folder exists; ``ValueError`` with one sentence when it does not."""
    p = Path(path)
    if not p.parent.exists():
        raise ValueError(f"cannot write {p}: its folder does not exist ({p.parent})")
    return p


def _stem(name: str) -> str:
    raw = name.encode("utf-8", "surrogateescape")
    if len(raw) <= _STEM_BYTES:
        return name
    return raw[:_STEM_BYTES].decode("utf-8", "ignore")


def temp_glob(path) -> str:
    """The glob pattern matching this module's temporary files for ``path`` (the write's own
    temporary, a pair's backup of the old file, a writability probe)."""
    return f".{_stem(Path(path).name)}.*.tmp"


def _temp_name(p: Path, kind: str = "") -> Path:
    return p.with_name(f".{_stem(p.name)}.{secrets.token_hex(6)}{kind}.tmp")


# -- streams -----------------------------------------------------------------------------------

def _named_fd(text: str) -> int | None:
    """The descriptor a stream name stands for: ``-`` and ``/dev/stdout`` are 1, and so on."""
    if text in ("-", "/dev/stdout"):
        return 1
    if text == "/dev/stderr":
        return 2
    m = re.fullmatch(r"/(?:dev/fd|proc/self/fd)/(\d+)", text)
    return int(m.group(1)) if m else None


def is_stream(path) -> bool:
    """True for ``-``, a descriptor name (``/dev/stdout``, ``/dev/fd/3``) and any existing path
    that is not a regular file or a folder (a FIFO, ``/dev/null``): these are written
    directly, never through a temporary file."""
    text = os.fspath(path)
    if _named_fd(text) is not None:
        return True
    try:
        mode = os.stat(text).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _stream_write(text: str, chunks: Iterable[bytes]) -> None:
    fd = _named_fd(text)
    py = {1: sys.stdout, 2: sys.stderr}.get(fd) if fd is not None else None
    if py is not None:
        # the Python stream, so that redirection inside the process is honoured and the bytes
        # stay in order with what was printed before them
        py.flush()
        buf = getattr(py, "buffer", None)
        for chunk in chunks:
            buf.write(chunk) if buf is not None else py.write(chunk.decode("utf-8", "replace"))
        py.flush()
        return
    if fd is not None:
        with os.fdopen(os.dup(fd), "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
        return
    with open(text, "wb") as fh:
        for chunk in chunks:
            fh.write(chunk)


def _file_chunks(path: Path, size: int = 1 << 20) -> Iterator[bytes]:
    if not path.exists():
        return
    with open(path, "rb") as fh:
        while chunk := fh.read(size):
            yield chunk


# -- targets and checks ------------------------------------------------------------------------

def write_target(path) -> Path:
    """The file a write to ``path`` replaces: ``path`` itself, or the end of its symlinks."""
    p = Path(path)
    return Path(os.path.realpath(p)) if os.path.islink(p) else p


def _read_only(st: os.stat_result) -> bool:
    """Whether the mode bits forbid writing, judged from the bits themselves: root ignores
    them, so ``os.access`` would say yes to a file its owner made read-only."""
    mode = st.st_mode
    if os.name != "posix":
        return not mode & stat.S_IWRITE
    uid = os.geteuid()
    if uid == 0:
        return not mode & 0o222
    if uid == st.st_uid:
        return not mode & stat.S_IWUSR
    if st.st_gid == os.getegid() or st.st_gid in os.getgroups():
        return not mode & stat.S_IWGRP
    return not mode & stat.S_IWOTH


def _check_target(shown, target: Path) -> os.stat_result | None:
    """The target's stat when it exists; ``ValueError`` for a folder or a read-only file."""
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        file = next((a for a in reversed(target.parents) if a.exists() and not a.is_dir()), None)
        raise ValueError(f"cannot write {shown}: {file or target.parent} is not a folder") from None
    except OSError as exc:
        raise ValueError(f"cannot write {shown}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ValueError(f"cannot write {shown}: it is a folder")
    if stat.S_ISREG(st.st_mode) and _read_only(st):
        raise ValueError(f"cannot write {shown}: it is read-only")
    return st


def _probe(shown, folder: Path, name: str) -> None:
    tmp = _temp_name(folder / name, ".probe")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise ValueError(f"cannot write {shown}: cannot create a file in {folder} "
                         f"({exc.strerror or exc})") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def require_writable(path, *, make_parent: bool = False) -> Path:
    """``path`` as a Path that a write can replace, checked before any long work starts.

    Refuses (``ValueError``, one sentence naming the path) an empty path, a path ending in
    ``/``, a folder, a read-only file, a folder that is missing (unless ``make_parent``: then
    the nearest existing ancestor is checked), not a folder, or not writable.  Writability is
    tested by creating and removing a probe file, since root passes every mode-bit check.
    Streams (``-``, ``/dev/stdout``, a FIFO) pass as they are."""
    text = os.fspath(path)
    if not text:
        raise ValueError("an output path is empty")
    if is_stream(text):
        return Path(text)
    if text.endswith(("/", os.sep)) or (os.altsep and text.endswith(os.altsep)):
        raise ValueError(f"cannot write {text}: it ends in '/', which names a folder, not a file")
    shown = Path(text)
    target = write_target(shown)
    _check_target(shown, target)
    folder = target.parent
    if make_parent:
        while not folder.exists() and folder.parent != folder and not folder.is_symlink():
            folder = folder.parent
    if not folder.exists():
        raise ValueError(f"cannot write {shown}: its folder does not exist ({folder})")
    if not folder.is_dir():
        raise ValueError(f"cannot write {shown}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        ro = hasattr(os, "statvfs") and os.statvfs(folder).f_flag & getattr(os, "ST_RDONLY", 1)
        raise ValueError(f"cannot write {shown}: the folder {folder} is "
                         + ("on a read-only file system" if ro else "not writable"))
    _probe(shown, folder, target.name if folder == target.parent else "testcard")
    return shown


def refuse_same_file(output, *inputs) -> None:
    """``ValueError`` (one sentence) when ``output`` is one of ``inputs``: the same file by
    device and inode (so through symlinks and hard links), or the same resolved path.

    ``None`` inputs are skipped; so is an ``output`` that is a stream (``-``, a FIFO)."""
    if output is None:
        return
    out = os.fspath(output)
    if is_stream(out):
        return
    out_real = os.path.normcase(os.path.realpath(out))
    out_name = os.path.basename(out_real)
    try:
        ost = os.stat(out)
        out_id = (ost.st_dev, ost.st_ino) if ost.st_ino else None
    except (OSError, ValueError):
        out_id = None
    for inp in inputs:
        if inp is None:
            continue
        text = os.fspath(inp)
        same = False
        if out_id is not None:
            with contextlib.suppress(OSError, ValueError):
                ist = os.stat(text)
                same = (ist.st_dev, ist.st_ino) == out_id
        # realpath changes a name's last part only through a link: skip it for plain names
        if not same and (os.path.normcase(os.path.basename(text)) == out_name
                         or os.path.islink(text)):
            same = os.path.normcase(os.path.realpath(text)) == out_real
        if same:
            raise ValueError(f"cannot write {out}: it is also an input ({text}); "
                             "testcard never writes over its inputs")


# -- writes ------------------------------------------------------------------------------------

def _named_error(exc: OSError, shown, temps: Iterable[Path]) -> OSError:
    """``exc`` naming the file the caller asked for instead of a temporary file."""
    names = {None, *(os.fspath(t) for t in temps)}
    fname = exc.filename
    if isinstance(fname, bytes | os.PathLike):
        fname = os.fsdecode(fname)
    if fname not in names or exc.errno is None:
        return exc
    out = OSError(exc.errno, exc.strerror or os.strerror(exc.errno), os.fspath(shown))
    return out


def _fsync_dir(folder: Path) -> None:
    if hasattr(os, "O_DIRECTORY"):  # POSIX: make the rename durable
        with contextlib.suppress(OSError):
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def _seal(tmp: Path, old: os.stat_result | None) -> None:
    """Flush ``tmp`` to the disk, carrying over the mode of the file it replaces."""
    if old is not None:
        with contextlib.suppress(OSError):
            os.chmod(tmp, stat.S_IMODE(old.st_mode))
    with open(tmp, "rb+") as fh:
        os.fsync(fh.fileno())


@contextlib.contextmanager
def atomic_path(path, *, make_parent: bool = False) -> Iterator[Path]:
    """A temporary path beside ``path`` for the caller to write; on success it is fsynced and
    renamed over ``path``, on any exception it is removed and ``path`` is untouched.

    For a stream (:func:`is_stream`) the block writes a private temporary file that is copied
    to the stream once the block has succeeded, so a failed block writes nothing to it."""
    text = os.fspath(path)
    if is_stream(text):
        with tempfile.TemporaryDirectory(prefix="testcard-") as folder:
            tmp = Path(folder) / "stream"
            yield tmp
            _stream_write(text, _file_chunks(tmp))
        return
    p = write_target(text)
    old = _check_target(text, p)
    if make_parent:
        p.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temp_name(p)
    try:
        yield tmp
        _seal(tmp, old)
        os.replace(tmp, p)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            named = _named_error(exc, text, [tmp])
            if named is not exc:
                raise named from None
        raise
    _fsync_dir(p.parent)


def atomic_write(path, data: bytes, *, make_parent: bool = False) -> Path:
    """Write ``data`` to ``path`` so that no reader ever sees a partial file (a stream gets
    the bytes directly)."""
    if is_stream(path):
        _stream_write(os.fspath(path), [bytes(data)])
        return Path(path)
    p = Path(path)
    with atomic_path(p, make_parent=make_parent) as tmp, open(tmp, "xb") as fh:
        fh.write(data)
    return p


def atomic_text(path, text: str, *, make_parent: bool = False) -> Path:
    """:func:`atomic_write` for text (UTF-8)."""
    return atomic_write(path, text.encode("utf-8"), make_parent=make_parent)


def _backup(target: Path) -> Path:
    """A second name for the old ``target`` (a hard link; a copy where links are refused)."""
    bak = _temp_name(target, ".old")
    try:
        os.link(target, bak)
    except OSError:
        shutil.copy2(target, bak)
    return bak


def atomic_write_all(files: Mapping) -> list[Path]:
    """Write several files as one: every one is replaced, or none is.

    Every temporary file is written and fsynced before the first rename; when a later rename
    fails, the files already renamed get their old contents back (each old file keeps a
    second name until the last rename).  Refuses streams and two paths that are one file."""
    items = [(Path(p), write_target(p), bytes(d)) for p, d in files.items()]
    seen: dict[str, Path] = {}
    for shown, target, _ in items:
        if is_stream(shown):
            raise ValueError(f"cannot write {shown} together with other files: it is a stream")
        key = os.path.normcase(os.path.realpath(target))
        if key in seen:
            raise ValueError(f"cannot write {shown} and {seen[key]}: they are the same file")
        seen[key] = shown
    olds = [_check_target(shown, target) for shown, target, _ in items]
    temps: list[Path] = []
    current = items[0][0] if items else None
    try:
        for (shown, target, data), old in zip(items, olds, strict=True):
            current = shown
            tmp = _temp_name(target)
            temps.append(tmp)
            with open(tmp, "xb") as fh:
                fh.write(data)
            _seal(tmp, old)
        _rename_all([(tmp, shown, target, old) for tmp, (shown, target, _), old
                     in zip(temps, items, olds, strict=True)])
    except BaseException as exc:
        for tmp in temps:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(exc, OSError) and current is not None:
            named = _named_error(exc, current, temps)
            if named is not exc:
                raise named from None
        raise
    for folder in dict.fromkeys(target.parent for _, target, _ in items):
        _fsync_dir(folder)
    return [shown for shown, _, _ in items]


def _rename_all(steps) -> None:
    done: list[tuple[Path, Path | None]] = []   # (target, its old file's second name)
    backups: list[Path] = []
    try:
        for tmp, shown, target, old in steps:
            bak = _backup(target) if old is not None and len(steps) > 1 else None
            if bak is not None:
                backups.append(bak)
            try:
                os.replace(tmp, target)
            except OSError as exc:
                raise _named_error(exc, shown, [tmp]) from None
            done.append((target, bak))
    except BaseException:
        for target, bak in reversed(done):
            with contextlib.suppress(OSError):
                if bak is None:
                    os.unlink(target)
                else:
                    os.replace(bak, target)
        for bak in backups:
            with contextlib.suppress(OSError):
                os.unlink(bak)
        raise
    for bak in backups:
        with contextlib.suppress(OSError):
            os.unlink(bak)


# -- moving a bad file out of the way ----------------------------------------------------------

def move_aside(path, reason_tag: str, *, now: _dt.datetime | None = None) -> Path:
    """Rename ``path`` to ``NAME.TAG-YYYYmmdd-HHMMSS`` (UTC; ``-1``, ``-2`` ... when that name is
    taken) in its own folder and return the new path.  Never replaces an earlier moved-aside
    copy: the new name is claimed with a hard link, which fails rather than replace.

    ``reason_tag`` is lower-case letters and digits in dash-separated words (``corrupt``,
    ``unreadable``, ``newer-schema``)."""
    if not isinstance(reason_tag, str) or not _TAG.fullmatch(reason_tag):
        raise ValueError(f"reason_tag must be lower-case words joined by '-', got {reason_tag!r}")
    p = Path(path)
    stamp = (now or _dt.datetime.now(_dt.UTC)).astimezone(_dt.UTC).strftime("%Y%m%d-%H%M%S")
    n = 0
    while True:
        dest = p.with_name(f"{p.name}.{reason_tag}-{stamp}" + (f"-{n}" if n else ""))
        n += 1
        try:
            os.link(p, dest, follow_symlinks=False)
        except FileExistsError:
            continue
        except (OSError, NotImplementedError) as exc:
            if getattr(exc, "errno", None) == errno.ENOENT or not os.path.lexists(p):
                raise
            # a file system without hard links: a rename, after looking for the name
            if os.path.lexists(dest):
                continue
            os.rename(p, dest)
            return dest
        os.unlink(p)
        return dest
