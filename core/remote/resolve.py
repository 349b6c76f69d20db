"""The Resolve protocol (DisplayCAL/ArgyllCMS, LightSpace, Calman, ColourSpace): framing and XML.

The calibration program listens (TCP 20002); testcard connects.  Each message is a 4-byte
big-endian length and that many bytes of UTF-8 XML; there is no reply.  Two dialects:

* Calman style (DisplayCAL's default), as DisplayCAL's ``ResolveCMPatternGeneratorServer.send``
  writes it (``DisplayCAL/patterngenerators.py``)::

    <?xml version="1.0" encoding="utf-8"?><calibration><color red="514" green="514" blue="514"
    bits="10"/><background red="0" green="0" blue="0" bits="10"/><geometry x="0.4000"
    y="0.4000" cx="0.2000" cy="0.2000"/></calibration>

* LightSpace style (``ResolveLSPatternGeneratorServer.send``): ``<calibration><shapes>
  <rectangle><color red green blue/><geometry x y cx cy/></rectangle></shapes></calibration>``,
  8-bit unless ``bits`` says otherwise; a sender may put two rectangles (the background first,
  then the patch, as PGenerator+'s ``resolve.pm`` and dogegen read it) and a ``<colex red green
  blue bits>`` after ``<color>`` carrying the value at higher precision (it wins).

Geometry: x, y the top-left corner, cx, cy width and height, as fractions of the screen's width
and height; a missing geometry is the whole screen.  Decimal commas are read as points.  The
XML parser refuses any DTD or entity declaration (so no billion laughs, no external entities)
and bounds elements and nesting; every refusal is one :class:`RemoteError`.
"""

from __future__ import annotations

import struct
import time
from xml.etree import ElementTree as ET
from xml.parsers import expat

from core.remote.framing import Framer
from core.remote.patch import (
    FULL_SCREEN,
    MAX_BITS,
    MIN_BITS,
    RemoteError,
    RemotePatch,
    clip_rect,
    convert_codes,
    wire_number,
)

DEFAULT_PORT = 20002
MAX_MESSAGE = 65536        # PGenerator+ refuses lengths <= 0 or > 65536
MAX_ELEMENTS = 64          # a real message has under ten
MAX_DEPTH = 8
_HEADER = struct.Struct(">i")


class ResolveFramer(Framer):
    """Splits a byte stream into messages: ``feed(data)`` returns the complete messages so far,
    each as text or as a :class:`RemoteError` (bad UTF-8).

    A length of zero, a negative one or one over 64 KiB leaves the stream unreadable: that
    error is returned once and :attr:`broken` is set; the connection must be closed.  At most
    one message is held, so a sender can make it keep at most 64 KiB + 4 bytes.
    """

    name = "resolve"
    max_bytes = MAX_MESSAGE
    overhead = _HEADER.size

    def cut(self, buf: bytearray) -> tuple[int, int, int] | None:
        if len(buf) < _HEADER.size:
            return None
        (length,) = _HEADER.unpack_from(buf)
        if not 0 < length <= MAX_MESSAGE:
            raise RemoteError(f"resolve: message length {length} is outside "
                              f"1..{MAX_MESSAGE}; the stream cannot be read on")
        if len(buf) < _HEADER.size + length:
            return None
        return _HEADER.size, _HEADER.size + length, _HEADER.size + length

    def text(self, body: bytes) -> str | RemoteError:
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError as e:
            return RemoteError(f"resolve: the message is not UTF-8 (byte {e.start})")


def frame_message(xml: str) -> bytes:
    """One message as a sender puts it on the wire (for tests and tools)."""
    body = xml.encode("utf-8")
    return _HEADER.pack(len(body)) + body


class _Refused(Exception):
    pass


