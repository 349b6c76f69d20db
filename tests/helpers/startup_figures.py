"""How long ``testcard gui`` takes to put its window on screen, and what the idle GUI holds.

    python -m tests.helpers.startup_figures [--runs 5] [--size 1280x720] [--settle-s 5]

Each run starts its own Xvfb, then ``testcard gui`` with fresh settings and cache folders (the
first-run window), and polls the X server (``xwininfo``, from outside the process, so nothing in
testcard is instrumented) until a top-level window titled ``testcard`` is viewable: the time from
the process start to then is the figure.  After ``--settle-s`` more seconds the process's
``VmRSS`` (``/proc/PID/status``) is read, then it is closed with SIGTERM.  Prints each run and
min / median / max.  A benchmark: it prints figures and asserts nothing.  Linux only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def _viewable_testcard(display: str) -> bool:
    tree = subprocess.run(["xwininfo", "-display", display, "-root", "-children"],
                          capture_output=True, text=True, timeout=10).stdout
    for line in tree.splitlines():
        parts = line.split()
        if len(parts) > 1 and parts[1] == '"testcard":':
            info = subprocess.run(["xwininfo", "-display", display, "-id", parts[0]],
                                  capture_output=True, text=True, timeout=10).stdout
            if "Map State: IsViewable" in info:
                return True
    return False


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS line")


def _start_xvfb(size: str) -> tuple[subprocess.Popen, str]:
    """An Xvfb on the first display from :150 with no lock file, once it answers."""
    number = next(n for n in range(150, 400) if not os.path.exists(f"/tmp/.X{n}-lock"))
    display = f":{number}"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", f"{size}x24", "-nolisten", "tcp", "-noreset"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while subprocess.run(["xwininfo", "-display", display, "-root"], capture_output=True).returncode:
        if time.monotonic() > deadline or xvfb.poll() is not None:
            xvfb.kill()
            raise RuntimeError(f"Xvfb {display} did not start")
        time.sleep(0.05)
    return xvfb, display


def one_run(size: str, settle_s: float) -> tuple[float, float]:
    xvfb, display = _start_xvfb(size)
    try:
        with tempfile.TemporaryDirectory() as folder:
            env = dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb",
                       TESTCARD_CONFIG_DIR=os.path.join(folder, "config"),
                       TESTCARD_CACHE_DIR=os.path.join(folder, "cache"))
            start = time.monotonic()
            app = subprocess.Popen([sys.executable, "-m", "app", "gui"], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            try:
                while not _viewable_testcard(display):
                    if app.poll() is not None:
                        raise RuntimeError(f"testcard gui exited with {app.returncode} (Xvfb: "
                                           f"{xvfb.poll()}) before its window showed: "
                                           f"{app.stderr.read()[-2000:]}")
                    if time.monotonic() - start > 120:
                        raise RuntimeError("no testcard window within 120 s")
                    time.sleep(0.02)   # polling another process's windows: no signal to wait on
                shown = time.monotonic() - start
                time.sleep(settle_s)
                rss = _rss_mib(app.pid)
            finally:
                app.terminate()
                try:
                    app.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    app.kill()
                    app.wait()
        return shown, rss
    finally:
        xvfb.terminate()
        xvfb.wait()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--size", default="1280x720", help="the Xvfb screen, WIDTHxHEIGHT")
    ap.add_argument("--settle-s", type=float, default=5.0, help="idle time before RSS is read")
    args = ap.parse_args(argv)
    for tool in ("Xvfb", "xwininfo"):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed (Debian: xvfb, x11-utils)", file=sys.stderr)
            return 2
    shown, rss = [], []
    for i in range(args.runs):
        for attempt in range(3):   # a busy shared box: an X server another job disturbed is retried
            try:
                s, r = one_run(args.size, args.settle_s)
                break
            except RuntimeError as exc:
                if attempt == 2 or "could not connect to display" not in str(exc):
                    raise
                print(f"run {i + 1}: the app could not connect to its X server; again", flush=True)
        shown.append(s)
        rss.append(r)
        print(f"run {i + 1}: window visible {s:.2f} s, idle RSS {r:.0f} MiB", flush=True)
    for name, vals, fmt in (("window visible (s)", shown, "{:.2f}"), ("idle RSS (MiB)", rss, "{:.0f}")):
        print(f"{name}: min {fmt.format(min(vals))}  median {fmt.format(statistics.median(vals))}  "
              f"max {fmt.format(max(vals))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
