"""The app's persisted settings: one JSON file with a schema version (no Qt).

Lives in ``core.paths.config_dir()`` (the platform's config folder, or
``$TESTCARD_CONFIG_DIR`` when set: the tests point it at a temporary folder).
Writes go through ``core.atomic``, so a crash never leaves a half-written
file.  A file from a newer schema, or one that cannot be read, is handled
without losing it: an unreadable file is moved aside to
``settings.json.unreadable``, a newer one is left untouched and never
overwritten by this version.  Defaults are used; the reason is kept in
:attr:`Settings.problem` for the log.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from core.atomic import atomic_text
from core.paths import config_dir

SCHEMA = 1
FILENAME = "settings.json"


def settings_path() -> Path:
    return config_dir() / FILENAME


@dataclass
class Settings:
    pattern: str = "checkerboard"
    params: dict[str, dict] = field(default_factory=dict)  # per pattern: parameter -> JSON value
    bit_depth: int = 10
    limited: bool = False
    size: list[int] | None = None          # None: the output screen's native size
    counter: bool = False
    counter_bits: int = 16
    device: str = "cpu"                     # torch device name; numpy renders on the cpu
    output_screen: str | None = None       # QScreen.name(); None: primary
    one_to_one: bool = False
    window_geometry: str = ""               # base64 from QWidget.saveGeometry
    window_state: str = ""                  # base64 from QMainWindow.saveState (docks)
    problem: str | None = field(default=None, compare=False)
    writable: bool = field(default=True, compare=False)  # False: a newer file we must not clobber

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("problem")
        d.pop("writable")
        return {"schema": SCHEMA, **d}

    @classmethod
    def from_dict(cls, d: dict) -> Settings:
        """Known keys of the right type are taken; anything else is ignored."""
        out = cls()
        defaults = asdict(out)
        for f in fields(cls):
            if f.name in ("problem", "writable") or f.name not in d:
                continue
            value, default = d[f.name], defaults[f.name]
            if f.name in ("size", "output_screen") and value is None:
                setattr(out, f.name, None)
            elif f.name == "size":
                if (isinstance(value, list) and len(value) == 2
                        and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)):
                    out.size = [int(value[0]), int(value[1])]
            elif f.name == "output_screen":
                if isinstance(value, str):
                    out.output_screen = value
            elif isinstance(default, bool):
                if isinstance(value, bool):
                    setattr(out, f.name, value)
            elif isinstance(default, int):
                if isinstance(value, int) and not isinstance(value, bool):
                    setattr(out, f.name, value)
            elif isinstance(default, type(value)):
                setattr(out, f.name, value)
        return out


def load(path: Path | None = None) -> Settings:
    p = path or settings_path()
    if not p.exists():
        return Settings()
    try:
        d = json.loads(p.read_text())
        if not isinstance(d, dict) or not isinstance(d.get("schema"), int):
            raise ValueError("no schema version")
    except (OSError, ValueError) as exc:
        aside = p.with_name(p.name + ".unreadable")
        s = Settings()
        try:
            os.replace(p, aside)
            s.problem = f"settings file {p} could not be read ({exc}); moved to {aside.name}, using defaults"
        except OSError:
            s.writable = False
            s.problem = f"settings file {p} could not be read ({exc}); using defaults"
        return s
    if d["schema"] > SCHEMA:
        s = Settings()
        s.writable = False
        s.problem = (f"settings file {p} is schema {d['schema']}, newer than this testcard's {SCHEMA}; "
                     "using defaults and leaving it unchanged")
        return s
    return Settings.from_dict(d)


def save(settings: Settings, path: Path | None = None) -> Path | None:
    """Write atomically; returns the path, or None when the settings must not be written."""
    if not settings.writable:
        return None
    p = path or settings_path()
    return atomic_text(p, json.dumps(settings.to_dict(), indent=2, sort_keys=True) + "\n",
                       make_parent=True)
