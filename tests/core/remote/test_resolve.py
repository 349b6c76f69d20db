"""The Resolve protocol: framing, both XML dialects as real senders write them, hostile input."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.remote import RemoteError, RemotePatch, resolve, senders
from core.remote.resolve import MAX_MESSAGE, ResolveFramer, frame_message, parse_resolve


def messages(data: bytes) -> list:
    return ResolveFramer().feed(data)


def one(data: bytes) -> RemotePatch:
    (text,) = messages(data)
    assert isinstance(text, str)
    return parse_resolve(text, received_s=2.5)


# ---------------------------------------------------------------- DisplayCAL, byte for byte
def test_displaycal_calman_bytes_are_what_its_source_writes():
    # DisplayCAL/patterngenerators.py, ResolveCMPatternGeneratorServer.send, for 128/255 grey in
    # a 20 % patch at 0.4, 0.4 on black: round(v * 1023) is 514 (not 512), bits always 10.
    xml = ('<?xml version="1.0" encoding="utf-8"?><calibration>'
           '<color red="514" green="514" blue="514" bits="10"/>'
           '<background red="0" green="0" blue="0" bits="10"/>'
           '<geometry x="0.4000" y="0.4000" cx="0.2000" cy="0.2000"/></calibration>')
    wire = struct.pack(">I", len(xml)) + xml.encode()
    assert senders.displaycal_calman((128 / 255,) * 3, (0, 0, 0), 0.4, 0.4, 0.2, 0.2) == wire
    p = one(wire)
    assert (p.color, p.background, p.bits) == ((514, 514, 514), (0, 0, 0), 10)
    assert p.rect == pytest.approx((0.4, 0.4, 0.2, 0.2))
    assert (p.source, p.received_s, p.video_levels) == ("resolve", 2.5, False)
    assert p.raw.startswith("<?xml")


def test_displaycal_first_grey_and_final_black():
    grey = one(senders.displaycal_calman((0.5,) * 3))        # sent on connect, not measured
    assert grey.color == (512, 512, 512) and grey.full_screen
    black = one(senders.displaycal_calman((0,) * 3, x=0, y=0, w=1, h=1))
    assert black.color == (0, 0, 0) and black.full_screen


def test_displaycal_video_levels_arrive_as_64_plus_v_times_876():
    p = one(senders.displaycal_calman((1.0, 0.0, 0.5), video_levels=True))
    assert p.color == (940, 64, 502)


def test_displaycal_lightspace_dialect():
    wire = senders.displaycal_lightspace((1.0, 0.5, 0.0), 0.25, 0.25, 0.5, 0.5)
    assert wire.endswith(b'<geometry x="0.2500" y="0.2500" cx="0.5000" cy="0.5000" />'
                         b"</rectangle></shapes></calibration>")
    p = one(wire)
    assert (p.color, p.background, p.bits) == ((255, 128, 0), (0, 0, 0), 8)
    assert p.rect == pytest.approx((0.25, 0.25, 0.5, 0.5))


def test_lightspace_two_rectangles_background_first_and_colex_wins():
    p = one(senders.lightspace_two_rectangles((16, 16, 16), (128, 128, 128), (514, 515, 516), 10,
                                              0.3, 0.3, 0.4, 0.4))
    assert p.bits == 10 and p.color == (514, 515, 516)
    assert p.background == (64, 64, 64)  # the 8-bit background carried to the patch's 10 bits
    assert p.rect == pytest.approx((0.3, 0.3, 0.4, 0.4))
    plain = one(senders.lightspace_two_rectangles((0, 0, 0), (255, 0, 0)))
    assert (plain.color, plain.bits) == ((255, 0, 0), 8)


def test_decimal_commas_and_missing_geometry():
    p = parse_resolve('<calibration><color red="1" green="2" blue="3" bits="8"/>'
                      '<geometry x="0,1" y="0,2" cx="0,5" cy="0,25"/></calibration>')
    assert p.rect == pytest.approx((0.1, 0.2, 0.5, 0.25))
    assert parse_resolve('<calibration><color red="1" green="2" blue="3"/></calibration>').full_screen


def test_geometry_past_an_edge_is_clipped():
    p = parse_resolve('<calibration><color red="1" green="2" blue="3"/>'
                      '<geometry x="0.9" y="-0.1" cx="0.2" cy="0.3"/></calibration>')
    assert p.rect == pytest.approx((0.9, 0.0, 0.1, 0.2))


# ---------------------------------------------------------------- refusals
@pytest.mark.parametrize("xml, words", [
    ('<calibration><color red="1024" green="0" blue="0" bits="10"/></calibration>', "red 1024"),
    ('<calibration><color red="256" green="0" blue="0"/></calibration>', "0..255"),
    ('<calibration><color red="-1" green="0" blue="0"/></calibration>', "red -1"),
    ('<calibration><color red="1.5" green="0" blue="0"/></calibration>', "integer"),
    ('<calibration><color red="1" green="0" blue="0" bits="17"/></calibration>', "bits 17"),
    ('<calibration><color red="1" green="0"/></calibration>', "no blue"),
    ('<calibration><color red="nan" green="0" blue="0"/></calibration>', "integer"),
    ('<calibration><color red="513.9999999999999999" green="0" blue="0"/></calibration>', "integer"),
    ('<calibration><color red="1" green="0" blue="0"/><geometry cx="0" cy="1"/></calibration>',
     "above 0"),
    ('<calibration><color red="1" green="0" blue="0"/><geometry x="2" cx="0.5"/></calibration>',
     "off the screen"),
    ('<calibration><color red="1" green="0" blue="0"/><geometry x="1e400"/></calibration>', "finite"),
    ("<calibration/>", "neither"),
    ("<patch/>", "not <calibration>"),
    ("<calibration><shapes/></calibration>", "one or two"),
    ("<calibration><color", "malformed"),
    ("", "malformed"),
    ("<calibration>&undefined;</calibration>", "malformed"),
])
def test_bad_messages_are_one_remote_error(xml, words):
    with pytest.raises(RemoteError, match=words):
        parse_resolve(xml)


def test_billion_laughs_is_refused_before_any_expansion():
    lol = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
           + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % (i - 1 if i > 1 else "")) * 10}">'
                     for i in range(1, 10))
           + ']><calibration><color red="&lol9;" green="0" blue="0"/></calibration>')
    with pytest.raises(RemoteError, match="DTD or entities"):
        parse_resolve(lol)
    (text,) = messages(frame_message(lol))  # the framing is fine; the parse refuses
    with pytest.raises(RemoteError, match="DTD or entities"):
        parse_resolve(text)


def test_external_entities_and_a_doctype_in_another_case_are_refused():
    for xml in ('<!DocType x SYSTEM "file:///etc/passwd"><calibration/>',
                '<?xml version="1.0"?><!ENTITY x SYSTEM "http://example.invalid/">'):
        with pytest.raises(RemoteError):
            parse_resolve(xml)


def test_deep_or_wide_xml_is_refused():
    with pytest.raises(RemoteError, match="levels"):
        parse_resolve("<calibration>" + "<a>" * 20 + "</a>" * 20 + "</calibration>")
    with pytest.raises(RemoteError, match="elements"):
        parse_resolve("<calibration>" + "<a/>" * 100 + "</calibration>")


@pytest.mark.parametrize("length", [0, -1, MAX_MESSAGE + 1])
def test_lengths_zero_negative_and_over_64k_break_the_stream(length):
    framer = ResolveFramer()
    out = framer.feed(struct.pack(">i", length) + b"<calibration/>")
    assert len(out) == 1 and isinstance(out[0], RemoteError)
    assert str(length) in str(out[0]) and framer.broken
    assert framer.feed(frame_message("<calibration/>")) == []  # nothing is read after that


def test_exactly_64k_is_a_message():
    body = "<calibration/>" + " " * (MAX_MESSAGE - len("<calibration/>"))
    assert messages(frame_message(body)) == [body]


def test_bad_utf8_is_one_error_and_the_stream_goes_on():
    framer = ResolveFramer()
    out = framer.feed(struct.pack(">i", 2) + b"\xff\xfe" + frame_message("<ok/>"))
    assert isinstance(out[0], RemoteError) and out[1] == "<ok/>" and not framer.broken


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=6), st.data())
def test_framing_does_not_depend_on_how_the_bytes_arrive(bodies, data):
    texts = [b.decode("utf-8", "replace") or "x" for b in bodies]
    stream = b"".join(frame_message(t) for t in texts)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    framer, got = ResolveFramer(), []
    for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True):
        got += framer.feed(stream[a:b])
    assert got == texts


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_give_messages_or_remote_errors(data):
    for m in ResolveFramer().feed(data):
        assert isinstance(m, (str, RemoteError))
        if isinstance(m, str):
            try:
                parse_resolve(m)
            except RemoteError:
                pass


def attrs(st_value):
    return st.fixed_dictionaries({}, optional={
        k: st_value for k in ("red", "green", "blue", "bits", "x", "y", "cx", "cy")})


VALUES = st.one_of(st.integers(-5, 70000).map(str), st.floats(allow_nan=True).map(str),
                   st.text(max_size=6), st.sampled_from(["0,5", "1e400", "", " 3 "]))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["color", "background", "geometry", "colex"]), attrs(VALUES),
       st.sampled_from(["calman", "lightspace"]), attrs(VALUES))
def test_generated_messages_parse_or_refuse_and_what_parses_is_in_range(tag, a, dialect, g):
    def el(name, d):
        return f"<{name} " + " ".join(f'{k}="{v.replace(chr(34), "")}"' for k, v in d.items()) + "/>"

    inner = el("color", a) + el(tag, g)
    xml = (f"<calibration>{inner}</calibration>" if dialect == "calman"
           else f"<calibration><shapes><rectangle>{inner}</rectangle></shapes></calibration>")
    try:
        p = parse_resolve(xml)
    except RemoteError:
        return
    top = (1 << p.bits) - 1
    assert all(0 <= c <= top for c in p.color + p.background)
    x, y, w, h = p.rect
    assert 0 <= x < 1 and 0 <= y < 1 and 0 < w <= 1 and 0 < h <= 1


def test_the_default_port_is_20002():
    assert resolve.DEFAULT_PORT == 20002
