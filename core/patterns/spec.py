"""The validated, immutable description of a frame (``Spec``), and the context a body sees."""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core import xp as X
from core.counter import CounterGeometry, geometry_for
from core.jsonfile import dump_json
from core.levels import Levels, parse_number, shown
from core.patterns.hdr_metadata import DEFAULT_MASTERING, Mastering, hdr_fields, parse_mastering
from core.patterns.registry import Pattern, get_pattern, jsonable
from core.plan import Rows
from core.transfer import check_transfer, resolve_nits


@dataclass(frozen=True)
class Spec:
    """Everything that decides a frame, validated.  Hashable: engines cache on it."""

    pattern: str
    params: tuple[tuple[str, Any], ...]
    width: int
    height: int
    bit_depth: int = 10
    limited: bool = False
    dtype: str = "uint16"
    roi: tuple[int, int, int, int] | None = None
    counter_bits: int | None = None
    transfer: str = "sdr"                     # sdr, pq or hlg: what the code values mean
    mastering: Mastering = DEFAULT_MASTERING  # the HDR master's display (pq and hlg only)

    @property
    def levels(self) -> Levels:
        return Levels(self.bit_depth, self.limited)

    @property
    def param_dict(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def animated(self) -> bool:
        return self.counter_bits is not None or bool(
            get_pattern(self.pattern).animates(self.param_dict))

    @property
    def changing_lines(self) -> tuple[tuple[int, int], ...] | None:
        """The line spans ``(y0, y1)`` where two frames of this spec can differ: ``()`` for a
        static frame, the counter panel's lines when only the counter moves (the ``counter``
        pattern, or an overlay on a static pattern), None when the pattern itself moves.
        A presenter that already shows a frame of this spec need update only these lines."""
        if self.pattern != "counter" and get_pattern(self.pattern).animates(self.param_dict):
            return None
        geom = self.counter_geometry()
        if geom is None:
            return ()
        if geom.layout == "robust":
            return tuple((y, y + 3 * geom.cell_h) for y in geom.band_y)
        return ((geom.y0, geom.y1),)

    def counter_geometry(self) -> CounterGeometry | None:
        """The panel's geometry, whether the pattern is the counter or it is overlaid."""
        if self.pattern == "counter":
            return geometry_for(self.width, self.height, self.param_dict)
        if self.counter_bits is not None:
            return CounterGeometry.compat(self.width, self.height, self.counter_bits)
        return None

    def replace(self, **changes) -> Spec:
        d = self.to_dict()
        if "transfer" in changes and "params" not in changes and "transfer" in d["params"]:
            d["params"]["transfer"] = changes["transfer"]   # a pattern drawn per transfer follows
        d.update(changes)
        return make_spec(d.pop("pattern"), d.pop("params"), **d)

    def signal_fields(self, frame) -> dict:
        """The sidecar's ``signal`` entry (the transfer and range, and that a file tags nothing
        HDR) and, under PQ or HLG, its ``hdr`` entry: MaxCLL and MaxFALL of ``frame`` (this
        spec rendered) and the mastering display (:func:`core.patterns.hdr_metadata.hdr_fields`)."""
        return hdr_fields(self, frame)

    def to_dict(self) -> dict:
        d = {"pattern": self.pattern,
             "params": {k: jsonable(v) for k, v in self.params},
             "width": self.width, "height": self.height, "bit_depth": self.bit_depth,
             "limited": self.limited, "dtype": self.dtype,
             "roi": list(self.roi) if self.roi is not None else None,
             "counter_bits": self.counter_bits, "transfer": self.transfer}
        if self.transfer != "sdr":
            d["mastering"] = self.mastering.to_dict()
        return d

    def to_json(self) -> str:
        return dump_json(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Spec:
        d = dict(d)
        return make_spec(d.pop("pattern"), d.pop("params", {}), **d)


def make_spec(pattern: str, params: Mapping[str, Any] | None = None, *, width: int, height: int,
              bit_depth: int = 10, limited: bool = False, dtype: str = "uint16",
              roi=None, counter_bits: int | None = None, transfer: str | None = None,
              mastering=None) -> Spec:
    """Validate everything and resolve every parameter (defaults filled in).

    Raises one ``ValueError`` naming the parameter for: an unknown pattern or parameter, a
    value of the wrong type (true/false where a number belongs), a non-finite or overflowing
    number, a value out of range, a colour over the bit depth, more steps or tiles than
    pixels, a dtype that cannot hold the bit depth exactly, a size outside 1..16384 per side
    (so at most 2**28 pixels), or a region that is empty or wholly outside the frame.

    ``transfer`` (sdr, pq or hlg; sdr when not given) says what the code values mean: under
    pq or hlg a colour may be given in cd/m2 (``203nits``, ``100nits,100nits,50nits``),
    converted to code values here (:func:`core.transfer.resolve_nits`); under sdr that is
    refused.  ``mastering`` (pq and hlg only) describes the mastering display
    (:func:`core.patterns.hdr_metadata.parse_mastering`; BT.2020, D65, 0.0001..1000 cd/m2).
    """
    pat = get_pattern(pattern)
    width = _side("width", width)
    height = _side("height", height)
    if isinstance(bit_depth, bool) or not isinstance(bit_depth, numbers.Integral):
        raise ValueError(f"bit_depth: expected an integer 1..16, got {shown(bit_depth)}")
    if isinstance(limited, numbers.Integral) and limited in (0, 1):
        limited = bool(limited)
    else:
        raise ValueError(f"limited: expected true/false, got {shown(limited)}")
    bit_depth = int(bit_depth)
    levels = Levels(bit_depth, limited)
    if bit_depth < pat.min_bits:
        raise ValueError(f"pattern {pattern!r} needs at least {pat.min_bits} bits")
    if not isinstance(dtype, str) or len(dtype) > 32:
        raise ValueError(f"dtype: expected a dtype name such as uint16, got {shown(dtype)}")
    X.check_dtype(dtype, bit_depth)
    if params is not None and not isinstance(params, Mapping):
        raise ValueError(f"params: expected names and values, got {shown(params)}")
    given = dict(params or {})
    transfer = _transfer(pat, given, transfer, levels)
    mastering = parse_mastering(mastering)
    if transfer == "sdr" and mastering != DEFAULT_MASTERING:
        raise ValueError("mastering: the mastering display describes an HDR master; it needs "
                         "transfer pq or hlg")
    resolved = []
    for p in pat.params:
        raw = given.pop(p.name, p.default)
        if p.kind in ("colour", "palette"):
            raw = resolve_nits(raw, p.kind, levels, transfer, p.name)   # 203nits -> code values
        resolved.append((p.name, p.resolve(raw, levels)))
    if given:
        pat.param(next(iter(given)))  # raises with the known names
    pat.fits(dict(resolved, _limited=limited), width, height)
    if roi is not None:
        roi = _region(roi, width, height)
    if counter_bits is not None:
        if pattern == "counter":
            raise ValueError("the counter pattern already is a counter; drop the overlay")
        counter_bits = parse_number(counter_bits, "counter_bits", integer=True)
        CounterGeometry.compat(width, height, counter_bits)
    spec = Spec(pattern, tuple(resolved), width, height, bit_depth, limited, dtype, roi,
                counter_bits, transfer, mastering)
    if pattern == "counter":
        spec.counter_geometry()  # refuses a panel that does not fit
    return spec


def _transfer(pat: Pattern, given: dict, transfer, levels: Levels) -> str:
    """The spec's transfer: ``transfer`` (sdr when not given).  A pattern drawn per transfer
    declares a ``transfer`` parameter (hdr_bars: pq or hlg); that parameter is the spec's
    transfer, the spec's ``transfer`` fills it when it is not set, and the two must agree."""
    chosen = None if transfer is None else check_transfer(transfer)
    own = next((p for p in pat.params if p.name == "transfer"), None)
    if own is None:
        return chosen or "sdr"
    if "transfer" in given:
        value = own.resolve(given["transfer"], levels)
        if chosen is not None and chosen != value:
            raise ValueError(f"transfer: {pat.name} is set to {value} (its transfer parameter) "
                             f"but the frame's transfer is {chosen}; give one of them")
        return value
    if chosen is None:
        return own.default
    if chosen not in own.choices:
        raise ValueError(f"transfer: {pat.name} is drawn for {' or '.join(own.choices)} only, "
                         f"not {chosen}")
    given["transfer"] = chosen
    return chosen


def _side(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or not 1 <= int(value) <= MAX_SIDE:
        raise ValueError(f"{name}: expected an integer 1..{MAX_SIDE}, got {shown(value)}")
    return int(value)


def _region(roi, width: int, height: int) -> tuple[int, int, int, int]:
    """``x,y,w,h`` (four integers, or text ``"x,y,w,h"``) that covers at least one pixel of the
    frame; a region past an edge is clipped when rendered, one wholly outside is refused."""
    if isinstance(roi, str):
        parts = [v for v in roi.replace(" ", "").split(",")] if len(roi) <= 200 else []
    elif isinstance(roi, (list, tuple)):
        parts = list(roi)
    else:
        parts = []
    if len(parts) != 4:
        raise ValueError(f"roi: expected four integers x,y,w,h, got {shown(roi)}")
    x, y, w, h = (parse_number(v, "roi", integer=True) for v in parts)
    if w < 1 or h < 1:
        raise ValueError(f"roi: width and height must be at least 1 pixel, got {w}x{h}")
    if x >= width or y >= height or x + w <= 0 or y + h <= 0:
        raise ValueError(f"roi: {x},{y},{w},{h} lies wholly outside the {width}x{height} frame")
    return x, y, w, h


@dataclass
class Ctx:
    """What a pattern body sees: namespace, device, frame size, levels, frame index, and
    (``into``) a numpy buffer of the frame's shape and dtype that a body whose rows are most
    of the frame may write them into, as the leading lines of a :class:`~core.plan.Rows`
    ``frame`` (None: rows go wherever the body likes)."""

    xp: Any
    device: Any
    width: int
    height: int
    levels: Levels
    frame: Any
    origin: tuple[int, int] = (0, 0)
    into: Any = None

    def cols(self, dtype="int64"):
        return X.arange(self.xp, self.width, self.device, dtype)

    def lines(self, dtype="int64"):
        return X.arange(self.xp, self.height, self.device, dtype)

    def const(self, values, dtype="int64"):
        return X.asarray(self.xp, values, self.device, dtype)

    def one_row(self, row) -> Rows:
        """A plan of one row (W or 1 wide, 3 channels) repeated on every line."""
        return Rows(row[None], self.lines() * 0, self.width, self.height)

    def frame_index(self):
        return X.frame_scalar(self.xp, self.frame, self.device)


# Names a size may be given by; ``core.decisions.bands`` names its resolution classes from these.
SIZE_ALIASES: dict[str, tuple[int, int]] = {"720p": (1280, 720), "1080p": (1920, 1080),
                                            "1440p": (2560, 1440), "2160p": (3840, 2160),
                                            "4k": (3840, 2160)}
MAX_SIDE = 16384
_SIZE = re.compile(r"\s*(\d{1,12})\s*[xX]\s*(\d{1,12})\s*")


def parse_size(text: str, aliases: Mapping[str, tuple[int, int]] = SIZE_ALIASES) -> tuple[int, int]:
    """``WIDTHxHEIGHT`` or one of ``aliases`` to ``(width, height)``, each side 1..16384
    (so at most 2**28 pixels).

    ``ValueError`` with one sentence for anything else.
    """
    low = str(text).strip().lower() if isinstance(text, str) else ""
    if low in aliases:
        return aliases[low]
    m = _SIZE.fullmatch(low) if len(low) <= 40 else None
    if not m:
        raise ValueError(f"size must be WIDTHxHEIGHT, as one of {', '.join(aliases)} or WxH "
                         f"(e.g. 1920x1080), got {shown(text)}")
    w, h = int(m.group(1)), int(m.group(2))
    if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE):
        raise ValueError(f"size {w}x{h} is outside 1..{MAX_SIDE} per side")
    return w, h
