"""The compiled render paths: the whole frame as one Inductor graph (optionally CUDA graphs),
and the counter that proves how many graphs a compile made."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.engine import formats as F
from core.engine.gather import LeadLines, compiled_gather, finish_lines, frame_rows, realize_op
from core.engine.renderers import Target, TorchRenderer


class CompiledRenderer(TorchRenderer):
    """The whole frame (pattern, conversion, gather) as one Inductor graph.

    On the CPU the graph writes straight into the host buffer (Inductor turns
    ``out.copy_(frame)`` into the gather kernel's store; many full-width rows are
    stored over its first lines and the other lines copied from those after the
    graph, :func:`~core.engine.gather.finish_lines`); elsewhere it returns
    the frame, copied into the pinned host buffer.  With CUDA graphs the
    output lives in the graph's pool and is overwritten by the next replay,
    so it is copied out before the next frame.
    """

    def __init__(self, spec, fmt, device, clock, path, on_graph):
        import torch

        target = Target.__new__(Target)  # rebound to the engine's buffer before use
        super().__init__(spec, fmt, device, target, clock)
        self.name = path
        self.cudagraphs = path == "torch-cudagraphs"
        # CUDA graph trees are per thread: the serving thread warms and records its own
        self.warm_frames = 3 if self.cudagraphs else 1
        self.in_place = device.type == "cpu"
        realize = realize_op()
        height, width = spec.height, spec.width

        def frame_fn(frame):
            return compiled_gather(torch, frame_rows(torch, spec, fmt, frame, device), realize)

        def frame_into(frame, out):
            got = compiled_gather(torch, frame_rows(torch, spec, fmt, frame, device), realize, out=out)
            if isinstance(got, LeadLines):   # traced once: the count is the plan's
                self._lead = got.count
                return got.index, got.ordered
            if got is not None:
                out.copy_(got)
            return None

        self._frame_fn, self._frame_into = frame_fn, frame_into
        self._lead = 0   # rows the in-place graph leaves over the first lines (0: a whole frame)
        self._mode = "reduce-overhead" if self.cudagraphs else "default"
        self._on_graph = on_graph
        self.fn: Callable[..., Any] | None = None   # the compiled frame function, once built
        self._shape = F.host_shape(fmt, width, height)
        self._layout: tuple | None = None   # the graph's output (shape, dtype), once built
        self._dtype = getattr(torch, F.device_dtype(torch, fmt, spec.dtype))

    def build(self):
        """Trace the frame to aten ops, then hand that graph to torch.compile.

        The bodies run as plain Python once (host-side numpy, lists and tables
        evaluate at once), so dynamo sees a flat graph of tensor ops whose only
        input is the frame tensor; tracing the bodies' Python through dynamo
        instead took minutes for table-heavy patterns.  Dynamo still guards,
        counts and compiles the graph, so a recompile would still show.
        """
        torch = self.torch
        from torch.fx.experimental.proxy_tensor import make_fx

        example = torch.full((), 1, dtype=torch.int64, device=self.device)
        traced = make_fx(self._frame_fn)(example)
        probe = traced(example)
        self._layout = (tuple(probe.shape), probe.dtype)
        if self.in_place:
            # the graph ends in the host buffer (its last kernel's stores land there)
            fn = make_fx(self._frame_into)(example, torch.empty_like(probe))
        else:
            fn = traced
        self.fn = torch.compile(fn, backend=counting_inductor(self._mode, self._on_graph),
                                fullgraph=True, dynamic=False)

    def warm(self):
        """Build and compile on a dummy frame (a frame index other than the first one served)."""
        torch = self.torch
        if self.fn is None:
            self.build()
        assert self.fn is not None   # build() compiled it
        dummy = torch.full((), 1, dtype=torch.int64, device=self.device)
        if self.in_place:
            self.fn(dummy, self._graph_view(torch.empty(self._shape, dtype=self._dtype, device=self.device)))
        else:
            if self.cudagraphs:
                torch.compiler.cudagraph_mark_step_begin()
            self.fn(dummy)
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def _graph_view(self, buf):
        """``buf`` (the frame's own layout) seen in the graph's output layout (words or elements)."""
        shape, dtype = self._layout or (tuple(buf.shape), buf.dtype)
        if buf.dtype == dtype and tuple(buf.shape) == shape:
            return buf
        return buf.reshape(shape[0], -1).view(dtype)

    def rebind(self, target: Target) -> None:
        self.target = target
        self._out = self._graph_view(target.dev) if self.in_place else None

    def produce(self):
        assert self.fn is not None   # warm() built it before the engine serves this path
        if self.in_place:
            got = self.fn(self.frame, self._out)
            if self._lead:
                finish_lines(self.torch, self._out, self._lead, *got)
            return None
        if self.cudagraphs:
            self.torch.compiler.cudagraph_mark_step_begin()
        out = self.fn(self.frame)
        return out if out.dtype == self._dtype else out.view(self._dtype).reshape(self._shape)


def counting_inductor(mode: str, on_graph):
    """Inductor with ``mode``'s options, calling ``on_graph()`` for every graph compiled."""
    import torch
    from torch._inductor.compile_fx import compile_fx

    patches = dict(torch._inductor.list_mode_options(mode))

    def backend(gm, example_inputs):
        on_graph()
        return compile_fx(gm, example_inputs, config_patches=patches)

    return backend
