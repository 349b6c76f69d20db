"""Torch devices: what exists on this box, and a clear refusal for what does not."""

from __future__ import annotations

import os
import platform
import sys

# what a GPU torch can use leaves behind on Linux: NVIDIA's driver, AMD's ROCm, WSL2's GPU
GPU_DRIVER_PATHS = ("/proc/driver/nvidia/version", "/dev/nvidiactl", "/dev/nvidia0", "/dev/kfd", "/dev/dxg")


def torch_available() -> tuple[bool, str]:
    try:
        import torch  # noqa: F401
    except Exception as exc:  # pragma: no cover - torch is a dependency
        return False, f"torch cannot be imported: {exc}"
    return True, ""


def device_problem(name: str) -> str | None:
    """Why ``name`` cannot be used here, or None when it can."""
    ok, why = torch_available()
    if not ok:
        return why
    import torch

    try:
        dev = torch.device(name)
    except (RuntimeError, TypeError):
        return f"unknown device {name!r} (expected cpu, cuda, cuda:N or mps)"
    if dev.type == "cpu":
        return None
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            return "no CUDA device on this box"
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            return f"no CUDA device {dev.index} (this box has {torch.cuda.device_count()})"
        return None
    if dev.type == "mps":
        if not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
            return "no MPS device on this box"
        return None
    return f"unsupported device type {dev.type!r}"


def check_device(name: str):
    """A ``torch.device`` for ``name``, or ``ValueError`` saying why not."""
    why = device_problem(name)
    if why:
        raise ValueError(why)
    import torch

    return torch.device(name)


def gpu_driver_present(system: str | None = None, machine: str | None = None, exists=os.path.exists) -> bool:
    """Whether this box may have a GPU torch can render on, judged without importing torch: on
    Linux a GPU driver's device or proc file (:data:`GPU_DRIVER_PATHS`), on macOS Apple silicon
    (MPS); elsewhere (Windows) there is no cheap sign, so True.  Also True once torch is
    imported anyway."""
    if "torch" in sys.modules:
        return True
    system = sys.platform if system is None else system
    if system.startswith("linux"):
        return any(exists(p) for p in GPU_DRIVER_PATHS)
    if system == "darwin":
        return (machine or platform.machine()) == "arm64"
    return True


def available_devices() -> list[str]:
    """``cpu``, then the CUDA devices and MPS torch sees.  Where no GPU driver is present
    (:func:`gpu_driver_present`) the answer is ``["cpu"]`` without importing torch, which would
    cost about 1.5 s and 300 MB to learn nothing more."""
    names = ["cpu"]
    if not gpu_driver_present():
        return names
    try:
        import torch
    except Exception:  # pragma: no cover
        return names
    if torch.cuda.is_available():
        names += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
        names.append("mps")
    return names
