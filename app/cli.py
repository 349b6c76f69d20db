"""The ``testcard`` command.  With no arguments it starts the GUI; every other
command runs headless and never imports Qt."""

from __future__ import annotations

import os
import signal
import sys

# Ctrl-C while the commands below are still importing (a second or so) ends quietly with 130,
# as it does once a command runs; the default handler is put back right after the imports.
signal.signal(signal.SIGINT, lambda *_: os._exit(130))

import argparse  # noqa: E402

from app.commands import (  # noqa: E402
    bench,
    capture,
    decisions,
    decode,
    desktop,
    doctor,
    gui,
    latency,
    measure,
    patterns,
    presets,
    render,
    scale,
    serve,
    show,
)
from app.commands.common import (  # noqa: E402
    CliError,
    OneLineParser,
    os_error_text,
    quiet_stdout,
    say_error,
)
from core import version  # noqa: E402

signal.signal(signal.SIGINT, signal.default_int_handler)

# Each module defines register(subparsers); ``bench`` adds the benchmarks of the modules it
# names.  Imported by statement (each keeps its heavy imports inside its functions), in help
# order.
COMMANDS = (gui, show, serve, patterns, render, bench, desktop, presets, measure, decisions, decode, scale,
            capture, latency, doctor)


def build_parser() -> argparse.ArgumentParser:
    """Every command's options; a bad one is one ``testcard: error:`` line (:class:`OneLineParser`)."""
    parser = OneLineParser(
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
    """Run one command and return its exit status; no traceback ever reaches the user.

    A user error (a bad value, a file that cannot be read or written, a full disk, a missing
    optional dependency: ``ValueError``, ``OSError``, ``ImportError``) is one ``testcard: error:``
    line on stderr and exit 2 (a ``CliError`` carries its own code); Ctrl-C exits 130 quietly;
    a closed stdout (``testcard patterns | head``) ends quietly with 141, as a pipe's writer
    killed by SIGPIPE would.  Anything else is a bug in
    testcard: one line naming it and exit 70, or the traceback with ``TESTCARD_DEBUG=1``."""
    try:
        rc = _run(sys.argv[1:] if argv is None else list(argv))
        sys.stdout.flush()   # a closed pipe shows here, not at interpreter exit
        return rc
    except BrokenPipeError:
        quiet_stdout()
        return 141
    except KeyboardInterrupt:
        return 130
    except CliError as exc:
        say_error(str(exc))
        return exc.code
    except OSError as exc:
        say_error(os_error_text(exc))
        return 2
    except (ValueError, MemoryError) as exc:
        say_error(str(exc) or "out of memory")
        return 2
    except ImportError as exc:   # an optional dependency (av, torch, PySide6) is not installed
        say_error(f"{exc}; this command needs {exc.name or 'a module'} installed")
        return 2
    except Exception as exc:
        if os.environ.get("TESTCARD_DEBUG"):
            raise
        say_error(f"internal error (a bug in testcard): {type(exc).__name__}: {exc}; "
                  "TESTCARD_DEBUG=1 shows the traceback")
        return 70


def _run(argv: list[str]) -> int:
    parser = build_parser()
    if not argv:
        argv = ["gui"]
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
