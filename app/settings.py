"""The app's persisted settings: one JSON file with a schema version (no Qt).

Lives in ``core.paths.config_dir()`` (the platform's config folder, or
``$TESTCARD_CONFIG_DIR`` when set: the tests point it at a temporary folder).
Read through ``core.jsonfile.load_json`` (size, nesting, UTF-8, duplicate keys and
NaN bounded); written through ``core.atomic``, so a crash never leaves a half-written
file.  A bad file never stops the app, and nothing the user wrote is lost:

- a file that cannot be parsed (corrupt, not UTF-8, nested too deep, not an object,
  no schema version) is moved aside with ``core.atomic.move_aside`` (``settings.json.
  corrupt-YYYYmmdd-HHMMSS``, never over an earlier copy) and the app starts on defaults;
- a file that cannot be read at all (permission, a folder in its place) is left alone and
  never written over; the app starts on defaults;
- a value of the wrong type or out of range falls back to that setting's default, and
  each one is reported.  Loading never writes: the file keeps the bad value until the
  user changes something, because :func:`save` writes only what changed since it was read;
- a file from a newer testcard (a higher schema) is read for the settings this version
  knows (each validated) and is never written by this version, so the newer testcard
  finds it as it left it; changes made in this session are not saved, and that is said.

Every such reason is one line in :attr:`Settings.problems`, naming the file, for the
log and the status bar.  :func:`save` refuses (:class:`SettingsNotSaved`, one line)
instead of raising whatever the disk said.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from core.atomic import atomic_text, move_aside
from core.jsonfile import JsonError, dump_json, load_json
from core.levels import Levels, shown
from core.paths import config_dir

SCHEMA = 1
FILENAME = "settings.json"
MAX_BYTES = 1 << 20          # a settings file is a few kB; one over 1 MiB is not ours
MAX_TEXT = 64 * 1024         # window geometry and dock state: base64 of a few hundred bytes
MAX_DIALOG_DIRS = 64
_BASE64 = re.compile(r"[A-Za-z0-9+/=]*")
_DEVICE = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def settings_path() -> Path:
    return config_dir() / FILENAME


class SettingsNotSaved(OSError):
    """The settings could not be written; the message is one line naming the file and why."""


@dataclass
class Settings:
    pattern: str = "checkerboard"
    params: dict[str, dict] = field(default_factory=dict)  # per pattern: parameter -> JSON value
    bit_depth: int = 10
    bit_depth_chosen: bool = False      # False: the depth follows the output surface's
    limited: bool = False
    size: list[int] | None = None          # None: the output screen's native size
    counter: bool = False
    counter_bits: int = 16
    device: str = "cpu"                     # torch device name; numpy renders on the cpu
    output_screen: str | None = None       # QScreen.name(); None: primary
    output_screen_id: dict | None = None   # app.preview.ScreenIdentity.to_dict(); None: by name alone
    output_banner: bool = True              # going fullscreen, the output names its screen for a moment
    one_to_one: bool = False
    window_geometry: str = ""               # base64 from QWidget.saveGeometry
    window_state: str = ""                  # base64 from QMainWindow.saveState (docks)
    dialog_dirs: dict[str, str] = field(default_factory=dict)  # file-dialog kind -> folder last used
    problems: list[str] = field(default_factory=list, compare=False)  # one line each, for the log
    writable: bool = field(default=True, compare=False)  # False: a file this version must not write
    loaded: dict | None = field(default=None, compare=False, repr=False)  # as read: save() skips it

    @property
    def problem(self) -> str | None:
        """The problems as one line (None when there are none)."""
        return "; ".join(self.problems) or None

    def to_dict(self) -> dict:
        d = asdict(self)
        for name in _NOT_STORED:
            d.pop(name)
        return {"schema": SCHEMA, **d}

    @classmethod
    def from_dict(cls, d: dict, problems: list[str] | None = None, source: str = FILENAME) -> Settings:
        """Known keys are validated one by one: a good value is taken, a bad one falls back to
        its default and is reported in ``problems`` (``SOURCE: KEY: reason; using DEFAULT``).
        Unknown keys are reported and ignored."""
        out = cls()
        problems = out.problems if problems is None else problems
        defaults = asdict(out)
        names = [f.name for f in fields(cls) if f.name not in _NOT_STORED]
        for name in (n for n in names if n in d):
            check = _CHECKS.get(name) or _like(defaults[name])
            try:
                setattr(out, name, check(d[name], problems, source))
            except ValueError as exc:
                problems.append(f"{source}: {name}: {exc}; using {shown(defaults[name])}")
        if out.limited and out.bit_depth < 8:
            problems.append(f"{source}: limited: limited range needs at least 8 bits, not "
                            f"{out.bit_depth}; using full range")
            out.limited = False
        unknown = sorted(str(k) for k in d.keys() - set(names) - {"schema"})
        if unknown:
            more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
            problems.append(f"{source}: ignored unknown settings "
                            f"{', '.join(shown(k, 30) for k in unknown[:5])}{more}")
        out.problems = problems
        return out


_NOT_STORED = {"problems", "writable", "loaded"}


# -- one check per setting: the value to use, or ValueError with the reason -------------------

def _integer(lo: int, hi: int) -> Callable:
    def check(v, problems, source):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"expected an integer {lo}..{hi}, got {shown(v)}")
        return v
    return check


def _boolean(v, problems, source):
    if not isinstance(v, bool):
        raise ValueError(f"expected true or false, got {shown(v)}")
    return v


def _text(limit: int, pattern: re.Pattern | None = None, optional: bool = False) -> Callable:
    def check(v, problems, source):
        if v is None and optional:
            return None
        if not isinstance(v, str) or len(v) > limit or _CONTROL.search(v) \
                or (pattern is not None and not pattern.fullmatch(v)):
            raise ValueError(f"not a usable value: {shown(v)}")
        return v
    return check


def get_pattern(name: str):
    """:func:`core.patterns.get_pattern`, imported when first asked: the catalog's modules import
    numpy, which the commands that only read settings (``testcard --help``) never need."""
    from core.patterns import get_pattern as lookup

    return lookup(name)


def _pattern(v, problems, source):
    if not isinstance(v, str):
        raise ValueError(f"expected a pattern name, got {shown(v)}")
    get_pattern(v)  # the reason names the known patterns
    return v


def _size(v, problems, source):
    if v is None:
        return None
    if not (isinstance(v, list) and len(v) == 2
            and all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 16384 for n in v)):
        raise ValueError(f"expected null or [width, height], each 1..16384, got {shown(v)}")
    return list(v)


# Parameters are checked at the widest depth: a code value stored at 16 bits while the depth
# is now 8 is the window's to adapt (it falls back to the pattern's defaults, with a log line).
_WIDEST = Levels(16)


def _params(v, problems, source):
    if not isinstance(v, dict):
        raise ValueError(f"expected an object of pattern -> parameters, got {shown(v)}")
    out: dict[str, dict] = {}
    for name, values in v.items():
        try:
            pat = get_pattern(name)
        except ValueError:
            problems.append(f"{source}: params: ignored parameters of unknown pattern {shown(name)}")
            continue
        if not isinstance(values, dict):
            problems.append(f"{source}: params: {name}: expected an object, got {shown(values)}; "
                            "using its defaults")
            continue
        good = {}
        for key, value in values.items():
            try:
                pat.param(key).resolve(value, _WIDEST)
            except ValueError as exc:
                problems.append(f"{source}: params: {name}: {exc}; using its default")
                continue
            good[key] = value
        out[name] = good
    return out


def _dialog_dirs(v, problems, source):
    if not isinstance(v, dict):
        raise ValueError(f"expected an object of dialog -> folder, got {shown(v)}")
    ok = {k: d for k, d in v.items() if isinstance(k, str) and len(k) <= 64 and isinstance(d, str)
          and d and len(d) <= 4096 and not _CONTROL.search(d + k)}
    if len(ok) != len(v) or len(ok) > MAX_DIALOG_DIRS:
        problems.append(f"{source}: dialog_dirs: ignored {max(len(v) - len(ok), 0)} unusable and "
                        f"{max(len(ok) - MAX_DIALOG_DIRS, 0)} surplus folders")
    return dict(list(ok.items())[:MAX_DIALOG_DIRS])


def _screen_id(v, problems, source):
    """The output screen's identity (``app.preview.ScreenIdentity.to_dict``): null or an object of
    name, manufacturer, model, serial (text), geometry ([x, y, w, h]) and index."""
    if v is None:
        return None
    if not isinstance(v, dict):
        raise ValueError(f"expected null or an object naming a screen, got {shown(v)}")
    out = {}
    for key in ("name", "manufacturer", "model", "serial"):
        text = v.get(key, "")
        if not isinstance(text, str) or len(text) > 256 or _CONTROL.search(text):
            raise ValueError(f"{key}: not a usable value: {shown(text)}")
        out[key] = text
    g = v.get("geometry")
    if g is not None and not (isinstance(g, list) and len(g) == 4
                              and all(isinstance(n, int) and not isinstance(n, bool) and abs(n) <= 1 << 20
                                      for n in g) and g[2] > 0 and g[3] > 0):
        raise ValueError(f"geometry: expected null or [x, y, width, height], got {shown(g)}")
    index = v.get("index")
    if index is not None and (isinstance(index, bool) or not isinstance(index, int) or not 0 <= index <= 255):
        raise ValueError(f"index: expected null or an integer 0..255, got {shown(index)}")
    return {**out, "geometry": g, "index": index}


def _like(default) -> Callable:
    """The check for a setting without its own: the default's JSON type."""
    if isinstance(default, bool):
        return _boolean
    if isinstance(default, int):
        return _integer(-(2**31), 2**31 - 1)
    if isinstance(default, str):
        return _text(MAX_TEXT)

    def check(v, problems, source):
        if default is not None and not isinstance(v, type(default)):
            raise ValueError(f"expected {type(default).__name__}, got {shown(v)}")
        return v
    return check


