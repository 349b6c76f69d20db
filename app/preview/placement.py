"""Where the output window goes: pure logic over plain screen records (no Qt).

Qt's ``QScreen`` objects are turned into :class:`ScreenRecord` by :mod:`app.preview.output`;
everything that decides placement lives here so it can be tested with a list of fake screens.

Screens are told apart by identity, not by name: two identical monitors, or the screens of
one X server, often share a name.  A chosen screen is remembered as a
:class:`ScreenIdentity` (serial number when the screen reports one, else name, model and
geometry, else its index) and found again by :func:`match_screen`, which falls back to a
screen of the same name, then one of the same geometry, then the primary, saying so.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScreenRecord:
    """One display as the desktop describes it: logical geometry plus pixel ratio.

    ``index`` is the screen's position in the desktop's list; ``manufacturer``, ``model``
    and ``serial`` are empty where the platform does not know them (often under X11).
    """

    name: str
    x: int
    y: int
    width: int      # logical (device-independent) pixels
    height: int
    dpr: float = 1.0
    refresh_hz: float = 60.0
    primary: bool = False
    index: int = 0
    manufacturer: str = ""
    model: str = ""
    serial: str = ""
    x_screen: str = ""        # "X screen :0.1", where known and the name tells it from no other
    unnamed: bool = False     # its name tells it from no other screen (generic, or shared)

    @property
    def native_size(self) -> tuple[int, int]:
        """The panel's real pixel count: logical size times the device pixel ratio."""
        return round(self.width * self.dpr), round(self.height * self.dpr)

    @property
    def period_ms(self) -> float:
        return 1000.0 / self.refresh_hz if self.refresh_hz > 0 else 1000.0 / 60.0

    @property
    def geometry(self) -> tuple[int, int, int, int]:
        return self.x, self.y, self.width, self.height

    @property
    def identity(self) -> ScreenIdentity:
        return ScreenIdentity(self.name, self.manufacturer, self.model, self.serial, self.geometry,
                              self.index)

    @property
    def maker(self) -> str:
        """``"Dell U2720Q, SN 4B1X"``: what the screen says about itself, or ``""``."""
        parts = [" ".join(p for p in (self.manufacturer, self.model) if p)]
        if self.serial:
            parts.append(f"SN {self.serial}")
        return ", ".join(p for p in parts if p)

    @property
    def title(self) -> str:
        """``"1: HDMI-1 (Dell U2720Q, SN 4B1X)"``: index, name, and maker where known; where the
        name tells the screen from no other, its X screen and geometry too
        (``"1: screen (X screen :0.1, 1280x720 at 0,0)"``, :func:`distinguish`)."""
        return self._head(geometry=True)

    @property
    def heading(self) -> str:
        """:attr:`title` without the geometry, for a line that gives the :attr:`mode` beside it."""
        return self._head(geometry=False)

    def _head(self, geometry: bool) -> str:
        where = f"{self.width}x{self.height} at {self.x},{self.y}" if geometry and self.unnamed else ""
        extra = ", ".join(p for p in (self.maker, self.x_screen, where) if p)
        return f"{self.index}: {self.name}" + (f" ({extra})" if extra else "")

    @property
    def mode(self) -> str:
        """``"1920x1080 at (1920, 0), 60.00 Hz, scale 2 (3840x2160 pixels)"``."""
        w, h = self.native_size
        scale = f", scale {self.dpr:g} ({w}x{h} pixels)" if self.dpr != 1.0 else ""
        return f"{self.width}x{self.height} at ({self.x}, {self.y}), {self.refresh_hz:.2f} Hz{scale}"

    @property
    def label(self) -> str:
        """The Output menu's entry: distinct for every screen, even when names repeat."""
        primary = ", primary" if self.primary else ""
        return f"{self.heading} \u2014 {self.mode}{primary}"


