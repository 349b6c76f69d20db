"""Presenters: put the engine's display-ready bytes on screen and say when they got there.

:class:`Presenter` is what the frame loop presents with (``set_frame``,
``request_present``, the ``presented`` and ``surface_ready`` signals, ``kind``,
``vsync_capable``, ``surface_bits``).  Two implementations, which the main window also
asks for ``set_one_to_one``, ``key_pressed``, ``grab_image`` and ``release``:

* :class:`GLPresenter` -- a ``QOpenGLWindow`` with swap interval 1.  The frame
  is uploaded with ``glTexSubImage2D`` into the colour texture of a frame
  buffer object (RGBX8888 bytes as GL_RGBA/UNSIGNED_BYTE, or Format_RGB30
  words as GL_BGRA/UNSIGNED_INT_2_10_10_10_REV when the surface is 10-bit),
  then blitted to the window (nearest at 1:1, linear when fitted), flipped
  so row 0 is the top.  ``presented`` fires from ``frameSwapped``.
* :class:`RasterPresenter` -- a ``QWidget`` that paints a ``QImage`` wrapping
  the same bytes (no copy).  Used where there is no OpenGL (the offscreen
  platform); it never waits for a swap, so the loop paces it with a timer.

Neither draws the pattern itself: what is shown is the engine's frame.
"""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable

import numpy as np
from PySide6.QtCore import QRect, Qt, Signal, SignalInstance
from PySide6.QtGui import QGuiApplication, QImage, QOpenGLContext, QPainter
from PySide6.QtOpenGL import QOpenGLFramebufferObject, QOpenGLFramebufferObjectFormat, QOpenGLWindow
from PySide6.QtWidgets import QWidget

from app.preview.placement import frame_rect

GL_TEXTURE_2D = 0x0DE1
GL_RGBA = 0x1908
GL_BGRA = 0x80E1
GL_UNSIGNED_BYTE = 0x1401
GL_UNSIGNED_INT_2_10_10_10_REV = 0x8368
GL_RGB8 = 0x8051
GL_RGB10_A2 = 0x8059
GL_READ_FRAMEBUFFER = 0x8CA8
GL_DRAW_FRAMEBUFFER = 0x8CA9
GL_COLOR_BUFFER_BIT = 0x4000
GL_NEAREST = 0x2600
GL_LINEAR = 0x2601


@runtime_checkable
class Presenter(Protocol):
    """What :class:`~app.preview.frame_loop.FrameLoop` presents with (the preview, the output
    window and the mirror are each one of these)."""

    presented: SignalInstance      # (paint_start_s, done_s, upload_ms) once per present
    surface_ready: SignalInstance  # (surface_bits) once the surface's real format is known
    kind: str                      # "opengl", "raster": named in pacing reasons and benchmarks
    vsync_capable: bool            # False: its presents never wait for a vblank; pace by timer
    surface_bits: int              # 8 or 10: the format the engine renders for it

    def set_frame(self, data: np.ndarray) -> None:
        """Take the engine's display-ready bytes for the next present."""

    def request_present(self) -> None:
        """Present the last frame set; ``presented`` follows, never from inside this call."""


def gl_problem() -> str | None:
    """Why this platform cannot run the GL presenter, or None when it can."""
    name = QGuiApplication.platformName()
    if name in ("offscreen", "minimal", "vnc"):
        return f"the {name} platform has no OpenGL"
    ctx = QOpenGLContext()
    if not ctx.create():
        return "no OpenGL context could be created"
    return None


def frame_format(data: np.ndarray) -> str:
    """'rgb8' for (H, W, 4) uint8 RGBX, 'rgb10' for (H, W) uint32 RGB30 words."""
    if data.ndim == 3 and data.shape[2] == 4 and data.dtype == np.uint8:
        return "rgb8"
    if data.ndim == 2 and data.dtype == np.uint32:
        return "rgb10"
    raise ValueError(f"not a display-ready frame: shape {data.shape}, dtype {data.dtype}")


def wrap_qimage(data: np.ndarray) -> QImage:
    """A QImage over ``data``'s memory (no copy); keep ``data`` alive while it is used."""
    fmt = frame_format(data)
    h, w = data.shape[:2]
    qfmt = QImage.Format.Format_RGBX8888 if fmt == "rgb8" else QImage.Format.Format_RGB30
    return QImage(data.data, w, h, data.strides[0], qfmt)