_CHECKS: dict[str, Callable] = {
    "pattern": _pattern, "params": _params, "bit_depth": _integer(1, 16), "limited": _boolean,
    "size": _size, "counter": _boolean, "counter_bits": _integer(1, 31),
    "device": _text(64, _DEVICE), "output_screen": _text(256, optional=True),
    "output_screen_id": _screen_id, "output_banner": _boolean,
    "one_to_one": _boolean, "window_geometry": _text(MAX_TEXT, _BASE64),
    "window_state": _text(MAX_TEXT, _BASE64), "dialog_dirs": _dialog_dirs,
}


# -- reading and writing ------------------------------------------------------------------------

def load(path: Path | None = None) -> Settings:
    """The stored settings, never raising: defaults (with the reason in ``problems``) for a file
    that is missing, unreadable, corrupt or partly out of range.  Never writes the file; a
    corrupt one is moved aside (its new name is in the problem)."""
    p = path or settings_path()
    try:
        d = load_json(p, max_bytes=MAX_BYTES)
    except (FileNotFoundError, NotADirectoryError):  # no file (a folder on the way is a file:
        return Settings()                             # saving says so, in one line)
    except JsonError as exc:
        return _moved_aside(p, str(exc))
    except OSError as exc:
        return _unwritable(p, f"settings file {p} cannot be read "
                              f"({exc.strerror or type(exc).__name__}); starting on defaults "
                              "and leaving it as it is")
    schema = d.get("schema") if isinstance(d, dict) else None
    if not isinstance(d, dict):
        return _moved_aside(p, f"{p}: expected a JSON object, got {type(d).__name__}")
    if isinstance(schema, bool) or not isinstance(schema, int) or schema < 1:
        return _moved_aside(p, f"{p}: no schema version (got {shown(schema)})")
    problems: list[str] = []
    s = Settings.from_dict(d, problems, p.name)
    if schema > SCHEMA:
        s.writable = False
        problems.insert(0, f"settings file {p} is from a newer testcard (schema {schema}, this one "
                           f"reads {SCHEMA}): using the settings this version knows; the file is "
                           "left as it is and changes made now are not saved")
    s.loaded = s.to_dict()
    return s


