"""Real faults for the fault-injection suites, and the command line run as a user runs it.

- A full or read-only disk: a small tmpfs mounted in a private mount namespace
  (``unshare -m``, as root), where a write really fails with ENOSPC or EROFS.  Where no
  namespace can be made, the same case runs in-process with ``open`` patched to fail the same
  way (page-sized allocations on a disk with a byte budget), so it runs everywhere.
- Mode bits that bite even for root: the command runs under ``setpriv`` with
  CAP_DAC_OVERRIDE dropped (an unprivileged user needs nothing); where neither works, it runs
  in-process with ``os.access`` and file creation in that folder refused.
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import functools
import io
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tests.helpers import ROOT

SETPRIV = ["setpriv", "--inh-caps=-dac_override,-dac_read_search",
           "--bounding-set=-dac_override,-dac_read_search"]
PAGE = 4096
DISK_SIZE = 64 * 1024


@dataclass
class Run:
    rc: int
    out: str
    err: str
    files: dict[str, bytes | None] = field(default_factory=dict)   # the disk's files afterwards
    real: bool = True      # a real fault (subprocess), not the in-process stand-in

    def refused(self, rc: int = 2) -> str:
        """Assert one ``testcard: error:`` line on stderr, exit ``rc``, no traceback; the line."""
        lines = self.err.strip().splitlines()
        assert "Traceback" not in self.err, self.err
        assert self.rc == rc, (self.rc, self.err)
        assert len(lines) == 1 and lines[0].startswith("testcard: error: "), self.err
        return lines[0]


def cli(*args, prefix=(), env=None, stdout=None, timeout: float = 300) -> Run:
    """``testcard ARGS`` in a subprocess (from the repository, this interpreter)."""
    full_env = dict(os.environ, **(env or {}))
    proc = subprocess.run([*prefix, sys.executable, "-m", "app", *map(str, args)], cwd=ROOT,
                          env=full_env, stdout=stdout or subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=timeout)
    return Run(proc.returncode, proc.stdout or "", proc.stderr)


def in_process(*args) -> Run:
    """``testcard ARGS`` through ``app.cli.main`` in this process (for the patched stand-ins)."""
    from app.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in args])
    return Run(rc, out.getvalue(), err.getvalue(), real=False)


# -- mode bits that bite -----------------------------------------------------------------------

@functools.cache
def mode_bits_prefix() -> tuple[str, ...] | None:
    """What to run a command under so that a folder's mode bits refuse it: nothing for an
    unprivileged user, ``setpriv`` without DAC override for root; None when neither works."""
    if os.name != "posix" or os.geteuid() != 0:
        return ()
    with tempfile.TemporaryDirectory() as d:
        os.chmod(d, 0o555)
        try:
            r = subprocess.run([*SETPRIV, sys.executable, "-c", f"open({d + '/x'!r}, 'w')"],
                               capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None
        finally:
            os.chmod(d, 0o755)
        return tuple(SETPRIV) if r.returncode != 0 and b"PermissionError" in r.stderr else None


@contextlib.contextmanager
def refused_folder(folder: Path):
    """In-process stand-in for an unwritable folder: ``os.access`` says no and creating a
    file in it fails with EACCES."""
    root = str(Path(folder).resolve())
    with _patched(lambda p: _under(p, root), errno.EACCES, access=True):
        yield


def run_unwritable(folder: Path, *args) -> Run:
    """``testcard ARGS`` with ``folder`` (mode 0555) really unwritable to it."""
    folder.chmod(0o555)
    try:
        prefix = mode_bits_prefix()
        if prefix is not None:
            return cli(*args, prefix=prefix)
        with refused_folder(folder):
            return in_process(*args)
    finally:
        folder.chmod(0o755)


# -- a small disk ------------------------------------------------------------------------------

@functools.cache
def namespaces_work() -> bool:
    """Whether a tmpfs can be mounted in a private mount namespace here (root, unshare)."""
    if os.name != "posix" or os.geteuid() != 0:
        return False
    with tempfile.TemporaryDirectory() as d:
        try:
            r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                                f"mount -t tmpfs -o size=64k tmpfs '{d}' && touch '{d}/x'"],
                               capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return False
        return r.returncode == 0 and not os.listdir(d)


def on_small_disk(tmp_path: Path, files: dict[str, bytes], argv, *, free: int | None = None,
                  readonly: bool = False, env: dict | None = None, real: bool | None = None) -> Run:
    """Run ``argv`` with a 64 KiB disk at ``{disk}`` holding ``files``.

    ``argv`` is testcard's arguments, or ``["python", SCRIPT]`` for a script that finds the
    disk in ``DISK``; ``{disk}`` in it and in ``env`` values is the disk's folder.  ``free``
    leaves that many bytes free (whole pages; None: as the files leave it), ``readonly``
    mounts it read-only.  ``Run.files`` is every file on the disk afterwards.  ``real=None``
    uses a real tmpfs where one can be mounted, else the patched stand-in."""
    real = namespaces_work() if real is None else real
    disk = tmp_path / ("disk" if real else "disk-patched")
    disk.mkdir()
    spec = {"disk": str(disk), "files": {k: v.hex() for k, v in files.items()}, "free": free,
            "readonly": readonly, "argv": [str(a) for a in argv], "env": env or {},
            "result": str(tmp_path / f"result-{len(list(tmp_path.glob('result-*')))}.json")}
    if not real:
        return _stand_in(spec)
    spec_path = Path(spec["result"]).with_suffix(".spec")
    spec_path.write_text(json.dumps(spec))
    proc = subprocess.run(["unshare", "-m", "--propagation", "private", sys.executable, "-c",
                           "from tests.helpers.faults import drive; drive()", str(spec_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"the fault driver failed: {proc.stderr}"
    res = json.loads(Path(spec["result"]).read_text())
    return Run(res["rc"], res["out"], res["err"],
               {k: None if v is None else bytes.fromhex(v) for k, v in res["files"].items()})


def _command(spec) -> tuple[list[str], dict]:
    disk = spec["disk"]
    argv = [a.replace("{disk}", disk) for a in spec["argv"]]
    env = {k: v.replace("{disk}", disk) for k, v in spec["env"].items()}
    if argv[:1] == ["python"]:
        return [sys.executable, "-c", f"DISK = {disk!r}\n" + argv[1]], env
    return [sys.executable, "-m", "app", *argv], env


def _listing(disk: Path) -> dict[str, str | None]:
    return {str(p.relative_to(disk)): (p.read_bytes().hex() if p.is_file() else None)
            for p in sorted(disk.rglob("*")) if p.name != ".filler"}


def _lay_out(disk: Path, files: dict[str, str]) -> None:
    for name, data in files.items():
        (disk / name).parent.mkdir(parents=True, exist_ok=True)
        (disk / name).write_bytes(bytes.fromhex(data))


def drive() -> None:
    """Inside a private mount namespace: mount the disk, lay out the files, fill it, run the
    command, and write what happened to the result file (outside the disk)."""
    spec = json.loads(Path(sys.argv[1]).read_text())
    disk = Path(spec["disk"])
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_SIZE}", "tmpfs", str(disk)], check=True)
    _lay_out(disk, spec["files"])
    if spec["free"] is not None:
        fd = os.open(disk / ".filler", os.O_WRONLY | os.O_CREAT, 0o600)
        size = 0
        with contextlib.suppress(OSError):
            while True:
                size += os.write(fd, b"\0" * PAGE)
        os.ftruncate(fd, max(0, size // PAGE * PAGE - spec["free"]))
        os.close(fd)
    if spec["readonly"]:
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
    argv, env = _command(spec)
    proc = subprocess.run(argv, cwd=ROOT, env=dict(os.environ, **env), capture_output=True,
                          text=True, timeout=300)
    Path(spec["result"]).write_text(json.dumps({"rc": proc.returncode, "out": proc.stdout,
                                                "err": proc.stderr, "files": _listing(disk)}))


# -- the in-process stand-ins ------------------------------------------------------------------

def _under(path, root: str) -> bool:
    try:
        return os.path.realpath(os.fspath(path)).startswith(root + os.sep)
    except TypeError:   # a descriptor
        return False


class _BudgetFile:
    """A file on a disk with a byte budget, charged in whole pages as it grows."""

    def __init__(self, fh, disk: dict):
        self._fh, self._disk, self._pages = fh, disk, 0

    def write(self, data):
        end = self._fh.tell() + len(data)
        pages = -(-end // PAGE)
        if (pages - self._pages) * PAGE > self._disk["free"]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._disk["free"] -= max(0, pages - self._pages) * PAGE
        self._pages = max(self._pages, pages)
        return self._fh.write(data)

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()

    def __iter__(self):
        return iter(self._fh)


@contextlib.contextmanager
def _patched(inside, err: int, *, access: bool, budget: dict | None = None):
    real_open, real_os_open, real_access, real_mkdir = builtins.open, os.open, os.access, os.mkdir

    def writes(mode) -> bool:
        return any(c in mode for c in "wxa+")

    def fake_open(file, mode="r", *args, **kw):
        if writes(mode) and inside(file):
            if budget is None:
                raise OSError(err, os.strerror(err), os.fspath(file))
            return _BudgetFile(real_open(file, mode, *args, **kw), budget)
        return real_open(file, mode, *args, **kw)

    def fake_os_open(path, flags, mode=0o777, **kw):
        if budget is None and flags & os.O_CREAT and inside(path):
            raise OSError(err, os.strerror(err), os.fspath(path))
        return real_os_open(path, flags, mode, **kw)

    def fake_access(path, mode, **kw):
        if access and mode & os.W_OK and (inside(path) or inside(os.path.join(path, "x"))):
            return False
        return real_access(path, mode, **kw)

    def fake_mkdir(path, mode=0o777, **kw):
        if budget is None and inside(path):
            raise OSError(err, os.strerror(err), os.fspath(path))
        return real_mkdir(path, mode, **kw)

    swaps = [(builtins, "open", fake_open), (os, "open", fake_os_open), (os, "access", fake_access),
             (os, "mkdir", fake_mkdir)]
    saved = [(target, name, getattr(target, name)) for target, name, _ in swaps]
    try:
        for target, name, fake in swaps:
            setattr(target, name, fake)
        yield
    finally:
        for target, name, real in saved:
            setattr(target, name, real)


def _stand_in(spec) -> Run:
    disk = Path(spec["disk"])
    _lay_out(disk, spec["files"])
    root = str(disk.resolve())
    budget = None if spec["readonly"] else {"free": DISK_SIZE if spec["free"] is None else spec["free"]}
    argv, env = _command(spec)
    saved_env = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        with _patched(lambda p: _under(p, root), errno.EROFS, access=False, budget=budget):
            if argv[1] == "-c":
                out, err = io.StringIO(), io.StringIO()
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    try:
                        exec(compile(argv[2], "<fault script>", "exec"), {"__name__": "__fault__"})
                        rc = 0
                    except SystemExit as exc:
                        rc = int(exc.code or 0)
                run = Run(rc, out.getvalue(), err.getvalue(), real=False)
            else:
                run = in_process(*argv[3:])
    finally:
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    run.files = {k: None if v is None else bytes.fromhex(v) for k, v in _listing(disk).items()}
    return run
