"""packaging/setup checks its mode before installing anything, says what it does, and runs pip
only when something pip installs from changed since the last install.

Run on a copy of the script in a temporary tree, with a fake Python whose ``-m venv`` makes a
fake environment (its ``python -m pip`` and ``testcard`` only record that they ran) and fake
``apt-get``/``dpkg-query``: nothing is installed for real.
"""

import os
import shutil
import stat
import subprocess

import pytest

from tests.helpers import ROOT

FAKE_PY = """#!/bin/sh
# the fake interpreter: `-m venv DIR` makes a fake environment in DIR
echo "python $*" >> "$SETUP_LOG"
[ "$1" = -m ] && [ "$2" = venv ] || exit 1
mkdir -p "$3/bin"
cat > "$3/bin/python" <<'EOF'
#!/bin/sh
echo "venv-python $*" >> "$SETUP_LOG"
if [ "$1 $2" = "-m pip" ]; then
  printf '#!/bin/sh\\necho "testcard $*" >> "$SETUP_LOG"\\n' > "$(dirname "$0")/testcard"
  chmod +x "$(dirname "$0")/testcard"
fi
EOF
chmod +x "$3/bin/python"
"""
FAKE_TOOL = """#!/bin/sh
printf '%s\\n' "$(basename "$0") $*" | tr -d '\\n' >> "$SETUP_LOG"; echo >> "$SETUP_LOG"
# as dpkg-query -W -f='${Package} ${Status}\\n' PACKAGES answers when every one is installed
for p in "$@"; do case "$p" in -*) ;; *) echo "$p install ok installed" ;; esac; done
"""


def _executable(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


@pytest.fixture
def tree(tmp_path):
    """A project tree with the real script, a pyproject and constraints, and the fakes."""
    root = tmp_path / "project"
    (root / "packaging").mkdir(parents=True)
    shutil.copy2(ROOT / "packaging" / "setup", root / "packaging" / "setup")
    (root / "pyproject.toml").write_text('[project]\nname = "testcard"\n')
    (root / "packaging" / "constraints.txt").write_text("torch==2.13.0\n")
    fake = tmp_path / "bin"
    fake.mkdir()
    _executable(fake / "fakepython", FAKE_PY)
    for tool in ("apt-get", "dpkg-query", "sudo"):
        _executable(fake / tool, FAKE_TOOL)
    return root, fake, tmp_path / "calls.log"


def setup(tree, *args):
    root, fake, log = tree
    env = {**os.environ, "PYTHON": str(fake / "fakepython"), "SETUP_LOG": str(log),
           "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    out = subprocess.run(["bash", str(root / "packaging" / "setup"), *args], capture_output=True,
                         text=True, env=env, timeout=60)
    calls = log.read_text().splitlines() if log.exists() else []
    log.unlink(missing_ok=True)
    return out, calls


def pip_calls(calls):
    return [c for c in calls if c.startswith("venv-python -m pip")]


def test_a_bad_mode_prints_usage_and_exits_2_before_installing_anything(tree):
    root = tree[0]
    out, calls = setup(tree, "bogus")
    assert out.returncode == 2
    assert "usage: packaging/setup run|test|install" in out.stderr
    assert "'bogus' is not a mode" in out.stderr
    assert calls == []                      # no apt, no dpkg-query, no python, no pip
    assert not (root / ".venv").exists()


def test_system_packages_are_checked_in_one_query_and_none_installed_when_present(tree):
    out, calls = setup(tree, "install")
    assert out.returncode == 0, out.stderr
    assert [c.split()[0] for c in calls if not c.startswith(("python", "venv-python"))] == ["dpkg-query"]
    assert "system packages" not in out.stderr


def test_install_says_what_it_does_then_skips_pip_until_an_input_changes(tree):
    root = tree[0]
    out, calls = setup(tree, "install")
    assert out.returncode == 0, out.stderr
    assert "testcard setup: creating .venv" in out.stderr
    assert "installing testcard and its dependencies" in out.stderr and "torch is large" in out.stderr
    assert ".venv/bin/testcard" in out.stderr and "source .venv/bin/activate" in out.stderr
    assert len(pip_calls(calls)) == 1 and pip_calls(calls)[0].endswith("-e .")
    assert (root / ".venv" / "testcard-setup.stamp").is_file()

    out, calls = setup(tree, "install")
    assert out.returncode == 0 and pip_calls(calls) == []
    assert "up to date" in out.stderr and "creating .venv" not in out.stderr

    out, calls = setup(tree, "run", "gui", "--frames", "3")   # a start runs no pip
    assert pip_calls(calls) == [] and "testcard gui --frames 3" in calls

    (root / "packaging" / "constraints.txt").write_text("torch==2.14.0\n")
    out, calls = setup(tree, "install")
    assert len(pip_calls(calls)) == 1 and "installing testcard" in out.stderr
    (root / "pyproject.toml").write_text('[project]\nname = "testcard"\nversion = "2"\n')
    out, calls = setup(tree, "run")
    assert len(pip_calls(calls)) == 1 and calls[-1] == "testcard "
    out, calls = setup(tree, "run")
    assert pip_calls(calls) == []


def test_a_lost_environment_is_installed_again(tree):
    root = tree[0]
    setup(tree, "install")
    (root / ".venv" / "bin" / "testcard").unlink()       # e.g. pip uninstall testcard
    out, calls = setup(tree, "install")
    assert len(pip_calls(calls)) == 1
    shutil.rmtree(root / ".venv")
    out, calls = setup(tree, "install")
    assert "creating .venv" in out.stderr and len(pip_calls(calls)) == 1
