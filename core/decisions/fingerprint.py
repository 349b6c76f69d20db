"""Device fingerprints: the hardware that decides render speed, as one short string.

- CPU:  ``cpu:<model> x<cores>``, the CPU model and the cores this process may use
  (what a render can use, so a container limited to 2 of 64 cores is its own box);
- CUDA: ``cuda:<GPU name> sm_<major><minor>``, name and compute capability;
- MPS:  ``mps:<chip>``, the Apple chip.

A fingerprint never contains ``|`` (the decision cache keys entries as
``fingerprint|band``).  The CPU fingerprint needs no torch import.
"""

from __future__ import annotations

import functools
import os
import platform
import re
import subprocess
import sys

from core.engine import available_devices, device_problem

MAX_FINGERPRINT_CHARS = 200


def _clean(text: str) -> str:
    text = re.sub(r"\s+", " ", text.replace("|", "/"))
    text = "".join(ch for ch in text if ch.isprintable()).strip()
    return text[:120].strip() or "unknown"


@functools.cache
def cpu_model() -> str:
    """The CPU's marketing name where the OS tells it, else the architecture."""
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    key, _, value = line.partition(":")
                    if key.strip() in ("model name", "Hardware", "Processor") and value.strip():
                        return _clean(value)
        except OSError:
            pass
    elif sys.platform == "darwin":
        try:
            out = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True,
                                 text=True, timeout=5)
            if out.returncode == 0 and out.stdout.strip():
                return _clean(out.stdout)
        except (OSError, subprocess.SubprocessError):
            pass
    return _clean(platform.processor() or platform.machine())


def cpu_cores() -> int:
    """Cores this process may run on (the affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        try:
            return len(os.sched_getaffinity(0))
        except OSError:  # pragma: no cover
            pass
    return os.cpu_count() or 1


def device_kind(device: str) -> str:
    return str(device).split(":", 1)[0].strip().lower()


def fingerprint(device: str = "cpu") -> str:
    """The fingerprint of ``device`` (``cpu``, ``cuda``, ``cuda:N``, ``mps``) on this box.

    Raises ``ValueError`` for a device this box does not have."""
    kind = device_kind(device)
    if kind == "cpu":
        return f"cpu:{cpu_model()} x{cpu_cores()}"

    why = device_problem(str(device))
    if why:
        raise ValueError(why)
    if kind == "cuda":
        return _cuda_fingerprint(str(device))
    if kind == "mps":
        return f"mps:{cpu_model()}"
    raise ValueError(f"unsupported device {device!r}")  # pragma: no cover - device_problem refuses


@functools.cache
def _cuda_fingerprint(device: str) -> str:
    import torch

    dev = torch.device(device)
    index = dev.index if dev.index is not None else torch.cuda.current_device()
    name = torch.cuda.get_device_name(index)
    major, minor = torch.cuda.get_device_capability(index)
    return f"cuda:{_clean(name)} sm_{major}{minor}"


def box_fingerprints() -> dict[str, str]:
    """Every device of this box and its fingerprint (``{"cpu": "cpu:...", "cuda:0": ...}``)."""
    out = {}
    for dev in available_devices():
        try:
            out[dev] = fingerprint(dev)
        except ValueError:  # pragma: no cover - listed devices exist
            continue
    return out


def is_fingerprint(text: str) -> bool:
    """Whether ``text`` has a fingerprint's shape: ``kind:description``, at most
    :data:`MAX_FINGERPRINT_CHARS` printable characters (no newline, no control character),
    no ``|``, no surrounding blanks."""
    if (not isinstance(text, str) or len(text) > MAX_FINGERPRINT_CHARS or "|" in text
            or text != text.strip() or not text.isprintable()):
        return False
    kind, sep, rest = text.partition(":")
    return bool(sep) and kind in ("cpu", "cuda", "mps") and bool(rest.strip())


__all__ = ["MAX_FINGERPRINT_CHARS", "fingerprint", "box_fingerprints", "cpu_model", "cpu_cores",
           "is_fingerprint", "device_kind"]
