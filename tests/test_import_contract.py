"""core/ never imports Qt or app/, not even indirectly."""

import pkgutil
import subprocess
import sys

import core
from tests.helpers import ROOT


def core_modules():
    return sorted(m.name for m in pkgutil.walk_packages(core.__path__, prefix="core."))


def test_core_imports_no_qt_and_no_app():
    mods = core_modules()
    assert len(mods) > 30 and "core.decode.locate" in mods
    code = (
        "import sys, importlib\n"
        f"for m in {mods!r}: importlib.import_module(m)\n"
        "banned = ('PySide6', 'shiboken6', 'app', 'pyqtgraph')\n"
        "bad = sorted(k for k in sys.modules if k.split('.')[0] in banned)\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True)
    assert out.stdout.strip() == "", f"core pulled in: {out.stdout.strip()}"


def test_patterns_do_not_import_torch():
    code = ("import sys\nimport core.patterns, core.counter\n"
            "from core.patterns import render_pattern\nrender_pattern('checkerboard', 16, 16)\n"
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True)
    assert out.stdout.strip() == "False"


def test_headless_cli_does_not_import_qt():
    code = ("import sys\nfrom app.cli import main\n"
            "rc = main(['patterns', '--json'])\n"
            "print('QT', any(k.startswith('PySide6') for k in sys.modules), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True)
    assert "QT False" in out.stderr


def _import_cycles(packages: tuple[str, ...]) -> list[list[str]]:
    """Strongly connected groups of modules (Tarjan) over every import grimp sees, those inside
    functions included."""
    import grimp

    graph = grimp.build_graph(*packages)
    mods = sorted(m for m in graph.modules if m.split(".")[0] in packages)
    known = set(mods)
    edges = {m: sorted(d for d in graph.find_modules_directly_imported_by(m) if d in known)
             for m in mods}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1 or v in edges[v]:
                groups.append(sorted(group))

    for m in mods:
        if m not in index:
            visit(m)
    return groups


def test_no_import_cycles_anywhere_in_testcard():
    assert _import_cycles(("core", "app")) == []


def test_the_cycle_check_sees_imports_inside_functions(tmp_path, monkeypatch):
    pkg = tmp_path / "cyc"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("import cyc.b\n")
    (pkg / "b.py").write_text("def f():\n    from cyc import a\n    return a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _import_cycles(("cyc",)) == [["cyc.a", "cyc.b"]]
