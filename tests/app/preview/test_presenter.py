"""The raster presenter on the offscreen platform: nearest-neighbour scaling (a scaled preview
shows only the frame's own code values) and the 1:1 view panned by drag and wheel, kept inside
the frame.  The GL presenter's equivalents run under Xvfb (test_xvfb.py)."""

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QImage, QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QApplication

from app.preview import RasterPresenter
from app.preview.presenter import WHEEL_STEP_PX, Pan

pytestmark = pytest.mark.qt


def rgbx(rgb: np.ndarray) -> np.ndarray:
    h, w = rgb.shape[:2]
    return np.concatenate([rgb, np.full((h, w, 1), 255, np.uint8)], axis=2)


def shown(p: RasterPresenter) -> np.ndarray:
    img = p.grab_image().convertToFormat(QImage.Format.Format_RGBX8888)
    h, w = img.height(), img.width()
    buf = np.frombuffer(img.constBits(), np.uint8, count=img.sizeInBytes()).reshape(h, img.bytesPerLine())
    return buf[:, :w * 4].reshape(h, w, 4)[..., :3].copy()


@pytest.fixture
def presenter(qtbot):
    p = RasterPresenter()
    qtbot.addWidget(p)
    p.resize(100, 50)
    p.show()
    qtbot.waitExposed(p)
    return p


def coded_frame(w=200, h=100) -> np.ndarray:
    """R = column, G = row: every pixel says where in the frame it came from."""
    y, x = np.mgrid[0:h, 0:w]
    return rgbx(np.stack([x, y, np.zeros_like(x)], axis=2).astype(np.uint8))


def drag(p, start, end):
    for kind, pos, buttons in ((QEvent.Type.MouseButtonPress, start, Qt.MouseButton.LeftButton),
                               (QEvent.Type.MouseMove, end, Qt.MouseButton.LeftButton),
                               (QEvent.Type.MouseButtonRelease, end, Qt.MouseButton.NoButton)):
        QApplication.sendEvent(p, QMouseEvent(kind, QPointF(*pos), QPointF(*pos), Qt.MouseButton.LeftButton,
                                              buttons, Qt.KeyboardModifier.NoModifier))


def wheel(p, notches, modifiers=Qt.KeyboardModifier.NoModifier):
    QApplication.sendEvent(p, QWheelEvent(QPointF(50, 25), QPointF(50, 25), QPoint(0, 0),
                                          QPoint(0, 120 * notches), Qt.MouseButton.NoButton, modifiers,
                                          Qt.ScrollPhase.NoScrollPhase, False))


def test_a_scaled_preview_shows_only_the_frames_code_values(presenter):
    # a one-pixel checkerboard of 0 and 255 at 0.64x: smoothing would make greys
    y, x = np.mgrid[0:140, 0:250]
    board = np.where((x + y) % 2 == 0, 255, 0).astype(np.uint8)
    presenter.set_frame(rgbx(np.stack([board, board, board], axis=2)))
    presenter.repaint()
    img = shown(presenter)
    x0, y0, w, h = Pan().rect(250, 140, presenter.width(), presenter.height(), False)
    assert (w, h) != (250, 140)
    inside = img[y0:y0 + h, x0:x0 + w]
    assert inside.size and set(np.unique(inside)) <= {0, 255}
    assert 0 in inside and 255 in inside


def test_one_to_one_shows_the_centre_then_pans_by_drag_and_wheel_inside_the_frame(presenter):
    aw, ah = presenter.width(), presenter.height()             # 160x90: the presenter's minimum
    fw, fh = 250, 250                                          # uint8 coordinates
    presenter.set_frame(coded_frame(fw, fh))
    presenter.set_one_to_one(True)
    presenter.repaint()
    img = shown(presenter)
    cx, cy = (fw - aw) // 2, (fh - ah) // 2                    # the centre of the frame is shown
    assert (img[0, 0, 0], img[0, 0, 1]) == (cx, cy)
    assert np.array_equal(img[:, :, 0], np.tile(np.arange(cx, cx + aw, dtype=np.uint8), (ah, 1)))

    drag(presenter, (60, 30), (90, 40))                       # the frame follows the mouse
    presenter.repaint()
    img = shown(presenter)
    assert (img[0, 0, 0], img[0, 0, 1]) == (cx - 30, cy - 10)

    drag(presenter, (0, 0), (aw - 1, ah - 1))                 # past the edge: stops at the frame's corner
    presenter.repaint()
    img = shown(presenter)
    assert (img[0, 0, 0], img[0, 0, 1]) == (0, 0) and (presenter.pan.x, presenter.pan.y) == (cx, cy)

    wheel(presenter, -1)                                      # one notch down: further down the frame
    presenter.repaint()
    assert WHEEL_STEP_PX < fh - ah and shown(presenter)[0, 0, 1] == WHEEL_STEP_PX
    wheel(presenter, -1, Qt.KeyboardModifier.ShiftModifier)   # Shift: sideways, to the right edge
    presenter.repaint()
    img = shown(presenter)
    assert img[0, 0, 0] == fw - aw and img[ah - 1, aw - 1, 0] == fw - 1

    presenter.set_one_to_one(False)                           # fitted: no pan
    presenter.set_one_to_one(True)
    presenter.repaint()
    assert shown(presenter)[0, 0, 0] == cx


def test_a_frame_smaller_than_the_area_stays_centred_at_one_to_one():
    pan = Pan()
    pan.by(500, -500)
    assert pan.rect(40, 20, 100, 50, True) == (30, 15, 40, 20)
    assert (pan.x, pan.y) == (0, 0)
    pan.by(0, 7)
    assert pan.rect(40, 200, 100, 50, True) == (30, -75 + 7, 40, 200)
