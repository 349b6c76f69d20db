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


def live_entry(winner="torch-eager", *, measured_at="2025-03-01T10:00:00+00:00"):
    """A verdict raced in the live loop at 60 Hz: numpy's frames late, the others on time."""
    e = entry(winner, measured_at=measured_at)
    e.update(form="live", period_ms=16.6667)
    for name, c in e["candidates"].items():
        ok = c["status"] == "ok"
        c.update(late=(12 if name == "numpy" else 0) if ok else None,
                 interval_p99_ms=(33.3 if name == "numpy" else 16.9) if ok else None,
                 cost_p99_ms=c["median_ms"] * 1.5 if ok else None)
    return e


def key(fp, band, form="render"):
    return make_key(fp, band, form)


def runs_everywhere(path, device):
    """A ``problem`` probe for which every render path runs here."""
    return None
