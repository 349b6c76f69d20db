"""The doctor's checks that read the display through Qt: the screens, the one the output would
use, and whether an HDR signal can be asked for there.  Each returns
:class:`core.doctor.Check` objects; nothing here waits (the presents run is
:mod:`app.doctor.probe`).  The QApplication must exist.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6 import __version__ as PYSIDE_VERSION
from PySide6.QtGui import QColorSpace, QGuiApplication, QSurface, QSurfaceFormat, QWindow

from app.preview import ScreenIdentity, ScreenRecord, match_screen, qscreen_of, resolve_screen, screen_records
from app.qapp import HDR_COLOUR_SPACES, granted_transfer, signal_text
from app.settings import Settings
from core.doctor import NOT_AVAILABLE, OK, WARNING, Check

SCREEN_WHY = "the output is placed by this identity; 1:1 pixels need the native size and scale 1"
OUTPUT_WHY = "the screen testcard show, gui fullscreen and serve open the output on"
HDR_WHY = "an HDR pattern reaches the display as HDR only where the surface is granted BT.2100"


@dataclass(frozen=True)
class Target:
    """The output screen: its record, how it was chosen and what that means."""

    screen: ScreenRecord
    how: str             # "--screen", "remembered", "primary" or a fallback ("name", "geometry")
    note: str | None

    @property
    def period_ms(self) -> float:
        return self.screen.period_ms


def output_target(screen: str | None, settings: Settings | None = None) -> Target:
    """The screen ``--screen INDEX|NAME`` names (``ValueError`` naming the connected screens when
    it names none), else the one the settings remember or its fallback, else the primary."""
    records = screen_records()
    if screen is not None:
        return Target(resolve_screen(records, screen), "--screen", None)
    s = settings if settings is not None else Settings()
    remembered = ScreenIdentity.from_settings(s.output_screen_id, s.output_screen)
    m = match_screen(records, remembered)
    how = "primary" if remembered is None else ("remembered" if m.how == "exact" else m.how)
    return Target(m.screen, how, m.note)


def screen_checks(target: Target) -> list[Check]:
    """One check per screen (identity, geometry, refresh, pixel ratio), then the output's."""
    out = []
    for rec in screen_records():
        data = {"index": rec.index, "name": rec.name, "manufacturer": rec.manufacturer, "model": rec.model,
                "serial": rec.serial, "geometry": list(rec.geometry), "refresh_hz": round(rec.refresh_hz, 3),
                "dpr": rec.dpr, "native": list(rec.native_size), "primary": rec.primary}
        unknown = [k for k in ("manufacturer", "model", "serial") if not data[k]]
        detail = f"the platform does not say its {', '.join(unknown)}" if unknown else ""
        out.append(Check("screens", rec.title, OK, rec.label, SCREEN_WHY, detail, data))
    rec = target.screen
    why = {"--screen": "named by --screen", "primary": "the primary screen (no screen remembered)",
           "remembered": "the screen the settings remember"}.get(target.how, target.note or target.how)
    out.append(Check("screens", "output", OK, f"screen {rec.title}: {why}", OUTPUT_WHY, target.note or "",
                     {"index": rec.index, "how": target.how, "identity": rec.identity.to_dict()}))
    return out


def requested_transfer() -> str:
    """The transfer the application's default surface format asks for (sdr, pq, hlg)."""
    space = QSurfaceFormat.defaultFormat().colorSpace()
    if not space.isValid():
        return "sdr"
    tf = space.transferFunction().name
    return {"St2084": "pq", "Hlg": "hlg"}.get(tf, "sdr")


def check_hdr(target: Target, platform: str | None = None, qt_version: str = PYSIDE_VERSION) -> Check:
    """Whether a BT.2100 PQ signal can be asked for on this platform and screen, and what was
    granted: a surface asking for it is made on the output screen where the platform could
    tag one (Wayland, Qt 6.10 on); elsewhere :func:`app.qapp.signal_text` says why not.  ``ok``
    only for a surface granted BT.2100 PQ on a platform that signals it."""
    platform = platform or QGuiApplication.platformName()
    granted = None
    version = tuple(int(v) for v in qt_version.split(".")[:2] if v.isdigit())
    asked = platform.startswith("wayland") and version >= (6, 10) and HDR_COLOUR_SPACES["pq"] is not None
    if asked:
        granted = _granted_pq(target)
    tagged, sentence = signal_text("pq", granted, platform, qt_version)
    data = {"platform": platform, "qt": qt_version, "asked": asked, "granted": granted, "tagged": tagged,
            "app_requests": requested_transfer()}
    if tagged and granted == "pq":
        return Check("hdr", "PQ signal", OK, "BT.2100 PQ granted on the output surface", HDR_WHY, sentence,
                     data)
    reason = sentence.split("(", 1)[1].rstrip(")") if "(" in sentence else sentence
    if asked:
        return Check("hdr", "PQ signal", WARNING if tagged else NOT_AVAILABLE,
                     f"not granted: {reason}", HDR_WHY, sentence, data)
    return Check("hdr", "PQ signal", NOT_AVAILABLE, f"not available: {reason}", HDR_WHY, sentence, data)


def _granted_pq(target: Target) -> str | None:
    fmt = QSurfaceFormat(QSurfaceFormat.defaultFormat())
    fmt.setColorSpace(QColorSpace(HDR_COLOUR_SPACES["pq"]))
    w = QWindow()
    try:
        w.setSurfaceType(QSurface.SurfaceType.OpenGLSurface)
        w.setFormat(fmt)
        w.setScreen(qscreen_of(target.screen))
        w.create()
        return granted_transfer(w)
    finally:
        w.destroy()
        w.deleteLater()
