"""The main window as ``testcard gui`` builds it on a fresh box (no settings), looked at from
inside: run under a real X server by the Xvfb tests, and by hand for a screenshot.

    python -m tests.helpers.window_at_start [--shot-measure m.png] [--shot-after-fullscreen f.png]

Fresh settings and cache folders are the caller's (``TESTCARD_CONFIG_DIR``,
``TESTCARD_CACHE_DIR``).  Prints one JSON object:

- ``torch_at_show`` / ``cv2_at_show``: whether torch / OpenCV were imported when the window was
  first shown;
- ``measure``: the Measure dock brought to the front at the default window size: the Start
  button's and the chart's rectangles in the dock's scroll-area viewport, the viewport's size,
  and whether the panel says before Start that a live race takes over the output screen;
- ``toggles``: after the output went fullscreen and came back, each view toggle's text and
  whether it is on screen in the menu bar's corner, and whether the corner bar shows its overflow
  arrow (a toggle behind it).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys


def _rect(widget, viewport) -> list[int]:
    from PySide6.QtCore import QPoint

    top_left = widget.mapTo(viewport, QPoint(0, 0))
    return [top_left.x(), top_left.y(), widget.width(), widget.height()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shot-measure", default=None, help="a screenshot with Measure in front")
    ap.add_argument("--shot-after-fullscreen", default=None, help="a screenshot after fullscreen and back")
    args = ap.parse_args(argv)

    from app import settings as settings_mod
    from app.cli import build_parser
    from app.commands.gui import open_window, plan_start
    from app.qapp import ensure_qapplication

    start = plan_start(build_parser().parse_args(["gui"]), settings_mod.load())
    app = ensure_qapplication(None)

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QToolButton

    from app.panels import MeasurePanel
    from app.window import MainWindow

    seen: dict = {}
    shown = MainWindow.showEvent

    def first_show(self, event):
        seen.setdefault("torch_at_show", "torch" in sys.modules)
        seen.setdefault("cv2_at_show", "cv2" in sys.modules)
        shown(self, event)

    MainWindow.showEvent = first_show
    win = open_window(start)
    win.persist = False
    win.show()

    def wait(ms: int) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    def until(condition, ms: int = 20000) -> bool:
        for _ in range(ms // 50):
            if condition():
                return True
            wait(50)
        return condition()

    until(lambda: win.loop.index > 10)
    dock = win.docks["measure"]
    dock.raise_()
    wait(800)   # the tab switch, then the dock growing to the panel
    panel = next(p for p in win._panels if isinstance(p, MeasurePanel))
    viewport = dock.widget().viewport()
    out = dict(seen)
    out["window"] = [win.width(), win.height()]
    out["measure"] = {"viewport": [viewport.width(), viewport.height()],
                      "panel_min": [panel.minimumSizeHint().width(), panel.minimumSizeHint().height()],
                      "start": _rect(panel.start_button, viewport), "chart": _rect(panel.plot, viewport),
                      "live_note": panel.setup.live_note.isVisible() and panel.setup.live_note.text(),
                      "form": panel.form()}
    if args.shot_measure:
        subprocess.run(["import", "-window", "root", args.shot_measure], check=True)

    win.timing.raise_()
    win.act_fullscreen.trigger()
    until(lambda: win.output.is_open)
    wait(500)
    win.act_fullscreen.trigger()
    until(lambda: not win.output.is_open)
    wait(800)
    buttons = win.view_toggles.findChildren(QToolButton)
    out["toggles"] = {b.text(): b.isVisible() for b in buttons if b.defaultAction() is not None}
    out["overflow_arrow"] = any(b.isVisible() for b in buttons if b.objectName() == "qt_toolbar_ext_button")
    if args.shot_after_fullscreen:
        subprocess.run(["import", "-window", "root", args.shot_after_fullscreen], check=True)
    win.close()
    app.processEvents()
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
