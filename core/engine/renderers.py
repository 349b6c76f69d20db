"""Per-path renderers: the host buffer a frame lands in, numpy, and eager torch."""

from __future__ import annotations

import numpy as np

from core.engine import formats as F
from core.engine.gather import frame_rows, gather_into
from core.patterns import Spec

FRAME_MASK = (1 << 31) - 1


# ---------------------------------------------------------------- per-path renderers
class Target:
    """The host buffer a spec's frames land in, and (on torch) its device twin."""

    foreign = False   # True for a wrapped ``out``: not the engine's memory (maybe a GPU mapping)

    def __init__(self, spec: Spec, fmt: str, device):
        self.shape = F.host_shape(fmt, spec.width, spec.height)
        self.fmt, self.dtype = fmt, spec.dtype
        self.device = device
        if device is None:
            raw = np.zeros(self.shape, dtype=F.device_dtype(np, fmt, spec.dtype))
            self.dev = None
        else:
            import torch

            carrier = getattr(torch, F.device_dtype(torch, fmt, spec.dtype))
            if device.type == "cpu":
                host = torch.zeros(self.shape, dtype=carrier)
                self.dev = host             # the device buffer is the host buffer
            else:
                pin = device.type == "cuda"
                host = torch.zeros(self.shape, dtype=carrier, pin_memory=pin)
                self.dev = torch.zeros(self.shape, dtype=carrier, device=device)
            self.host_tensor = host
            raw = host.numpy()
        self.raw = raw
        self.data = F.host_view(raw, fmt, spec.dtype)

    def wrap(self, out: np.ndarray) -> Target:
        """A target writing into ``out``, foreign memory (a mapped pixel buffer) in this target's
        host layout; on CUDA and MPS the device buffer is this one's.  Refuses (``ValueError``,
        naming ``out``) an array of another layout, or one that is read-only or strided."""
        want = np.dtype(F.host_dtype(self.fmt, self.dtype))
        if not isinstance(out, np.ndarray) or out.shape != self.shape or out.dtype != want \
                or not out.flags.c_contiguous or not out.flags.writeable:
            got = (f"shape {out.shape}, dtype {out.dtype}" + ("" if out.flags.c_contiguous else ", strided")
                   + ("" if out.flags.writeable else ", read-only")) if isinstance(out, np.ndarray) \
                else type(out).__name__
            raise ValueError(f"out: expected a writable C-contiguous {self.shape} {want} array for "
                             f"{self.fmt}, got {got}")
        t = Target.__new__(Target)
        t.shape, t.fmt, t.dtype, t.device = self.shape, self.fmt, self.dtype, self.device
        t.raw = raw = out.view(self.raw.dtype)
        t.data = out
        t.foreign = True
        if self.device is not None:
            import torch

            t.host_tensor = torch.from_numpy(raw)
            t.dev = t.host_tensor if self.device.type == "cpu" else self.dev
        else:
            t.dev = None
        return t


class Renderer:
    name = ""
    warm_frames = 1   # first frames of a path carry one-off costs; not for statistics
    writes_lines = False   # whether it can write only some lines of a frame (``lines``)
    lines: tuple | None = None   # the spans the next render writes (None: the whole frame)

    def __init__(self, spec: Spec, fmt: str, device, target: Target, clock):
        self.spec, self.fmt, self.device, self.target, self.clock = spec, fmt, device, target, clock
        self.frames = 0

    def render(self, index: int) -> tuple[float, float]:  # pragma: no cover - abstract
        raise NotImplementedError

    def rebind(self, target: Target) -> None:
        """Write the next frames into ``target`` (the engine's buffer, or one wrapping ``out``)."""
        self.target = target


class NumpyRenderer(Renderer):
    name = "numpy"
    writes_lines = True

    def render(self, index):
        t0 = self.clock()
        # the host buffer is offered to the body when the rows are already in its format and
        # the buffer is the engine's own: the body may read back what it wrote there (a
        # mapped pixel buffer can be write-combined memory, slow to read)
        whole = self.lines is None and self.fmt == "native" and not self.target.foreign
        plan = frame_rows(np, self.spec, self.fmt, index & FRAME_MASK,
                          into=self.target.raw if whole else None)
        if self.lines is None:
            gather_into(np, plan, self.target.raw)
        else:
            for y0, y1 in self.lines:
                gather_into(np, plan.lines(y0, y1), self.target.raw[y0:y1])
        self.frames += 1
        return (self.clock() - t0) * 1e3, 0.0


class TorchRenderer(Renderer):
    """Eager torch; the compiled subclasses swap the frame function."""

    name = "torch-eager"

    def __init__(self, spec, fmt, device, target, clock):
        super().__init__(spec, fmt, device, target, clock)
        import torch

        self.torch = torch
        self.frame = torch.zeros((), dtype=torch.int64, device=device)
        self.cuda = device.type == "cuda"
        self.mps = device.type == "mps"
        if self.cuda:
            self.events = [torch.cuda.Event(enable_timing=True) for _ in range(3)]

    def produce(self):
        """Render into the device buffer; may return a tensor to copy out instead."""
        plan = frame_rows(self.torch, self.spec, self.fmt, self.frame, self.device)
        gather_into(self.torch, plan, self.target.dev)
        return None

    def render(self, index):
        torch, tgt = self.torch, self.target
        assert tgt.dev is not None   # a torch target always has its device buffer
        if self.cuda:
            start, mid, end = self.events
            start.record()
            self.frame.fill_(index & FRAME_MASK)
            result = self.produce()
            mid.record()
            tgt.host_tensor.copy_(result if result is not None else tgt.dev, non_blocking=True)
            end.record()
            end.synchronize()
            self.frames += 1
            return start.elapsed_time(mid), mid.elapsed_time(end)
        t0 = self.clock()
        self.frame.fill_(index & FRAME_MASK)
        result = self.produce()
        if self.mps:
            torch.mps.synchronize()
        t1 = self.clock()
        transfer = 0.0
        if self.mps or result is not None:
            src = result if result is not None else tgt.dev
            if src.data_ptr() != tgt.host_tensor.data_ptr():
                tgt.host_tensor.copy_(src)
            transfer = (self.clock() - t1) * 1e3
        self.frames += 1
        return (t1 - t0) * 1e3, transfer
