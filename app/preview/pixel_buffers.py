"""The buffers a presenter lends the render thread: host arrays, and GL pixel-buffer objects.

The frame loop asks its presenter for a buffer (``lend_buffer``), the render thread has the
engine write the frame straight into it, and the loop either hands it to ``set_frame`` (it
will be shown) or gives it back (its frame is outdated).  :class:`FrameBuffers` keeps the
books for a few buffers of one layout: each is *free*, *lent* (the render thread may write
it), *pending* (handed to ``set_frame``, not yet presented) or *shown* (a raster paint reads
it); a buffer is never lent twice, and one lent or pending is never reused or freed.

:class:`PixelBuffers` backs them with ``GL_PIXEL_UNPACK_BUFFER`` objects, two ping-ponged: a
free one is mapped write-only (the old contents invalidated, so a driver still copying from it
hands out fresh memory instead of stalling), the mapped memory is lent as a numpy array in the
frame's packed format, and at the present it is unmapped and ``glTexSubImage2D`` reads the
texture's new contents from it.  The frame is written once, by the engine's gather; the
presenter copies nothing on the host.
"""

from __future__ import annotations

import ctypes
import time

import numpy as np

FREE, LENT, PENDING, SHOWN = "free", "lent", "pending", "shown"


class Slot:
    """One buffer: its memory (None while a pixel buffer is unmapped) and its state."""

    __slots__ = ("array", "state", "pbo")

    def __init__(self, array: np.ndarray | None = None, pbo=None):
        self.array = array
        self.state = FREE
        self.pbo = pbo


class FrameBuffers:
    """Up to ``count`` host arrays of one layout (shape, dtype), lent and taken back.

    A lend for another layout retires the buffers of the old one: those lent or pending are
    forgotten only once they come back, so memory the render thread may still write is never
    reused underneath it.
    """

    def __init__(self, count: int):
        self.count = int(count)
        self.layout: tuple | None = None
        self.slots: list[Slot] = []
        self._retired: list[Slot] = []

    def lend(self, shape, dtype) -> np.ndarray | None:
        """A free buffer of this layout, now lent; None when all ``count`` are in use."""
        layout = (tuple(int(n) for n in shape), np.dtype(dtype))
        if layout != self.layout:
            self._retire_all()
            self.layout = layout
        for slot in self.slots:
            if slot.state == FREE and self._acquire(slot):
                slot.state = LENT
                return slot.array
        if len(self.slots) < self.count:
            slot = self._new_slot()
            if slot is not None and self._acquire(slot):
                self.slots.append(slot)
                slot.state = LENT
                return slot.array
        return None

    def find(self, array) -> Slot | None:
        """The slot whose memory ``array`` is (by identity), retired ones included."""
        for slot in (*self.slots, *self._retired):
            if slot.array is not None and slot.array is array:
                return slot
        return None

    def give_back(self, array) -> bool:
        """A lent buffer comes back unshown; False when it is not one of these."""
        slot = self.find(array)
        if slot is None:
            return False
        self.set_state(slot, FREE)
        return True

    def set_state(self, slot: Slot, state: str) -> None:
        slot.state = state
        if state == FREE and slot in self._retired:
            self._retired.remove(slot)
            self._destroy(slot)

    def in_use(self) -> int:
        """Buffers lent or pending (the render thread's or the next present's)."""
        return sum(s.state in (LENT, PENDING) for s in (*self.slots, *self._retired))

    def drop_free(self) -> None:
        """Free the buffers no one uses (another pool serves from now on)."""
        for slot in [s for s in self.slots if s.state == FREE]:
            self.slots.remove(slot)
            self._destroy(slot)

    def clear(self) -> None:
        """Free everything (the owner is going away; nothing may be lent any more)."""
        for slot in (*self.slots, *self._retired):
            self._destroy(slot)
        self.slots, self._retired, self.layout = [], [], None

    def _retire_all(self) -> None:
        for slot in self.slots:
            if slot.state in (LENT, PENDING):
                self._retired.append(slot)
            else:
                self._destroy(slot)
        self.slots = []

    # -- memory: host arrays here, pixel buffers in the subclass
    def _new_slot(self) -> Slot | None:
        shape, dtype = self.layout
        return Slot(np.zeros(shape, dtype))

    def _acquire(self, slot: Slot) -> bool:
        return slot.array is not None

    def _destroy(self, slot: Slot) -> None:
        slot.array = None


class PixelBuffers(FrameBuffers):
    """:class:`FrameBuffers` in GL pixel-unpack buffers of ``window``'s context (two by default).

    Every method that touches GL makes the window's context current first.  ``map_ms`` adds up
    the time spent mapping since the caller last reset it (part of the upload's cost).
    """

    def __init__(self, window, count: int = 2, clock=time.perf_counter):
        super().__init__(count)
        self._window = window
        self._clock = clock
        self.map_ms = 0.0

    def _current(self) -> bool:
        ctx = self._window.context()
        if ctx is None:
            return False
        self._window.makeCurrent()
        return True

    def _new_slot(self) -> Slot | None:
        from PySide6.QtOpenGL import QOpenGLBuffer

        if not self._current():
            return None
        pbo = QOpenGLBuffer(QOpenGLBuffer.Type.PixelUnpackBuffer)
        if not pbo.create():
            return None
        pbo.setUsagePattern(QOpenGLBuffer.UsagePattern.StreamDraw)
        pbo.bind()
        pbo.allocate(self._nbytes())
        pbo.release()
        return Slot(None, pbo)

    def _nbytes(self) -> int:
        shape, dtype = self.layout
        return int(np.prod(shape)) * dtype.itemsize

    def _acquire(self, slot: Slot) -> bool:
        if slot.array is not None:          # still mapped (given back or withdrawn unshown)
            return True
        if not self._current():
            return False
        from PySide6.QtOpenGL import QOpenGLBuffer

        t0 = self._clock()
        access = QOpenGLBuffer.RangeAccessFlag
        slot.pbo.bind()
        ptr = slot.pbo.mapRange(0, self._nbytes(), access.RangeWrite | access.RangeInvalidateBuffer)
        slot.pbo.release()
        self.map_ms += (self._clock() - t0) * 1e3
        addr = int(ptr) if ptr is not None else 0
        if not addr:
            return False
        shape, dtype = self.layout
        raw = (ctypes.c_uint8 * self._nbytes()).from_address(addr)
        slot.array = np.frombuffer(raw, dtype).reshape(shape)
        return True

    def upload(self, slot: Slot, functions, regions) -> None:
        """Unmap ``slot`` and have ``glTexSubImage2D(*args, offset)`` read the bound texture's
        contents from it, for each ``(args, offset)`` of ``regions`` (the whole frame, or the
        spans that changed); the context is current: called from the paint."""
        import shiboken6

        slot.pbo.bind()
        slot.array = None                   # the memory is the driver's again
        slot.pbo.unmap()
        for args, offset in regions:
            functions.glTexSubImage2D(*args, shiboken6.VoidPtr(int(offset)))
        slot.pbo.release()
        self.set_state(slot, FREE)

    def _destroy(self, slot: Slot) -> None:
        if slot.pbo is not None and self._current():
            if slot.array is not None:
                slot.pbo.bind()
                slot.pbo.unmap()
                slot.pbo.release()
            slot.pbo.destroy()
        slot.array = None
        slot.pbo = None
