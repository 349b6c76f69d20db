"""The manual's map of where things are, read from the tree: one row per package of ``core/``
and ``app/`` and per top-level module, each the first sentence of its docstring (read with
:mod:`ast`, nothing imported), so a package added or renamed is on the map at the next
``python -m app.docs`` and ``--check`` fails until it is."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("core", "app")
SKIP = {"__init__.py", "__main__.py"}
# folders that are not code: what they hold, said here once
OTHER_ROWS = (
    ("docs/", "this manual (MkDocs, `mkdocs.yml` at the root); `docs/*.png` its screenshots"),
    ("tests/", "mirrors the code (`tests/core/decode/...` tests `core/decode/...`); shared helpers "
               "in `tests/helpers/`; tests that need Qt are marked `qt`"),
    ("packaging/", "`setup` (the README's two commands), the bundle and desktop entry, the type "
                   "check and its baseline, the GPU check"),
)


def first_sentence(doc: str | None) -> str:
    """The docstring's first sentence, its reST roles as plain code (``:func:`~a.b``` -> `b`)."""
    text = " ".join((doc or "").split("\n\n")[0].split())
    text = re.sub(r":\w+:`~[^`]*?([^.`]+)`", r"`\1`", text)     # :func:`~a.b` -> `b`
    text = re.sub(r":\w+:`([^`]*)`", r"`\1`", text)               # :mod:`a.b` -> `a.b`
    text = text.replace("``", "`")
    m = re.search(r"(?<!\.\w)[.!?](\s|$)", text)     # not the end of "e.g."
    sentence = text[:m.start() + 1] if m else text
    return sentence.strip() or "(no docstring)"


def docstring(path: Path) -> str | None:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"), str(path)))


def rows(root: Path = ROOT) -> list[tuple[str, str]]:
    """(where, what) for each package and top-level module of core/ and app/, in tree order."""
    out: list[tuple[str, str]] = []
    for top in TOPS:
        base = root / top
        out.append((f"{top}/", first_sentence(docstring(base / "__init__.py"))))
        for f in sorted(base.glob("*.py")):
            if f.name not in SKIP:
                out.append((f"{top}/{f.name}", first_sentence(docstring(f))))
        for pkg in sorted(p for p in base.iterdir() if (p / "__init__.py").is_file()):
            out.append((f"{top}/{pkg.name}/", first_sentence(docstring(pkg / "__init__.py"))))
    return out


def map_markdown(root: Path = ROOT) -> str:
    lines = ["One folder per capability; each package's `__init__.py` is its door. (Generated from "
             "the docstrings by `python -m app.docs`.)", "", "| where | what it is |", "| --- | --- |"]
    for where, what in rows(root) + list(OTHER_ROWS):
        lines.append(f"| `{where}` | {what.replace('|', chr(92) + '|')} |")
    return "\n".join(lines)
