"""Presenters: put the engine's display-ready bytes on screen and say when they got there.

:class:`Presenter` is what the frame loop presents with (``set_frame``,
``request_present``, the ``presented`` and ``surface_ready`` signals, ``kind``,
``vsync_capable``, ``surface_bits``).  Two implementations, which the main window also
asks for ``set_one_to_one``, ``key_pressed``, ``grab_image``, ``release`` and
``close_requested`` (the window system asked to close it: its owner closes it, see below):

* :class:`GLPresenter` -- a ``QOpenGLWindow`` with swap interval 1.  The frame
  is uploaded with ``glTexSubImage2D`` into the colour texture of a frame
  buffer object (RGBX8888 bytes as GL_RGBA/UNSIGNED_BYTE into RGBA8, or Format_RGB30
  words as GL_BGRA/UNSIGNED_INT_2_10_10_10_REV into RGB10_A2 when the surface is 10-bit),
  from the pixel-buffer object the engine wrote it into (:mod:`app.preview.pixel_buffers`),
  then blitted to the window, flipped so row 0 is the top.  ``presented``
  fires from ``frameSwapped``.
* :class:`~app.preview.raster.RasterPresenter` (its own module) -- a ``QWidget`` that paints a
  ``QImage`` wrapping the same bytes (no copy).  Used where there is no OpenGL (the offscreen
  platform); it never waits for a swap, so the loop paces it with a timer.

A GL presenter is closed by its owner in one order: :meth:`GLPresenter.release` (the GL objects
freed on its own native window), ``hide()``, then deleting it, never ``close()`` first.  Qt's
``QOpenGLWindow`` creates its context for the primary screen whatever screen the window is on,
and once the native window is gone (``close()`` destroys it) Qt makes that context current on a
stand-in surface of the window's screen to clean up; on a second X screen Mesa crashes binding
a context of one X screen to a surface of another.  A close by the window system is refused
for the same reason and emitted as ``close_requested``: the owner closes the window so.

Neither draws the pattern itself: what is shown is the engine's frame.  Both scale with
nearest-neighbour sampling, never smoothing: a scaled preview shows only code values the frame
has (a fine checkerboard aliases rather than turning grey).  At 1:1 a frame larger than the
window is panned by dragging it or with the wheel (Shift+wheel: sideways); :class:`Pan` keeps
the offset inside the frame.
"""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable

import numpy as np
from PySide6.QtCore import Qt, Signal, SignalInstance
from PySide6.QtGui import QGuiApplication, QImage, QOpenGLContext
from PySide6.QtOpenGL import QOpenGLFramebufferObject, QOpenGLFramebufferObjectFormat, QOpenGLWindow

from app.preview.pixel_buffers import FREE, PENDING, FrameBuffers, PixelBuffers
from app.preview.placement import frame_rect

GL_TEXTURE_2D = 0x0DE1
GL_RGBA = 0x1908
GL_BGRA = 0x80E1
GL_UNSIGNED_BYTE = 0x1401
GL_UNSIGNED_INT_2_10_10_10_REV = 0x8368
GL_RGBA8 = 0x8058
GL_RGB10_A2 = 0x8059
GL_READ_FRAMEBUFFER = 0x8CA8
GL_DRAW_FRAMEBUFFER = 0x8CA9
GL_COLOR_BUFFER_BIT = 0x4000
GL_NEAREST = 0x2600
WHEEL_STEP_PX = 120     # device pixels panned per wheel notch at 1:1
# texture format, and the upload's (format, type), per display format.  RGBA8, not RGB8: the
# bytes are copied as they are (llvmpipe converts into RGB8 at half the speed; the X byte is 255)
TEXTURE = {"rgb8": (GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE),
           "rgb10": (GL_RGB10_A2, GL_BGRA, GL_UNSIGNED_INT_2_10_10_10_REV)}


@runtime_checkable
class Presenter(Protocol):
    """What :class:`~app.preview.frame_loop.FrameLoop` presents with (the preview, the output
    window and the mirror are each one of these)."""

    presented: SignalInstance      # (paint_start_s, done_s, upload_ms) once per present
    surface_ready: SignalInstance  # (surface_bits) once the surface's real format is known
    releasing: SignalInstance      # release() is about to free the buffers it lent
    kind: str                      # "opengl", "raster": named in pacing reasons and benchmarks
    vsync_capable: bool            # False: its presents never wait for a vblank; pace by timer
    surface_bits: int              # 8 or 10: the format the engine renders for it
    updates_lines: bool            # False: it never holds a frame, so holds() is always False

    def set_frame(self, data: np.ndarray, lines: tuple | None = None, key=None) -> None:
        """Take the engine's display-ready bytes for the next present: a buffer it lent (shown
        from there), or any other array (kept, and not to be written again).  ``key`` names the
        frame (its spec and format); ``lines``, given only while ``holds(key)``: only those
        spans of ``data`` are written, the rest is the whole frame of ``key`` it holds."""

    def holds(self, key) -> bool:
        """Whether it holds a whole frame of ``key``, so a frame of it may update only its
        changing lines (read from the render thread too).  Always False where it never holds
        a frame (``updates_lines`` False)."""

    def request_present(self) -> None:
        """Present the last frame set; ``presented`` follows, never from inside this call."""

    def lend_buffer(self, shape: tuple, dtype) -> np.ndarray | None:
        """A buffer the next frame may be written into, from any thread, until it is passed to
        ``set_frame`` or ``give_back``; None while every one is in use."""

    def give_back(self, buffer: np.ndarray) -> None:
        """A lent buffer whose frame will not be shown."""

    def withdraw(self) -> None:
        """The frame set since the last present is outdated: the present asked for repeats
        what is on screen."""


