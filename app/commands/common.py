"""Helpers shared by the CLI commands: argument parsing, errors, progress on stderr."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import sys
import time

from core.atomic import is_stream, refuse_same_file, require_writable


class CliError(Exception):
    """One clear line for stderr, and the exit code to leave with."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def one_line(text: str) -> str:
    """``text`` with its line breaks and other control characters escaped: one line always."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


def os_error_text(exc: OSError) -> str:
    """An ``OSError`` as ``FILE: reason`` (``FILE -> OTHER: reason`` for a rename)."""
    what = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename is None:
        return what
    where = os.fsdecode(exc.filename)
    if exc.filename2 is not None:
        where += f" -> {os.fsdecode(exc.filename2)}"
    return f"{where}: {what}"


def say_error(text: str) -> None:
    """One ``testcard: error:`` line on stderr; silent when stderr itself is gone."""
    with contextlib.suppress(OSError, ValueError):
        print(f"testcard: error: {one_line(text)}", file=sys.stderr, flush=True)


def quiet_stdout() -> None:
    """Point stdout at the null device after its reader went away, so that the interpreter's
    last flush does not fail again (the recipe in Python's ``signal`` docs)."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def check_output(path, what: str, hint: str = "", *, make_parent: bool = False):
    """``path`` checked writable before long work starts (:func:`core.atomic.require_writable`);
    a refusal is a ``CliError`` saying what the file is for and, with ``hint``, what to do."""
    try:
        return require_writable(path, make_parent=make_parent)
    except ValueError as exc:
        raise CliError(f"{exc} ({what}){'; ' + hint if hint else ''}") from None


def refuse_overwriting_inputs(outputs, inputs) -> None:
    """``ValueError`` (one sentence) when an output is one of the inputs, or two outputs are
    one file; ``None`` outputs are skipped.  Run before any long work starts."""
    ins = list(inputs)
    seen: dict[str, object] = {}
    for out in (o for o in outputs if o is not None):
        refuse_same_file(out, *ins)
        if is_stream(out):
            continue
        key = os.path.normcase(os.path.realpath(out))
        if key in seen:
            raise ValueError(f"cannot write {seen[key]} and {out}: they are the same file")
        seen[key] = out


class Number:
    """An argparse ``type``: a finite number from ``lo`` to ``hi`` (``above``: more than ``lo``;
    ``below``: less than ``hi``), in ``unit``.  ``nan``, ``inf`` and ``1e300`` are refused at
    parse time with the range, so no option's float reaches a command (or a JSON report)
    unchecked; :class:`OneLineParser` says it as ``--OPTION must be ..., got TEXT``."""

    def __init__(self, lo: float, hi: float, unit: str = "", *, above: bool = False,
                 below: bool = False) -> None:
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise ValueError(f"Number: expected finite lo < hi, got {lo!r}, {hi!r}")
        self.lo, self.hi, self.unit, self.above, self.below = float(lo), float(hi), unit, above, below
        self.__name__ = "number"            # argparse names a type by it

    def _v(self, v: float) -> str:
        text = str(int(v)) if v == int(v) and abs(v) < 1e7 else f"{v:g}"
        return f"{text} {self.unit}" if self.unit else text

    @property
    def range_text(self) -> str:
        low = f"above {self._v(self.lo)}" if self.above else f"at least {self._v(self.lo)}"
        high = f"below {self._v(self.hi)}" if self.below else f"at most {self._v(self.hi)}"
        return f"{low} and {high}"

    def contains(self, value: float) -> bool:
        return (math.isfinite(value)
                and (value > self.lo if self.above else value >= self.lo)
                and (value < self.hi if self.below else value <= self.hi))

    def __call__(self, text: str) -> float:
        try:
            value = float(text)
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"must be a number {self.range_text}, got {text!r}") from None
        if not self.contains(value):
            raise argparse.ArgumentTypeError(f"must be {self.range_text}, got {text}")
        return value

    def __repr__(self) -> str:
        return f"Number({self.lo:g}, {self.hi:g}, {self.unit!r})"


SCREEN_HELP = ("the output screen: its index (0, 1, ...) or its name when no other screen shares it. "
               "The index counts the screens of the display testcard connects to, in that "
               "connection's order: under X11, DISPLAY=:0.1 lists X screen 1 first, so index 0 is "
               "X screen 1 there and X screen 0 under DISPLAY=:0 (a bad --screen lists them)")