def _moved_aside(p: Path, reason: str) -> Settings:
    try:
        aside = move_aside(p, "corrupt")
    except (OSError, ValueError) as exc:
        return _unwritable(p, f"{reason}; it could not be moved aside "
                              f"({getattr(exc, 'strerror', None) or exc}), so it is left as it is "
                              "and not overwritten; starting on defaults")
    s = Settings()
    s.problems.append(f"{reason}; moved aside to {aside.name}, starting on defaults")
    return s


def _unwritable(p: Path, problem: str) -> Settings:
    s = Settings(writable=False)
    s.problems.append(problem)
    return s


def summary(problems: list[str]) -> str:
    """One status-bar line for the problems found reading the settings."""
    if len(problems) == 1:
        return problems[0]
    return f"{len(problems)} problems reading the settings (see the log); starting on defaults for those"


def save(settings: Settings, path: Path | None = None) -> Path | None:
    """Write atomically.  Returns the path written, or None when nothing was written: the file
    is from a newer testcard or could not be read (never overwritten), or nothing changed since
    it was read (so values that fell back to defaults are not saved back unasked).

    Raises :class:`SettingsNotSaved` (one line: the file and the reason) when the folder or the
    file cannot be written."""
    if not settings.writable:
        return None
    d = settings.to_dict()
    if settings.loaded is not None and d == settings.loaded:
        return None
    p = path or settings_path()
    try:
        atomic_text(p, dump_json(d, indent=2, sort_keys=True) + "\n", make_parent=True)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise SettingsNotSaved(f"settings not saved to {p}: {reason}") from None
    settings.loaded = d
    return p
