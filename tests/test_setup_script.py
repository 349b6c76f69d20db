"""packaging/setup checks its mode before installing anything, says what it does, runs pip
only when something pip installs from changed since the last install, and runs the numeric
tests again once per set of vector kernels the CPU offers.

Run on a copy of the script in a temporary tree, with a fake Python whose ``-m venv`` makes a
fake environment (its ``python -m pip``, ``pytest``, ``ruff`` and ``testcard`` only record
that they ran, and ``mkdocs`` fails when ``$FAKE_MKDOCS_FAIL`` is set; its kernel detection prints
``$FAKE_KERNELS``) and fake ``apt-get``/``dpkg-query``:
nothing is installed or tested for real.
"""

import os
import re
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
  for t in testcard ruff lint-imports mkdocs; do
    printf '#!/bin/sh\\necho "%s $*" >> "$SETUP_LOG"\\n' "$t" > "$(dirname "$0")/$t"
    chmod +x "$(dirname "$0")/$t"
  done
  printf '[ -z "$FAKE_MKDOCS_FAIL" ] || exit 1\\n' >> "$(dirname "$0")/mkdocs"
fi
if [ "$1 $2" = "-m tests.helpers.kernels" ]; then
  echo "kernels ATEN_CPU_CAPABILITY=${ATEN_CPU_CAPABILITY-unset}" >> "$SETUP_LOG"
  printf '%s\\n' "$FAKE_KERNELS"
fi
if [ "$1 $2" = "-m pytest" ]; then
  echo "pytest ATEN_CPU_CAPABILITY=${ATEN_CPU_CAPABILITY-unset}" \\
       "NPY_DISABLE_CPU_FEATURES=${NPY_DISABLE_CPU_FEATURES-unset}" >> "$SETUP_LOG"
  [ -n "${FAKE_FAIL_ON-}" ] && [ "${ATEN_CPU_CAPABILITY-}" = "$FAKE_FAIL_ON" ] && exit 1
fi
exit 0
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


def setup(tree, *args, env=None):
    root, fake, log = tree
    env = {**os.environ, "PYTHON": str(fake / "fakepython"), "SETUP_LOG": str(log),
           "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}", **(env or {})}
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


# ---------------------------------------------------------------- the kernel passes
AVX512_BOX = "default X86_V3,X86_V4,AVX512_ICL\navx2 X86_V4,AVX512_ICL\navx512"


def pytest_runs(calls):
    """(the environment line, the command line) of each pytest the script ran, in order."""
    return [(calls[i + 1], c) for i, c in enumerate(calls) if c.startswith("venv-python -m pytest")]


def numeric_tests():
    text = (ROOT / "packaging" / "setup").read_text()
    return re.search(r'^NUMERIC_TESTS="([^"]*)"', text, re.M).group(1).replace("\\\n", " ").split()


def test_the_numeric_tests_run_again_once_per_kernel_set_the_cpu_offers(tree):
    out, calls = setup(tree, "test", "-q", env={"FAKE_KERNELS": AVX512_BOX, "ATEN_CPU_CAPABILITY": "avx2"})
    assert out.returncode == 0, out.stderr
    # the CPU's own kernels are read with the caller's pin taken away
    assert "kernels ATEN_CPU_CAPABILITY=unset" in calls
    envs = [e for e, _ in pytest_runs(calls)]
    assert envs == [
        "pytest ATEN_CPU_CAPABILITY=avx2 NPY_DISABLE_CPU_FEATURES=unset",            # the whole suite
        "pytest ATEN_CPU_CAPABILITY=default NPY_DISABLE_CPU_FEATURES=X86_V3,X86_V4,AVX512_ICL",
        "pytest ATEN_CPU_CAPABILITY=avx2 NPY_DISABLE_CPU_FEATURES=X86_V4,AVX512_ICL",
        "pytest ATEN_CPU_CAPABILITY=avx512 NPY_DISABLE_CPU_FEATURES=",
        "pytest ATEN_CPU_CAPABILITY=avx2 NPY_DISABLE_CPU_FEATURES=unset",            # headless
    ]
    whole, *passes, headless = [c for _, c in pytest_runs(calls)]
    assert whole == "venv-python -m pytest -q"
    for c in passes:   # the numeric tests only, without the slow, Qt and X server ones, and -q
        assert c.split()[3:] == numeric_tests() + [
            "-m", "not", "slow", "and", "not", "qt", "and", "not", "xvfb", "and", "not", "cuda",
            "and", "not", "mps", "and", "not", "capture_device", "-p", "no:cacheprovider", "-q"]
    for cap in ("default", "avx2", "avx512"):
        assert f"the numeric tests again on the {cap} kernels" in out.stderr
        assert f"{cap} kernels: passed in" in out.stderr


