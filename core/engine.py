"""The frame engine: frame N of a spec, display-ready, on the render path asked for.

Paths: ``numpy`` (the reference), ``torch-eager``, ``torch-compiled`` (Inductor)
and ``torch-cudagraphs`` (Inductor with CUDA graphs).  Every path renders the
spec's :class:`core.plan.Rows` plan, converts the small rows to the display
format (:mod:`core.formats`) and ends in one gather into a reused buffer.

The frame index reaches a compiled graph as a persistent 0-d device tensor,
updated in place each frame: a Python int would be guarded as a constant and
recompile every frame.  Compilation runs in a worker thread while the eager
path serves frames; the engine switches when the graph is ready, and reports
which path produced every frame.  Static specs are rendered once and reused.
An exception inside a render is reported on that frame's result, and the
engine falls back to the last path that worked.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import threading
import time
from dataclasses import dataclass

import numpy as np

from core import formats as F
from core import xp as X
from core.plan import Patch, Rows, block_width, map_rows
from core.registry import Spec

PATHS = ("numpy", "torch-eager", "torch-compiled", "torch-cudagraphs")
TORCH_PATHS = PATHS[1:]
COMPILED_PATHS = ("torch-compiled", "torch-cudagraphs")
FRAME_MASK = (1 << 31) - 1


# ---------------------------------------------------------------- availability
def cpp_compiler() -> str | None:
    """The C++ compiler Inductor's CPU backend would use, or None when there is none."""
    names = []
    if os.environ.get("CXX"):
        names.append(os.environ["CXX"])
    try:
        from torch._inductor import config

        names += [c for c in config.cpp.cxx if c]
    except Exception:  # pragma: no cover - inductor always ships with torch
        pass
    names += ["clang++", "cl"] if sys.platform in ("darwin", "win32") else ["g++", "c++", "clang++"]
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


def path_problem(path: str, device: str = "cpu") -> str | None:
    """None when ``path`` can run on ``device`` here; otherwise one sentence saying why not."""
    if path not in PATHS:
        return f"unknown render path {path!r}: expected one of {', '.join(PATHS)}"
    device = str(device)
    if path == "numpy":
        if device != "cpu":
            return f"the numpy path runs on the CPU only, not on {device}; use torch-eager there"
        return None
    from core.devices import device_problem

    why = device_problem(device)
    if why:
        return why
    import torch

    kind = torch.device(device).type
    if path == "torch-eager":
        return None
    if path == "torch-cudagraphs" and kind != "cuda":
        return f"torch-cudagraphs needs a CUDA device, not {device}"
    dynamo = getattr(torch, "_dynamo", None)
    if dynamo is None or not dynamo.is_dynamo_supported():
        return f"torch.compile does not support Python {sys.version_info[0]}.{sys.version_info[1]} here"
    if kind == "cpu" and cpp_compiler() is None:
        return ("torch.compile on the CPU needs a C++ compiler and none was found "
                "(install g++ or clang++, or set CXX); use torch-eager instead")
    if kind == "cuda" and importlib.util.find_spec("triton") is None:
        return "torch.compile on CUDA needs the triton package, which is not installed"
    return None


def available_paths(device: str = "cpu") -> dict[str, str | None]:
    """Every path with None (runs here) or the reason it cannot."""
    return {p: path_problem(p, device) for p in PATHS}


# ---------------------------------------------------------------- results
@dataclass
class FrameResult:
    index: int               # frame index rendered
    data: np.ndarray         # display-ready host array; a reused buffer, valid until the next render
    path: str                # the path that actually produced this frame
    render_ms: float         # device-synchronised render (+conversion) time
    transfer_ms: float       # device -> host copy time (0 for numpy)
    error: str | None = None  # set when this frame's render failed (data = last good frame)
    warmup: bool = False     # served while compiling / first frame of a path (exclude from stats)


