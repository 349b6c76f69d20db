"""Under Xvfb (Mesa llvmpipe) a 10-bit request is granted 8 bits: the GUI's default depth must
be the 8 it got, while a depth the user chose stays.  In a subprocess with its own X server."""

import json
import textwrap

import pytest

from tests.app.preview.test_xvfb import run_xcb, xvfb  # noqa: F401 - the fixture

pytestmark = [pytest.mark.qt, pytest.mark.xvfb]

PROBE = textwrap.dedent("""
    import json, sys
    from PySide6.QtCore import QTimer
    from app.qapp import ensure_qapplication

    app = ensure_qapplication(sys.argv[:1])
    from app.settings import Settings
    from app.window import MainWindow

    out = {}
    wins = {"default": MainWindow(settings=Settings(size=[160, 90]), persist=False),
            "chosen": MainWindow(settings=Settings(size=[160, 90], bit_depth=10, bit_depth_chosen=True),
                                 persist=False)}
    seen = {name: [] for name in wins}
    for name, win in wins.items():
        win.preview.surface_ready.connect(seen[name].append)
        win.resize(900, 600)
        win.show()

    def check():
        if not all(seen.values()) or any(w.loop.presented_count < 3 for w in wins.values()):
            return
        for name, win in wins.items():
            out[name] = {"kind": win.preview.kind, "surface": seen[name], "bit_depth": win.spec.bit_depth,
                         "fmt": win.loop.fmt, "auto": win.frame_settings.auto_depth.isChecked()}
        app.quit()

    timer = QTimer()
    timer.timeout.connect(check)
    timer.start(20)
    QTimer.singleShot(60000, app.quit)
    app.exec()
    for win in wins.values():
        win.close()
    print(json.dumps(out))
""")


def test_the_default_depth_is_the_8_bits_xvfb_grants_and_a_chosen_one_stays(xvfb, tmp_path):  # noqa: F811
    res = run_xcb(xvfb, ["-c", PROBE], tmp_path, timeout=120)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["default"]["kind"] == "opengl" and out["default"]["surface"] == [8]
    assert out["default"]["bit_depth"] == 8 and out["default"]["auto"] and out["default"]["fmt"] == "rgb8"
    assert out["chosen"]["bit_depth"] == 10 and not out["chosen"]["auto"]
