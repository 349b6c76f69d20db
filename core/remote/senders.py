"""The bytes real calibration software puts on the wire, rebuilt from its source, for tests and
for trying a generator by hand.  Each function names the program and the code it follows.

Floats are given as the senders get them (0..1 of full scale); the arithmetic, the rounding
and the formatting are the senders' own, so the printf-style format strings are kept as the
senders write them.
"""
# ruff: noqa: UP031

from __future__ import annotations

import math
import struct


def displaycal_codes(rgb, bits: int, video_levels: bool = False) -> list[int]:
    """DisplayCAL's ``GenTCPSockPatternGeneratorServer._get_rgb`` (``patterngenerators.py``):
    ``round(minv * bitv + v * bitv * maxv)``; video levels scale 16..235 and shift above 8 bits,
    so at 10 bits 128/255 is 514 and video black is 64."""
    bitv = 2 ** bits - 1
    if video_levels:
        minv = 16.0 / 255.0
        maxv = 235.0 / 255.0 - minv
        if bits > 8:
            minv = (minv * 255.0 * (1 << (bits - 8))) / bitv
            maxv = (maxv * 255.0 * (1 << (bits - 8))) / bitv
    else:
        minv, maxv = 0.0, 1.0
    return [round(minv * bitv + v * bitv * maxv) for v in rgb]


def displaycal_calman(rgb, bgrgb=(0.0, 0.0, 0.0), x: float = 0.0, y: float = 0.0, w: float = 1.0,
                      h: float = 1.0, *, bits: int = 10, video_levels: bool = False) -> bytes:
    """One message of DisplayCAL's ``ResolveCMPatternGeneratorServer.send`` (the Calman-style
    Resolve dialect, DisplayCAL's default): length-prefixed XML, always ``bits`` = 10."""
    fg = displaycal_codes(rgb, bits, video_levels)
    bg = displaycal_codes(bgrgb, bits, video_levels)
    xml = ('<?xml version="1.0" encoding="utf-8"?><calibration>'
           '<color red="%i" green="%i" blue="%i" bits="%i"/>'
           '<background red="%i" green="%i" blue="%i" bits="%i"/>'
           '<geometry x="%.4f" y="%.4f" cx="%.4f" cy="%.4f"/>'
           "</calibration>" % tuple(fg + [bits] + bg + [bits, x, y, w, h]))
    return struct.pack(">I", len(xml)) + xml.encode("utf-8")


def displaycal_lightspace(rgb, x: float = 0.0, y: float = 0.0, w: float = 1.0, h: float = 1.0, *,
                          video_levels: bool = False) -> bytes:
    """One message of DisplayCAL's ``ResolveLSPatternGeneratorServer.send`` (the LightSpace
    dialect): 8-bit, one rectangle, no background."""
    fg = displaycal_codes(rgb, 8, video_levels)
    xml = ('<?xml version="1.0" encoding="UTF-8" ?><calibration><shapes>'
           '<rectangle><color red="%i" green="%i" blue="%i" />'
           '<geometry x="%.4f" y="%.4f" cx="%.4f" cy="%.4f" /></rectangle>'
           "</shapes></calibration>" % tuple(fg + [x, y, w, h]))
    return struct.pack(">I", len(xml)) + xml.encode("utf-8")


def lightspace_two_rectangles(background8, color8, colex=None, colex_bits: int = 10,
                              x: float = 0.0, y: float = 0.0, w: float = 1.0, h: float = 1.0) -> bytes:
    """LightSpace's two-rectangle form as PGenerator+'s ``resolve.pm`` and dogegen read it: the
    background rectangle first, then the patch, whose ``<colex>`` (after ``<color>``) carries
    the value at ``colex_bits``."""
    ex = "" if colex is None else \
        '<colex red="%i" green="%i" blue="%i" bits="%i" />' % (*colex, colex_bits)
    xml = ('<?xml version="1.0" encoding="UTF-8" ?><calibration><shapes>'
           '<rectangle><color red="%i" green="%i" blue="%i" />'
           '<geometry x="0.0000" y="0.0000" cx="1.0000" cy="1.0000" /></rectangle>'
           '<rectangle><color red="%i" green="%i" blue="%i" />%s'
           '<geometry x="%.4f" y="%.4f" cx="%.4f" cy="%.4f" /></rectangle>'
           "</shapes></calibration>" % (*background8, *color8, ex, x, y, w, h))
    return struct.pack(">I", len(xml)) + xml.encode("utf-8")


def hcfr_rectangle(percent: float, width: int, height: int, rgb, bg=(0, 0, 0), *, bits: int = 8,
                   dx: int = 0, dy: int = 0) -> bytes:
    """HCFR's patch request to a PGenerator (``GDIGenerator.cpp``, ``DisplayRGBColorrPI``):
    ``RGB=%s;%d,%d;100;%d,%d,%d;%d,%d,%d;-1,-1,%d,%d`` with the window
    ``(int)(pow(p / 100, 0.5) * W)`` by ``(int)(pow(p / 100, 0.5) * H)``, ended by 0x02 0x0D
    (PGenerator's ``$end_cmd_string``)."""
    s = math.pow(percent / 100.0, 0.5)
    text = "RGB=%s;%d,%d;100;%d,%d,%d;%d,%d,%d;-1,-1,%d,%d" % (
        "RECTANGLE10bit" if bits == 10 else "RECTANGLE", int(s * width), int(s * height),
        *rgb, *bg, dx, dy)
    return text.encode("ascii") + b"\x02\r"


def pgenerator_request(text: str) -> bytes:
    """Any PGenerator request (``CMD:GET_RESOLUTION``, ``IS_ALIVE``) as HCFR sends it."""
    return text.encode("ascii") + b"\x02\r"


def calman(text: str) -> bytes:
    """A Calman-style request: 0x02 + ``TYPE:payload`` + 0x03 (PGenerator+'s ``daemon.pm``)."""
    return b"\x02" + text.encode("ascii") + b"\x03"


def calman_rgb_s(rgb10, size: int) -> bytes:
    """``RGB_S:R,G,B,SIZE``, values zero-padded to four digits, the size to three
    (PGenerator+'s ``variables.pm``: ``"\\x02RGB_S:0940,0940,0940,018"``)."""
    return calman("RGB_S:%04d,%04d,%04d,%03d" % (*rgb10, size))


def calman_rgb_a(rgb10, bg10, size: int) -> bytes:
    """``RGB_A:R,G,B,bgR,bgG,bgB,SIZE``."""
    return calman("RGB_A:%04d,%04d,%04d,%04d,%04d,%04d,%03d" % (*rgb10, *bg10, size))


def calman_rgb_b(rgb10, grey10: int) -> bytes:
    """``RGB_B:R,G,B,BG`` (PGenerator+'s ``"\\x02RGB_B:0020,0020,0020,0000"``)."""
    return calman("RGB_B:%04d,%04d,%04d,%04d" % (*rgb10, grey10))


def argyll_answer(rgb, *, video_levels: bool = False) -> bytes:
    """ArgyllCMS ``webwin.c``'s answer to a poll: ``"\\r\\n#%02X%02X%02X"`` of
    ``(int)(v * 255.0 + 0.5)``, with ``-E`` (out_tvenc) ``((235 - 16) * v + 16) / 255`` first."""
    if video_levels:
        rgb = [((235.0 - 16.0) * v + 16.0) / 255.0 for v in rgb]
    return ("\r\n#%02X%02X%02X" % tuple(int(v * 255.0 + 0.5) for v in rgb)).encode("ascii")
