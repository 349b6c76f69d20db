"""The GL presenter under Xvfb (Mesa llvmpipe, an 8-bit window): a frame of another depth than
the surface's shows the one rule's codes, read back from the window's framebuffer."""

import json

import pytest

from core.levels import Levels, rescale_code
from tests.app.preview.test_xvfb import run_xcb, xvfb  # noqa: F401 - the fixture
from tests.helpers import ROOT

pytestmark = [pytest.mark.qt, pytest.mark.xvfb]


def test_gl_preview_shows_the_rules_codes_for_frames_of_another_depth(xvfb, tmp_path):  # noqa: F811
    res = run_xcb(xvfb, [str(ROOT / "tests" / "helpers" / "gl_depth_probe.py")], tmp_path, timeout=120)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["kind"] == "opengl" and out["surface_bits"] == 8
    bars = out["bars10"]
    assert bars["fmt"] == "rgb8" and bars["top_left"] == [191, 191, 191]    # 767: by shift 192
    assert bars["values"] == [0, 191]
    assert bars["notice"] == "10-bit frame on an 8-bit surface: codes scaled by round(v*255/1023)"
    white = out["solid4"]
    assert white["values"] == [255]                                          # by shift 240
    assert white["notice"] == "4-bit frame on an 8-bit surface: codes scaled by round(v*255/15)"
    # GL's own unorm10 -> unorm8 conversion (texture to window) agrees with the rule for every code
    want = [rescale_code(v, Levels(10), Levels(8)) for v in range(1024)]
    assert out["rgb10_channels_agree"]
    assert out["rgb10_codes_shown"] == want
