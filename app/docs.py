"""Regenerate the manual's generated sections from the code they describe.

    python -m app.docs              rewrite every generated page of the manual (docs/) in place
    python -m app.docs --check      exit 1 when a generated page is out of date (what CI checks)
    python -m app.docs FILE.md ...  only these files, each section of GENERATORS they mark

A section is the text between ``<!-- section:NAME -->`` and ``<!-- /section:NAME -->``;
:data:`SECTIONS` says which file holds which section and the code that writes it (the catalog,
the presets, the CLI parser, :data:`ENV_VARS`, the shortcut table, the packages' docstrings by
:mod:`app.tree_map`); tests hold ``env`` to the variables the code reads and ``shortcuts`` to the
window's real actions.  Everything outside the markers is left alone; the README holds none.
Never imports Qt.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from app.tree_map import map_markdown
from core.atomic import atomic_text

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
HINT = "run python -m app.docs"

# name -> what it does.  Every variable the code reads is here (tests/app/test_docs.py).
ENV_VARS: dict[str, str] = {
    "TESTCARD_DECISION_CACHE": "The band-decision cache file (default: `decisions.json` in the "
                               "cache folder, `TESTCARD_CACHE_DIR`). Point it at a copy to try "
                               "decisions without touching your own.",
    "TESTCARD_CACHE_DIR": "The folder of measured data, the decision cache among it (default: the "
                          "user cache folder, e.g. `~/.cache/testcard`).",
    "TESTCARD_RENDER_PATH": "Pin render paths (`numpy`, `torch-eager`, `torch-compiled`, "
                            "`torch-cudagraphs`): `PATH` for every band, or comma-separated "
                            "`BAND=PATH` items with band globs, first match wins, e.g. "
                            "`counter@*=torch-compiled,*=numpy`. A pinned path that is not a "
                            "candidate or cannot run here falls through to the cache, and the reason "
                            "is recorded.",
    "TESTCARD_CONFIG_DIR": "The folder of the app's settings file, `settings.json`, and of your own "
                           "preset files, `presets/*.json` (default: the user config folder, e.g. "
                           "`~/.config/testcard`).",
    "TESTCARD_PRESENTER": "`raster` forces the preview and output windows to paint with QPainter and a "
                          "timer instead of OpenGL (a broken GL driver); `opengl` (the default where the "
                          "platform has GL) uses the vsync-paced GL presenter.",
    "TESTCARD_DEBUG": "`1` shows the Python traceback of an unexpected error (a bug) instead of the "
                      "one-line message and exit status 70; for bug reports.",
    "DISPLAY": "The X11 display windows open on (with `WAYLAND_DISPLAY`, how testcard knows there is a "
               "display at all: with neither, and no `QT_QPA_PLATFORM`, the window commands say so "
               "in one line instead of starting).",
    "QT_QPA_PLATFORM": "Qt's window-system plugin: `xcb` (X11), `wayland`, or `offscreen` to run the "
                       "app with no display (what the tests and `packaging/build` use).",
    "CXX": "The C++ compiler for the `torch-compiled` path on CPU (Inductor); without one that path is "
           "reported unavailable.",
    "TORCHINDUCTOR_CACHE_DIR": "Where Inductor keeps compiled kernels between runs (torch's default: "
                               "a folder under the system temp directory).",
    "TORCHINDUCTOR_COMPILE_THREADS": "Inductor's compile workers. The bundle sets it to 1, since its "
                                     "executable cannot act as a worker process.",
    "XDG_DATA_HOME": "Where `testcard install-desktop` puts the menu entry and icons (default "
                     "`~/.local/share`).",
    "TESTCARD_TEST_STALL_EVERY": "Test hook: every N-th presented frame, the frame after it is logged "
                                 "as presented and never shown (a compositor discarding a frame after "
                                 "a stall), so a capture shows display drops. Never set it otherwise.",
    "TESTCARD_TEST_CAPTURE_STALL_EVERY": "Test hook for `testcard latency`: every N-th capture the "
                                         "reader stalls until the source's queue overflows, so the "
                                         "capture drops frames. Never set it otherwise.",
    "TESTCARD_TEST_DOCTOR_CORRUPT": "Test hook for `testcard doctor`: the render path it names "
                                    "(`numpy`, `torch-eager`, ...) has one code value of every frame "
                                    "changed before the comparison with numpy, so the mismatch report "
                                    "can be seen. Never set it otherwise.",
}


# ------------------------------------------------------------------ sections
def section_bounds(text: str, name: str) -> tuple[int, int]:
    """Start and end offsets of the content between a section's markers."""
    start, end = f"<!-- section:{name} -->", f"<!-- /section:{name} -->"
    if text.count(start) != 1 or text.count(end) != 1:
        raise ValueError(f"needs exactly one {start} and one {end}")
    i, j = text.index(start) + len(start), text.index(end)
    if j < i:
        raise ValueError(f"{end} comes before {start}")
    return i, j


