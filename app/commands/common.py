"""Helpers shared by the CLI commands: argument parsing, errors, progress on stderr."""

from __future__ import annotations

import json
import sys
import time


class CliError(Exception):
    """One clear line for stderr, and the exit code to leave with."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def parse_sets(items) -> dict[str, str]:
    out = {}
    for item in items or []:
        if "=" not in item:
            raise ValueError(f"--set takes key=value, got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def print_json(obj) -> None:
    json.dump(obj, sys.stdout, indent=2)
    sys.stdout.write("\n")


def print_table(rows: list[dict], columns: list[str]) -> None:
    widths = {c: max(len(c), *(len(_fmt(r.get(c))) for r in rows)) if rows else len(c)
              for c in columns}
    print("  ".join(c.ljust(widths[c]) for c in columns))
    print("  ".join("-" * widths[c] for c in columns))
    for r in rows:
        print("  ".join(_fmt(r.get(c)).ljust(widths[c]) for c in columns))


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 100 else f"{v:.1f}"
    return "" if v is None else str(v)


class Progress:
    """A one-line progress bar on stderr (only when stderr is a terminal, or forced)."""

    def __init__(self, total: int | None, label: str = "", stream=None, force: bool = False):
        self.total = total
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = force or getattr(self.stream, "isatty", lambda: False)()
        self.start = time.monotonic()
        self.done = 0
        self._last = 0.0

    def update(self, done: int, note: str = "") -> None:
        self.done = done
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and (self.total is None or done < self.total):
            return
        self._last = now
        if self.total:
            frac = min(1.0, done / self.total)
            bar = "#" * int(frac * 30)
            eta = (now - self.start) / frac * (1 - frac) if frac > 0 else 0.0
            line = f"\r{self.label} [{bar:<30}] {done}/{self.total} {note} ~{eta:.0f}s left"
        else:
            line = f"\r{self.label} {done} {note}"
        self.stream.write(line[:120].ljust(120))
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
