"""The speed check: a frame's median cost beside a fill of it, ok when it fits the period."""

from core.doctor import NOT_AVAILABLE, OK, WARNING, check_speed
from core.doctor.speed import speed_steps


def test_a_frame_inside_the_period_is_ok_with_its_ratio_to_the_fill():
    c = check_speed("numpy", "cpu", 1000.0, size=(320, 180), frames=3, warmup=1)
    assert c.verdict == OK
    assert c.data["size"] == "320x180" and c.data["format"] == "rgb10" and c.data["ratio"] > 0
    assert "x the fill" in c.figure


def test_a_frame_over_the_period_is_a_warning():
    c = check_speed("numpy", "cpu", 1e-6, size=(320, 180), frames=3, warmup=1)
    assert c.verdict == WARNING and "over the" in c.detail


def test_a_path_that_cannot_run_is_not_available(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    c = check_speed("torch-eager", "cuda", 16.7)
    assert c.verdict == NOT_AVAILABLE and "no CUDA device" in c.figure


def test_quick_skips_the_compiled_speed():
    steps = {s.name: s for s in speed_steps(16.7, quick=True)}
    assert steps["torch-compiled on cpu"].skip.startswith("not run (--quick)")
