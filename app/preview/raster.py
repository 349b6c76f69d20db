"""The raster presenter: paints the engine's bytes as a ``QImage`` over them (no copy).

Used where there is no OpenGL (the offscreen platform).  It never waits for a swap, so the frame
loop paces it with a timer.  It lends the render thread host buffers (four: two frames ahead,
the next present's and the one painted, which a repaint reads again); nearest-neighbour
scaling and the 1:1 pan are the GL presenter's (:mod:`app.preview.presenter`).

``presented`` means on screen as far as the platform can tell, as the GL presenter's does
(its ``frameSwapped`` follows a swap that Mesa's software path ends with an ``XSync``): a
present paints and flushes the backing store at once (``repaint()``, not a deferred
``update()``), then makes a round trip to the X server on Qt's own connection
(:func:`x_server_sync`), whose reply comes only after the server has processed the image
put before it.  A paint emitted from ``paintEvent`` itself came before the flush: a remote
acknowledgement sent from it could reach the calibration program before the X server showed
the patch.  A widget that is hidden or unmapped paints nothing and presents nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import time

import numpy as np
from PySide6.QtCore import QRect, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtWidgets import QWidget

from app.preview.pixel_buffers import FREE, PENDING, SHOWN, FrameBuffers
from app.preview.presenter import Pan, wrap_qimage


class _Cookie(ctypes.Structure):
    _fields_ = [("sequence", ctypes.c_uint)]


_XCB: list = []        # [(libxcb, free)] once loaded; [None] where it cannot be


def _xcb():
    if not _XCB:
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("xcb") or "libxcb.so.1")
            lib.xcb_get_input_focus.restype = _Cookie
            lib.xcb_get_input_focus.argtypes = [ctypes.c_void_p]
            lib.xcb_get_input_focus_reply.restype = ctypes.c_void_p
            lib.xcb_get_input_focus_reply.argtypes = [ctypes.c_void_p, _Cookie, ctypes.c_void_p]
            libc = ctypes.CDLL(None)
            libc.free.argtypes = [ctypes.c_void_p]
            _XCB.append((lib, libc.free))
        except (OSError, AttributeError):
            _XCB.append(None)
    return _XCB[0]


def x_server_sync() -> bool:
    """A round trip to the X server on Qt's own xcb connection (``xcb_get_input_focus`` and its
    reply, as Qt's own ``sync()``): every request Qt made before it -- the backing store's image
    put -- has been processed when it returns True.  False where there is no X server (another
    platform) or the round trip failed: nothing could be confirmed."""
    if QGuiApplication.platformName() != "xcb":
        return False
    native = QGuiApplication.instance().nativeInterface() if QGuiApplication.instance() else None
    conn = native.connection() if native is not None and hasattr(native, "connection") else 0
    lib = _xcb() if conn else None
    if lib is None:
        return False
    xcb, free = lib
    reply = xcb.xcb_get_input_focus_reply(conn, xcb.xcb_get_input_focus(conn), None)
    if not reply:
        return False
    free(reply)
    return True


class RasterPresenter(QWidget):
    """Paints the engine's bytes as a QImage; paced by the loop's timer."""

    presented = Signal(float, float, float)
    key_pressed = Signal(object)
    surface_ready = Signal(int)
    releasing = Signal()
    close_requested = Signal()     # the window system asked to close it: the owner closes it
    kind = "raster"
    vsync_capable = False
    surface_bits = 8
    updates_lines = False          # every frame is painted whole from its own buffer

    def __init__(self, clock=time.perf_counter, parent=None):
        super().__init__(parent)
        self._clock = clock
        self._buffers = FrameBuffers(4)     # two ahead, the next present's, the one painted
        self._frame: np.ndarray | None = None       # what the next paint shows
        self._shown: np.ndarray | None = None       # what the last paint showed
        self._image: QImage | None = None
        self.uploads = {"host": 0}
        self._upload_ms = 0.0
        self.one_to_one = False
        self.pan = Pan()
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumSize(160, 90)
        self.confirmed = 0                  # presents the X server confirmed having (x_server_sync)
        self._paints = 0
        self._paint_t0 = 0.0
        self._present_timer = QTimer(self)  # presents run after request_present() returns
        self._present_timer.setSingleShot(True)
        self._present_timer.timeout.connect(self._present)

    def set_frame(self, data: np.ndarray, lines: tuple | None = None, key=None) -> None:
        """``lines`` is refused (``ValueError``): it never holds a frame to write them over."""
        if lines is not None:
            raise ValueError("lines: the raster presenter holds no frame to update")
        t0 = self._clock()
        self.withdraw()
        slot = self._buffers.find(data)
        if slot is not None:
            self._buffers.set_state(slot, PENDING)
        self._frame = data if slot is not None else np.ascontiguousarray(data)
        self._image = wrap_qimage(self._frame)
        self.uploads["host"] += 1
        self._upload_ms = (self._clock() - t0) * 1e3

    def holds(self, key) -> bool:
        return False

    def request_present(self) -> None:
        if not self._present_timer.isActive():
            self._present_timer.start(0)

    def _present(self) -> None:
        """Paint and flush now; ``presented`` once the X server has the frame (see the module)."""
        painted = self._paints
        self.repaint()
        if self._paints == painted:
            return                          # hidden or unmapped: nothing reached the screen
        if x_server_sync():
            self.confirmed += 1
        upload, self._upload_ms = self._upload_ms, 0.0
        self.presented.emit(self._paint_t0, self._clock(), upload)

    def lend_buffer(self, shape, dtype) -> np.ndarray | None:
        return self._buffers.lend(shape, dtype)

    def give_back(self, buffer) -> None:
        self._buffers.give_back(buffer)

    def withdraw(self) -> None:
        if self._frame is self._shown:
            return
        slot = self._buffers.find(self._frame)
        if slot is not None:
            self._buffers.set_state(slot, FREE)
        self._frame = self._shown
        self._image = wrap_qimage(self._shown) if self._shown is not None else None

    def set_one_to_one(self, on: bool) -> None:
        self.one_to_one = bool(on)
        self.pan.reset()
        self.update()

    def grab_image(self) -> QImage:
        return self.grab().toImage()

    def device_size(self) -> tuple[int, int]:
        dpr = self.devicePixelRatioF()
        return round(self.width() * dpr), round(self.height() * dpr)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._paint_t0 = self._clock()
        self._paints += 1
        if self._frame is not self._shown:        # the frame set is painted: the old one is free
            old = self._buffers.find(self._shown)
            if old is not None:
                self._buffers.set_state(old, FREE)
            new = self._buffers.find(self._frame)
            if new is not None:
                self._buffers.set_state(new, SHOWN)
            self._shown = self._frame
        p = QPainter(self)
        p.fillRect(self.rect(), Qt.GlobalColor.black)
        if self._image is not None:
            dpr = self.devicePixelRatioF()
            dw, dh = self.device_size()
            x, y, w, h = self.pan.rect(self._image.width(), self._image.height(), dw, dh, self.one_to_one)
            # no SmoothPixmapTransform: nearest, so a scaled preview shows only the frame's values
            target = QRect(round(x / dpr), round(y / dpr), round(w / dpr), round(h / dpr))
            p.drawImage(target, self._image)
        p.end()

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.key_pressed.emit(event)
        super().keyPressEvent(event)

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.pan.press(event, self.devicePixelRatioF())

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self.one_to_one and self.pan.move(event, self.devicePixelRatioF()):
            self.update()

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.pan.release()

    def wheelEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self.one_to_one:
            self.pan.wheel(event)
            self.update()

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        # as for the GL presenter: the owner hears of it and stops presenting here
        super().closeEvent(event)
        self.close_requested.emit()

    def release(self) -> None:
        self.releasing.emit()
        self._image = None
        self._frame = self._shown = None
        self._buffers.clear()
