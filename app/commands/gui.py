"""Start the app: ``testcard`` with no arguments, or ``testcard gui [--pattern P] [--frames N]``."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("gui", help="start the app (the default with no command)")
    p.add_argument("--pattern", help="pattern to show first")
    p.add_argument("--frames", type=int, default=0,
                   help="quit after presenting this many frames (0: run until closed)")
    p.set_defaults(func=run)


def run(args) -> int:
    return run_gui(pattern=args.pattern, frames=args.frames)


def run_gui(pattern: str | None = None, frames: int = 0, argv: list[str] | None = None) -> int:
    """Open the main window and run until it closes (or after ``frames`` presented frames).

    Refuses (ValueError, one sentence) an unknown pattern or a negative frame count
    before any window opens.  With ``frames``, prints one line to stdout once the window has
    closed: ``docks: <titles>``, the window's dock titles in the order they were added.
    """
    from core.patterns import get_pattern

    if pattern is not None:
        get_pattern(pattern)
    if frames < 0:
        raise ValueError(f"--frames must be >= 0, got {frames}")

    from app.qapp import ensure_qapplication

    app = ensure_qapplication(argv)

    from app.window import MainWindow

    win = MainWindow(pattern=pattern, frame_limit=frames)
    if frames:
        win.loop.finished.connect(win.close)
    win.show()
    rc = int(app.exec())
    if frames:
        # the packaging smoke run checks that the bundled GUI has every built-in panel
        print("docks: " + ", ".join(d.windowTitle() for d in win.docks.values()), flush=True)
    return rc
