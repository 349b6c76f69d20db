"""``packaging/gpu_check.py`` is the doctor's CUDA part: its two timing targets are read from the
doctor's speed checks, and without CUDA it says so in one JSON document (exit 2)."""

import importlib.util

from core.doctor import OK, Check
from tests.helpers import ROOT


def gpu_check():
    spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "packaging" / "gpu_check.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def speed(path, median):
    return Check("speed", f"{path} on cuda", OK, "", "", data={"render_ms": {"median": median}})


def test_the_targets_are_read_from_the_doctors_speed_checks():
    mod = gpu_check()
    assert mod.targets([speed("torch-compiled", 0.15), speed("torch-cudagraphs", 0.1)]) == {
        "compiled_rgb10_median": True, "cudagraphs_not_slower": True}
    assert mod.targets([speed("torch-compiled", 0.3), speed("torch-cudagraphs", 0.4)]) == {
        "compiled_rgb10_median": False, "cudagraphs_not_slower": False}
    assert mod.targets([]) == {"compiled_rgb10_median": False, "cudagraphs_not_slower": False}


def test_the_gpu_part_is_the_cuda_rows_of_the_doctor():
    from core.doctor import gpu_steps

    names = [(s.group, s.name) for s in gpu_steps()]
    assert ("paths", "torch-cudagraphs on cuda") in names and ("speed", "torch-compiled on cuda") in names
    assert all(n.endswith(" on cuda") for _, n in names) and len(names) == 6
