"""Addresses from the command line, and the allow-list."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.remote import AllowList, parse_host_port, parse_listen


@pytest.mark.parametrize("text, expected", [
    ("192.168.1.10", ("192.168.1.10", 20002)),
    ("calman-pc:20003", ("calman-pc", 20003)),
    ("[::1]:20002", ("::1", 20002)),
    ("[::1]", ("::1", 20002)),
])
def test_host_port(text, expected):
    assert parse_host_port(text, 20002, "--resolve") == expected


@pytest.mark.parametrize("text", ["", "host:", "host:abc", "host:70000", "a b", "::1", "[zz]:1"])
def test_bad_host_port_names_the_option(text):
    with pytest.raises(ValueError, match="--resolve"):
        parse_host_port(text, 20002, "--resolve")


@pytest.mark.parametrize("text, expected", [
    ("85", ("127.0.0.1", 85)),
    ("0.0.0.0:8585", ("0.0.0.0", 8585)),
    ("[::]:2100", ("::", 2100)),
    ("0", ("127.0.0.1", 0)),
])
def test_listen_defaults_to_loopback(text, expected):
    assert parse_listen(text, "--pgenerator") == expected


@pytest.mark.parametrize("text", ["", "host", "host:", ":85", "99999"])
def test_bad_listen_names_the_option(text):
    with pytest.raises(ValueError, match="--pgenerator"):
        parse_listen(text, "--pgenerator")


def test_allow_list():
    allow = AllowList(["192.168.1.20", "10.0.0.0/8"])
    assert allow.allows("192.168.1.20") and allow.allows("10.2.3.4")
    assert not allow.allows("192.168.1.21") and not allow.allows("not an address")
    assert allow.allows("::ffff:10.1.1.1")           # an IPv4 peer on a dual-stack socket
    assert AllowList().allows("8.8.8.8") and not AllowList()
    with pytest.raises(ValueError, match="--allow"):
        AllowList(["192.168.1.300"])


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_an_address_or_one_value_error(text):
    for parse in (lambda t: parse_host_port(t, 1, "--x"), lambda t: parse_listen(t, "--x")):
        try:
            host, port = parse(text)
        except ValueError as e:
            assert str(e).startswith("--x")
            continue
        assert host and 0 <= port <= 65535