@dataclass(frozen=True)
class ScreenIdentity:
    """What is remembered of a chosen screen, to find it again next time.

    :attr:`key` is what identifies it: the serial number when known, else name, model and
    geometry, else the index.  The other fields guide the fallback when it is gone.
    """

    name: str = ""
    manufacturer: str = ""
    model: str = ""
    serial: str = ""
    geometry: tuple[int, int, int, int] | None = None
    index: int | None = None

    @property
    def key(self) -> str:
        if self.serial:
            return f"serial={self.serial}"
        if self.name or self.model or self.geometry is not None:
            return f"name={self.name}|model={self.model}|geometry={_geometry_text(self.geometry)}"
        return f"index={self.index}"

    def describe(self) -> str:
        """``"1 'HDMI-1' (SN 4B1X) 1920x1080 at (1920, 0)"``, for log lines."""
        bits = [str(self.index)] if self.index is not None else []
        if self.name:
            bits.append(repr(self.name))
        if self.serial:
            bits.append(f"(SN {self.serial})")
        if self.geometry is not None:
            bits.append(_geometry_text(self.geometry))
        return " ".join(bits) or "(unnamed)"

    def to_dict(self) -> dict:
        return {"name": self.name, "manufacturer": self.manufacturer, "model": self.model,
                "serial": self.serial, "geometry": list(self.geometry) if self.geometry else None,
                "index": self.index}

    @classmethod
    def from_dict(cls, d) -> ScreenIdentity | None:
        """Fields of the right type are taken, others ignored; None when nothing usable is left."""
        if not isinstance(d, dict):
            return None
        text = {k: d[k] for k in ("name", "manufacturer", "model", "serial") if isinstance(d.get(k), str)}
        g = d.get("geometry")
        geometry = None
        if (isinstance(g, list) and len(g) == 4 and all(_is_int(v) for v in g) and g[2] > 0 and g[3] > 0):
            geometry = (g[0], g[1], g[2], g[3])
        index = d["index"] if _is_int(d.get("index")) and d["index"] >= 0 else None
        ident = cls(geometry=geometry, index=index, **text)
        return None if ident == cls() else ident

    @classmethod
    def from_settings(cls, stored: dict | None, name: str | None) -> ScreenIdentity | None:
        """The identity kept in the settings, or (older settings files) a screen name alone."""
        ident = cls.from_dict(stored)
        if ident is None and name:
            ident = cls(name=name)
        return ident


@dataclass(frozen=True)
class ScreenMatch:
    """The screen found for an identity; ``how`` is ``exact``, ``name``, ``geometry`` or
    ``primary``; ``note`` says why it is not the one asked for (None when it is)."""

    screen: ScreenRecord
    how: str
    note: str | None = None


@dataclass(frozen=True)
class Placement:
    """Where and how to show the output window.

    ``x, y, width, height`` are logical coordinates for ``setGeometry``;
    ``native`` is the pixel size the frame must have to map 1:1.
    ``note`` explains a fallback (requested screen missing), else None.
    """

    screen: ScreenRecord
    x: int
    y: int
    width: int
    height: int
    fullscreen: bool
    native: tuple[int, int]
    dpr: float
    note: str | None = None


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _geometry_text(g) -> str:
    return "?" if g is None else f"{g[2]}x{g[3]} at ({g[0]}, {g[1]})"


def primary_screen(screens: list[ScreenRecord]) -> ScreenRecord:
    if not screens:
        raise ValueError("no screens: the desktop reports no display")
    for s in screens:
        if s.primary:
            return s
    return screens[0]


def _closest(candidates: list[ScreenRecord], wanted: ScreenIdentity) -> ScreenRecord:
    """Of several candidates, the one most like ``wanted``: same geometry, then same index."""
    return min(candidates, key=lambda s: (s.geometry != wanted.geometry, s.index != wanted.index,
                                          s.name != wanted.name))


def _exact(screens: list[ScreenRecord], wanted: ScreenIdentity) -> ScreenRecord | None:
    if wanted.serial:
        found = [s for s in screens if s.serial == wanted.serial]
    elif wanted.name or wanted.model or wanted.geometry is not None:
        # an identity from an older settings file has a name only
        found = [s for s in screens if s.name == wanted.name and wanted.model in ("", s.model)
                 and wanted.geometry in (None, s.geometry)]
    else:
        found = [s for s in screens if s.index == wanted.index]
    return _closest(found, wanted) if found else None


def match_screen(screens: list[ScreenRecord], wanted: ScreenIdentity | None) -> ScreenMatch:
    """The connected screen ``wanted`` names, or its fallback with a note saying so.

    ``wanted=None`` means the primary screen.  When the identified screen is gone: a screen
    of the same name, then one of the same geometry, then the primary.  Refuses an empty list.
    """
    primary = primary_screen(screens)
    if wanted is None:
        return ScreenMatch(primary, "primary")
    found = _exact(screens, wanted)
    if found is not None:
        return ScreenMatch(found, "exact")
    gone = f"screen {wanted.describe()} is not connected"
    for how, same in (("name", [s for s in screens if wanted.name and s.name == wanted.name]),
                      ("geometry", [s for s in screens if s.geometry == wanted.geometry])):
        if same:
            s = _closest(same, wanted)
            return ScreenMatch(s, how, f"{gone}; using screen {s.title} (same {how})")
    return ScreenMatch(primary, "primary", f"{gone}; using the primary screen {primary.title}")


