"""Listing render devices asks torch only where a GPU driver is present: a box without one
gets ["cpu"] without torch's import (1.5 s, 300 MB)."""

import pytest

from core.engine.devices import GPU_DRIVER_PATHS, gpu_driver_present


@pytest.fixture
def no_torch(monkeypatch):
    import sys

    monkeypatch.delitem(sys.modules, "torch", raising=False)   # the sign is judged, not assumed


def test_linux_without_a_driver_file_has_no_gpu(no_torch):
    assert not gpu_driver_present("linux", exists=lambda p: False)


@pytest.mark.parametrize("path", GPU_DRIVER_PATHS)
def test_linux_with_any_driver_file_may_have_one(no_torch, path):
    assert gpu_driver_present("linux", exists=lambda p: p == path)


def test_macs_are_asked_on_apple_silicon_only(no_torch):
    assert gpu_driver_present("darwin", machine="arm64")
    assert not gpu_driver_present("darwin", machine="x86_64")


def test_windows_has_no_cheap_sign_so_torch_is_asked(no_torch):
    assert gpu_driver_present("win32", exists=lambda p: False)
