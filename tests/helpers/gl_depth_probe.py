"""Run under a real X server (see tests/app/preview/test_depth_xvfb.py): the codes the GL
presenter shows when a frame's depth is not the surface's.

Prints one JSON object: the surface's depth; a 10-bit 75 % bars frame and a 4-bit white frame
as the main window's GL preview shows them at 1:1 (the engine's conversion, read back from the
window's framebuffer), the status bar's notice for each; and every 10-bit code uploaded as
packed words into the RGB10_A2 texture and blitted to the 8-bit window (GL's own conversion,
which the frame loop does not use on an 8-bit surface, read back to see that it agrees too).
"""

import json
import sys

import numpy as np

from tests.helpers.gl_probe import centre, image_rgb


def main() -> int:
    from app.qapp import ensure_qapplication

    app = ensure_qapplication(sys.argv[:1])
    from app.settings import Settings
    from app.window import MainWindow
    from core.patterns import make_spec

    out = {}
    specs = [make_spec("bars", {"level": 75.0}, width=160, height=90, bit_depth=10),
             make_spec("solid", {"color": "white"}, width=160, height=90, bit_depth=4)]
    win = MainWindow(spec=specs[0], settings=Settings(), persist=False)
    win.resize(1200, 700)
    win.set_one_to_one(True)
    win.show()
    state = {"step": 0, "target": win.loop.presented_count + 10}

    def on_frame(_i):
        if win.loop.presented_count < state["target"]:
            return
        spec = specs[state["step"]]
        if win.spec != spec:          # the spec set last has not reached the screen yet
            return
        shown = centre(image_rgb(win.preview.grab_image()), spec.width, spec.height)
        out[f"{spec.pattern}{spec.bit_depth}"] = {
            "values": sorted(int(v) for v in np.unique(shown)),
            "top_left": [int(v) for v in shown[0, 0]],
            "notice": win.status_texts()["notice"], "fmt": win.loop.fmt}
        out["surface_bits"] = win.preview.surface_bits
        out["kind"] = win.preview.kind
        state["step"] += 1
        if state["step"] < len(specs):
            win.patterns.show(specs[state["step"]])
            state["target"] = win.loop.presented_count + 10
            return
        win.loop.frame_presented.disconnect(on_frame)
        win.loop.stop()
        codes = np.arange(1024, dtype=np.uint32).reshape(16, 64)     # every code, row by row
        win.preview.set_frame(np.ascontiguousarray((3 << 30) | (codes << 20) | (codes << 10) | codes))
        win.preview.frameSwapped.connect(after_rgb10)
        win.preview.request_present()

    def after_rgb10():
        win.preview.frameSwapped.disconnect(after_rgb10)
        shown = centre(image_rgb(win.preview.grab_image()), 64, 16)
        out["rgb10_codes_shown"] = [int(v) for v in shown[..., 0].reshape(-1)]
        out["rgb10_channels_agree"] = bool(np.all(shown[..., 0:1] == shown))
        win.close()

    win.loop.frame_presented.connect(on_frame)
    app.exec()
    print(json.dumps(out))
    return 0 if "rgb10_codes_shown" in out else 1


if __name__ == "__main__":
    sys.exit(main())
