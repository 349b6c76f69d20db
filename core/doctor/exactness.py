"""Does every render path here render exactly?  Each path, on each device it could run on,
renders a sample of the catalog at two sizes in every output format, compared bit for bit with
the numpy reference (:func:`core.patterns.render` converted by
:func:`core.engine.formats.convert_frame`).

A mismatch is a ``fail`` naming the first differing pixel (y, x, channel, got, want); a path
that cannot run here is ``not available`` with :func:`core.engine.path_problem`'s reason (no
CUDA device, no C++ compiler); compiled paths count their graphs with torch's own counter
(``torch._dynamo.utils.counters["stats"]["unique_graphs"]``) and a sample that needed more
than one graph per frame description is a ``warning`` (dynamo recompiled: after its recompile
limit it silently runs eager).  Compiled paths render a small sample: each compile costs seconds
on a CPU (the on-disk Inductor cache makes later runs cheaper).

``TESTCARD_TEST_DOCTOR_CORRUPT=PATH`` (a test hook, read here only) changes one code value of
every frame that path renders before the comparison, so the mismatch report can be seen.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.doctor.check import FAIL, NOT_AVAILABLE, OK, WARNING, Check, Step
from core.engine import COMPILED_PATHS, PATHS, Engine, path_problem
from core.engine import formats as F
from core.patterns import ANIMATION_PARAMS, Spec, catalog, make_spec, render

CORRUPT_ENV = "TESTCARD_TEST_DOCTOR_CORRUPT"
DEVICES = ("cpu", "cuda", "mps")
SIZES = ((64, 36), (97, 55))         # the second divides by nothing the bodies use (see README)
FRAMES = (0, 1, 7)
COMPILED_FRAMES = (0, 1, 2, 977)
WHY = "a path that renders other code values than numpy puts wrong pixels on the screen"


def targets() -> list[tuple[str, str]]:
    """Every (path, device) a box could render on: numpy on the CPU, every torch path on each
    device kind, CUDA graphs on CUDA only."""
    out = []
    for device in DEVICES:
        for path in PATHS:
            if path == "numpy" and device != "cpu":
                continue
            if path == "torch-cudagraphs" and device != "cuda":
                continue
            out.append((path, device))
    return out


@dataclass(frozen=True)
class Case:
    """One frame description in one display format, and the frames rendered of it."""

    spec: Spec
    fmt: str
    frames: tuple[int, ...]

    @property
    def label(self) -> str:
        overlay = f"+counter{self.spec.counter_bits}" if self.spec.counter_bits else ""
        return f"{self.spec.pattern}{overlay} {self.spec.width}x{self.spec.height} {self.fmt}"


def _fits(pattern, width: int, height: int) -> bool:
    try:
        pattern.fits({q.name: q.default for q in pattern.params}, width, height)
    except ValueError:
        return False
    return True


def catalog_sample() -> list[Case]:
    """Every pattern that fits the two sizes (animated where it can), plus a counter overlay,
    in every output format: what the eager paths render."""
    cases = []
    for width, height in SIZES:
        specs = []
        for pat in catalog():
            if not _fits(pat, width, height):
                continue
            params = {p.name: 1 for p in pat.params if p.name in ANIMATION_PARAMS}
            specs.append(make_spec(pat.name, params, width=width, height=height))
        specs.append(make_spec("bars", {}, width=width, height=height, counter_bits=8))
        for spec in specs:
            frames = FRAMES if spec.animated else FRAMES[:1]
            cases += [Case(spec, fmt, frames) for fmt in F.FORMATS]
    return cases


def compiled_sample() -> list[Case]:
    """Four frame descriptions, one compile each: both sizes and every output format once."""
    (w0, h0), (w1, h1) = SIZES
    return [
        Case(make_spec("counter", {}, width=w0, height=h0), "rgb10", COMPILED_FRAMES),
        Case(make_spec("checkerboard", {"invert_every": 2}, width=w1, height=h1), "native", COMPILED_FRAMES),
        Case(make_spec("ramp", {"scroll": 3}, width=w0, height=h0, counter_bits=8), "rgb16", COMPILED_FRAMES),
        Case(make_spec("bars", {}, width=w1, height=h1, counter_bits=8), "rgb8", COMPILED_FRAMES),
    ]


class References:
    """The numpy reference frames, each rendered once and shared by every path's check."""

    def __init__(self):
        self._frames: dict[tuple, np.ndarray] = {}

    def get(self, case: Case, index: int) -> np.ndarray:
        key = (case.spec, case.fmt, index)
        if key not in self._frames:
            spec = case.spec
            self._frames[key] = F.convert_frame(render(spec, index), case.fmt, spec.bit_depth, spec.dtype)
        return self._frames[key]


