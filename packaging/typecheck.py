"""The type check `packaging/setup test` runs: one mypy run over core and app (the settings are
``[tool.mypy]`` in pyproject.toml), counted per package against a ratchet.

* ``core`` must have no error at all.
* Each app package (``app/commands``, ``app/window``, ...; a top-level module counts as its own,
  ``app/cli.py``) may have at most the count packaging/mypy-baseline.json records for it; one
  the file does not name may have none.  A package over its count fails the check and its
  errors are printed; one under it passes and says the baseline can go down.
* ``--lower`` writes the lower counts into the baseline (it never raises one): run it after
  fixing errors, and commit the file with the fixes.

Exit status: 0 when every count is within its limit, 1 when one is not, 2 when mypy did not
run to the end (a crash or a bad configuration: no count is trusted then).

``--mypy-output FILE`` reads a saved mypy output (and ``--mypy-status N`` its exit status)
instead of running mypy: the tests drive the ratchet that way.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "packaging" / "mypy-baseline.json"
ERROR = re.compile(r"^(?P<path>[^:\s]+\.pyi?):\d+(?::\d+)?: error: ")


def package_of(path: str) -> str | None:
    """``core`` for anything in core, ``app/<package>`` or ``app/<module>.py`` for app; None for a
    file outside both."""
    parts = Path(path).as_posix().split("/")
    if parts[0] == "core":
        return "core"
    if parts[0] == "app" and len(parts) > 1:
        return "/".join(parts[:2])
    return None


def count_errors(output: str) -> tuple[Counter[str], dict[str, list[str]]]:
    """Errors per package in mypy's output, and the lines of each package's errors."""
    counts: Counter[str] = Counter()
    lines: dict[str, list[str]] = {}
    for line in output.splitlines():
        m = ERROR.match(line)
        if not m:
            continue
        pkg = package_of(m.group("path")) or m.group("path")
        counts[pkg] += 1
        lines.setdefault(pkg, []).append(line)
    return counts, lines


def judge(counts: Counter[str], baseline: dict[str, int]) -> tuple[list[str], list[str], dict[str, int]]:
    """(failures, lowerable, new baseline): what is over its limit, what is under its
    baseline, and the baseline with those lowered."""
    failures, lowerable = [], []
    lowered = dict(baseline)
    for pkg in sorted(set(counts) | set(baseline)):
        n = counts.get(pkg, 0)
        limit = 0 if pkg == "core" else baseline.get(pkg, 0)
        if n > limit:
            why = "core must have none" if pkg == "core" else f"its baseline is {limit}" \
                if pkg in baseline else "a package the baseline does not name may have none"
            failures.append(f"{pkg}: {n} errors; {why}")
        elif pkg in baseline and n < limit:
            lowerable.append(f"{pkg}: {n} errors, baseline {limit}: the baseline can go down to {n}")
            lowered[pkg] = n
    return failures, lowerable, lowered


def run_mypy() -> tuple[str, int, float]:
    start = time.perf_counter()
    got = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    return got.stdout + got.stderr, got.returncode, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="packaging/typecheck.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", type=Path, default=BASELINE, help="the ratchet file (JSON)")
    ap.add_argument("--lower", action="store_true", help="write the lower counts into the baseline")
    ap.add_argument("--mypy-output", type=Path, help="read this saved mypy output instead of running mypy")
    ap.add_argument("--mypy-status", type=int, default=1, help="the saved output's exit status")
    args = ap.parse_args(argv)
    say = lambda text: print(f"typecheck: {text}", file=sys.stderr)  # noqa: E731
    try:
        baseline = json.loads(args.baseline.read_text())
        if not isinstance(baseline, dict) or not all(
                isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
                for k, v in baseline.items()):
            raise ValueError("expected an object of package: error count (a whole number >= 0)")
    except (OSError, ValueError) as exc:
        say(f"error: cannot read the baseline {args.baseline}: {exc}")
        return 2
    if args.mypy_output is not None:
        output, status, took = args.mypy_output.read_text(), args.mypy_status, None
    else:
        output, status, took = run_mypy()
    counts, lines = count_errors(output)
    if status not in (0, 1) or (status == 1 and not counts):
        sys.stderr.write(output)
        say(f"error: mypy did not finish (exit status {status}): no count is trusted")
        return 2
    failures, lowerable, lowered = judge(counts, baseline)
    for pkg in sorted(set(counts) | set(baseline) | {"core"}):
        limit = 0 if pkg == "core" else baseline.get(pkg, 0)
        say(f"{pkg:<24} {counts.get(pkg, 0):>4} errors (at most {limit})")
    say(f"{sum(counts.values())} errors in all" + (f"; mypy took {took:.1f} s" if took is not None else ""))
    for note in lowerable:
        say(note)
    if lowerable and args.lower:
        args.baseline.write_text(json.dumps(lowered, indent=2, sort_keys=True) + "\n")
        say(f"lowered in {args.baseline.name}: commit it with the fixes")
    elif lowerable:
        say("run packaging/typecheck.py --lower to write the lower counts (then commit the baseline)")
    if failures:
        for f in failures:
            pkg = f.split(":")[0]
            sys.stderr.write("\n".join(lines.get(pkg, [])) + "\n")
        for f in failures:
            say(f"FAILED {f}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
