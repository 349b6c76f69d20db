"""The books of lent frame buffers, and the raster presenter lending them (offscreen platform).
The GL pixel-buffer objects themselves run under Xvfb (test_xvfb.py)."""

import numpy as np
import pytest
from PySide6.QtGui import QImage

from app.preview import RasterPresenter
from app.preview.pixel_buffers import FREE, LENT, PENDING, SHOWN, FrameBuffers

pytestmark = pytest.mark.qt

SHAPE, DTYPE = (4, 6, 4), np.uint8


def test_buffers_are_lent_once_and_come_back():
    pool = FrameBuffers(2)
    a, b = pool.lend(SHAPE, DTYPE), pool.lend(SHAPE, DTYPE)
    assert a is not b and a.shape == SHAPE and a.dtype == DTYPE
    assert pool.lend(SHAPE, DTYPE) is None                     # both out: none to lend
    assert pool.give_back(a) and pool.find(a).state == FREE
    assert pool.lend(SHAPE, DTYPE) is a                         # reused, not reallocated
    pool.set_state(pool.find(b), PENDING)
    assert pool.lend(SHAPE, DTYPE) is None and pool.in_use() == 2
    assert not pool.give_back(np.zeros(SHAPE, DTYPE))          # not one of these


def test_a_new_layout_retires_buffers_in_use_until_they_come_back():
    pool = FrameBuffers(2)
    old = pool.lend(SHAPE, DTYPE)
    new = pool.lend((2, 3, 4), DTYPE)
    assert new.shape == (2, 3, 4) and pool.find(old).state == LENT   # still the render thread's
    assert pool.in_use() == 2
    pool.give_back(old)
    assert pool.find(old) is None and pool.in_use() == 1        # forgotten once back
    pool.lend((2, 3, 4), DTYPE)
    pool.give_back(new)
    pool.drop_free()
    assert [s.state for s in pool.slots] == [LENT]


@pytest.fixture
def presenter(qtbot):
    p = RasterPresenter()
    qtbot.addWidget(p)
    p.resize(160, 90)
    p.show()
    qtbot.waitExposed(p)
    return p


def rgbx(value):
    return np.full(SHAPE, value, np.uint8)


def pixel(p) -> int:
    img = p.grab_image().convertToFormat(QImage.Format.Format_RGBX8888)
    return QImage.pixelColor(img, img.width() // 2, img.height() // 2).red()


def test_the_raster_presenter_paints_from_a_lent_buffer_and_frees_the_one_before(presenter):
    p = presenter
    a = p.lend_buffer(SHAPE, DTYPE)
    a[...] = rgbx(40)
    p.set_frame(a)
    assert p._buffers.find(a).state == PENDING
    p.repaint()
    assert p._buffers.find(a).state == SHOWN and pixel(p) == 40   # repaints read it: not lent
    b = p.lend_buffer(SHAPE, DTYPE)
    assert b is not a
    b[...] = rgbx(90)
    p.set_frame(b)
    p.repaint()
    assert pixel(p) == 90 and p._buffers.find(a).state == FREE
    assert p.uploads == {"host": 2}


def test_a_withdrawn_frame_is_not_painted_and_its_buffer_is_free(presenter):
    p = presenter
    a = p.lend_buffer(SHAPE, DTYPE)
    a[...] = rgbx(40)
    p.set_frame(a)
    p.repaint()
    b = p.lend_buffer(SHAPE, DTYPE)
    b[...] = rgbx(200)
    p.set_frame(b)
    p.withdraw()                              # outdated before its present
    p.repaint()
    assert pixel(p) == 40 and p._buffers.find(b).state == FREE


def test_release_says_so_before_freeing(presenter, qtbot):
    p = presenter
    p.lend_buffer(SHAPE, DTYPE)
    with qtbot.waitSignal(p.releasing, timeout=1000):
        p.release()
    assert p._buffers.in_use() == 0 and p._buffers.slots == []