def get_section(text: str, name: str) -> str:
    i, j = section_bounds(text, name)
    return text[i:j].strip("\n")


def replace_section(text: str, name: str, body: str) -> str:
    i, j = section_bounds(text, name)
    return text[:i] + "\n" + body.strip("\n") + "\n" + text[j:]


def sections_in(text: str) -> list[str]:
    """The generated sections (names of :data:`GENERATORS`) a text has markers for."""
    return [n for n in GENERATORS if f"<!-- section:{n} -->" in text]


def _cell(text) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


# ------------------------------------------------------------------ catalog
def catalog_markdown() -> str:
    from core.patterns import catalog

    lines = ["Generated from the registry (`python -m app.docs`); `testcard patterns` prints the same "
             "with every parameter's description.", "",
             "| pattern | group | animates | parameters: default (range) | what it shows |",
             "| --- | --- | --- | --- | --- |"]
    for pat in catalog():
        params = ", ".join(_param_summary(p) for p in pat.params) or "none"
        lines.append(f"| `{pat.name}` | {pat.group} | {'yes' if pat.can_animate else ''} | "
                     f"{_cell(params)} | {_cell(pat.description)} |")
    return "\n".join(lines)


def presets_markdown() -> str:
    from core.patterns import builtin_presets

    lines = ["Generated from the built-in presets (`python -m app.docs`); `testcard presets` lists "
             "the same, with your own.", "",
             "| preset | frames | what it is for |", "| --- | --- | --- |"]
    for p in builtin_presets():
        patterns = ", ".join(dict.fromkeys(e.pattern for e in p.entries))
        lines.append(f"| {_cell(p.name)} | {len(p.entries)} ({patterns}) | {_cell(p.description)} |")
    return "\n".join(lines)


def _param_summary(p) -> str:
    default = p.default
    if isinstance(default, bool):
        default = "true" if default else "false"
    out = f"`{p.name}` `{default}`"
    if p.choices:
        out += " (" + "/".join(map(str, p.choices)) + ")"
    elif p.min is not None and p.max is not None:
        out += f" ({p.min:g}..{p.max:g})"
    return out


# ------------------------------------------------------------------ CLI
def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, sub, helps.get(name) or ""


def _metavar(action) -> str:
    mv = action.metavar
    if mv is None:
        mv = action.dest if not action.option_strings else action.dest.upper()
    if isinstance(mv, tuple):
        mv = " ".join(mv)
    if action.nargs == "?":
        return f"[{mv}]"
    if action.nargs == "*":
        return f"[{mv} ...]"
    if action.nargs == "+":
        return f"{mv} [{mv} ...]"
    return mv


def _takes_value(action) -> bool:
    return action.nargs != 0


def _help(action, prog: str) -> str:
    text = action.help or ""
    if "%" in text:
        try:
            text = text % {**vars(action), "prog": prog}
        except (KeyError, TypeError, ValueError):
            pass
    if action.choices and not isinstance(action, argparse._SubParsersAction):
        text = (text + "; " if text else "") + "one of: " + ", ".join(map(str, action.choices))
    return text


def _default(action) -> str:
    if action.required or not _takes_value(action) or action.default in (None, argparse.SUPPRESS):
        return "required" if action.required else ""
    if isinstance(action.default, list):
        return "" if not action.default else ", ".join(map(str, action.default))
    return str(action.default)


