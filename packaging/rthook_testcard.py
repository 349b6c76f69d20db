"""PyInstaller runtime hook: settings the bundled app needs before torch loads."""

import os

# Inductor compiles in worker processes started as `sys.executable <its own script>`; in a
# bundle sys.executable is testcard itself, so compile in-process instead.
os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