class Pan:
    """The 1:1 view's offset from centre, in device pixels, kept so the frame covers the area."""

    def __init__(self):
        self.x = self.y = 0
        self._drag = None

    def rect(self, frame_w: int, frame_h: int, area_w: int, area_h: int,
             one_to_one: bool) -> tuple[int, int, int, int]:
        """:func:`frame_rect`, moved by the offset at 1:1 (the offset is clamped first)."""
        x, y, w, h = frame_rect(frame_w, frame_h, area_w, area_h, one_to_one)
        if not one_to_one:
            return x, y, w, h
        self.x = _clamp(self.x, min(0, area_w - w) - x, -x) if w > area_w else 0
        self.y = _clamp(self.y, min(0, area_h - h) - y, -y) if h > area_h else 0
        return x + self.x, y + self.y, w, h

    def reset(self) -> None:
        self.x = self.y = 0

    def by(self, dx: float, dy: float) -> None:
        self.x += round(dx)
        self.y += round(dy)

    def press(self, event, dpr: float) -> bool:
        if event.button() != Qt.MouseButton.LeftButton:
            return False
        self._drag = (event.position().x() * dpr, event.position().y() * dpr)
        return True

    def move(self, event, dpr: float) -> bool:
        if self._drag is None:
            return False
        x, y = event.position().x() * dpr, event.position().y() * dpr
        self.by(x - self._drag[0], y - self._drag[1])
        self._drag = (x, y)
        return True

    def release(self) -> None:
        self._drag = None

    def wheel(self, event) -> None:
        notches = event.angleDelta().y() / 120.0
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.by(notches * WHEEL_STEP_PX, 0)
        else:
            self.by(0, notches * WHEEL_STEP_PX)