def parse_xml(text: str) -> ET.Element:
    """A hardened parse: no DTD, no entity declarations, bounded size, elements and depth."""
    if len(text) > MAX_MESSAGE:
        raise RemoteError(f"resolve: the message has {len(text)} characters, over {MAX_MESSAGE}")
    low = text.lower()
    if "<!doctype" in low or "<!entity" in low:
        raise RemoteError("resolve: the XML declares a DTD or entities; refused")
    builder = ET.TreeBuilder()
    parser = expat.ParserCreate()
    depth = [0, 0]  # current depth, elements seen

    def refuse(*_args):
        raise _Refused("the XML declares a DTD or entities; refused")

    def start(tag, attrs):
        depth[0] += 1
        depth[1] += 1
        if depth[0] > MAX_DEPTH or depth[1] > MAX_ELEMENTS:
            raise _Refused(f"the XML has more than {MAX_DEPTH} levels or {MAX_ELEMENTS} elements")
        builder.start(tag, attrs)

    def end(tag):
        depth[0] -= 1
        builder.end(tag)

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(text, True)
        return builder.close()
    except _Refused as e:
        raise RemoteError(f"resolve: {e}") from None
    except (expat.ExpatError, ValueError, AssertionError) as e:
        raise RemoteError(f"resolve: malformed XML ({str(e)[:80]})") from None


def _number(el: ET.Element, name: str, what: str, *, integer: bool, default=None):
    raw = el.get(name)
    if raw is None:
        if default is None:
            raise RemoteError(f"resolve: <{el.tag}> has no {name}")
        return default
    text = raw.strip() if integer else raw.strip().replace(",", ".")   # decimal commas: geometry
    return wire_number(text, f"resolve: {what} {name}", integer=integer)


def _colour(el: ET.Element, what: str, default_bits: int) -> tuple[tuple[int, int, int], int]:
    bits = _number(el, "bits", what, integer=True, default=default_bits)
    if not MIN_BITS <= bits <= MAX_BITS:
        raise RemoteError(f"resolve: {what} bits {bits} is outside {MIN_BITS}..{MAX_BITS}")
    top = (1 << bits) - 1
    values = []
    for name in ("red", "green", "blue"):
        v = _number(el, name, what, integer=True)
        if not 0 <= v <= top:
            raise RemoteError(f"resolve: {what} {name} {v} is outside 0..{top}, the {bits}-bit range")
        values.append(v)
    return tuple(values), bits


def _geometry(el: ET.Element | None) -> tuple[float, float, float, float]:
    if el is None:
        return FULL_SCREEN
    x = _number(el, "x", "geometry", integer=False, default=0.0)
    y = _number(el, "y", "geometry", integer=False, default=0.0)
    w = _number(el, "cx", "geometry", integer=False, default=1.0)
    h = _number(el, "cy", "geometry", integer=False, default=1.0)
    return clip_rect(float(x), float(y), float(w), float(h), "resolve: geometry")


def _shape_colour(rect: ET.Element, what: str) -> tuple[tuple[int, int, int], int]:
    el = rect.find("colex")
    if el is None:
        el = rect.find("color")
    if el is None:
        raise RemoteError(f"resolve: the {what} rectangle has no <color>")
    return _colour(el, what, 8)


def parse_resolve(text: str, *, video_levels: bool = False,
                  received_s: float | None = None) -> RemotePatch:
    """One Resolve XML message (either dialect) to a patch; :class:`RemoteError` otherwise.

    ``video_levels`` says the sender's code values are video levels (DisplayCAL's "use video
    levels": 64 + v * 876 at 10 bits); the protocol itself does not carry it.
    """
    root = parse_xml(text)
    if root.tag != "calibration":
        raise RemoteError(f"resolve: the root element is <{root.tag[:40]}>, not <calibration>")
    color_el = root.find("color")
    shapes = root.find("shapes")
    if color_el is not None:
        color, bits = _colour(color_el, "colour", 8)
        bg_el = root.find("background")
        if bg_el is not None:
            background, bg_bits = _colour(bg_el, "background", bits)
            background = convert_codes(background, bg_bits, video_levels, bits)
        else:
            background = (0, 0, 0)
        rect = _geometry(root.find("geometry"))
    elif shapes is not None:
        rects = shapes.findall("rectangle")
        if not 1 <= len(rects) <= 2:
            raise RemoteError(f"resolve: expected one or two <rectangle> shapes, got {len(rects)}")
        color, bits = _shape_colour(rects[-1], "patch")
        background = (0, 0, 0)
        if len(rects) == 2:
            background, bg_bits = _shape_colour(rects[0], "background")
            background = convert_codes(background, bg_bits, video_levels, bits)
        rect = _geometry(rects[-1].find("geometry"))
    else:
        raise RemoteError("resolve: the message has neither <color> nor <shapes>")
    return RemotePatch(color=color, background=background, bits=bits, rect=rect,
                       video_levels=video_levels, source="resolve",
                       received_s=time.monotonic() if received_s is None else received_s,
                       raw=text)
