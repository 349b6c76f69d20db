"""packaging/typecheck.py, the type-check ratchet: core has no error, each app package at most
its baseline, a lower count passes and says the baseline can go down (``--lower`` writes it,
never raising one), and a mypy that did not finish is no pass.

Driven with saved mypy output (``--mypy-output``): mypy itself does not run here.
"""

import json
import subprocess
import sys

import pytest

from tests.helpers import ROOT

SCRIPT = ROOT / "packaging" / "typecheck.py"


def mypy_output(**errors):
    """A mypy output with ``n`` errors in a file of each package, e.g. app_window=3."""
    lines = []
    for key, n in errors.items():
        top, _, rest = key.partition("_")
        path = f"{top}/{rest}/mod.py" if rest else f"{top}/mod.py"
        for i in range(n):
            lines.append(f"{path}:{i + 1}: error: Incompatible types in assignment  [assignment]")
            lines.append(f"{path}:{i + 1}: note: a note is not an error")
    total = sum(errors.values())
    lines.append(f"Found {total} errors in {len(errors)} files (checked 9 source files)" if total
                 else "Success: no issues found in 9 source files")
    return "\n".join(lines) + "\n"


def typecheck(tmp_path, output, baseline, *args, status=None):
    out_file = tmp_path / "mypy.txt"
    out_file.write_text(output)
    base = tmp_path / "baseline.json"
    base.write_text(json.dumps(baseline))
    status = (1 if "error:" in output else 0) if status is None else status
    got = subprocess.run([sys.executable, str(SCRIPT), "--baseline", str(base), "--mypy-output",
                          str(out_file), "--mypy-status", str(status), *args],
                         capture_output=True, text=True, timeout=60)
    return got, json.loads(base.read_text())


def test_counts_within_the_baseline_pass_and_are_printed(tmp_path):
    got, _ = typecheck(tmp_path, mypy_output(app_window=3, app_panels=1),
                       {"app/window": 3, "app/panels": 1, "app/cli.py": 0})
    assert got.returncode == 0, got.stderr
    assert "app/window" in got.stderr and "3 errors (at most 3)" in got.stderr
    assert "core                        0 errors (at most 0)" in got.stderr
    assert "app/cli.py" in got.stderr            # a package at 0 is shown too
    assert "4 errors in all" in got.stderr
    assert "FAILED" not in got.stderr and "can go down" not in got.stderr


def test_an_app_package_over_its_baseline_fails_and_prints_its_errors(tmp_path):
    got, _ = typecheck(tmp_path, mypy_output(app_window=4, app_panels=1), {"app/window": 3, "app/panels": 1})
    assert got.returncode == 1
    assert "FAILED app/window: 4 errors; its baseline is 3" in got.stderr
    assert got.stderr.count("app/window/mod.py:") == 4       # its errors, to fix
    assert "app/panels/mod.py" not in got.stderr and "FAILED app/panels" not in got.stderr


def test_any_error_in_core_fails(tmp_path):
    got, _ = typecheck(tmp_path, mypy_output(core_decode=1), {"core": 5})   # core's limit is not the file's
    assert got.returncode == 1
    assert "FAILED core: 1 errors; core must have none" in got.stderr
    assert "core/decode/mod.py:1: error:" in got.stderr


def test_a_package_the_baseline_does_not_name_may_have_no_error(tmp_path):
    got, _ = typecheck(tmp_path, mypy_output(app_newpkg=1), {"app/window": 3})
    assert got.returncode == 1
    assert "FAILED app/newpkg: 1 errors; a package the baseline does not name may have none" in got.stderr


def test_a_lower_count_passes_and_says_the_baseline_can_go_down(tmp_path):
    got, base = typecheck(tmp_path, mypy_output(app_window=1), {"app/window": 3, "app/panels": 2})
    assert got.returncode == 0, got.stderr
    assert "app/window: 1 errors, baseline 3: the baseline can go down to 1" in got.stderr
    assert "app/panels: 0 errors, baseline 2: the baseline can go down to 0" in got.stderr
    assert "--lower" in got.stderr
    assert base == {"app/window": 3, "app/panels": 2}          # unchanged without --lower


def test_lower_writes_the_lower_counts_and_never_raises_one(tmp_path):
    got, base = typecheck(tmp_path, mypy_output(app_window=1, app_panels=5),
                          {"app/window": 3, "app/panels": 4}, "--lower")
    assert got.returncode == 1                                 # app/panels is still over
    assert base == {"app/window": 1, "app/panels": 4}


@pytest.mark.parametrize("status", [2, 1])
def test_a_mypy_that_did_not_finish_is_no_pass(tmp_path, status):
    crash = "Traceback (most recent call last):\nINTERNAL ERROR\n" if status == 2 \
        else "mypy: can't read file\n"
    got, _ = typecheck(tmp_path, crash, {"app/window": 3}, status=status)
    assert got.returncode == 2
    assert f"mypy did not finish (exit status {status})" in got.stderr


def test_an_unreadable_baseline_is_an_error(tmp_path):
    out = tmp_path / "mypy.txt"
    out.write_text(mypy_output())
    bad = tmp_path / "baseline.json"
    bad.write_text('{"app/window": -1}')
    got = subprocess.run([sys.executable, str(SCRIPT), "--baseline", str(bad), "--mypy-output", str(out)],
                         capture_output=True, text=True, timeout=60)
    assert got.returncode == 2 and "cannot read the baseline" in got.stderr


def test_the_committed_baseline_counts_app_packages_only():
    base = json.loads((ROOT / "packaging" / "mypy-baseline.json").read_text())
    assert base and all(k.startswith("app/") for k in base)     # core's limit is always 0
    assert all(type(v) is int and v >= 0 for v in base.values())