def test_a_cpu_without_avx512_gets_no_avx512_pass(tree):
    out, calls = setup(tree, "test", env={"FAKE_KERNELS": "default X86_V3,X86_V4\navx2 X86_V4"})
    assert out.returncode == 0, out.stderr
    assert [e.split()[1] for e, _ in pytest_runs(calls)] == [
        "ATEN_CPU_CAPABILITY=unset", "ATEN_CPU_CAPABILITY=default", "ATEN_CPU_CAPABILITY=avx2",
        "ATEN_CPU_CAPABILITY=unset"]
    assert "avx512" not in out.stderr


def test_a_failing_kernel_pass_fails_the_run_and_says_which(tree):
    out, calls = setup(tree, "test", env={"FAKE_KERNELS": AVX512_BOX, "FAKE_FAIL_ON": "avx2"})
    assert out.returncode == 1
    assert "the numeric tests failed on the avx2 kernels" in out.stderr
    assert [e.split()[1] for e, _ in pytest_runs(calls)][-1] == "ATEN_CPU_CAPABILITY=avx2"  # no more
    assert "headless part again" not in out.stderr


def test_no_kernel_sets_is_an_error_not_a_pass(tree):
    out, calls = setup(tree, "test", env={"FAKE_KERNELS": ""})
    assert out.returncode == 1
    assert "could not tell which vector kernels this CPU offers" in out.stderr


def test_every_numeric_test_the_passes_name_exists():
    names = numeric_tests()
    assert "tests/core/test_transfer.py" in names and "tests/test_kernel_passes.py" in names
    assert [n for n in names if not (ROOT / n).exists()] == []


def test_the_checks_run_in_order_before_the_tests_ruff_imports_types(tree):
    out, calls = setup(tree, "test", env={"FAKE_KERNELS": "default X86_V3"})
    assert out.returncode == 0, out.stderr
    steps = [c for c in calls if c.startswith(("ruff", "lint-imports", "venv-python packaging/typecheck.py",
                                               "venv-python -m pytest"))]
    assert steps[:4] == ["ruff check .", "lint-imports ", "venv-python packaging/typecheck.py",
                         "venv-python -m pytest"]


# ---------------------------------------------------------------- the manual
def test_the_manual_is_built_strictly_after_the_tests_and_before_the_headless_part(tree):
    out, calls = setup(tree, "test", env={"FAKE_KERNELS": "default X86_V3"})
    assert out.returncode == 0, out.stderr
    # a test install brings the docs extra, so mkdocs is there to build with
    assert pip_calls(calls)[0].endswith("-e .[test,docs]")       # the rest: .venv-headless's
    builds = [c for c in calls if c.startswith("mkdocs ")]
    assert len(builds) == 1
    words = builds[0].split()
    assert words[:4] == ["mkdocs", "build", "--strict", "--quiet"] and words[4] == "-d"
    assert not (tree[0] / "site").exists()        # built into a folder of its own, then removed
    order = [c.split()[0] if c.startswith("mkdocs") else c for c in calls
             if c.startswith(("mkdocs", "pytest ATEN"))]
    assert order.index("mkdocs") == len(order) - 2  # after the suite and the kernel passes, before headless
    assert "the manual: built in" in out.stderr

    out, calls = setup(tree, "test", env={"FAKE_KERNELS": "default X86_V3"})   # nothing changed:
    assert pip_calls(calls) == [] and any(c.startswith("mkdocs build") for c in calls)  # built again
    out, calls = setup(tree, "run")                 # a run is served by the test install
    assert pip_calls(calls) == [] and not any(c.startswith("mkdocs") for c in calls)


def test_a_manual_that_does_not_build_fails_the_run_and_says_so(tree):
    out, calls = setup(tree, "test", env={"FAKE_KERNELS": "default X86_V3", "FAKE_MKDOCS_FAIL": "1"})
    assert out.returncode == 1
    assert "the manual did not build: mkdocs build --strict failed" in out.stderr
    assert "headless part again" not in out.stderr