# ---------------------------------------------------------------- frame functions
def frame_rows(xp, spec: Spec, fmt: str, frame, device=None) -> Rows:
    """The spec's plan with its rows (and patch) already in the display format."""
    from core.patterns import render_plan

    plan = render_plan(spec, frame, xp, device)
    return map_rows(plan, lambda rows: F.convert_rows(xp, rows, fmt, spec.bit_depth, spec.dtype))


def gather_into(xp, plan: Rows, out) -> None:
    """Write the plan's frame into ``out`` (no full-frame temporaries): ``rows[index]``
    widened to ``out``'s width, then the patch's few lines over their lines."""
    _gather_rows_into(xp, plan.rows, plan.index, out)
    patch = plan.patch
    if patch is None:
        return
    band = out[patch.y0:patch.y1]
    if X.is_torch(xp):
        band.copy_(patch.lines(xp))
        return
    # the lines' own values tiled along them, then the paint over its columns
    # (a run of columns is a block copy; numpy's broadcast where runs per element)
    tile_into(np, patch.values, band)
    cols = np.flatnonzero(patch.mask)
    if cols.size and cols[-1] - cols[0] + 1 == cols.size:
        run = slice(int(cols[0]), int(cols[-1]) + 1)
        np.copyto(band[:, run], patch.paint[:, run])
    elif cols.size:
        np.copyto(band, patch.paint, where=patch.mask.reshape(1, -1, *([1] * (band.ndim - 2))))


def _gather_rows_into(xp, rows, index, out) -> None:
    height, width = out.shape[0], out.shape[1]
    k, rw = rows.shape[0], rows.shape[1]
    torch_ns = X.is_torch(xp)
    if rw != width and k * 8 <= height:
        # few distinct rows: widen them (small), then gather straight into out
        rows = X.broadcast_copy(xp, rows, (k, width, *rows.shape[2:]))
        rw = width
    if rw == width:
        if torch_ns:
            xp.index_select(rows, 0, index, out=out)
        else:
            # mode="raise" buffers ``out`` (a hidden frame-sized copy); plan indices are in range
            np.take(rows, index, axis=0, out=out, mode="clip")
        return
    # one value per line (vertical ramps): gather the column, then tile it out
    tile_into(xp, X.take_rows(xp, rows, index), out)


