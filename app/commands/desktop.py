"""``testcard install-desktop``: the menu entry, icons and AppStream metainfo for this user.

Copies the shipped resources into the XDG data folder (``~/.local/share`` unless
``XDG_DATA_HOME`` or ``--prefix`` says otherwise), with ``Exec=`` pointing at the
testcard that runs this command: the bundle's executable, or the installed script.
"""

from __future__ import annotations

import os
import shutil
import sys
from importlib import resources
from pathlib import Path

from core.atomic import atomic_text, atomic_write, require_writable
from resources import APP_ID, ICON_SIZES


def register(sub) -> None:
    p = sub.add_parser("install-desktop",
                       help="add testcard to this user's desktop menu (Linux: .desktop, icons, metainfo)")
    p.add_argument("--prefix", help="data folder to install into (default $XDG_DATA_HOME or ~/.local/share)")
    p.add_argument("--remove", action="store_true", help="remove what install-desktop installed")
    p.set_defaults(func=run)


def data_home(prefix: str | None) -> Path:
    if prefix:
        return Path(prefix).expanduser()
    env = os.environ.get("XDG_DATA_HOME")
    return Path(env) if env else Path.home() / ".local" / "share"


def testcard_command() -> list[str]:
    """How a desktop launcher starts this testcard: absolute, since menus have no venv PATH."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    script = Path(sys.executable).with_name("testcard")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    found = shutil.which("testcard")
    if found:
        return [str(Path(found).resolve())]
    return [sys.executable, "-m", "app"]


def _exec_quote(arg: str) -> str:
    """Desktop Entry Exec quoting: quote arguments with reserved characters, double ``%``."""
    arg = arg.replace("%", "%%")
    if arg and not any(c in arg for c in " \t\n\"'\\><~|&;$*?#()`="):
        return arg
    escaped = "".join("\\" + c if c in '"`$\\' else c for c in arg)
    return f'"{escaped}"'


def exec_value(argv: list[str]) -> str:
    """The ``Exec=`` value for ``argv``: quoted per argument, then escaped as a string value.

    Refuses control characters, which a desktop entry cannot carry in one line.
    """
    for a in argv:
        if any(ord(c) < 32 or ord(c) == 127 for c in a):
            raise ValueError(f"cannot put {a!r} in a desktop entry: it holds a control character")
    return " ".join(_exec_quote(a) for a in argv).replace("\\", "\\\\")


def planned_files(root: Path) -> dict[Path, object]:
    """Destination -> resource (a Traversable, or the .desktop text) for an install under ``root``."""
    res = resources.files("resources")
    icons = resources.files("resources.icons")
    out: dict[Path, object] = {}
    desktop = res.joinpath(f"{APP_ID}.desktop").read_text(encoding="utf-8")
    exec_line = exec_value([*testcard_command(), "gui"])
    lines = [f"Exec={exec_line}" if ln.startswith("Exec=") else ln for ln in desktop.splitlines()]
    out[root / "applications" / f"{APP_ID}.desktop"] = "\n".join(lines) + "\n"
    out[root / "metainfo" / f"{APP_ID}.metainfo.xml"] = res.joinpath(f"{APP_ID}.metainfo.xml")
    hicolor = root / "icons" / "hicolor"
    out[hicolor / "scalable" / "apps" / f"{APP_ID}.svg"] = icons.joinpath("testcard.svg")
    for n in ICON_SIZES:
        out[hicolor / f"{n}x{n}" / "apps" / f"{APP_ID}.png"] = icons.joinpath(f"testcard-{n}.png")
    return out


def run(args) -> int:
    root = data_home(args.prefix)
    files = planned_files(root)
    if args.remove:
        for dest in files:
            if dest.exists():
                dest.unlink()
                print(f"removed {dest}")
        return 0
    for dest in files:  # every file checked before the first is written
        require_writable(dest, make_parent=True)
    for dest, src in files.items():
        try:
            if isinstance(src, str):
                atomic_text(dest, src, make_parent=True)
            else:
                atomic_write(dest, src.read_bytes(), make_parent=True)
        except OSError as exc:
            raise ValueError(f"cannot write {dest}: {exc.strerror or exc}") from None
        print(f"wrote {dest}")
    print("testcard is in the desktop menu (log out and in if it does not show yet)", file=sys.stderr)
    return 0
