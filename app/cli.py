"""The ``testcard`` command.  With no arguments it starts the GUI; every other
command runs headless and never imports Qt."""

from __future__ import annotations

import argparse
import importlib
import sys

from app.commands.common import CliError

# Each module defines register(subparsers) and optionally register_bench(bench_subparsers).
COMMAND_MODULES = [
    "app.commands.patterns",
    "app.commands.render",
    "app.commands.bench",
    "app.commands.preview_bench",
    "app.commands.desktop",
    "app.commands.presets",
    "app.commands.measure",
    "app.commands.decisions",
    "app.commands.frames",
    "app.commands.decode",
]


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("testcard")
    except PackageNotFoundError:  # running from a source tree or a bundle
        import core

        return core.__version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="testcard",
        description="Display test patterns, frame timing, counter decoding and render-path "
                    "decisions. Run with no command to start the app.",
    )
    parser.add_argument("--version", action="version", version=f"testcard {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    gui = sub.add_parser("gui", help="start the app (the default with no command)")
    gui.add_argument("--pattern", help="pattern to show first")
    gui.add_argument("--frames", type=int, default=0,
                     help="quit after presenting this many frames (0: run until closed)")
    gui.set_defaults(func=_run_gui)
    modules = [importlib.import_module(m) for m in COMMAND_MODULES]
    for mod in modules:
        mod.register(sub)
    bench_sub = getattr(sub, "_testcard_bench_sub", None)
    if bench_sub is not None:
        for mod in modules:
            if hasattr(mod, "register_bench"):
                mod.register_bench(bench_sub)
    return parser


def _run_gui(args) -> int:
    from app.commands.gui import run_gui

    return run_gui(pattern=getattr(args, "pattern", None), frames=getattr(args, "frames", 0))


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