def tile_into(xp, col, out) -> None:
    """Write ``col`` ``(N, 1, ...)`` repeated along ``out``'s width into ``out``.

    Copied in blocks of a few dozen pixels: a plain broadcast copy with a
    3-wide inner axis runs element by element.
    """
    height, width = out.shape[0], out.shape[1]
    block = block_width(width)
    small = X.broadcast_copy(xp, col, (height, block, *col.shape[2:]))
    tail = tuple(out.shape[2:])
    view = out.reshape(height, width // block, block, *tail)
    src = small.reshape(height, 1, block, *tail)
    if X.is_torch(xp):
        view.copy_(src.expand_as(view))
    else:
        np.copyto(view, src)


# ---------------------------------------------------------------- per-path renderers
class _Target:
    """The host buffer a spec's frames land in, and (on torch) its device twin."""

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


class _Renderer:
    name = ""
    warm_frames = 1   # first frames of a path carry one-off costs; not for statistics

    def __init__(self, spec: Spec, fmt: str, device, target: _Target, clock):
        self.spec, self.fmt, self.device, self.target, self.clock = spec, fmt, device, target, clock
        self.frames = 0

    def render(self, index: int) -> tuple[float, float]:  # pragma: no cover - abstract
        raise NotImplementedError


class _NumpyRenderer(_Renderer):
    name = "numpy"

    def render(self, index):
        t0 = self.clock()
        gather_into(np, frame_rows(np, self.spec, self.fmt, index & FRAME_MASK), self.target.raw)
        self.frames += 1
        return (self.clock() - t0) * 1e3, 0.0


class _TorchRenderer(_Renderer):
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


class _CompiledRenderer(_TorchRenderer):
    """The whole frame (pattern, conversion, gather) as one Inductor graph.

    On the CPU the graph writes straight into the host buffer (Inductor turns
    ``out.copy_(frame)`` into the gather kernel's store, and many full-width
    rows are copied there by ``testcard::gather_rows``); elsewhere it returns
    the frame, copied into the pinned host buffer.  With CUDA graphs the
    output lives in the graph's pool and is overwritten by the next replay,
    so it is copied out before the next frame.
    """

    def __init__(self, spec, fmt, device, clock, path, on_graph):
        import torch

        target = _Target.__new__(_Target)  # rebound to the engine's buffer before use
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
            if got is not None:
                out.copy_(got)

        self._frame_fn, self._frame_into = frame_fn, frame_into
        self._mode = "reduce-overhead" if self.cudagraphs else "default"
        self._on_graph = on_graph
        self.fn = None
        self._shape = F.host_shape(fmt, width, height)
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
        shape, dtype = getattr(self, "_layout", (tuple(buf.shape), buf.dtype))
        if buf.dtype == dtype and tuple(buf.shape) == shape:
            return buf
        return buf.reshape(shape[0], -1).view(dtype)

    def rebind(self, target: _Target) -> None:
        self.target = target
        self._out = self._graph_view(target.dev) if self.in_place else None

    def produce(self):
        if self.in_place:
            self.fn(self.frame, self._out)
            return None
        if self.cudagraphs:
            self.torch.compiler.cudagraph_mark_step_begin()
        out = self.fn(self.frame)
        return out if out.dtype == self._dtype else out.view(self._dtype).reshape(self._shape)


_OPS: dict = {}
_OPS_LOCK = threading.Lock()


def realize_op():
    """``testcard::realize``: an identity Inductor cannot inline (a copy of a small array).

    Without it Inductor inlines the rows' computation into the gather and
    recomputes the pattern and the format conversion for every pixel, which
    also keeps the gather from vectorising; with it the few rows are computed
    once and the gather is a vectorised row copy.
    """
    return _ops()["realize"]


def gather_rows_op():
    """``testcard::gather_rows(rows, index, out)``: ``out[i] = rows[index[i]]``, in place.

    ATen's ``index_select(out=)`` copies each line of contiguous rows with one
    ``memcpy``, split over torch's threads; Inductor's own gather is a loop of vector loads and
    stores, about twice the cost of a fill at 2160p on two threads.  As an
    opaque op inside the compiled graph it is the graph's last kernel.
    """
    return _ops()["gather_rows"]


def _ops():
    with _OPS_LOCK:
        if "realize" not in _OPS:
            import torch

            @torch.library.custom_op("testcard::realize", mutates_args=(), schema="(Tensor x) -> Tensor")
            def realize(x):
                return x.clone()

            @realize.register_fake
            def _(x):
                return torch.empty_like(x)

            _OPS["realize"] = realize
        if "gather_rows" not in _OPS:
            import torch

            @torch.library.custom_op("testcard::gather_rows", mutates_args=("out",),
                                     schema="(Tensor rows, Tensor index, Tensor(a!) out) -> ()")
            def gather_rows(rows, index, out):
                torch.index_select(rows, 0, index, out=out)

            @gather_rows.register_fake
            def _(rows, index, out):
                return None

            _OPS["gather_rows"] = gather_rows
    return _OPS


def compiled_gather(torch, plan: Rows, realize, out=None):
    """The final gather as a compiled graph sees it: one pass, in 32-bit words where it can.

    Few distinct rows are widened and realised first (computed once, small);
    the gather then copies whole rows.  Inductor's C++ backend vectorises an
    indirect row copy of int32 but not of int16 or uint8, so rows whose bytes
    divide into 32-bit words are gathered as words (the caller views its
    buffer the same way); a one-value-per-line plan (vertical ramps) broadcasts
    one pixel's words along the line, and a patch's few lines (a counter band)
    replace theirs.  Returns ``(H, W, C)`` / ``(H, W)`` elements, or ``(H, N)``
    int32 words.  Given ``out`` (that layout, on the CPU) the frame is written
    there and the result is None: many full-width rows by ``testcard::gather_rows``,
    a patch over the frame's own store.
    """
    rows, index, width, height = plan.rows, plan.index, plan.width, plan.height
    k, narrow = rows.shape[0], rows.shape[1] != width
    item = rows.element_size()
    unit = item * (rows.shape[2] if rows.dim() == 3 else 1)     # bytes per pixel
    words = (width * unit) % 4 == 0
    if k * 4 <= height:
        if narrow:
            rows = rows.expand(k, width, *rows.shape[2:]).contiguous()
        rows = realize(rows)
        frame = torch.index_select(rows.reshape(k, -1).view(torch.int32) if words else rows, 0, index)
    elif narrow and unit == 4:
        per_pixel = rows.reshape(k, -1).view(torch.int32)           # (K, 1)
        # realised: otherwise the line's whole formula is recomputed for every 16 pixels
        lines = realize(torch.index_select(per_pixel, 0, index))   # (H, 1)
        frame = lines.expand(height, width)
    elif narrow and (group := _line_group(width, unit)):
        # pixels of several words (RGBX64) or of no whole number of words (6-byte
        # RGB16): a line's value repeated over `group` pixels is a whole number of
        # vectors of words, which the line then repeats
        per_group = rows.expand(k, group, *rows.shape[2:]).reshape(k, -1).view(torch.int32)
        lines = realize(torch.index_select(per_group, 0, index))   # (H, group * unit / 4)
        n = lines.shape[1]
        frame = lines[:, None, :].expand(height, width // group, n).reshape(height, -1)
    elif narrow:
        # realised for the same reason: one value per line, computed once
        frame = torch.index_select(realize(rows).expand(k, width, *rows.shape[2:]), 0, index)
    elif out is not None and plan.patch is None:
        # many full-width rows (zone plate): computed once (inlined into the gather,
        # their formula would run again for every output pixel), then copied into
        # the host buffer by one memcpy per line, which also saves realising them twice
        gather_rows_op()(rows.contiguous(), index, out)   # (a broadcast is made whole first)
        return None
    else:
        frame = torch.index_select(realize(rows), 0, index)
    if plan.patch is None:
        return frame
    # the patch's few lines are made whole (small), then take their place
    patch = plan.patch
    b = patch.y1 - patch.y0
    # (its pieces realised first: the paint's formula is per column, not per pixel)
    patch = Patch(patch.y0, realize(patch.values), realize(patch.paint), realize(patch.mask))
    full = realize(patch.lines(torch)).reshape(b, -1).view(frame.dtype).reshape(b, *frame.shape[1:])
    if out is not None:
        # into the host buffer: the frame's own store, then the band's lines over it
        out.copy_(frame)
        out[patch.y0:patch.y1].copy_(full)
        return None
    # elsewhere chosen line by line in the frame's own loop
    lines = torch.arange(height, device=index.device)
    inside = ((lines >= patch.y0) & (lines < patch.y1)).reshape(height, *([1] * (frame.dim() - 1)))
    own = torch.index_select(full, 0, torch.clamp(lines - patch.y0, 0, b - 1))
    return torch.where(inside, own, frame)


def _line_group(width: int, unit: int, lanes: int = 16) -> int | None:
    """Pixels of ``unit`` bytes whose run fills whole ``lanes``-word vectors and divides the width."""
    for group in range(1, 129):
        if width % group == 0 and (group * unit) % (4 * lanes) == 0:
            return group
    return None


def counting_inductor(mode: str, on_graph):
    """Inductor with ``mode``'s options, calling ``on_graph()`` for every graph compiled."""
    import torch
    from torch._inductor.compile_fx import compile_fx

    patches = dict(torch._inductor.list_mode_options(mode))

    def backend(gm, example_inputs):
        on_graph()
        return compile_fx(gm, example_inputs, config_patches=patches)

    return backend


# ---------------------------------------------------------------- the engine
class Engine:
    """Frames of a spec on a render path, display-ready, in a reused host buffer.

    Raises ``ValueError`` (one clear reason) for an unknown path, device or
    format, a path that cannot run here, or a format the spec's bit depth
    cannot carry exactly (unless ``allow_rounding``).  ``reuse_static=False``
    renders static specs every frame (benchmarks); ``clock`` is injectable.
    """

    def __init__(self, spec: Spec, *, path: str = "numpy", device: str = "cpu", fmt: str = "native",
                 background_compile: bool = True, allow_rounding: bool = False,
                 reuse_static: bool = True, clock=time.perf_counter):
        if not isinstance(spec, Spec):
            raise ValueError(f"expected a Spec, got {type(spec).__name__}")
        if path not in PATHS:
            raise ValueError(f"unknown render path {path!r}: expected one of {', '.join(PATHS)}")
        device = "cpu" if device is None else str(device)
        why = path_problem(path, device)
        if why:
            raise ValueError(why)
        self.path = path
        self._torch_device = None
        if path != "numpy":
            import torch

            self._torch_device = torch.device(device)
            if self._torch_device.type == "cuda" and self._torch_device.index is None:
                self._torch_device = torch.device("cuda", torch.cuda.current_device())
        self.device = str(self._torch_device) if self._torch_device is not None else "cpu"
        self.fmt = fmt
        self.allow_rounding = bool(allow_rounding)
        self.background_compile = bool(background_compile)
        self.reuse_static = bool(reuse_static)
        self.clock = clock
        self.compile_seconds = 0.0
        self._graphs = 0
        self._lock = threading.RLock()
        self._compiled: dict[Spec, object] = {}   # spec -> compiled renderer or exception
        self._jobs: dict[Spec, threading.Thread] = {}
        self._closed = False
        self._rendered = 0
        self.spec = None
        self.set_spec(spec)

    # -- public state ---------------------------------------------------
    @property
    def graphs(self) -> int:
        """Graphs this engine has compiled so far (counted in its compile backend)."""
        return self._graphs

    @property
    def frames_rendered(self) -> int:
        """Frames rendered (not served from the static cache) since construction."""
        return self._rendered

    @property
    def active_path(self) -> str:
        return self._active.name

    def set_spec(self, spec: Spec) -> None:
        """Switch to ``spec``; never stalls on compilation (it runs in the background)."""
        if not isinstance(spec, Spec):
            raise ValueError(f"expected a Spec, got {type(spec).__name__}")
        exact, note = F.check_format(self.fmt, spec.bit_depth, spec.dtype, self.allow_rounding)
        if self.path == "numpy" and spec.dtype == "bfloat16":
            raise ValueError("the numpy path cannot hold bfloat16; use float32")
        with self._lock:
            if self.spec is not None and spec == self.spec:
                return
            self.spec, self.exact, self.note = spec, exact, note
            self._target = _Target(spec, self.fmt, self._torch_device)
            self._static = self.reuse_static and not spec.animated
            self._static_done = False
            self._last_good = False
            self._fallback = self._make_fallback(spec)
            self._active = self._fallback
            if self.path in COMPILED_PATHS and not self._static:
                self._start_compile(spec)

    def render(self, index: int) -> FrameResult:
        """Frame ``index`` (>= 0).  Never raises for a failure inside the render:
        the result carries ``error`` and the last good frame."""
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or index < 0:
            raise ValueError(f"frame index must be an integer >= 0, got {index!r}")
        index = int(index)
        with self._lock:
            tgt = self._target
            if self._static and self._static_done:
                return FrameResult(index, tgt.data, self._static_path, 0.0, 0.0)
            self._maybe_switch()
            renderer = self._active
            warmup = renderer.frames < renderer.warm_frames or renderer is not self._wanted()
            try:
                render_ms, transfer_ms = renderer.render(index)
            except Exception as exc:  # reported on the frame, never raised to the caller
                return self._failed(index, renderer, exc)
            self._last_good = True
            self._rendered += 1
            if self._static:
                self._static_done, self._static_path = True, renderer.name
            return FrameResult(index, tgt.data, renderer.name, render_ms, transfer_ms,
                               warmup=warmup)

    def close(self, wait: bool = False) -> None:
        """Stop using background compiles; never stalls unless ``wait``.

        A compile cannot be interrupted: one in progress finishes in its daemon
        thread and its result is dropped.  ``wait=True`` joins those threads
        (tests, command-line runs that want a clean exit).
        """
        with self._lock:
            self._closed = True
            jobs = list(self._jobs.values())
        if wait:
            for t in jobs:
                t.join()

    def wait_compiled(self, timeout: float | None = None) -> bool:
        """Block until the current spec's compile finished (tests, benchmarks)."""
        with self._lock:
            job = self._jobs.get(self.spec)
        if job is not None:
            job.join(timeout)
            if job.is_alive():
                return False
        with self._lock:
            return not isinstance(self._compiled.get(self.spec), Exception | type(None))

    @property
    def compile_error(self) -> str | None:
        with self._lock:
            got = self._compiled.get(self.spec)
        return f"{type(got).__name__}: {got}" if isinstance(got, Exception) else None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close(wait=True)

    # -- internals ------------------------------------------------------
    def _make_fallback(self, spec):
        if self.path == "numpy":
            return _NumpyRenderer(spec, self.fmt, None, self._target, self.clock)
        return _TorchRenderer(spec, self.fmt, self._torch_device, self._target, self.clock)

    def _wanted(self):
        return self._active if self.path not in COMPILED_PATHS or self._static else \
            self._compiled.get(self.spec)

    def _maybe_switch(self):
        got = self._compiled.get(self.spec)
        if got is not None and not isinstance(got, Exception) and self._active is not got:
            try:
                got.rebind(self._target)
            except Exception as exc:  # a compiled path that cannot take the buffer is a failed one
                self._compiled[self.spec] = exc
                return
            self._active = got

    def _failed(self, index, renderer, exc) -> FrameResult:
        error = f"frame {index}: {renderer.name} failed: {type(exc).__name__}: {exc}"
        if renderer is not self._fallback:
            # keep serving the last path that worked
            self._compiled[self.spec] = exc
            self._active = self._fallback
        good = self._last_good
        return FrameResult(index, self._target.data, self._active.name if good else renderer.name,
                           0.0, 0.0, error=error, warmup=True)

    def _start_compile(self, spec):
        if self._closed or spec in self._compiled or spec in self._jobs:
            return
        if not self.background_compile:
            self._compile(spec)
            return
        t = threading.Thread(target=self._compile, args=(spec,), name="testcard-compile", daemon=True)
        self._jobs[spec] = t
        t.start()

    def _compile(self, spec):
        t0 = time.perf_counter()
        try:
            r = _CompiledRenderer(spec, self.fmt, self._torch_device, self.clock, self.path,
                                  on_graph=self._count_graph)
            r.warm()
            got: object = r
        except Exception as exc:
            got = exc
        with self._lock:
            self.compile_seconds += time.perf_counter() - t0
            self._jobs.pop(spec, None)
            if not self._closed:
                self._compiled[spec] = got

    def _count_graph(self):
        with self._lock:
            self._graphs += 1


# ---------------------------------------------------------------- benchmark
def fill_baseline(target_shape, dtype: str, device=None):
    """A callable filling an existing buffer of the frame's size: the floor any frame costs."""
    if device is None:
        buf = np.zeros(target_shape, dtype=dtype)
        return lambda v: buf.fill(v)
    import torch

    buf = torch.zeros(target_shape, dtype=getattr(torch, dtype), device=device)
    return lambda v: buf.fill_(v)


def bench_frames(spec: Spec, *, path: str = "numpy", device: str = "cpu", fmt: str = "native",
                 frames: int = 200, warmup: int = 5, allow_rounding: bool = False,
                 progress=None, clock=time.perf_counter) -> dict:
    """Render ``frames`` frames through an :class:`Engine` and report their cost.

    The compile (if any) happens up front and is reported as ``compile_s``;
    ``warmup`` frames follow, uncounted.  Static specs are rendered every frame
    here (``reuse_static=False``): the figure is the frame's cost, not the cache's.
    """
    if isinstance(frames, bool) or not isinstance(frames, int) or frames < 1:
        raise ValueError(f"frames must be an integer >= 1, got {frames!r}")
    eng = Engine(spec, path=path, device=device, fmt=fmt, background_compile=False,
                 allow_rounding=allow_rounding, reuse_static=False, clock=clock)
    try:
        return bench_engine(eng, frames=frames, warmup=warmup, progress=progress, clock=clock)
    finally:
        eng.close(wait=True)


def bench_engine(eng: Engine, *, frames: int = 200, warmup: int = 5, progress=None,
                 clock=time.perf_counter) -> dict:
    """Time ``frames`` frames of an engine after ``warmup`` uncounted ones.

    Each counted frame is followed by one timed fill of a buffer of the same
    size and dtype on the same device (``baseline_ms``, the median), so
    ``ratio = median render / baseline`` compares like with like on a busy machine.
    """
    from core.timing import summary

    spec, fmt = eng.spec, eng.fmt
    if eng.path in COMPILED_PATHS and eng.compile_error:
        raise ValueError(f"{eng.path} could not compile this frame: {eng.compile_error}")
    tdev = eng._torch_device
    dtype = F.device_dtype(np if tdev is None else __import__("torch"), fmt, spec.dtype)
    fill = fill_baseline(F.host_shape(fmt, spec.width, spec.height), dtype, tdev)
    sync = _sync_for(tdev)
    start = eng.frames_rendered
    for i in range(warmup):
        eng.render(start + i)
        fill(i & 1)
    render, transfer, base, served, errors = [], [], [], {}, []
    for n in range(frames):
        i = start + warmup + n
        res = eng.render(i)
        if res.error:
            errors.append(res.error)
        served[res.path] = served.get(res.path, 0) + 1
        render.append(res.render_ms)
        transfer.append(res.transfer_ms)
        sync()
        t0 = clock()
        fill(i & 1)
        sync()
        base.append((clock() - t0) * 1e3)
        if progress:
            progress(n + 1, frames)
    r, t = summary(render), summary(transfer)
    baseline = float(np.median(base))
    return {
        "pattern": spec.pattern, "size": f"{spec.width}x{spec.height}", "format": fmt,
        "bit_depth": spec.bit_depth, "path": eng.path, "device": eng.device, "frames": frames,
        "warmup": warmup, "graphs": eng.graphs, "compile_s": round(eng.compile_seconds, 3),
        "render_ms": {"median": round(r["p50"], 4), "p99": round(r["p99"], 4),
                      "mean": round(r["mean"], 4), "max": round(r["max"], 4)},
        "transfer_ms": {"median": round(t["p50"], 4), "p99": round(t["p99"], 4)},
        "baseline_ms": round(baseline, 6),
        "ratio": round(r["p50"] / baseline, 3) if baseline > 0 else None,
        "served": served, "errors": len(errors), "first_error": errors[0] if errors else None,
        "exact": eng.exact, "note": eng.note,
    }


def _sync_for(device):
    if device is None or device.type == "cpu":
        return lambda: None
    import torch

    if device.type == "cuda":
        return lambda: torch.cuda.synchronize(device)
    return torch.mps.synchronize
