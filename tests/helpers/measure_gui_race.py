"""A live race from the Measure panel of a main window built as ``testcard gui`` builds it (a
still frame reused from the render cache, the output opened by the race): run under a real X
server by the Xvfb tests, and by hand for a screenshot.

    python -m tests.helpers.measure_gui_race --pattern window [--shot panel.png] [--hold S]

Prints one JSON object: the result (form, band, each candidate's status and reason), the
panel's table headers and chart axis, and whether the loop reuses still frames again after.
``--hold S`` keeps the window up S seconds more (for ``import -window root``).
"""

from __future__ import annotations

import argparse
import json
import sys


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pattern", default="window")
    ap.add_argument("--candidates", default="numpy,torch-eager,torch-compiled")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--frames", type=int, default=3)
    ap.add_argument("--shot", default=None, help="save a picture of the Measure panel here")
    ap.add_argument("--hold", type=float, default=0.0, metavar="S")
    args = ap.parse_args(argv)

    from PySide6.QtCore import QEventLoop, Qt, QTimer

    from app.panels import MeasurePanel
    from app.qapp import ensure_qapplication
    from app.settings import Settings
    from app.window import MainWindow

    app = ensure_qapplication()
    win = MainWindow(settings=Settings(pattern=args.pattern, bit_depth=8, size=[320, 180]), persist=False)
    win.resize(1500, 1100)
    win.show()
    panel = next(p for p in win._panels if isinstance(p, MeasurePanel))
    win.docks["measure"].raise_()
    win.resizeDocks([win.docks["measure"]], [560], Qt.Orientation.Vertical)   # the results in view
    reused = win.loop.reuse_static
    panel.set_candidates(set(args.candidates.split(",")))
    panel.rounds_spin.setValue(args.rounds)
    panel.frames_spin.setValue(args.frames)
    panel.warmup_spin.setValue(1)
    panel.set_form("live")
    box: dict = {}
    ev = QEventLoop()

    def done(what, value):
        box[what] = value
        ev.quit()

    panel.race_finished.connect(lambda r: done("result", r))
    panel.race_failed.connect(lambda m: done("failed", m))
    panel.race_cancelled.connect(lambda m: done("cancelled", m))
    QTimer.singleShot(0, panel.start)
    QTimer.singleShot(540_000, lambda: done("timeout", "no outcome in 540 s"))
    ev.exec()
    out = {"reused_before": reused, "reused_after": win.loop.reuse_static,
           "headers": panel.table.headers(), "axis": panel.plot.axis_label(),
           "status_text": panel.status_label.text()}
    r = box.get("result")
    if r is not None:
        out.update(form=r.form, band=r.band, winner=r.winner,
                   candidates={n: {"status": c.status, "reason": c.reason, "median_ms": c.median_ms}
                               for n, c in r.candidates.items()})
    else:
        out["error"] = next(f"{k}: {v}" for k, v in box.items())
    for _ in range(20):
        app.processEvents()
    if args.shot:
        panel.window().grab().save(args.shot)
    print(json.dumps(out), flush=True)
    if args.hold > 0:
        QTimer.singleShot(int(args.hold * 1000), ev.quit)
        ev.exec()
    panel.shutdown()
    win.close()
    app.processEvents()
    return 0 if r is not None else 1


if __name__ == "__main__":
    sys.exit(main())
