"""What a surface of another depth than the frame's shows of a remote patch, and what the log
says of it: the engine's own codes, by the one rule, and the rule named."""

import numpy as np
import pytest

from core.engine import Engine
from core.patterns import make_spec
from core.remote import RemotePatch, log_line, shown_record, surface_codes, to_spec_params

W, H = 32, 18


def patch(color, bits=8, background=(0, 0, 0), video_levels=False, rect=(0.0, 0.0, 1.0, 1.0)):
    return RemotePatch(color=color, background=background, bits=bits, rect=rect,
                       video_levels=video_levels, source="resolve", received_s=1.0, raw="test")


def engine_shows(p, bit_depth, limited, surface_bits):
    """The codes the engine hands an ``surface_bits`` surface for ``p`` in a ``bit_depth`` frame."""
    name, params, _ = to_spec_params(p, bit_depth, limited, size=(W, H))
    spec = make_spec(name, params, width=W, height=H, bit_depth=bit_depth, limited=limited)
    fmt = {8: "rgb8", 10: "rgb10"}[surface_bits]
    with Engine(spec, fmt=fmt, allow_rounding=True) as eng:
        data = eng.render(0).data
    if fmt == "rgb10":
        from core.engine.formats import unpack_rgb10

        return unpack_rgb10(data)
    return data[..., :3]


def test_an_eight_bit_request_in_a_ten_bit_frame_is_shown_as_asked_on_an_eight_bit_surface():
    p = patch((128, 128, 128))
    shown, note = surface_codes(p, 10, False, 8)
    assert shown == {"bits": 8, "color": [128, 128, 128], "background": [0, 0, 0]}   # by shift: 129
    assert note == "10-bit frame 514,514,514 shown as 128,128,128 on the 8-bit surface (round(v*255/1023))"
    assert np.all(engine_shows(p, 10, False, 8) == 128)


@pytest.mark.parametrize("bits, code", [(4, 15), (1, 1)])
def test_white_below_eight_bits_is_white_on_the_surface(bits, code):
    p = patch((code, code, code), bits=bits)
    shown, note = surface_codes(p, bits, False, 8)
    assert shown["color"] == [255, 255, 255]        # by shift: 240 (4 bits), 128 (1 bit)
    assert note.endswith(f"on the 8-bit surface (round(v*255/{(1 << bits) - 1}))")
    assert np.all(engine_shows(p, bits, False, 8) == 255)


def test_what_the_log_says_is_what_the_engine_shows_for_every_eight_bit_grey():
    # every 8-bit request, through a 10-bit frame, back on an 8-bit surface: unchanged
    for v in range(256):
        shown, _ = surface_codes(patch((v, v, v)), 10, False, 8)
        assert shown["color"] == [v, v, v]
    p = patch((17, 128, 250), background=(3, 64, 200), rect=(0.25, 0.25, 0.5, 0.5))
    got = engine_shows(p, 10, False, 8)
    shown, _ = surface_codes(p, 10, False, 8)
    assert got[H // 2, W // 2].tolist() == shown["color"]
    assert got[0, 0].tolist() == shown["background"]


def test_video_levels_keep_black_and_white_on_a_surface_of_another_depth():
    p = patch((940, 64, 502), bits=10, video_levels=True)
    shown, note = surface_codes(p, 10, True, 8)
    assert shown["color"] == [235, 16, 126] and "round(v/4) (limited range, by shift)" in note
    assert engine_shows(p, 10, True, 8)[0, 0].tolist() == [235, 16, 126]


def test_the_shown_record_holds_the_surface_codes_and_the_rule():
    p = patch((128, 128, 128))
    _, _, note = to_spec_params(p, 10, False)
    rec = shown_record(p, 7, 1.5, note, "solid", surface=(10, False, 8))
    assert rec["shown"] == {"bits": 8, "color": [128, 128, 128], "background": [0, 0, 0]}
    assert rec["note"] == ("8-bit colour 128,128,128 shown as 10-bit 514,514,514 (round(v*1023/255)); "
                           "10-bit frame 514,514,514 shown as 128,128,128 on the 8-bit surface "
                           "(round(v*255/1023))")
    assert "round(v*255/1023)" in log_line(rec)
    same = shown_record(p, 7, 1.5, None, "solid", surface=(8, False, 8))
    assert same["note"] is None and same["shown"]["color"] == [128, 128, 128]
    assert shown_record(p, 7, 1.5)["shown"] is None
