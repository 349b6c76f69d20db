"""A patch asked for by calibration software, and the testcard frame that shows it.

Every protocol parser turns its message into one :class:`RemotePatch`: code values at the
message's own bit depth, a background, and a rectangle as fractions of the screen (x, y, w, h,
top-left origin, each axis scaled separately).  :func:`to_spec_params` turns that into a
registry pattern for a surface of a given depth:

* colours at the surface's depth land unchanged; at another depth they are carried with
  :func:`core.levels.rescale_code`, by shift when the patch is in video levels (64 at 10 bits is
  16 at 8), by proportion otherwise (514 at 10 bits is 128 at 8), and the note names the rule;
  :func:`surface_codes` says what a surface of another depth than the frame's shows, by the
  same rule the engine converts with;
* the rectangle becomes the ``window`` pattern's rectangle form (``geometry`` fraction: the
  patch's x, y, w, h over a fixed background), which rounds to pixels exactly as
  :func:`patch_rect_px` does, so every rectangle (DisplayCAL's square patches included) covers
  exactly the pixels it names on a frame of any size; a patch that covers the screen is
  ``solid``.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass

from core.levels import Levels, depth_rule, parse_number, rescale_code
from core.patterns import rect_geometry

SOURCES = ("resolve", "argyll-web", "pgenerator", "upgci")
RAW_CHARS = 200            # what of a message a patch keeps for the log
MIN_BITS, MAX_BITS = 1, 16
FULL_SCREEN = (0.0, 0.0, 1.0, 1.0)
_EPS = 1e-9


class RemoteError(ValueError):
    """One sentence saying what a message from calibration software got wrong."""


Colour = tuple[int, int, int]
Rect = tuple[float, float, float, float]


_WIRE_INT = re.compile(r"[+-]?[0-9]{1,12}")


def wire_number(text: str, what: str, *, integer: bool = False) -> int | float:
    """A number field as it came on the wire: the one check every protocol's fields go through.

    ``integer``: decimal digits with an optional sign and nothing else (``254.9999999999999999``,
    ``255.0``, ``1e2`` and ``0x10`` are refused: a float that rounds to an integer is not one);
    otherwise a finite number (:func:`core.levels.parse_number`).  :class:`RemoteError` names
    ``what``."""
    raw = text.strip() if isinstance(text, str) else text
    if integer:
        if isinstance(raw, str) and _WIRE_INT.fullmatch(raw):
            return int(raw)
        shown = repr(raw)[:40] if isinstance(raw, str) else type(raw).__name__
        raise RemoteError(f"{what}: expected an integer, got {shown}")
    try:
        return parse_number(raw, what)
    except ValueError as e:
        raise RemoteError(str(e)) from None


def check_codes(values, bits: int, what: str) -> Colour:
    """Three integer code values within ``0..2**bits - 1``; :class:`RemoteError` otherwise."""
    values = tuple(values)
    if len(values) != 3:
        raise RemoteError(f"{what}: expected 3 values (red, green, blue), got {len(values)}")
    top = (1 << bits) - 1
    out = []
    for name, v in zip(("red", "green", "blue"), values, strict=True):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise RemoteError(f"{what} {name}: expected an integer code value, got {v!r:.40}")
        if not 0 <= int(v) <= top:
            raise RemoteError(f"{what} {name} {int(v)} is outside 0..{top}, the {bits}-bit range")
        out.append(int(v))
    return tuple(out)  # type: ignore[return-value]


def clip_rect(x: float, y: float, w: float, h: float, what: str = "geometry") -> Rect:
    """A rectangle in screen fractions clipped to the screen; refuses an empty one (width or
    height not above 0) and one wholly off the screen."""
    for name, v in (("x", x), ("y", y), ("width", w), ("height", h)):
        if not math.isfinite(v):
            raise RemoteError(f"{what} {name}: {v} is not a finite number")
    if w <= 0 or h <= 0:
        raise RemoteError(f"{what}: width and height must be above 0, got {w:g} x {h:g}")
    x0, y0 = max(x, 0.0), max(y, 0.0)
    x1, y1 = min(x + w, 1.0), min(y + h, 1.0)
    if x1 - x0 <= _EPS or y1 - y0 <= _EPS:
        raise RemoteError(f"{what}: {x:g},{y:g} {w:g} x {h:g} lies wholly off the screen")
    return (x0, y0, x1 - x0, y1 - y0)


def window_rect(percent: float, what: str = "window size") -> Rect:
    """A window of ``percent`` % of the screen's area with the screen's aspect, centred."""
    if not math.isfinite(percent) or not 0 < percent <= 100:
        raise RemoteError(f"{what}: {percent:g} % is outside 0..100 %")
    s = min(1.0, math.sqrt(percent / 100.0))
    return ((1.0 - s) / 2, (1.0 - s) / 2, s, s)


@dataclass(frozen=True)
class RemotePatch:
    """A patch as received: code values at ``bits``, a rectangle in screen fractions."""

    color: Colour
    background: Colour
    bits: int
    rect: Rect            # x, y, w, h as fractions of the screen, top-left origin
    video_levels: bool
    source: str           # "resolve", "argyll-web", "pgenerator", "upgci"
    received_s: float     # time.monotonic() (or the transport's injected clock)
    raw: str              # the message as received, cut to 200 characters for logs

    def __post_init__(self):
        if isinstance(self.bits, bool) or not isinstance(self.bits, numbers.Integral) \
                or not MIN_BITS <= self.bits <= MAX_BITS:
            raise RemoteError(f"bits: expected an integer {MIN_BITS}..{MAX_BITS}, got {self.bits!r:.40}")
        if self.source not in SOURCES:
            raise RemoteError(f"source: {self.source!r:.40} is not one of {', '.join(SOURCES)}")
        rect = tuple(float(v) for v in self.rect)
        if len(rect) != 4 or any(abs(a - b) > 1e-6 for a, b in zip(clip_rect(*rect, "rect"), rect,
                                                                     strict=True)):
            raise RemoteError(f"rect: {self.rect!r:.80} is not a rectangle on the screen")
        set_ = object.__setattr__  # frozen: normalise once, here
        set_(self, "bits", int(self.bits))
        set_(self, "color", check_codes(self.color, self.bits, "colour"))
        set_(self, "background", check_codes(self.background, self.bits, "background"))
        set_(self, "rect", rect)
        set_(self, "video_levels", bool(self.video_levels))
        set_(self, "received_s", float(self.received_s))
        set_(self, "raw", str(self.raw)[:RAW_CHARS])

    @property
    def key(self) -> tuple:
        """What decides the picture (a repeat of the same patch has the same key)."""
        return (self.color, self.background, self.bits, self.rect, self.video_levels)

    @property
    def full_screen(self) -> bool:
        x, y, w, h = self.rect
        return x <= _EPS and y <= _EPS and w >= 1 - _EPS and h >= 1 - _EPS

    def describe(self) -> str:
        """One line for a log or a status bar."""
        c = ",".join(map(str, self.color))
        levels = " video levels" if self.video_levels else ""
        if self.full_screen:
            return f"{self.bits}-bit{levels} {c} full screen ({self.source})"
        x, y, w, h = self.rect
        bg = ",".join(map(str, self.background))
        return (f"{self.bits}-bit{levels} {c} on {bg}, {w:.4g} x {h:.4g} at {x:.4g},{y:.4g} "
                f"({self.source})")

    def as_dict(self) -> dict:
        """JSON-able fields, for a log line."""
        return {"color": list(self.color), "background": list(self.background), "bits": self.bits,
                "rect": list(self.rect), "video_levels": self.video_levels, "source": self.source,
                "received_s": self.received_s, "raw": self.raw}


def patch_rect_px(rect: Rect, width: int, height: int) -> tuple[int, int, int, int]:
    """The pixels a rectangle of screen fractions covers on a ``width`` x ``height`` frame, as
    ``(x, y, w, h)``.  The size first, then the centre: ``w = round(w * W)`` (at least 1),
    ``x = round((x + w / 2) * W - w_px / 2)`` kept within the frame, rounded half up, the same
    for y (:func:`core.patterns.rect_geometry`, the rule the ``window`` pattern draws by).  So a
    patch keeps its area and centre to half a pixel."""
    return rect_geometry(width, height, *rect)


def convert_codes(codes: Colour, bits: int, video_levels: bool, bit_depth: int) -> Colour:
    """Code values at ``bits`` carried to ``bit_depth`` with :func:`core.levels.rescale_code`:
    by shift in video levels, by proportion of full scale otherwise."""
    old = Levels(bits, video_levels and bits >= 8)
    new = Levels(bit_depth, video_levels and bit_depth >= 8)
    return tuple(rescale_code(c, old, new) for c in codes)  # type: ignore[return-value]


def _codes(values) -> str:
    return ",".join(map(str, values))


def surface_codes(patch: RemotePatch, bit_depth: int, limited: bool,
                  surface_bits: int) -> tuple[dict, str | None]:
    """What a surface of ``surface_bits`` shows of ``patch`` drawn in a ``bit_depth`` frame of
    ``limited`` range: ``{"bits", "color", "background"}``, the frame's codes carried to the
    surface by the engine's rule (:func:`core.levels.rescale_code`), and a note naming that rule
    when the depths differ (None when they do not): ``10-bit frame 514,514,514 shown as
    128,128,128 on the 8-bit surface (round(v*255/1023))``."""
    color = convert_codes(patch.color, patch.bits, patch.video_levels, bit_depth)
    background = convert_codes(patch.background, patch.bits, patch.video_levels, bit_depth)
    old, new = Levels(bit_depth, limited), Levels(surface_bits, limited)
    on_screen = tuple(rescale_code(c, old, new) for c in color)
    shown = {"bits": surface_bits, "color": list(on_screen),
             "background": [rescale_code(c, old, new) for c in background]}
    if bit_depth == surface_bits:
        return shown, None
    return shown, (f"{bit_depth}-bit frame {_codes(color)} shown as {_codes(on_screen)} on the "
                   f"{surface_bits}-bit surface ({depth_rule(old, new)})")


def _lossless(code: int, bits: int, bit_depth: int, video_levels: bool) -> bool:
    """Whether ``code`` is carried to ``bit_depth`` without rounding (always so going up)."""
    if bit_depth >= bits:
        return True
    if video_levels and bit_depth >= 8:
        return code % (1 << (bits - bit_depth)) == 0
    return code * ((1 << bit_depth) - 1) % ((1 << bits) - 1) == 0


def to_spec_params(patch: RemotePatch, bit_depth: int, limited: bool,
                   size: tuple[int, int] | None = None) -> tuple[str, dict, str | None]:
    """The registry pattern, its parameters and a note (or ``None``) that show ``patch`` on a
    surface of ``bit_depth`` bits (``limited``: the surface's range).

    Code values at the surface's depth land unchanged; otherwise they are rescaled and the note
    gives both.  The rectangle covers exactly the pixels :func:`patch_rect_px` names on any frame;
    ``size`` (the frame's width and height) only says when it covers the whole frame, shown as
    ``solid``.  Raises ``ValueError`` for a bit depth
    outside 1..16 or limited range under 8 bits.
    """
    Levels(bit_depth, limited)  # refuses an impossible surface with one sentence
    if size is not None:
        width, height = size
        if isinstance(width, bool) or isinstance(height, bool) or width < 1 or height < 1:
            raise ValueError(f"size: expected a positive width and height, got {size!r:.40}")
    color = convert_codes(patch.color, patch.bits, patch.video_levels, bit_depth)
    background = convert_codes(patch.background, patch.bits, patch.video_levels, bit_depth)
    notes = []
    if patch.bits != bit_depth:
        exact = all(_lossless(c, patch.bits, bit_depth, patch.video_levels)
                    for c in patch.color + patch.background)
        rule = depth_rule(Levels(patch.bits, patch.video_levels and patch.bits >= 8),
                          Levels(bit_depth, patch.video_levels and bit_depth >= 8))
        bg = "" if patch.full_screen else \
            f", background {_codes(patch.background)} as {_codes(background)}"
        notes.append(f"{patch.bits}-bit colour {_codes(patch.color)} shown as {bit_depth}-bit "
                     f"{_codes(color)}{bg} ({rule}{'' if exact else ', rounded'})")
    if patch.video_levels != limited:
        notes.append("video-level codes on a full-range surface, sent as they are"
                     if patch.video_levels else
                     "full-range codes on a limited-range surface, sent as they are")
    if size is not None and patch_rect_px(patch.rect, *size) == (0, 0, size[0], size[1]) \
            or size is None and patch.full_screen:
        return "solid", {"color": color}, "; ".join(notes) or None
    x, y, w, h = patch.rect
    params = {"geometry": "fraction", "x": x, "y": y, "w": w, "h": h, "color": color,
              "background_mode": "fixed", "background": background}
    return "window", params, "; ".join(notes) or None