def _argument(action) -> str:
    if not action.option_strings:
        return f"`{_cell(_metavar(action))}`"
    names = ", ".join(f"`{o}`" for o in action.option_strings)
    return f"{names} {_cell(_metavar(action))}" if _takes_value(action) else names


def _arguments(parser) -> list:
    return [a for a in parser._actions
            if a.help != argparse.SUPPRESS and not isinstance(a, argparse._HelpAction)
            and not isinstance(a, argparse._SubParsersAction)]


def _synopsis(path: str, parser) -> str:
    parts = [path]
    for a in _arguments(parser):
        if not a.option_strings:
            parts.append(_metavar(a))
        elif a.required:
            parts.append(f"{a.option_strings[-1]} {_metavar(a)}")
    if any(a.option_strings and not a.required for a in _arguments(parser)):
        parts.append("[options]")
    if any(True for _ in _subparsers(parser)):
        parts.append("COMMAND ...")
    return " ".join(parts)


def cli_markdown(parser: argparse.ArgumentParser | None = None) -> str:
    if parser is None:
        from app.cli import build_parser

        parser = build_parser()
    lines = ["Generated from the parser (`python -m app.docs`); `testcard COMMAND --help` says the same. "
             "`testcard` with no command starts the app. Bad input prints one line on stderr and "
             "exits 2.", ""]
    commands = list(_walk(parser, "testcard"))
    lines += ["| command | what it does |", "| --- | --- |"]
    for path, _sub, helptext in commands:
        lines.append(f"| [`{path}`](#{_anchor(path)}) | {_cell(helptext)} |")
    top = _arguments(parser)
    if top:
        lines += ["", "Options of `testcard` itself: " + "; ".join(
            f"{_argument(a)}: {_cell(_help(a, 'testcard'))}" for a in top) + "."]
    for path, sub, helptext in commands:
        lines += ["", f"## {path}", "", _cell(helptext[:1].upper() + helptext[1:]) + ".", "",
                  f"    {_synopsis(path, sub)}", ""]
        args = _arguments(sub)
        if args:
            lines += ["| argument | default | meaning |", "| --- | --- | --- |"]
            for a in args:
                lines.append(f"| {_argument(a)} | {_cell(_default(a))} | {_cell(_help(a, path))} |")
        else:
            lines.append("No arguments.")
    return "\n".join(lines)


def _walk(parser, path: str):
    for name, sub, helptext in _subparsers(parser):
        here = f"{path} {name}"
        yield here, sub, helptext
        yield from _walk(sub, here)


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


# ------------------------------------------------------------------ environment
def env_markdown() -> str:
    lines = ["Every path testcard writes can be moved with these; the tests point them all at "
             "temporary folders. (Generated by `python -m app.docs`; a test fails when the code reads "
             "a variable this table does not list.)", "",
             "| variable | effect |", "| --- | --- |"]
    for name, text in ENV_VARS.items():
        lines.append(f"| `{name}` | {_cell(text)} |")
    return "\n".join(lines)


def source_files(root: Path = ROOT) -> list[Path]:
    files = []
    for folder in ("core", "app", "packaging"):
        files += sorted((root / folder).rglob("*.py"))
    # this module names every variable in ENV_VARS; it must not count as reading them
    return [f for f in files if "__pycache__" not in f.parts and f.resolve() != Path(__file__).resolve()]


def env_vars_in_source(files: Iterable[Path]) -> set[str]:
    """Environment variables the code reads or sets: ``TESTCARD_*`` string constants anywhere,
    and any literal name passed to ``os.environ``/``os.getenv``."""
    found: set[str] = set()
    for f in files:
        tree = ast.parse(f.read_text(encoding="utf-8"), str(f))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and re.fullmatch(r"TESTCARD_[A-Z0-9_]+", node.value):
                found.add(node.value)
            elif isinstance(node, ast.Call) and _is_environ_call(node.func) and node.args \
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.add(node.args[0].value)
            elif isinstance(node, ast.Subscript) and _is_environ(node.value) \
                    and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                found.add(node.slice.value)
    return found


