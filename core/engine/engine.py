"""The frame engine: frame N of a spec, display-ready, on the render path asked for.

Paths: ``numpy`` (the reference), ``torch-eager``, ``torch-compiled`` (Inductor)
and ``torch-cudagraphs`` (Inductor with CUDA graphs).  Every path renders the
spec's :class:`core.plan.Rows` plan, converts the small rows to the display
format (:mod:`core.engine.formats`) and ends in one gather into a reused buffer.

The frame index reaches a compiled graph as a persistent 0-d device tensor,
updated in place each frame: a Python int would be guarded as a constant and
recompile every frame.  Compilation runs in a worker thread while the eager
path serves frames; the engine switches when the graph is ready, and reports
which path produced every frame.  Static specs are rendered once and reused.
An exception inside a render is reported on that frame's result, and the
engine falls back to the last path that worked.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np

from core.engine import formats as F
from core.engine.compiled import CompiledRenderer
from core.engine.render_paths import COMPILED_PATHS, PATHS, path_problem
from core.engine.renderers import NumpyRenderer, Target, TorchRenderer
from core.patterns import Spec


# ---------------------------------------------------------------- results
@dataclass
class RenderedFrame:
    index: int               # frame index rendered
    data: np.ndarray         # display-ready host array: a reused buffer valid until the next render,
                             # or the caller's ``out``
    path: str                # the path that actually produced this frame
    render_ms: float         # device-synchronised render (+conversion) time
    transfer_ms: float       # device -> host copy time (0 for numpy)
    error: str | None = None  # set when this frame's render failed (data = last good frame)
    warmup: bool = False     # served while compiling / first frame of a path (exclude from stats)
    lines: tuple | None = None  # the line spans written into ``out`` (None: the whole frame)




# ---------------------------------------------------------------- the engine
class Engine:
    """Frames of a spec on a render path, display-ready, in a reused host buffer.

    Raises ``ValueError`` (one clear reason) for an unknown path, device or
    format, a path that cannot run here, or a format the spec's bit depth
    cannot carry exactly (unless ``allow_rounding``).  ``reuse_static=False``
    renders static specs every frame (benchmarks); ``clock`` is injectable.
    """

    spec: Spec            # set by set_spec, from the constructor on
    _static_path: str     # the path that rendered the static frame, once _static_done

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
        self._compiled: dict[Spec, CompiledRenderer | Exception] = {}   # or the compile's exception
        self._jobs: dict[Spec, threading.Thread] = {}
        self._closed = False
        self._rendered = 0
        self.spec = None  # type: ignore[assignment]  # only until set_spec, the next line
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

    @property
    def writes_lines(self) -> bool:
        """Whether the path serving frames now honours ``render(lines=)`` (numpy does)."""
        return self._active.writes_lines

    @property
    def frame_layout(self) -> tuple[tuple[int, ...], np.dtype]:
        """``(shape, dtype)`` of the frames handed out: the layout an ``out`` buffer must have.
        Never waits for a render in progress (the GUI thread asks it every frame)."""
        target = self._target            # replaced whole by set_spec: one read, no lock
        return target.shape, target.data.dtype

    def set_spec(self, spec: Spec) -> None:
        """Switch to ``spec``; never stalls on compilation (it runs in the background)."""
        if not isinstance(spec, Spec):
            raise ValueError(f"expected a Spec, got {type(spec).__name__}")
        exact, note = F.check_format(self.fmt, spec.bit_depth, spec.dtype, self.allow_rounding,
                                     spec.limited)
        if self.path == "numpy" and spec.dtype == "bfloat16":
            raise ValueError("the numpy path cannot hold bfloat16; use float32")
        with self._lock:
            if self.spec is not None and spec == self.spec:
                return
            self.spec, self.exact, self.note = spec, exact, note
            self._target = Target(spec, self.fmt, self._torch_device)
            self._static = self.reuse_static and not spec.animated
            self._static_done = False
            self._last_good = False
            self._fallback = self._make_fallback(spec)
            self._active = self._fallback
            if self.path in COMPILED_PATHS and not self._static:
                self._start_compile(spec)

    def render(self, index: int, out: np.ndarray | None = None,
               lines: tuple[tuple[int, int], ...] | None = None) -> RenderedFrame:
        """Frame ``index`` (>= 0).  Never raises for a failure inside the render:
        the result carries ``error`` and the last good frame.

        ``out``: write the frame there instead of the engine's own buffer, in the host layout
        of the format (``(H, W)`` uint32 words for rgb10, ``(H, W, 4)`` uint8 for rgb8, ...),
        C-contiguous and writable: a mapped pixel buffer the presenter uploads from, written
        once by the frame's gather (no copy on the CPU; CUDA and MPS copy their device frame
        into it).  The frame is rendered every time (the caller keeps what it shows), the
        result's ``data`` is ``out`` itself, and when ``error`` is set its contents are not a
        frame.  A wrong ``out`` is refused with ``ValueError`` before anything is written.

        ``lines`` (with ``out``): the spans ``(y0, y1)`` that may differ from the frame of this
        spec already in ``out`` (``Spec.changing_lines``).  A path that can writes only those
        and says so in the result's ``lines``; the others write the whole frame (``lines`` None).
        """
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or index < 0:
            raise ValueError(f"frame index must be an integer >= 0, got {index!r}")
        index = int(index)
        if lines is not None:
            lines = self._check_lines(lines, out)
        with self._lock:
            tgt = self._target
            if out is not None:
                tgt = tgt.wrap(out)
            elif self._static and self._static_done:
                return RenderedFrame(index, tgt.data, self._static_path, 0.0, 0.0)
            self._maybe_switch()
            renderer = self._active
            warmup = renderer.frames < renderer.warm_frames or renderer is not self._wanted()
            wrote = lines if renderer.writes_lines else None
            renderer.lines = wrote
            try:
                render_ms, transfer_ms = self._render_on(renderer, index, tgt)
            except Exception as exc:  # reported on the frame, never raised to the caller
                return self._failed(index, renderer, exc, tgt)
            finally:
                renderer.lines = None
            self._last_good = True
            self._rendered += 1
            if self._static and out is None:
                self._static_done, self._static_path = True, renderer.name
            return RenderedFrame(index, tgt.data, renderer.name, render_ms, transfer_ms,
                                 warmup=warmup, lines=wrote)

    def _check_lines(self, lines, out) -> tuple[tuple[int, int], ...]:
        if out is None:
            raise ValueError("lines: only with out (the buffer holding this spec's frame)")
        height = self._target.shape[0]
        try:
            spans = tuple((int(a), int(b)) for a, b in lines)
        except (TypeError, ValueError):
            raise ValueError(f"lines: expected (y0, y1) pairs, got {lines!r}") from None
        for a, b in spans:
            if not 0 <= a < b <= height:
                raise ValueError(f"lines: {a}..{b} is not inside a frame of {height} lines")
        return spans

    def _render_on(self, renderer, index: int, tgt) -> tuple[float, float]:
        if tgt is self._target:
            return renderer.render(index)
        renderer.rebind(tgt)
        try:
            return renderer.render(index)
        finally:
            renderer.rebind(self._target)

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
            return NumpyRenderer(spec, self.fmt, None, self._target, self.clock)
        return TorchRenderer(spec, self.fmt, self._torch_device, self._target, self.clock)

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

    def _failed(self, index, renderer, exc, tgt) -> RenderedFrame:
        error = f"frame {index}: {renderer.name} failed: {type(exc).__name__}: {exc}"
        if renderer is not self._fallback:
            # keep serving the last path that worked
            self._compiled[self.spec] = exc
            self._active = self._fallback
        good = self._last_good
        return RenderedFrame(index, tgt.data, self._active.name if good else renderer.name,
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
            r = CompiledRenderer(spec, self.fmt, self._torch_device, self.clock, self.path,
                                  on_graph=self._count_graph)
            r.warm()
            got: CompiledRenderer | Exception = r
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


