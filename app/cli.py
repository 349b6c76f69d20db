"""The ``testcard`` command.  With no arguments it starts the GUI; every other
command runs headless and never imports Qt."""

from __future__ import annotations

import argparse
import sys

from app.commands import (
    bench,
    decisions,
    decode,
    desktop,
    gui,
    measure,
    patterns,
    presets,
    render,
)
from app.commands.common import CliError
from core import version

# Each module defines register(subparsers); ``bench`` adds the benchmarks of the modules it
# names.  Imported by statement (each keeps its heavy imports inside its functions), in help
# order.
COMMANDS = (gui, patterns, render, bench, desktop, presets, measure, decisions, decode)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="testcard",
        description="Display test patterns, frame timing, counter decoding and render-path "
                    "decisions. Run with no command to start the app.",
    )
    parser.add_argument("--version", action="version", version=f"testcard {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in COMMANDS:
        mod.register(sub)
    return parser


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if not argv:
        argv = ["gui"]
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except CliError as exc:
        print(f"testcard: error: {exc}", file=sys.stderr)
        return exc.code
    except ValueError as exc:
        print(f"testcard: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("testcard: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