class GLPresenter(QOpenGLWindow):
    """Vsync-paced presenter; ``presented(paint_start_s, swapped_s, upload_ms)`` per swap."""

    presented = Signal(float, float, float)
    key_pressed = Signal(object)
    surface_ready = Signal(int)
    kind = "opengl"
    vsync_capable = True

    def __init__(self, clock=time.perf_counter):
        super().__init__(QOpenGLWindow.UpdateBehavior.NoPartialUpdate)
        self._clock = clock
        self._frame: np.ndarray | None = None
        self._dirty = False
        self._fbo: QOpenGLFramebufferObject | None = None
        self._fbo_key = None
        self._t_paint = 0.0
        self._upload_ms = 0.0
        self.one_to_one = False
        self.surface_bits = 8
        self.frameSwapped.connect(self._on_swapped)

    # -- interface
    def set_frame(self, data: np.ndarray) -> None:
        frame_format(data)
        self._frame = np.ascontiguousarray(data)
        self._dirty = True

    def request_present(self) -> None:
        self.update()

    def set_one_to_one(self, on: bool) -> None:
        self.one_to_one = bool(on)
        self.update()

    def grab_image(self) -> QImage:
        return self.grabFramebuffer()

    def device_size(self) -> tuple[int, int]:
        dpr = self.devicePixelRatio()
        return round(self.width() * dpr), round(self.height() * dpr)

    # -- GL
    def initializeGL(self) -> None:
        fmt = self.context().format()
        self.surface_bits = 10 if fmt.redBufferSize() >= 10 else 8
        self.surface_ready.emit(self.surface_bits)

    def _ensure_fbo(self, w: int, h: int, fmt: str) -> None:
        key = (w, h, fmt)
        if self._fbo_key == key:
            return
        ff = QOpenGLFramebufferObjectFormat()
        ff.setAttachment(QOpenGLFramebufferObject.Attachment.NoAttachment)
        ff.setInternalTextureFormat(GL_RGB10_A2 if fmt == "rgb10" else GL_RGB8)
        self._fbo = QOpenGLFramebufferObject(w, h, ff)
        self._fbo_key = key

    def _upload(self) -> float:
        data = self._frame
        fmt = frame_format(data)
        h, w = data.shape[:2]
        self._ensure_fbo(w, h, fmt)
        f = self.context().functions()
        t0 = self._clock()
        f.glBindTexture(GL_TEXTURE_2D, self._fbo.texture())
        if fmt == "rgb10":
            f.glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_BGRA, GL_UNSIGNED_INT_2_10_10_10_REV, data)
        else:
            f.glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, data)
        f.glBindTexture(GL_TEXTURE_2D, 0)
        return (self._clock() - t0) * 1e3

    def paintGL(self) -> None:
        self._t_paint = self._clock()
        self._upload_ms = 0.0
        f = self.context().functions()
        if self._frame is not None and self._dirty:
            self._upload_ms = self._upload()
            self._dirty = False
        ef = self.context().extraFunctions()
        # creating the FBO bound it; clear the window's framebuffer, not the frame just uploaded
        ef.glBindFramebuffer(GL_DRAW_FRAMEBUFFER, self.defaultFramebufferObject())
        f.glClearColor(0.0, 0.0, 0.0, 1.0)
        f.glClear(GL_COLOR_BUFFER_BIT)
        if self._fbo is None:
            return
        fw, fh = self._fbo_key[0], self._fbo_key[1]
        dw, dh = self.device_size()
        x, y, w, h = frame_rect(fw, fh, dw, dh, self.one_to_one)
        ef.glBindFramebuffer(GL_READ_FRAMEBUFFER, self._fbo.handle())
        # destination y runs top to bottom: row 0 of the frame lands at the top
        ef.glBlitFramebuffer(0, 0, fw, fh, x, dh - y, x + w, dh - y - h, GL_COLOR_BUFFER_BIT,
                             GL_NEAREST if (w, h) == (fw, fh) else GL_LINEAR)
        ef.glBindFramebuffer(GL_READ_FRAMEBUFFER, self.defaultFramebufferObject())

    def _on_swapped(self) -> None:
        self.presented.emit(self._t_paint, self._clock(), self._upload_ms)

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.key_pressed.emit(event)

    def release(self) -> None:
        """Free GL objects while the context still exists."""
        if self._fbo is not None and self.context() is not None:
            self.makeCurrent()
            self._fbo = None
            self._fbo_key = None
            self.doneCurrent()


class RasterPresenter(QWidget):
    """Paints the engine's bytes as a QImage; paced by the loop's timer."""

    presented = Signal(float, float, float)
    key_pressed = Signal(object)
    surface_ready = Signal(int)
    kind = "raster"
    vsync_capable = False
    surface_bits = 8

    def __init__(self, clock=time.perf_counter, parent=None):
        super().__init__(parent)
        self._clock = clock
        self._frame: np.ndarray | None = None
        self._image: QImage | None = None
        self._upload_ms = 0.0
        self.one_to_one = False
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumSize(160, 90)

    def set_frame(self, data: np.ndarray) -> None:
        t0 = self._clock()
        self._frame = np.ascontiguousarray(data)
        self._image = wrap_qimage(self._frame)
        self._upload_ms = (self._clock() - t0) * 1e3

    def request_present(self) -> None:
        self.update()

    def set_one_to_one(self, on: bool) -> None:
        self.one_to_one = bool(on)
        self.update()

    def grab_image(self) -> QImage:
        return self.grab().toImage()

    def device_size(self) -> tuple[int, int]:
        dpr = self.devicePixelRatioF()
        return round(self.width() * dpr), round(self.height() * dpr)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        t0 = self._clock()
        p = QPainter(self)
        p.fillRect(self.rect(), Qt.GlobalColor.black)
        if self._image is not None:
            dpr = self.devicePixelRatioF()
            dw, dh = self.device_size()
            x, y, w, h = frame_rect(self._image.width(), self._image.height(), dw, dh, self.one_to_one)
            if not self.one_to_one:
                p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
            target = QRect(round(x / dpr), round(y / dpr), round(w / dpr), round(h / dpr))
            p.drawImage(target, self._image)
        p.end()
        upload, self._upload_ms = self._upload_ms, 0.0
        self.presented.emit(t0, self._clock(), upload)

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.key_pressed.emit(event)
        super().keyPressEvent(event)

    def release(self) -> None:
        self._image = None
        self._frame = None
