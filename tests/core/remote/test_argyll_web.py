"""ArgyllCMS's web display, client side: the poll, the answer with or without HTTP headers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.remote import RemoteError, senders
from core.remote.argyll_web import parse_body, parse_response, parse_url, poll_request


def test_the_poll():
    assert poll_request(3, "127.0.0.1", 8080) == (
        b"GET /ajax/messages?3 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: text/plain\r\n"
        b"Connection: close\r\n\r\n")
    assert b"Host: [::1]:9000" in poll_request(0, "::1", 9000)


def test_argylls_own_bare_answer():
    # webwin.c: mg_printf(conn, "\r\n#%02X%02X%02X", (int)(r * 255.0 + 0.5), ...)
    wire = senders.argyll_answer((0.5, 0.25, 1.0))
    assert wire == b"\r\n#8040FF"
    p = parse_response(wire, received_s=7.0)
    assert (p.color, p.bits, p.source, p.received_s) == ((128, 64, 255), 8, "argyll-web", 7.0)
    assert p.full_screen and p.background == p.color


def test_video_levels_come_from_the_command_line():
    p = parse_response(senders.argyll_answer((1.0, 0.0, 0.5), video_levels=True), video_levels=True)
    assert p.color == (235, 16, 126) and p.video_levels


def test_an_answer_with_a_status_line_and_no_content_length():
    p = parse_response(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n#FF0000")
    assert p.color == (255, 0, 0)
    p = parse_response(b"HTTP/1.0 200 OK\nContent-Type: text/plain\n\n\r\n#00ff00\r\n")
    assert p.color == (0, 255, 0)


def test_displaycals_webwin_form_carries_background_and_geometry():
    p = parse_body("#808080|#000000|0.4000|0.4000|0.2000|0.2000")
    assert p.color == (128,) * 3 and p.background == (0, 0, 0)
    assert p.rect == pytest.approx((0.4, 0.4, 0.2, 0.2))


@pytest.mark.parametrize("wire, words", [
    (b"HTTP/1.1 404 Not Found\r\n\r\nnope", "404"),
    (b"", "expected #RRGGBB"),
    (b"\r\n#GG0000", "expected #RRGGBB"),
    (b"\r\n#FF00", "expected #RRGGBB"),
    (b"\r\n#FF0000|#000000|x|0|1|1", "cannot read"),
    (b"\r\n#FF0000|#000000|2|0|1|1", "off the screen"),
    (b"\xff\xfe", "not ASCII"),
    (b"#" + b"0" * 70000, "over"),
])
def test_bad_answers_are_one_remote_error(wire, words):
    with pytest.raises(RemoteError, match=words):
        parse_response(wire)


@pytest.mark.parametrize("url, expected", [
    ("http://127.0.0.1:8080", ("127.0.0.1", 8080)),
    ("http://edge.local:9000/", ("edge.local", 9000)),
    ("192.168.1.5", ("192.168.1.5", 8080)),
    ("http://[::1]:8081", ("::1", 8081)),
])
def test_urls(url, expected):
    assert parse_url(url) == expected


@pytest.mark.parametrize("url", ["https://x:1", "http://:80", "http://x:99999", "http://x/path", "",
                                 "ftp://x", "x" * 400])
def test_bad_urls_name_the_option(url):
    with pytest.raises(ValueError, match="--argyll-web"):
        parse_url(url)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_any_answer_is_a_patch_or_a_remote_error(data):
    try:
        p = parse_response(data)
    except RemoteError:
        return
    assert all(0 <= c <= 255 for c in p.color + p.background)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_any_url_is_parsed_or_refused_with_a_value_error(text):
    try:
        host, port = parse_url(text)
    except ValueError:
        return
    assert host and 0 <= port <= 65535
