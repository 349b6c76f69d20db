"""Run under a real X server (see test_xvfb.py): checks the GL presenter's pixels.

Prints one JSON object: what the main window's GL preview shows at 1:1 against the
engine's frame, how a packed 10-bit frame lands (channel order of the upload), and which
values a fitted (scaled) one-pixel checkerboard shows (nearest-neighbour: only 0 and 255).
"""

import json
import sys

import numpy as np


def image_rgb(img):
    from PySide6.QtGui import QImage

    img = img.convertToFormat(QImage.Format.Format_RGBX8888)
    h, w = img.height(), img.width()
    buf = np.frombuffer(img.constBits(), np.uint8, count=img.sizeInBytes()).reshape(h, img.bytesPerLine())
    return buf[:, :w * 4].reshape(h, w, 4)[..., :3].copy()


def centre(img, w, h):
    y, x = (img.shape[0] - h) // 2, (img.shape[1] - w) // 2
    return img[y:y + h, x:x + w]


def main() -> int:
    from app.qapp import ensure_qapplication

    app = ensure_qapplication(sys.argv[:1])
    from app.settings import Settings
    from app.window import MainWindow
    from core.engine import Engine
    from core.patterns import make_spec

    out = {}
    spec = make_spec("bars", {"level": 100.0}, width=160, height=90, bit_depth=8)
    win = MainWindow(spec=spec, settings=Settings(), persist=False)
    win.resize(900, 700)
    win.set_one_to_one(True)
    win.show()
    deadline = [win.loop.presented_count + 10]
    results = {}

    def check():
        if win.loop.presented_count < deadline[0]:
            return
        win.loop.frame_presented.disconnect(on_frame)
        with Engine(spec, fmt="rgb8") as eng:
            want = eng.render(0).data[..., :3]
        shown = centre(image_rgb(win.preview.grab_image()), spec.width, spec.height)
        results["kind"] = win.preview.kind
        results["surface_bits"] = win.preview.surface_bits
        results["fmt"] = win.loop.fmt
        results["equal"] = bool(np.array_equal(shown, want))
        results["max_diff"] = int(np.abs(shown.astype(int) - want.astype(int)).max())
        results["pacing"] = win.loop.mode
        # a packed 10-bit frame: distinct R, G, B must land in their own channels
        win.loop.stop()
        r10, g10, b10 = 1020, 512, 64
        words = np.full((90, 160), (3 << 30) | (r10 << 20) | (g10 << 10) | b10, np.uint32)
        win.preview.set_frame(words)
        win.preview.frameSwapped.connect(after_rgb10)
        win.preview.request_present()

    def after_rgb10():
        win.preview.frameSwapped.disconnect(after_rgb10)
        px = centre(image_rgb(win.preview.grab_image()), 160, 90)[45, 80]
        results["rgb10_pixel"] = [int(v) for v in px]
        # fitted: a one-pixel checkerboard scaled down must stay 0 and 255 (no smoothing)
        y, x = np.mgrid[0:1000, 0:1700]
        board = np.where((x + y) % 2 == 0, 255, 0).astype(np.uint8)
        win.preview.set_one_to_one(False)
        win.preview.set_frame(np.stack([board, board, board, np.full_like(board, 255)], axis=2))
        win.preview.frameSwapped.connect(after_fitted)
        win.preview.request_present()

    def after_fitted():
        win.preview.frameSwapped.disconnect(after_fitted)
        from app.preview.presenter import Pan

        img = image_rgb(win.preview.grab_image())
        x, y, w, h = Pan().rect(1700, 1000, img.shape[1], img.shape[0], False)
        results["fitted_size"] = [w, h]
        results["fitted_values"] = sorted(int(v) for v in np.unique(img[y:y + h, x:x + w]))

        out.update(results)
        win.close()

    def on_frame(_i):
        check()

    win.loop.frame_presented.connect(on_frame)
    app.exec()
    print(json.dumps(out))
    return 0 if out else 1


if __name__ == "__main__":
    sys.exit(main())
