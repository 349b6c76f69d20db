"""The Calman-style protocol: framing, replies, RGB_S / RGB_B / RGB_A and the session state."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.remote import RemoteError, patch_rect_px, senders, window_rect
from core.remote.upgci import ACK, ETX, UpgciFramer, UpgciSession, respond


def session(**kw) -> UpgciSession:
    return UpgciSession(resolution=(3840, 2160), serial="SN1", firmware="fw2", **kw)


def request(wire: bytes) -> str:
    (text,) = UpgciFramer().feed(wire)
    return text


def test_calman_bytes():
    # PGenerator+'s variables.pm keys Calman's patch "\x02RGB_S:0940,0940,0940,018"
    assert senders.calman_rgb_s((940, 940, 940), 18) == b"\x02RGB_S:0940,0940,0940,018\x03"
    assert senders.calman_rgb_b((20, 20, 20), 0) == b"\x02RGB_B:0020,0020,0020,0000\x03"
    assert senders.calman_rgb_a((1023, 0, 0), (64, 64, 64), 10) == \
        b"\x02RGB_A:1023,0000,0000,0064,0064,0064,010\x03"


@pytest.mark.parametrize("text", ["INIT:1.2", "INIT:2.0", "IS_ALIVE", "UPDATE", "ENABLE PATTERNS"])
def test_commands_are_acknowledged(text):
    a = respond(text, session())
    assert a.reply == ACK and not a.close and a.patch is None


@pytest.mark.parametrize("text", ["CONF_HDR:ST2084,0.708,0.292,0.170,0.797,0.131,0.046,0.3127,0.3290,"
                                  "0.0050,1000,1000,00400", "DSMD:HDR10", "SPECIALTY:CONTRAST",
                                  "CONF_LEVEL:Range Limited", "NONSENSE", "RGB_X:0512,0512,0512,010"])
def test_commands_it_does_not_implement_are_never_acknowledged(text):
    # an ACK would tell Calman the display was set up, or the pattern is up: it would measure
    # the previous patch, or a signal other than the one it asked for
    a = respond(text, session())
    assert a.reply is None and a.close and a.patch is None and "not a command" in a.note


@pytest.mark.parametrize("text, payload", [
    ("SN", b"SN1"), ("FIRMWARE", b"fw2"), ("CAP", b"RGB_S,RGB_B,RGB_A,10_SIZE"),
    ("STATUS", b"STATUS,RGB_S,RGB_B,RGB_A,10_SIZE"),
    ("GET_SETTINGS", b"Resolution=3840x2160,Refresh=60,1_FORMAT=RGB 10-bit,Range=Full,Bits=10,"
                     b"Dolby=Off"),
])
def test_queries_answer_their_payload_and_etx(text, payload):
    assert respond(text, session()).reply == payload + ETX


@pytest.mark.parametrize("text", ["TERM", "QUIT", "SHUTDOWN"])
def test_closing_commands_are_acknowledged_then_close(text):
    a = respond(text, session())
    assert a.reply == ACK and a.close


def test_unknown_init_version_is_noted():
    assert "version" in respond("INIT:9.9", session()).note


def test_rgb_s_is_a_centred_window_of_size_percent_of_the_area():
    s = session()
    a = respond(request(senders.calman_rgb_s((940, 940, 940), 18)), s, received_s=4.0)
    p = a.patch
    assert a.reply == ACK and (p.color, p.background, p.bits) == ((940,) * 3, (0, 0, 0), 10)
    assert p.rect == pytest.approx(window_rect(18)) and p.received_s == 4.0
    w, h = patch_rect_px(p.rect, 1920, 1080)[2:]
    assert (w, h) == (round(0.18 ** 0.5 * 1920), round(0.18 ** 0.5 * 1080))
    assert s.window_percent == 18


def test_rgb_b_sets_a_grey_background_and_keeps_the_size():
    s = session()
    respond("RGB_S:0100,0100,0100,025", s)
    p = respond("RGB_B:0940,0940,0940,0064", s).patch
    assert p.background == (64, 64, 64) and p.rect == pytest.approx(window_rect(25))
    p = respond("RGB_S:0100,0200,0300,000", s).patch      # size 0 keeps 25 %, background carried
    assert p.background == (64, 64, 64) and p.rect == pytest.approx(window_rect(25))


def test_rgb_a_sets_both():
    s = session()
    p = respond(request(senders.calman_rgb_a((1023, 0, 512), (100, 200, 300), 50)), s).patch
    assert p.color == (1023, 0, 512) and p.background == (100, 200, 300)
    assert p.rect == pytest.approx(window_rect(50))
    assert respond("RGB_A:0001,0002,0003,0000,0000,0000,100", s).patch.full_screen


def test_10_size_sets_the_window_size():
    s = session()
    assert respond("10_SIZE:40", s).reply == ACK and s.window_percent == 40
    assert "outside" in respond("10_SIZE:400", s).note and s.window_percent == 40


@pytest.mark.parametrize("text, words", [
    ("RGB_S:1024,0000,0000,010", "red 1024"),
    ("RGB_S:0001,0002,0003,101", "101 %"),
    ("RGB_S:0001,0002,0003", "4 comma-separated"),
    ("RGB_B:0001,0002,0003,2000", "background"),
    ("RGB_A:0001,0002,0003,0000,0000,0000", "7 comma-separated"),
    ("RGB_S:abc,0,0,10", "integer"),
])
def test_a_malformed_patch_closes_with_the_reason(text, words):
    s = session()
    before = (s.window_percent, s.background)
    a = respond(text, s)
    assert a.close and a.reply is None and a.patch is None and words in a.note
    assert (s.window_percent, s.background) == before  # a refused patch changes nothing


def test_framer():
    framer = UpgciFramer()
    assert framer.feed(b"junk\x02INIT:2") == []
    assert framer.feed(b".0\x03\x02SN\x03") == ["INIT:2.0", "SN"]
    assert isinstance(framer.feed(b"\x02\xff\x03")[0], RemoteError)
    assert isinstance(framer.feed(b"\x02" + b"A" * 2000)[0], RemoteError) and framer.broken


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80))
def test_any_request_gets_an_answer_never_an_exception(text):
    a = respond(text, session())
    assert a.reply is None and a.close or a.reply in (ACK,) or a.reply.endswith(ETX)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["RGB_S", "RGB_B", "RGB_A"]),
       st.lists(st.integers(-5, 1100), min_size=3, max_size=7))
def test_generated_patches_are_in_range_or_refused(kind, values):
    a = respond(f"{kind}:" + ",".join(f"{v:04d}" for v in values), session())
    if a.patch is not None:
        assert all(0 <= v <= 1023 for v in a.patch.color + a.patch.background)
    else:
        assert a.close


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_frame_to_text_or_errors(data):
    assert all(isinstance(m, (str, RemoteError)) for m in UpgciFramer().feed(data))