def first_difference(got: np.ndarray, want: np.ndarray, fmt: str) -> dict | None:
    """The first differing pixel in row-major order: ``{y, x, channel, got, want}`` (rgb10 words
    are unpacked to their 10-bit channels; channel 3 is the padding), or None when equal.  A
    shape that differs is reported as such (``y`` None)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return {"y": None, "x": None, "channel": None, "got": list(got.shape), "want": list(want.shape)}
    if fmt == "rgb10" and got.ndim == 2:
        got, want = _channels(got), _channels(want)
    diff = np.argwhere(got != want)
    if diff.size == 0:
        return None
    y, x, c = (int(v) for v in diff[0][:3])
    return {"y": y, "x": x, "channel": c, "got": int(got[y, x, c]), "want": int(want[y, x, c])}


def _channels(words: np.ndarray) -> np.ndarray:
    w = words.astype(np.uint32)
    return np.stack([(w >> 20) & 1023, (w >> 10) & 1023, w & 1023, w >> 30], axis=-1)


def corrupted(data: np.ndarray, path: str, environ=None) -> np.ndarray:
    """The test hook (module doc): a copy of ``data`` with one code value changed when
    ``TESTCARD_TEST_DOCTOR_CORRUPT`` names ``path``; ``data`` itself otherwise."""
    if (os.environ if environ is None else environ).get(CORRUPT_ENV, "").strip() != path:
        return data
    out = np.array(data, copy=True)
    y, x = out.shape[0] // 2, out.shape[1] // 3
    if out.ndim == 2:
        out[y, x] ^= np.uint32(1 << 10)        # the green channel's lowest bit of a packed word
    else:
        out[y, x, 1] ^= 1
    return out


def _graphs() -> int:
    import torch

    return int(torch._dynamo.utils.counters["stats"]["unique_graphs"])


def check_path(path: str, device: str, cases: list[Case], refs: References, group: str = "paths") -> Check:
    """Render ``cases`` on ``path`` / ``device`` and compare every frame with numpy."""
    name = f"{path} on {device}"
    why = path_problem(path, device)
    if why:
        return Check(group, name, NOT_AVAILABLE, f"not available: {why}", WHY, data={"reason": why})
    compiled = path in COMPILED_PATHS
    frames = 0
    graphs = 0
    pinned = None
    formats, sizes = set(), set()
    for case in cases:
        spec = case.spec
        before = _graphs() if compiled else 0
        with Engine(spec, path=path, device=device, fmt=case.fmt, background_compile=False,
                    allow_rounding=True, reuse_static=False) as eng:
            if compiled and eng.compile_error:
                return Check(group, name, FAIL, f"{case.label}: could not compile", WHY,
                             eng.compile_error, {"case": case.label, "error": eng.compile_error})
            if pinned is None and eng.device.startswith("cuda"):
                pinned = bool(eng._target.host_tensor.is_pinned())
            for index in case.frames:
                res = eng.render(index)
                if res.error or res.path != path:
                    what = res.error or f"frame {index} was served by {res.path}, not {path}"
                    return Check(group, name, FAIL, f"{case.label}: frame {index} not rendered on {path}",
                                 WHY, what, {"case": case.label, "frame": index, "error": what})
                got = corrupted(res.data, path)
                first = first_difference(got, refs.get(case, index), case.fmt)
                if first is not None:
                    where = (f"shape {first['got']} != {first['want']}" if first["y"] is None else
                             f"first differing pixel y={first['y']} x={first['x']} channel "
                             f"{first['channel']}: got {first['got']}, want {first['want']}")
                    return Check(group, name, FAIL, f"{case.label} frame {index}: {where}", WHY,
                                 f"{frames} frames were exact before it",
                                 {"case": case.label, "frame": index, "first_difference": first,
                                  "exact_frames": frames})
                frames += 1
        if compiled:
            graphs += _graphs() - before
        formats.add(case.fmt)
        sizes.add(f"{spec.width}x{spec.height}")
    data: dict[str, Any]
    data = {"frames": frames, "cases": len(cases), "formats": sorted(formats), "sizes": sorted(sizes),
            "patterns": sorted({c.spec.pattern for c in cases})}
    figure = (f"{frames} frames exact: {len(data['patterns'])} patterns, {len(sizes)} sizes, "
              f"{len(formats)} formats")
    verdict, detail = OK, ""
    if compiled:
        data["graphs"] = graphs
        figure += f"; {graphs} graphs for {len(cases)} compiles"
        if graphs != len(cases):
            verdict = WARNING
            detail = (f"dynamo counted {graphs} graphs for {len(cases)} frame descriptions: a recompile "
                      "(after dynamo's recompile limit a path silently runs eager)")
    if pinned is not None:
        data["pinned"] = pinned
        if not pinned:
            verdict = WARNING
            detail = "the host buffer frames land in is not pinned: device-to-host copies are slower"
    return Check(group, name, verdict, figure, WHY, detail, data)


def path_steps(quick: bool = False) -> list[Step]:
    """One step per (path, device); under ``quick`` the compiled ones are not run."""
    refs = References()
    sample: list[Case] = []

    def cases_for(path):
        if path in COMPILED_PATHS:
            return compiled_sample()
        if not sample:
            sample.extend(catalog_sample())
        return sample

    steps = []
    for path, device in targets():
        skip = None
        if quick and path in COMPILED_PATHS and path_problem(path, device) is None:
            skip = "not run (--quick): each compile costs seconds"
        # mypy cannot infer a lambda with default arguments (they bind the loop's values)
        steps.append(Step("paths", f"{path} on {device}",
                          lambda p=path, d=device: check_path(p, d, cases_for(p), refs),  # type: ignore[misc]
                          skip=skip, why=WHY))
    return steps
