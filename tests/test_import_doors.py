"""Every package is entered through its door: code outside ``core.decode`` imports
``core.decode``, never ``core.decode.latency_clock``; inside a package its modules import each
other freely.  The one exception is the commands' shared vocabulary, ``app.commands.common``,
which the dispatcher (``app.cli``) imports before any command."""

import ast

from tests.helpers import ROOT

ALLOWED = {("app.cli", "app.commands.common")}


def package_of(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def bypasses(files) -> list[tuple[str, str, int]]:
    out = []
    for path in files:
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            target = node.module
            parts = target.split(".")
            if parts[0] not in ("core", "app") or len(parts) < 3:
                continue
            if package_of(target) == package_of(module) or (module, target) in ALLOWED:
                continue
            out.append((module, target, node.lineno))
    return out


def test_every_import_across_packages_goes_through_the_door():
    files = sorted(p for top in ("core", "app") for p in (ROOT / top).rglob("*.py"))
    assert len(files) > 100
    bad = bypasses(files)
    assert not bad, "import these through the package's door (its __init__): " + \
        "; ".join(f"{m} imports {t} (line {n})" for m, t, n in bad)


def test_the_check_sees_a_bypass(tmp_path, monkeypatch):
    import tests.test_import_doors as me

    pkg = tmp_path / "app" / "window"
    pkg.mkdir(parents=True)
    f = pkg / "x.py"
    f.write_text("from core.decode.latency_clock import place_capture\nfrom core.decode import x\n"
                 "from app.window.kiosk import Kiosk\n")
    monkeypatch.setattr(me, "ROOT", tmp_path)
    assert bypasses([f]) == [("app.window.x", "core.decode.latency_clock", 1)]
