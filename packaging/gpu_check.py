#!/usr/bin/env python3
"""The frame engine's CUDA checks in one short run; prints ONE JSON document.

    python packaging/gpu_check.py [--size 3840x2160] [--frames 200] [--budget-s 270]

On a CUDA machine (H200 class targets), for each animated pattern at 2160p in
rgb10 (render + conversion to packed words, CUDA-event timed):

- ``compiled_rgb10_median``: torch-compiled median render <= 0.2 ms;
- ``cudagraphs_not_slower``: torch-cudagraphs median <= torch-compiled median;
- ``one_graph``: each run compiled exactly one graph;
- ``exact``: compiled and cudagraph frames equal the numpy reference bytes;
- ``pinned``: the host buffer the frames land in is pinned.

Compiles are counted against ``--budget-s`` (default leaves the whole run under
five minutes); a case that would start past it is reported as skipped.  Exit
status: 0 all checks passed, 1 some failed, 2 no CUDA device (the JSON says why).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

TARGET_MS = 0.2
CASES = [  # (label, pattern, params, counter_bits)
    ("counter", "counter", {}, None),
    ("checkerboard-invert", "checkerboard", {"invert_every": 2}, None),
    ("ramp-scroll", "ramp", {"scroll": 4}, None),
    ("bars+counter", "bars", {}, 16),
    ("vertical-ramp+counter", "ramp", {"direction": "vertical", "scroll": 4}, 16),
]


def check_case(label, pattern, params, counter_bits, width, height, frames):
    import numpy as np
    import torch

    from core.engine import Engine, bench_engine
    from core.engine import formats as F
    from core.patterns import make_spec, render

    spec = make_spec(pattern, params, width=width, height=height, counter_bits=counter_bits)
    out = {"case": label, "spec": spec.to_dict()}
    for path in ("torch-compiled", "torch-cudagraphs"):
        torch._dynamo.reset()
        with Engine(spec, path=path, device="cuda", fmt="rgb10", background_compile=False,
                    reuse_static=False) as eng:
            if eng.compile_error:
                raise RuntimeError(f"{path}: {eng.compile_error}")
            same = True
            for i in (0, 1, 2, 3, 977):
                res = eng.render(i)
                want = F.convert_frame(render(spec, i), "rgb10", spec.bit_depth, spec.dtype)
                same = same and res.error is None and bool(np.array_equal(res.data, want))
            got = bench_engine(eng, frames=frames)
            keep = ("render_ms", "transfer_ms", "baseline_ms", "ratio", "graphs", "compile_s", "served",
                    "errors", "first_error")
            out[path] = {k: got[k] for k in keep}
            out[path]["exact"] = same
            out[path]["pinned"] = bool(eng._target.host_tensor.is_pinned())
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="3840x2160")
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--budget-s", type=float, default=270.0)
    args = ap.parse_args(argv)
    w, h = (int(v) for v in args.size.lower().split("x"))
    t0 = time.monotonic()
    doc = {"size": f"{w}x{h}", "format": "rgb10", "target_ms": TARGET_MS, "frames": args.frames}
    try:
        import torch

        doc["torch"] = torch.__version__
        from core.engine import available_paths

        paths = available_paths("cuda")
        doc["paths"] = paths
        if not torch.cuda.is_available() or paths["torch-compiled"] is not None:
            doc["ok"] = False
            doc["reason"] = paths["torch-eager"] or paths["torch-compiled"] or "no CUDA device"
            print(json.dumps(doc, indent=2))
            return 2
        doc["device"] = torch.cuda.get_device_name(0)
    except Exception as exc:  # the one document must still come out
        doc.update(ok=False, reason=f"{type(exc).__name__}: {exc}")
        print(json.dumps(doc, indent=2))
        return 2

    results, skipped, crashed = [], [], []
    for label, pattern, params, bits in CASES:
        if time.monotonic() - t0 > args.budget_s:
            skipped.append(label)
            continue
        try:
            results.append(check_case(label, pattern, params, bits, w, h, args.frames))
        except Exception as exc:
            crashed.append({"case": label, "error": f"{type(exc).__name__}: {exc}"})
    checks = {"compiled_rgb10_median": [], "cudagraphs_not_slower": [], "one_graph": [], "exact": [],
              "pinned": []}
    for r in results:
        c, g = r["torch-compiled"], r["torch-cudagraphs"]
        checks["compiled_rgb10_median"].append(c["render_ms"]["median"] <= TARGET_MS)
        checks["cudagraphs_not_slower"].append(g["render_ms"]["median"] <= c["render_ms"]["median"])
        checks["one_graph"].append(c["graphs"] == 1 and g["graphs"] == 1)
        checks["exact"].append(c["exact"] and g["exact"] and not c["errors"] and not g["errors"])
        checks["pinned"].append(c["pinned"] and g["pinned"])
    doc["checks"] = {k: bool(v) and all(v) for k, v in checks.items()}
    doc["results"] = results
    doc["skipped"] = skipped
    doc["crashed"] = crashed
    doc["elapsed_s"] = round(time.monotonic() - t0, 1)
    doc["ok"] = all(doc["checks"].values()) and not skipped and not crashed
    print(json.dumps(doc, indent=2))
    return 0 if doc["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
