"""The one framer: a byte stream cut into messages by a subclass that says only where each
ends; the buffer, the size cap, decoding, a broken stream and reset are the base's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.remote import Framer, RemoteError
from core.remote.pgenerator import PGeneratorFramer
from core.remote.resolve import ResolveFramer
from core.remote.upgci import UpgciFramer


class Lines(Framer):
    """A test protocol: a message ends at a newline; at most 8 bytes."""

    name = "lines"
    max_bytes = 8

    def cut(self, buf):
        end = buf.find(b"\n")
        return None if end < 0 else (0, end, end + 1)


class Sized(Framer):
    """A test protocol: one length byte, then that many bytes; a length of 0 breaks it."""

    name = "sized"
    max_bytes = 16
    overhead = 1

    def cut(self, buf):
        if not buf:
            return None
        if buf[0] == 0:
            raise RemoteError("sized: a length of 0")
        if len(buf) < 1 + buf[0]:
            return None
        return 1, 1 + buf[0], 1 + buf[0]


def texts(out):
    return [m if isinstance(m, str) else f"error: {m}" for m in out]


def test_messages_come_out_whole_and_in_order_however_the_bytes_arrive():
    f = Lines()
    assert f.feed(b"ab") == [] and f.pending
    assert f.feed(b"c\nde\n f ") == ["abc", "de"] and f.pending
    assert f.feed(b"\n") == ["f"] and not f.pending             # whitespace stripped by default


def test_a_complete_message_over_the_cap_is_an_error_and_the_stream_reads_on():
    f = Lines()
    assert texts(f.feed(b"123456789\nok\n")) == ["error: lines: a request over 8 bytes", "ok"]
    assert not f.broken


def test_an_incomplete_message_past_the_cap_breaks_the_stream_once():
    f = Lines()
    assert f.feed(b"12345678") == []                             # at the cap: still waiting
    assert texts(f.feed(b"9")) == ["error: lines: a request over 8 bytes"]
    assert f.broken and not f.pending                            # nothing held
    assert f.feed(b"\nok\n") == []                               # once broken, nothing more


def test_the_cap_allows_a_header_besides_the_body():
    f = Sized()
    assert f.feed(bytes([16]) + b"x" * 15) == [] and not f.broken   # 16 bytes held: 1 + 15
    assert f.feed(b"y") == ["x" * 15 + "y"]


def test_a_cut_that_refuses_breaks_the_stream_with_its_own_error():
    f = Sized()
    assert texts(f.feed(bytes([2]) + b"ab" + bytes([0]) + b"zz")) == ["ab", "error: sized: a length of 0"]
    assert f.broken and f.feed(bytes([1]) + b"a") == []


def test_a_body_not_in_the_encoding_is_an_error_and_the_stream_reads_on():
    f = Lines()
    assert texts(f.feed(b"\xff\nok\n")) == ["error: lines: the request is not ASCII", "ok"]


def test_reset_forgets_what_is_held_and_a_broken_stream():
    f = Lines()
    f.feed(b"half")
    f.reset()
    assert not f.pending and f.feed(b"new\n") == ["new"]
    f.feed(b"x" * 20)
    assert f.broken
    f.reset()
    assert not f.broken and f.feed(b"again\n") == ["again"]


def test_the_base_alone_cuts_nothing():
    with pytest.raises(NotImplementedError):
        Framer().feed(b"x")


@pytest.mark.parametrize("framer, wire, message, breaks", [
    (PGeneratorFramer, b"IS_ALIVE\x02\r", "IS_ALIVE", b"A" * 4097),
    (UpgciFramer, b"junk\x02INIT:2.0\x03", "INIT:2.0", b"\x02" + b"A" * 1024),
    (ResolveFramer, b"\x00\x00\x00\x04<a/>", "<a/>", b"\x7f\xff\xff\xff"),
])
def test_each_protocol_is_a_framer_that_says_only_where_its_messages_end(framer, wire, message,
                                                                         breaks):
    f = framer()
    assert isinstance(f, Framer)
    assert f.feed(wire[:-1]) == [] and f.pending
    assert f.feed(wire[-1:]) == [message] and not f.pending
    (error,) = f.feed(breaks)
    assert isinstance(error, RemoteError) and str(error).startswith(f.name + ": ") and f.broken
    f.reset()
    assert f.feed(wire) == [message]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=6).filter(lambda b: b"\n" not in b), max_size=8),
       st.lists(st.integers(1, 12), min_size=1, max_size=20))
def test_any_split_of_the_stream_gives_the_same_messages(bodies, sizes):
    wire = b"".join(b + b"\n" for b in bodies)
    whole = texts(Lines().feed(wire))
    f, got, i, k = Lines(), [], 0, 0
    while i < len(wire):
        n = sizes[k % len(sizes)]
        got += texts(f.feed(wire[i:i + n]))
        i, k = i + n, k + 1
    assert got == whole and len(whole) == len(bodies)
