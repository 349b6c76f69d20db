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
