"""The render paths (the one tuple) and whether each can run on a device here."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys

from core.engine.devices import device_problem

PATHS = ("numpy", "torch-eager", "torch-compiled", "torch-cudagraphs")


TORCH_PATHS = PATHS[1:]


COMPILED_PATHS = ("torch-compiled", "torch-cudagraphs")


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
