#!/usr/bin/env python3
"""The doctor's CUDA part (``testcard doctor``'s paths and speed checks on CUDA); prints ONE
JSON document.  ``testcard doctor --json`` runs the same checks with everything else.

    python packaging/gpu_check.py

The doctor's checks, as it makes them (:func:`core.doctor.gpu_steps`): every path on CUDA
(``torch-eager``, ``torch-compiled``, ``torch-cudagraphs``) renders the catalog sample in every
format exactly as numpy does, the compiled ones with one graph per frame description, into a
pinned host buffer; then a 3840x2160 counter in rgb10 per path, against a fill of the frame.
Beside them, the CUDA targets the README names, read from those figures:

- ``compiled_rgb10_median``: torch-compiled median render <= 0.2 ms;
- ``cudagraphs_not_slower``: torch-cudagraphs median <= torch-compiled median.

Exit status: 0 every check ok and every target met, 1 something failed or missed, 2 no CUDA
device (the JSON says why).
"""

from __future__ import annotations

import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

TARGET_MS = 0.2


def targets(checks) -> dict[str, bool]:
    """The README's CUDA targets from the doctor's speed checks."""
    speed = {c.name.split(" on ")[0]: c.data for c in checks if c.group == "speed" and c.verdict != "not run"}
    compiled = speed.get("torch-compiled", {}).get("render_ms", {}).get("median")
    graphs = speed.get("torch-cudagraphs", {}).get("render_ms", {}).get("median")
    return {"compiled_rgb10_median": compiled is not None and compiled <= TARGET_MS,
            "cudagraphs_not_slower": None not in (compiled, graphs) and graphs <= compiled}


def main(argv=None) -> int:
    from core.doctor import OK, Check, exit_status, gpu_steps, run_steps
    from core.engine import path_problem

    t0 = time.monotonic()
    doc: dict = {"target_ms": TARGET_MS}
    why = path_problem("torch-eager", "cuda")
    if why is not None:
        doc.update(ok=False, reason=why)
        print(json.dumps(doc, indent=2))
        return 2
    checks = [item for item in run_steps(gpu_steps()) if isinstance(item, Check)]
    doc["checks"] = [c.to_dict() for c in checks]
    doc["targets"] = targets(checks)
    doc["elapsed_s"] = round(time.monotonic() - t0, 1)
    doc["ok"] = all(c.verdict == OK for c in checks) and all(doc["targets"].values())
    print(json.dumps(doc, indent=2))
    return 0 if doc["ok"] and exit_status(checks) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