def place_output(screens: list[ScreenRecord], wanted: ScreenIdentity | None) -> Placement:
    """Fullscreen on the screen ``wanted`` identifies (or one of the same name or geometry),
    covering its whole geometry; when none fits, a window on the primary screen with a note.

    ``wanted=None`` means the primary screen, fullscreen.  Refuses an empty list.
    """
    m = match_screen(screens, wanted)
    s = m.screen
    if m.how != "primary" or wanted is None:
        return Placement(s, s.x, s.y, s.width, s.height, True, s.native_size, s.dpr, m.note)
    w, h = max(1, s.width * 2 // 3), max(1, s.height * 2 // 3)
    x, y = s.x + (s.width - w) // 2, s.y + (s.height - h) // 2
    return Placement(s, x, y, w, h, False, (round(w * s.dpr), round(h * s.dpr)), s.dpr,
                     note=f"{m.note}; the output is a window there")


def resolve_screen(screens: list[ScreenRecord], text: str) -> ScreenRecord:
    """``--screen INDEX|NAME``: the screen at that index, or the one screen of that name.

    ``ValueError`` naming the connected screens for an index out of range, an unknown name,
    or a name that several screens share (their indices tell them apart).
    """
    text = str(text).strip()
    listing = "; ".join(s.label for s in screens) or "none"
    if text.isdigit():
        i = int(text)
        for s in screens:
            if s.index == i:
                return s
        raise ValueError(f"--screen {text}: there is no screen {i}; connected: {listing}")
    named = ([s for s in screens if s.name == text]
             or [s for s in screens if s.name.casefold() == text.casefold()])
    if len(named) == 1:
        return named[0]
    if named:
        raise ValueError(f"--screen {text!r} names {len(named)} screens "
                         f"({', '.join(str(s.index) for s in named)}); give the index: {listing}")
    raise ValueError(f"--screen {text!r}: no screen has that name or index; connected: {listing}")


GENERIC_NAMES = ("", "screen")   # what Qt's xcb plugin calls a screen that has no output name


def x_screen_numbers(groups: list[int], default: int) -> list[int]:
    """The X screen of each of Qt's screens under xcb, from ``groups[i]`` (which virtual desktop
    screen ``i`` is on: each X screen is one, numbered in order of first appearance) and the
    display connection's default X screen (``S`` of ``DISPLAY=:N.S``).  Qt lists the default X
    screen's screens first, then the other X screens in ascending order (seen with Xvfb and
    ``:N.0``, ``:N.1``, ``:N.2``): so an index counts from the connection, not the server."""
    count = max(groups, default=-1) + 1
    order = [default, *(k for k in range(count) if k != default)] if 0 <= default < count \
        else list(range(count))
    return [order[g] for g in groups]


def distinguish(screens: list[ScreenRecord], display: str | None = None,
                x_screens: list[int] | None = None) -> list[ScreenRecord]:
    """``screens`` with every screen whose name tells it from no other (generic, or shared)
    marked :attr:`ScreenRecord.unnamed` (its title then carries its geometry) and given its X
    screen on ``display`` (``":N.S"`` for ``x_screens[i]``, when known).  Screens with a name
    of their own are left as they are."""
    from dataclasses import replace

    names = [s.name for s in screens]
    host = display.rsplit(":", 1)[0] if display and ":" in display else None
    number = display.rsplit(":", 1)[1].split(".", 1)[0] if host is not None else ""
    out = []
    for i, s in enumerate(screens):
        if s.name not in GENERIC_NAMES and names.count(s.name) == 1:
            out.append(s)
            continue
        known = x_screens is not None and host is not None and i < len(x_screens)
        out.append(replace(s, unnamed=True, x_screen=f"X screen {host}:{number}.{x_screens[i]}"
                           if known else ""))
    return out


def banner_lines(screen: ScreenRecord) -> list[str]:
    """What the fullscreen banner says: which screen this is, and how to leave."""
    return [f"Screen {screen.heading}", screen.mode, "Esc or F11 to leave"]


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
