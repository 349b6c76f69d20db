"""PGenerator's classic protocol as HCFR speaks it: replies, patches, discovery, bad input."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.remote import RemoteError, patch_rect_px, pgenerator, senders
from core.remote.pgenerator import PGeneratorFramer, discovery_reply, respond

FHD = (1920, 1080)


def answer(text: str, resolution=FHD):
    return respond(text, resolution=resolution, version="9.9", received_s=3.0)


def request(wire: bytes) -> str:
    (text,) = PGeneratorFramer().feed(wire)
    return text


@pytest.mark.parametrize("text, reply", [
    ("IS_ALIVE", "ALIVE"),
    ("CMD:GET_RESOLUTION", "OK:1920x1080"),
    ("CMD:GET_GPU_MEMORY", "OK:192"),
    ("CMD:GET_PGENERATOR_VERSION", "OK:9.9"),
    ("CMD:REBOOT", "ERR"),
    ("FOO", "ERR"),
    ("", "ERR"),
    ("RGB=TEXT;12,0;100;16,128,128;0,0,0;100,300;Initializing PGenerator", "OK"),
    ("TESTTEMPLATE:PatternDynamic:0,0,0", "OK"),
    ("RGB=IMAGE;1920,1080;100;255,255,255;0,0,0;-1,-1;/x.png", "ERR"),
])
def test_replies(text, reply):
    a = answer(text)
    assert a.reply == reply and a.patch is None and not a.close


def test_quit_closes_without_a_reply():
    a = answer("QUIT")
    assert a.close and a.reply is None


def test_replies_go_out_with_0x02_0x0d():
    assert pgenerator.frame_request("OK:1920x1080") == b"OK:1920x1080\x02\r"


def test_hcfr_ten_percent_window_as_hcfr_sends_it():
    # GDIGenerator.cpp: (int)(pow(10 / 100.0, 0.5) * 1920) = 607, (int)(... * 1080) = 341
    wire = senders.hcfr_rectangle(10, 1920, 1080, (128, 128, 128), (16, 16, 16))
    assert wire == b"RGB=RECTANGLE;607,341;100;128,128,128;16,16,16;-1,-1,0,0\x02\r"
    a = answer(request(wire))
    p = a.patch
    assert a.reply == "OK" and (p.color, p.background, p.bits) == ((128,) * 3, (16,) * 3, 8)
    assert p.source == "pgenerator" and p.received_s == 3.0
    # PGenerator centres with x = (W - w) / 2 = 656.5 -> int 656, y = (1080 - 341) / 2 -> 369
    assert patch_rect_px(p.rect, *FHD) == (656, 369, 607, 341)


def test_hcfr_ten_bit_and_an_offset():
    wire = senders.hcfr_rectangle(18, 1920, 1080, (940, 64, 512), (0, 0, 0), bits=10, dx=-100, dy=50)
    assert wire.startswith(b"RGB=RECTANGLE10bit;814,458;100;940,64,512;0,0,0;-1,-1,-100,50")
    p = answer(request(wire)).patch
    assert p.bits == 10 and p.color == (940, 64, 512)
    assert patch_rect_px(p.rect, *FHD) == (453, 361, 814, 458)


def test_absolute_position_and_defaults():
    p = answer("RGB=RECTANGLE;500,500;0;235,235,235;16,16,16;50,50;Testo").patch
    assert patch_rect_px(p.rect, *FHD) == (50, 50, 500, 500) and p.background == (16, 16, 16)
    p = answer("RGB=RECTANGLE;200,100;0;7,7,7;-1,-1,-1;10,10;x").patch   # BG -1: black
    assert p.background == (0, 0, 0)
    p = answer("RGB=RECTANGLE;100,100;0;1,2,3;;").patch                  # no BG, no POS: centred
    assert patch_rect_px(p.rect, *FHD) == (910, 490, 100, 100)
    p = answer("RGB=RECTANGLE;3000,2000;0;1,2,3;0,0,0;-1,-1,10,10").patch  # larger than the screen
    assert p.full_screen


@pytest.mark.parametrize("text, words", [
    ("RGB=RECTANGLE;100,100;0;256,0,0;0,0,0;-1,-1", "red 256"),
    ("RGB=RECTANGLE10bit;100,100;0;1024,0,0;0,0,0;-1,-1", "red 1024"),
    ("RGB=RECTANGLE;100,100;0;1,2;0,0,0;-1,-1", "expected 3"),
    ("RGB=RECTANGLE;100,100;0;1.5,2,3;0,0,0;-1,-1", "integer"),
    ("RGB=RECTANGLE;0,100;0;1,2,3;0,0,0;-1,-1", "not a patch"),
    ("RGB=RECTANGLE;100,100;0;1,2,3;0,0,0;5000,5000", "off the screen"),
    ("RGB=RECTANGLE;100,100;0;1,2,3", "needs"),
    ("RGB=RECTANGLE;100,100;0;1,2,3;0,0,0;1,2,3", "2 or 4"),
    ("RGB=RECTANGLE;1e400,100;0;1,2,3;0,0,0;-1,-1", "integer"),
    ("RGB=RECTANGLE;100,100;0;254.9999999999999999,0,0;0,0,0;-1,-1", "integer"),   # not 255
    ("RGB=RECTANGLE;100,100;0;255.0,0,0;0,0,0;-1,-1", "integer"),
    ("RGB=RECTANGLE;100.5,100;0;1,2,3;0,0,0;-1,-1", "integer"),
    ("RGB=RECTANGLE;100,100;0;1,2,3;0,0,0;-1,-1,0x10,0", "integer"),
])
def test_bad_patches_are_err_with_the_reason(text, words):
    a = answer(text)
    assert a.reply == "ERR" and a.patch is None and words in a.note


def test_framer_splits_at_the_terminator_and_bounds_a_request():
    framer = PGeneratorFramer()
    assert framer.feed(b"IS_AL") == []
    assert framer.feed(b"IVE\x02\rCMD:GET_RESOLUTION\x02\r") == ["IS_ALIVE", "CMD:GET_RESOLUTION"]
    out = framer.feed(b"\xff\x02\r")
    assert isinstance(out[0], RemoteError)
    out = framer.feed(b"A" * (pgenerator.MAX_REQUEST + 1))
    assert isinstance(out[0], RemoteError) and framer.broken


def test_discovery():
    assert discovery_reply(b"Who is a PGenerator", "edge-1") == b"I am a PGenerator edge-1"
    assert discovery_reply(b"hello", "edge-1") is None
    assert discovery_reply(b"Who is a PGenerator", "\x00" + "n" * 40) == b"I am a PGenerator " + b"n" * 24


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=120))
def test_any_text_gets_an_answer_never_an_exception(text):
    a = answer(text)
    assert a.reply in (None, "OK", "ERR", "ALIVE") or a.reply.startswith("OK:")
    if a.patch is not None:
        assert a.reply == "OK"


NUM = st.one_of(st.integers(-3000, 3000), st.floats(-1e6, 1e6, allow_nan=False)).map(str)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["RECTANGLE", "RECTANGLE10bit"]), st.lists(NUM, min_size=2, max_size=2),
       st.lists(st.integers(-2, 1100), min_size=3, max_size=3),
       st.lists(st.integers(-2, 1100), min_size=3, max_size=3), st.lists(NUM, min_size=2, max_size=4))
def test_generated_patches_are_in_range_or_refused(draw, dim, rgb, bg, pos):
    text = (f"RGB={draw};{','.join(dim)};100;{','.join(map(str, rgb))};"
            f"{','.join(map(str, bg))};{','.join(pos)}")
    a = answer(text)
    top = 1023 if draw.endswith("10bit") else 255
    if any(not 0 <= v <= top for v in rgb):
        assert a.reply == "ERR"
    if a.patch is not None:
        assert all(0 <= v <= top for v in a.patch.color + a.patch.background)
        x, y, w, h = a.patch.rect
        assert all(math.isfinite(v) for v in a.patch.rect) and 0 < w <= 1 and 0 < h <= 1
