"""Where the output window goes: pure logic over plain screen records (no Qt).

Qt's ``QScreen`` objects are turned into :class:`ScreenRecord` by the window
code; everything that decides placement lives here so it can be tested with
a list of fake screens.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScreenRecord:
    """One display as the desktop describes it: logical geometry plus pixel ratio."""

    name: str
    x: int
    y: int
    width: int      # logical (device-independent) pixels
    height: int
    dpr: float = 1.0
    refresh_hz: float = 60.0
    primary: bool = False

    @property
    def native_size(self) -> tuple[int, int]:
        """The panel's real pixel count: logical size times the device pixel ratio."""
        return round(self.width * self.dpr), round(self.height * self.dpr)

    @property
    def period_ms(self) -> float:
        return 1000.0 / self.refresh_hz if self.refresh_hz > 0 else 1000.0 / 60.0

    @property
    def label(self) -> str:
        w, h = self.native_size
        scale = f", scale {self.dpr:g}" if self.dpr != 1.0 else ""
        return f"{self.name} \u2014 {w}x{h} @ {self.refresh_hz:.2f} Hz{scale}"


@dataclass(frozen=True)
class Placement:
    """Where and how to show the output window.

    ``x, y, width, height`` are logical coordinates for ``setGeometry``;
    ``native`` is the pixel size the frame must have to map 1:1.
    ``note`` explains a fallback (requested screen missing), else None.
    """

    screen: str
    x: int
    y: int
    width: int
    height: int
    fullscreen: bool
    native: tuple[int, int]
    dpr: float
    note: str | None = None


def primary_screen(screens: list[ScreenRecord]) -> ScreenRecord:
    if not screens:
        raise ValueError("no screens: the desktop reports no display")
    for s in screens:
        if s.primary:
            return s
    return screens[0]


def find_screen(screens: list[ScreenRecord], name: str | None) -> ScreenRecord | None:
    if name is None:
        return None
    for s in screens:
        if s.name == name:
            return s
    return None


def place_output(screens: list[ScreenRecord], wanted: str | None) -> Placement:
    """Fullscreen on ``wanted`` (covering its whole geometry), or, when that screen
    is not connected, a window on the primary screen with a note saying why.

    ``wanted=None`` means the primary screen, fullscreen.  Refuses an empty list.
    """
    target = find_screen(screens, wanted)
    if target is not None or wanted is None:
        s = target or primary_screen(screens)
        return Placement(s.name, s.x, s.y, s.width, s.height, True, s.native_size, s.dpr)
    p = primary_screen(screens)
    w, h = max(1, p.width * 2 // 3), max(1, p.height * 2 // 3)
    x, y = p.x + (p.width - w) // 2, p.y + (p.height - h) // 2
    return Placement(p.name, x, y, w, h, False, (round(w * p.dpr), round(h * p.dpr)), p.dpr,
                     note=f"screen {wanted!r} is not connected; the output is a window on {p.name}")


def frame_rect(frame_w: int, frame_h: int, area_w: int, area_h: int,
               one_to_one: bool) -> tuple[int, int, int, int]:
    """Destination (x, y, w, h) in device pixels, y down, for a frame in an area.

    1:1: the frame's pixels map to device pixels, centred (cropped when larger).
    Fit: the largest aspect-preserving rectangle that fits, centred.
    """
    if frame_w <= 0 or frame_h <= 0 or area_w <= 0 or area_h <= 0:
        return 0, 0, 0, 0
    if one_to_one:
        w, h = frame_w, frame_h
    else:
        scale = min(area_w / frame_w, area_h / frame_h)
        w, h = max(1, round(frame_w * scale)), max(1, round(frame_h * scale))
    return (area_w - w) // 2, (area_h - h) // 2, w, h