def _is_environ(node) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or \
        (isinstance(node, ast.Name) and node.id == "environ")


def _is_environ_call(func) -> bool:
    if isinstance(func, ast.Attribute) and func.attr == "getenv":
        return True
    return isinstance(func, ast.Attribute) and func.attr in ("get", "setdefault", "pop") \
        and _is_environ(func.value)


# ------------------------------------------------------------------ shortcuts
def shortcuts_markdown() -> str:
    from app.window import SHORTCUTS

    lines = ["Generated from the window's shortcut table (`python -m app.docs`); Help > Keyboard "
             "shortcuts lists the same from the running window. They work from the control window, "
             "the preview and the fullscreen output alike.", "",
             "| keys | menu | action | what it does |", "| --- | --- | --- | --- |"]
    for sc in SHORTCUTS:
        lines.append(f"| `{_cell(sc.keys)}` | {sc.menu} | {_cell(sc.label)} | {_cell(sc.what)} |")
    return "\n".join(lines)


# ------------------------------------------------------------------ the pages
# (file, section) -> the generator that writes it: every generated section of the manual
SECTIONS: dict[tuple[str, str], Callable[[], str]] = {
    ("docs/patterns.md", "catalog"): catalog_markdown,
    ("docs/presets.md", "presets"): presets_markdown,
    ("docs/app.md", "shortcuts"): shortcuts_markdown,
    ("docs/cli.md", "cli"): cli_markdown,
    ("docs/environment.md", "env"): env_markdown,
    ("docs/development.md", "map"): map_markdown,
}
GENERATORS: dict[str, Callable[[], str]] = {name: make for (_, name), make in SECTIONS.items()}


def pages() -> dict[Path, list[str]]:
    """Each generated page (absolute path) and the sections it holds, as :data:`SECTIONS` says."""
    out: dict[Path, list[str]] = {}
    for file, name in SECTIONS:
        out.setdefault(ROOT / file, []).append(name)
    return out


def regenerate(text: str, names: Iterable[str] | None = None) -> str:
    """``text`` with the named sections (default: every one it has markers for) written anew."""
    for name in (sections_in(text) if names is None else names):
        text = replace_section(text, name, GENERATORS[name]())
    return text


def stale_sections(text: str, names: Iterable[str] | None = None) -> list[str]:
    names = sections_in(text) if names is None else list(names)
    new = regenerate(text, names)
    return [n for n in names if get_section(text, n) != get_section(new, n)]


def _update(path: Path, names: list[str] | None, check: bool) -> bool:
    """Check or rewrite one file; False when it is out of date (check) or cannot be done."""
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    try:
        text = path.read_text(encoding="utf-8")
        names = sections_in(text) if names is None else names
        stale = stale_sections(text, names)
    except (OSError, ValueError) as exc:
        print(f"app.docs: {where}: {exc}", file=sys.stderr)
        return False
    if not names:
        print(f"{where} has no generated section", file=sys.stderr)
    elif stale and check:
        print(f"{where}: out of date: {', '.join(stale)} ({HINT})", file=sys.stderr)
        return False
    elif stale:
        atomic_text(path, regenerate(text, names))
        print(f"updated {where}: {', '.join(stale)}", file=sys.stderr)
    elif not check:
        print(f"{where} is up to date", file=sys.stderr)
    return True


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m app.docs", description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 when a generated page is out of date")
    p.add_argument("files", nargs="*", help="files to update (default: every generated page)")
    args = p.parse_args(argv)
    targets: dict[Path, list[str] | None] = \
        {Path(f).resolve(): None for f in args.files} if args.files else dict(pages())
    ok = all([_update(path, names, args.check) for path, names in targets.items()])
    undocumented = sorted(env_vars_in_source(source_files()) - set(ENV_VARS))
    for name in undocumented:
        print(f"app.docs: the code reads {name}: describe it in ENV_VARS in app/docs.py", file=sys.stderr)
    return 0 if ok and not undocumented else 1


if __name__ == "__main__":
    sys.exit(main())
