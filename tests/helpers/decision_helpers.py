"""Shared builders for decision-cache tests."""

from core.decisions import fingerprint, make_key, torch_version

HERE = "cpu:Test CPU x4"
OTHER = "cuda:NVIDIA Test GPU sm_90"
FP = fingerprint("cpu")            # this box's CPU
BAND = "counter@2160p/rgb10"


def entry(winner="torch-compiled", *, torch=None, measured_at="2025-03-01T10:00:00+00:00",
          numpy_ms=10.0, others=("torch-eager", "torch-compiled")):
    cands = {"numpy": {"status": "ok", "median_ms": numpy_ms, "spread_ms": 0.1, "compile_s": 0.0,
                       "reason": ""}}
    for i, name in enumerate(others):
        cands[name] = {"status": "ok", "median_ms": 5.0 - i, "spread_ms": 0.05,
                       "compile_s": 1.5 * i, "reason": ""}
    cands.setdefault("torch-cudagraphs", {"status": "unavailable", "median_ms": None, "spread_ms": None,
                                 "compile_s": None, "reason": "no CUDA device on this box"})
    return {"winner": winner, "candidates": cands, "rounds": 9, "frames": 50, "margin": 0.03,
            "reason": f"{winner} won", "measured_at": measured_at, "testcard": "0.1.0",
            "torch": torch or torch_version()}


def key(fp, band):
    return make_key(fp, band)


def runs_everywhere(path, device):
    """A ``problem`` probe for which every render path runs here."""
    return None