# ranges shared by several commands' options
RATE_HZ = Number(0, 10000, "fps", above=True)          # a capture or display rate
RUN_S = Number(0, 86400, "s", above=True)             # how long a run or timeout lasts (a day at most)


_OPTION_MUST = re.compile(r"argument (?:\S+/)?(?P<flag>\S+): (?P<rest>must be .*)", re.S)


class OneLineParser(argparse.ArgumentParser):
    """testcard's argument parser: a bad argument is a :class:`CliError`, so one ``testcard:
    error:`` line and exit 2 (never the usage block), naming the command whose ``--help`` lists
    the options.  A :class:`Number` refusal reads ``--OPTION must be ..., got TEXT``."""

    def error(self, message: str):
        m = _OPTION_MUST.fullmatch(message)
        if m is not None:
            message = f"{m['flag']} {m['rest']}"
        raise CliError(f"{message} (see {self.prog} --help)")


def parse_sets(items) -> dict[str, str]:
    out = {}
    for item in items or []:
        if "=" not in item:
            raise ValueError(f"--set takes key=value, got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def add_transfer_arguments(p, mastering: bool = True) -> None:
    """``--transfer`` (and, with ``mastering``, the mastering-display options): what a frame's
    code values mean (``args.transfer``) and the master's display (:func:`mastering_from_args`)."""
    from core.transfer import TRANSFERS

    p.add_argument("--transfer", choices=TRANSFERS, default=None,
                   help="what the code values mean: sdr (default; hdr_bars: pq), pq (SMPTE ST "
                        "2084) or hlg (BT.2100); under pq or hlg a colour may be given in cd/m2, "
                        "as --set color=203nits or 100nits,100nits,50nits")
    if not mastering:
        return
    p.add_argument("--mastering-primaries", metavar="NAME|Rx,Ry,Gx,Gy,Bx,By",
                   help="mastering display primaries for the HDR metadata: bt2020 (default), p3, "
                        "bt709 or six CIE x,y numbers")
    p.add_argument("--mastering-white", metavar="NAME|x,y",
                   help="mastering display white point: d65 (default), dci or x,y")
    p.add_argument("--mastering-max-nits", metavar="CD/M2",
                   help="mastering display peak luminance, 1..65535 cd/m2 (default 1000)")
    p.add_argument("--mastering-min-nits", metavar="CD/M2",
                   help="mastering display black luminance, 0..6.5535 cd/m2 (default 0.0001)")


def mastering_from_args(args) -> dict | None:
    """The mastering-display options given (None when none were): for ``make_spec``."""
    given = {"primaries": args.mastering_primaries, "white": args.mastering_white,
             "max_nits": args.mastering_max_nits, "min_nits": args.mastering_min_nits}
    given = {k: v for k, v in given.items() if v is not None}
    return given or None


def print_json(obj) -> None:
    """``obj`` as one JSON document on stdout, never NaN or Infinity (:func:`core.jsonfile.dump_json`)."""
    from core.jsonfile import dump_json

    sys.stdout.write(dump_json(obj, indent=2) + "\n")


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


# ------------------------------------------------------------------ --metrics
METRICS_HELP = ("serve Prometheus metrics at http://ADDR:PORT/metrics (and /healthz) while it "
                "runs; loopback (127.0.0.1) unless an address is given, e.g. 0.0.0.0:9464")


def add_metrics_option(p) -> None:
    p.add_argument("--metrics", metavar="[ADDR:]PORT", help=METRICS_HELP)


def metrics_address(args) -> tuple[str, int] | None:
    """``--metrics`` checked before any window opens (``ValueError``: one line naming it)."""
    text = getattr(args, "metrics", None)
    if text is None:
        return None
    from core.metrics import parse_metrics_address

    return parse_metrics_address(text)


def open_metrics(address, loop, *, presenter: str = "", extra=None, parent=None):
    """Start serving ``loop``'s metrics on ``address`` (None: nothing) and say where; the
    server to close at the end, or None.  A port already taken is one ``OSError`` line."""
    if address is None:
        return None, None
    from app.preview import start_metrics

    try:
        live, server = start_metrics(address, loop, presenter=presenter, extra=extra, parent=parent)
    except OSError as exc:
        host, port = address
        raise OSError(f"--metrics: cannot listen on {host}:{port}: {os_error_text(exc)}") from None
    print(f"testcard: metrics at {server.url}", file=sys.stderr, flush=True)
    return live, server
