"""Connections as an operator types them: checked into a Connection or refused with one
sentence naming the option; each builds its transport, nothing opened until start()."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.remote import (
    KINDS,
    ArgyllWebClient,
    DiscoveryResponder,
    PGeneratorServer,
    ResolveClient,
    UpgciServer,
    discovery_for,
    make_transport,
    parse_connection,
)
from core.remote.connections import OPTIONS


@pytest.mark.parametrize("kind, text, host, port", [
    ("resolve", "192.168.1.5", "192.168.1.5", 20002),
    ("resolve", "displaycal.local:20003", "displaycal.local", 20003),
    ("resolve", None, "127.0.0.1", 20002),
    ("argyll-web", "http://10.0.0.2:8080/", "10.0.0.2", 8080),
    ("argyll-web", "127.0.0.1", "127.0.0.1", 8080),
    ("pgenerator", "85", "127.0.0.1", 85),             # loopback unless an address is given
    ("pgenerator", "0.0.0.0:85", "0.0.0.0", 85),
    ("upgci", None, "127.0.0.1", 2100),
    ("upgci", "[::1]:2100", "::1", 2100),
])
def test_what_an_operator_types_is_read(kind, text, host, port):
    conn = parse_connection(kind, text)
    assert (conn.kind, conn.host, conn.port) == (kind, host, port)
    assert conn.listens == (kind in ("pgenerator", "upgci"))


def test_discovery_answers_on_the_servers_address():
    d = discovery_for(parse_connection("pgenerator", "0.0.0.0:85"))
    assert (d.kind, d.host, d.port) == ("discovery", "0.0.0.0", 1977)
    assert d.describe() == "PGenerator discovery listening on 0.0.0.0:1977"


def test_each_kind_builds_its_transport_unstarted():
    types = {"resolve": ResolveClient, "argyll-web": ArgyllWebClient, "pgenerator": PGeneratorServer,
             "upgci": UpgciServer, "discovery": DiscoveryResponder}
    for kind in KINDS:
        t = make_transport(parse_connection(kind, "0" if kind in ("pgenerator", "upgci", "discovery")
                                            else None), lambda p: None, resolution=(1920, 1080),
                           video_levels=True, allow=["192.168.1.0/24"])
        assert isinstance(t, types[kind]) and not t.running and t.state == "stopped"
        if hasattr(t, "video_levels"):
            assert t.video_levels is True
        if hasattr(t, "allow"):
            assert str(t.allow) == "192.168.1.0/24"


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="is not one of resolve, argyll-web"):
        parse_connection("madtpg", "1")


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(KINDS), st.text(max_size=80))
def test_any_text_is_a_connection_or_one_sentence_naming_the_option(kind, text):
    try:
        conn = parse_connection(kind, text)
    except ValueError as exc:
        assert str(exc).startswith(OPTIONS[kind] + ":") and "\n" not in str(exc)
        return
    assert 0 <= conn.port <= 65535 and conn.host
    if conn.listens:   # what it says it listens on reads back as itself
        assert parse_connection(kind, conn.address) == conn