def _clamp(v: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, v))


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
    releasing = Signal()
    close_requested = Signal()     # the window system asked to close it (see the module's note)
    kind = "opengl"
    vsync_capable = True
    updates_lines = True     # the texture keeps the frame: a frame of only its changing lines updates those
    pixel_buffers = True     # lend mapped pixel-buffer objects where there is a context

    def __init__(self, clock=time.perf_counter):
        super().__init__(QOpenGLWindow.UpdateBehavior.NoPartialUpdate)
        self._clock = clock
        self._pbos = PixelBuffers(self, clock=clock)
        self._host = FrameBuffers(3)              # before the context exists, or without PBOs
        self._pending: tuple | None = None       # (array, its pool or None) for the next paint
        self.uploads = {"pbo": 0, "host": 0}
        self._fbo: QOpenGLFramebufferObject | None = None
        self._fbo_key = None
        self.held_key = None                      # the key of the whole frame the texture holds
        self.line_uploads = 0                     # uploads of only a frame's changing lines
        self._t_paint = 0.0
        self._upload_ms = 0.0
        self.one_to_one = False
        self.pan = Pan()
        self.surface_bits = 8
        self.frameSwapped.connect(self._on_swapped)

    # -- interface
    def set_frame(self, data: np.ndarray, lines: tuple | None = None, key=None) -> None:
        """``lines``: only these spans of ``data`` are written, the rest of a frame of ``key``
        is the one the texture holds (refused with ``ValueError`` unless ``holds(key)``)."""
        frame_format(data)
        if lines is not None and not self.holds(key):
            raise ValueError("lines: the texture does not hold a whole frame of this key")
        self.withdraw()
        pool = next((p for p in (self._pbos, self._host) if p.find(data) is not None), None)
        if pool is not None:
            pool.set_state(pool.find(data), PENDING)
        self._pending = (data if pool is not None else np.ascontiguousarray(data), pool, lines, key)

    def holds(self, key) -> bool:
        """Whether the texture holds a whole frame of ``key``: a frame of it may update only its
        changing lines.  Read from the render thread too (one attribute read)."""
        return key is not None and self.held_key == key

    def request_present(self) -> None:
        self.update()

    def lend_buffer(self, shape, dtype) -> np.ndarray | None:
        if self.pixel_buffers and self.context() is not None:
            buf = self._pbos.lend(shape, dtype)
            if buf is not None or self._pbos.in_use() >= self._pbos.count:
                self._host.drop_free()           # lent before the context existed
                return buf
        return self._host.lend(shape, dtype)

    def give_back(self, buffer) -> None:
        self._pbos.give_back(buffer) or self._host.give_back(buffer)

    def withdraw(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None and pending[1] is not None:
            pending[1].give_back(pending[0])

    def set_one_to_one(self, on: bool) -> None:
        self.one_to_one = bool(on)
        self.pan.reset()
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
        ff.setInternalTextureFormat(TEXTURE[fmt][0])
        self.held_key = None                      # a new texture holds no frame yet
        self._fbo = QOpenGLFramebufferObject(w, h, ff)
        self._fbo_key = key

    def _upload(self) -> float:
        """The pending frame into the texture: from its pixel buffer, or from host memory."""
        (data, pool, lines, key), self._pending = self._pending, None
        fmt = frame_format(data)
        h, w = data.shape[:2]
        self._ensure_fbo(w, h, fmt)
        if lines is not None and not self.holds(key):   # a new texture since set_frame
            lines = None                                  # (not reached: the key fixes the size)
        spans = ((0, h),) if lines is None else lines
        f = self.context().functions()
        t0 = self._clock()
        f.glBindTexture(GL_TEXTURE_2D, self._fbo.texture())
        stride = data.strides[0]
        # texture row y is frame line y (the blit flips): a span is its own rows, from its offset
        regions = [((GL_TEXTURE_2D, 0, 0, y0, w, y1 - y0, *TEXTURE[fmt][1:]), y0 * stride, (y0, y1))
                   for y0, y1 in spans]
        if pool is self._pbos:
            self._pbos.upload(self._pbos.find(data), f, [(args, offset) for args, offset, _ in regions])
            self.uploads["pbo"] += 1
        else:
            for args, _offset, (y0, y1) in regions:
                f.glTexSubImage2D(*args, data[y0:y1])
            if pool is not None:
                pool.set_state(pool.find(data), FREE)
            self.uploads["host"] += 1
        f.glBindTexture(GL_TEXTURE_2D, 0)
        if lines is None:
            self.held_key = key
        else:
            self.line_uploads += 1
        return (self._clock() - t0) * 1e3

    def paintGL(self) -> None:
        self._t_paint = self._clock()
        # the GUI thread's share of moving pixels: mapping buffers since the last present, and
        # the upload (none when the frame on screen is presented again)
        self._upload_ms, self._pbos.map_ms = self._pbos.map_ms, 0.0
        f = self.context().functions()
        if self._pending is not None:
            self._upload_ms += self._upload()
        ef = self.context().extraFunctions()
        # creating the FBO bound it; clear the window's framebuffer, not the frame just uploaded
        ef.glBindFramebuffer(GL_DRAW_FRAMEBUFFER, self.defaultFramebufferObject())
        f.glClearColor(0.0, 0.0, 0.0, 1.0)
        f.glClear(GL_COLOR_BUFFER_BIT)
        if self._fbo is None:
            return
        fw, fh = self._fbo_key[0], self._fbo_key[1]
        dw, dh = self.device_size()
        x, y, w, h = self.pan.rect(fw, fh, dw, dh, self.one_to_one)
        ef.glBindFramebuffer(GL_READ_FRAMEBUFFER, self._fbo.handle())
        # destination y runs top to bottom: row 0 of the frame lands at the top; nearest, never
        # smoothed: a scaled preview shows only the frame's own code values
        ef.glBlitFramebuffer(0, 0, fw, fh, x, dh - y, x + w, dh - y - h, GL_COLOR_BUFFER_BIT,
                             GL_NEAREST)
        ef.glBindFramebuffer(GL_READ_FRAMEBUFFER, self.defaultFramebufferObject())

    def _on_swapped(self) -> None:
        self.presented.emit(self._t_paint, self._clock(), self._upload_ms)

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.key_pressed.emit(event)

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.pan.press(event, self.devicePixelRatio())

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self.one_to_one and self.pan.move(event, self.devicePixelRatio()):
            self.update()

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.pan.release()

    def wheelEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self.one_to_one:
            self.pan.wheel(event)
            self.update()

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        # taken, the close would destroy the native window before the GL objects are freed and
        # the object deleted (see the module's note): the owner is asked to close it instead
        event.ignore()
        self.close_requested.emit()

    def release(self) -> None:
        """Free GL objects while the context still exists (``releasing`` first: the loop stops
        writing into the buffers lent)."""
        self.releasing.emit()
        self._pending = None
        if self.context() is not None:
            self.makeCurrent()
            self._pbos.clear()
            self._fbo = None
            self._fbo_key = None
            self.held_key = None
            self.doneCurrent()
        self._host.clear()

