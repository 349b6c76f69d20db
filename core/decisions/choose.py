"""Which path renders a band here: a live race in progress > the pin (``TESTCARD_RENDER_PATH``)
> this device's cached verdict, for each band of the chain its live verdict before its render
one > the default, ``numpy``; a source that cannot run here falls through, with its reason kept
in the :class:`Decision`.

A live race (``testcard measure --form live``, the Measure panel) renders each candidate in the
live loop by naming it in a :class:`RaceOverride` for the band under test: the owner of the
live output (its session) makes one and passes it to every choice of the loop's path
(``race=``), so the loop chooses again and gets the candidate (source ``race``) until the race
names the next one or ends.  It outranks the pin: the race must render what it measures.  An
override is its owner's alone: another session, the CLI and the doctor never see it."""

from __future__ import annotations

import fnmatch
import logging
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field

from core.decisions.bands import Band, band_chain, format_band
from core.decisions.cache import DecisionCache
from core.decisions.fingerprint import fingerprint
from core.decisions.schema import make_key
from core.engine import PATHS, path_problem

log = logging.getLogger("testcard.decisions")

ENV_PIN = "TESTCARD_RENDER_PATH"
FORM_ORDER = ("live", "render")   # for one band, a verdict raced in the live loop first

class RaceOverride:
    """The path a live race renders each band with now, keyed by device and band: made and held
    by whoever owns the live output, named by the race, read by :func:`choose_path`
    (``race=``).  Safe to use from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._paths: dict[str, str] = {}   # "fingerprint|band" -> the path raced on it now

    def set(self, band, device: str, path: str | None) -> None:
        """From now on every choice through this override of ``band`` on ``device`` gets
        ``path`` (source ``race``); ``None`` ends it.  ``ValueError`` for an unknown path."""
        if path is not None and path not in PATHS:
            raise ValueError(f"unknown render path {path!r}: expected one of {', '.join(PATHS)}")
        key = make_key(fingerprint(device), band)
        with self._lock:
            if path is None:
                self._paths.pop(key, None)
            else:
                self._paths[key] = path

    def get(self, band, device: str) -> str | None:
        """The path a live race renders ``band`` with on ``device`` now, if one does."""
        with self._lock:
            return self._paths.get(make_key(fingerprint(device), band))

    def racing(self, fp: str, bands: list[str]) -> list[tuple[str, str]]:
        """``(band, path)`` for each of ``bands`` (canonical names, in their order) raced now on
        the device of fingerprint ``fp``."""
        with self._lock:
            return [(b, self._paths[make_key(fp, b)]) for b in bands if make_key(fp, b) in self._paths]


DEFAULT_PATH = "numpy"         # the default wherever it runs (the CPU)


def parse_pin(text: str) -> list[tuple[str, str]]:
    """Parse ``TESTCARD_RENDER_PATH``: items separated by commas, each ``PATH`` (any band) or
    ``BAND=PATH``, where BAND is a band name or a glob over canonical band names
    (``counter@*``, ``*@2160p/*``, ``*``).  The first item that matches wins.

    Returns ``[(band_glob, path), ...]``; ``ValueError`` for an empty item or a band name
    that does not parse (paths are checked at lookup, so an unknown one falls through).

    Example: ``counter@2160p/rgb10=torch-compiled,*@2160p/*=torch-eager,*=numpy``.
    """
    items = []
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            raise ValueError(f"{ENV_PIN}={text!r}: empty item")
        if "=" in item:
            glob, _, path = (s.strip() for s in item.partition("="))
            if not glob or not path:
                raise ValueError(f"{ENV_PIN}: item {item!r} is not BAND=PATH")
            glob = glob.lower()
            if not any(ch in glob for ch in "*?["):
                try:
                    glob = format_band(glob)
                except ValueError as exc:
                    raise ValueError(f"{ENV_PIN}: {exc}") from None
        else:
            glob, path = "*", item
        items.append((glob, path))
    return items


def _pin_for(items, bands: list[str]) -> tuple[str, str, str] | None:
    for glob, path in items:
        for band in bands or [""]:
            if glob == "*" or (band and fnmatch.fnmatchcase(band, glob)):
                return glob, path, band
    return None


@dataclass(frozen=True)
class Decision:
    path: str                  # the path to render with
    source: str                # "race", "pin", "cache" or "default"
    reason: str                # one sentence: why this path, and what fell through
    device: str
    fingerprint: str
    band: str | None           # the band that decided (None for a global pin or the default)
    fallthrough: tuple[str, ...] = ()
    entry: dict | None = field(default=None, compare=False)
    form: str | None = None    # how a cached verdict was raced: "live" or "render" (None: not cached)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["fallthrough"] = list(self.fallthrough)
        return d


def _default_problem(path: str, device: str) -> str | None:
    return path_problem(path, device)


def choose_path(band, device: str = "cpu", *, cache: DecisionCache | None = None,
                env: Mapping[str, str] | None = None,
                problem: Callable[[str, str], str | None] | None = None,
                race: RaceOverride | None = None) -> Decision:
    """The render path for ``band`` on ``device``: race > pin > cache > default (module doc).

    ``band`` is a band (name) or a list of them, most specific first (see
    :func:`core.decisions.bands.band_chain`); ``None`` or ``[]`` consults only global pins.
    ``problem(path, device)`` says why a path cannot run here (default:
    ``core.engine.path_problem``).  ``race``: the live race whose candidate outranks the rest
    (None: no race in progress).  Never raises for a bad pin, a bad cache or its folder
    (corrupt, unreadable, read-only, newer, locked, a folder in its place...): they fall
    through with the reason kept.  ``ValueError`` only for a band or device the caller named
    wrongly.  Lookups hit the cache's in-memory index (:mod:`core.decisions.index`); with no
    ``cache``, the default cache file is read afresh.
    """
    problem = problem or _default_problem
    env = os.environ if env is None else env
    if band is None:
        bands: list[str] = []
    elif isinstance(band, (str, Band)):
        bands = [format_band(band)]
    else:
        bands = [format_band(b) for b in band]
    fp = fingerprint(device)
    skipped: list[str] = []

    def fall(why: str, level: int = logging.WARNING):
        log.log(level, "render path for %s on %s: %s", bands[0] if bands else "any band", device, why)
        skipped.append(why)

    def unusable(path: str) -> str | None:
        if path not in PATHS:
            return f"{path!r} is not a render path (expected one of {', '.join(PATHS)})"
        return problem(path, device)

    def decided(path, source, reason, band_name=None, entry=None):
        if skipped:
            reason = f"{reason} ({'; '.join(skipped)})"
        return Decision(path, source, reason, str(device), fp, band_name, tuple(skipped), entry,
                        entry["form"] if entry is not None else None)

    # 0. a live race in progress, in the override the caller passed
    racing = race.racing(fp, bands) if race is not None else []
    for band_name, path in racing[:1]:
        why = unusable(path)
        if why is None:
            return decided(path, "race", f"{path} is being raced live for {band_name}", band_name)
        fall(f"raced {path} cannot run here: {why}")
    # 1. the environment pin
    pin_text = (env.get(ENV_PIN) or "").strip()
    if pin_text:
        try:
            hit = _pin_for(parse_pin(pin_text), bands)
        except ValueError as exc:
            fall(f"pin ignored: {exc}")
        else:
            if hit is not None:
                glob, path, band_name = hit
                why = unusable(path)
                if why is None:
                    what = f"={path}" if pin_text == path else f": {glob}={path}"
                    return decided(path, "pin", f"pinned by {ENV_PIN}{what}",
                                   band_name if glob != "*" else None)
                fall(f"pinned {path} cannot run here: {why}")
    # 2. the cache, this device's entries only
    if bands:
        try:
            cache = cache or DecisionCache()
            if cache.problem:   # still being read (a held index) is no fault: said quietly
                fall(cache.problem, logging.INFO if cache.loading else logging.WARNING)
            for band_name in bands:
                for form in FORM_ORDER:
                    entry, bad = cache.lookup(make_key(fp, band_name, form))
                    what = f"{band_name} (live race)" if form == "live" else band_name
                    if bad:
                        fall(f"the cached entry for {what} is unusable: {bad}")
                    if entry is None:
                        continue
                    path = entry["winner"]
                    why = unusable(path)
                    if why is None:
                        how = "live here (in the real presenter)" if form == "live" else "here"
                        return decided(path, "cache", f"measured {how} for {band_name} on "
                                       f"{entry['measured_at']}", band_name, entry)
                    fall(f"cached {path} for {what} cannot run here: {why}")
        except Exception as exc:  # noqa: BLE001 - the cache is advice: nothing in it stops a render
            log.exception("decision cache lookup failed")
            fall(f"the decision cache could not be consulted ({type(exc).__name__}: {exc})")
    # 3. the default: the first path in preference order that runs here (numpy on the CPU)
    for path in PATHS:
        if unusable(path) is None:
            what = f"no pin and no measurement for {bands[0]}" if bands else "no pin"
            return decided(path, "default", f"{what} on this device; {path} is the default")
    raise ValueError(f"no render path can run on {device}")  # pragma: no cover


def choose_path_for(spec, fmt: str, device: str = "cpu", **kw) -> Decision:
    """:func:`choose_path` for a frame of ``spec`` in display format ``fmt`` (the engine's
    and the GUI's entry point): its pattern's band, then ``animated``/``static``."""
    return choose_path(band_chain(spec, fmt), device, **kw)
