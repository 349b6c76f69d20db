"""Entry point of the bundled app: the same ``testcard`` command as the installed one."""

import multiprocessing
import sys

from app.cli import main

if __name__ == "__main__":
    # A frozen app is its own interpreter: a child process must not re-run the CLI.
    multiprocessing.freeze_support()
    sys.exit(main())
