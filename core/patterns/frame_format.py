"""The frame format: what every frame of an output shares, as one value.

:class:`FrameFormat` holds the size, bit depth, range, the counter overlay's bits and the
transfer an output renders at.  It is made once (from the settings, the command line or the
window's frame settings) and builds every spec of that output: a pattern's
(:meth:`FrameFormat.spec`), a preset's entries (:meth:`FrameFormat.preset_specs`), the first
frame of a window or kiosk from the stored parameters (:meth:`FrameFormat.start_spec`).  It
owns the overlay rule (:meth:`FrameFormat.overlay_for`): the counter overlay asked for is laid
over every pattern but the counter pattern, which is a counter already, and an overlay a spec
asks for itself (a preset entry's, a typed ``--counter``) wins over the format's.  A preset
entry's own depth and range win over the format's too; its transfer is its own (a preset says
what its code values mean), the format's is for the patterns an operator chooses.

:meth:`FrameFormat.respec` carries a spec to another depth or range: its colours converted
from their own levels by :func:`core.levels.rescale_code` (the one depth rule), everything
else kept, so following a surface that was granted 8 bits shows the colours the operator
typed at 10.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from core.levels import Levels, rescale_code
from core.patterns.registry import get_pattern
from core.patterns.spec import Spec, make_spec

COLOUR_KINDS = ("colour", "palette")


class Entry(Protocol):
    """What a format builds a preset entry from (:class:`~core.patterns.PresetEntry`; named
    here by shape, as presets build on this module)."""

    @property
    def pattern(self) -> str: ...
    @property
    def params(self) -> tuple[tuple[str, Any], ...]: ...
    @property
    def bit_depth(self) -> int | None: ...
    @property
    def limited(self) -> bool | None: ...
    @property
    def counter_bits(self) -> int | None: ...
    @property
    def transfer(self) -> str | None: ...


@dataclass(frozen=True)
class FrameFormat:
    width: int
    height: int
    bit_depth: int = 10
    limited: bool = False
    counter_bits: int | None = None      # the overlay asked for (None: none)
    transfer: str | None = None          # None: each pattern's own (sdr unless it says)

    def __post_init__(self):
        Levels(self.bit_depth, self.limited)      # refuses a depth or range that cannot be

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    @property
    def levels(self) -> Levels:
        return Levels(self.bit_depth, self.limited)

    def with_size(self, width: int, height: int) -> FrameFormat:
        return replace(self, width=int(width), height=int(height))

    def with_depth(self, bit_depth: int, limited: bool | None = None) -> FrameFormat:
        return replace(self, bit_depth=int(bit_depth),
                       limited=self.limited if limited is None else bool(limited))

    def overlay_for(self, pattern: str, own: int | None = None) -> int | None:
        """The counter overlay ``pattern`` gets: ``own`` (the spec's own, which wins), else the
        format's, except on the counter pattern, which is a counter already."""
        if own is not None:
            return own
        return self.counter_bits if pattern != "counter" else None

    def spec(self, pattern: str, params: Mapping[str, Any] | None = None, *,
             counter_bits: int | None = None, **extra) -> Spec:
        """``pattern`` with ``params`` in this format (``ValueError``: one sentence).

        ``counter_bits`` is an overlay the spec asks for itself (refused on the counter
        pattern, as :func:`~core.patterns.make_spec` refuses it); ``transfer`` in ``extra``
        replaces the format's."""
        transfer = extra.pop("transfer", self.transfer)
        return make_spec(pattern, params or {}, width=self.width, height=self.height,
                         bit_depth=self.bit_depth, limited=self.limited,
                         counter_bits=self.overlay_for(pattern, counter_bits), transfer=transfer, **extra)

    def transfer_for(self, pattern: str, params: Mapping[str, Any] | None = None) -> str | None:
        """The transfer ``pattern`` is built at when the operator picks it in this output: the
        format's, except for a pattern drawn per transfer (hdr_bars) whose own ``transfer``
        parameter is in ``params`` or that cannot take the format's: then its own (None)."""
        own = next((p for p in get_pattern(pattern).params if p.name == "transfer"), None)
        if own is None or self.transfer is None:
            return self.transfer
        if params and "transfer" in params:
            return None
        return self.transfer if self.transfer in own.choices else None

    def chosen_spec(self, pattern: str, params: Mapping[str, Any] | None = None) -> Spec:
        """``pattern`` as the operator picks or edits it in this output (:meth:`spec` at
        :meth:`transfer_for`): a typed ``--transfer`` carries to every pattern that can take
        it and never locks out one that draws its own."""
        return self.spec(pattern, params, transfer=self.transfer_for(pattern, params))

    def start_spec(self, pattern: str, stored: Mapping[str, Any] | None,
                   log: Callable[[str], None] = lambda _note: None, *,
                   checkerboard: bool = True) -> Spec:
        """The first frame of an output: ``pattern`` with its ``stored`` parameters; where this
        format refuses them, its defaults; where it refuses those too, a checkerboard (with
        ``checkerboard=False``: the defaults' ``ValueError``, the pattern or format having been
        typed).  Each refusal is one sentence given to ``log`` (the window's log, the kiosk's
        stderr)."""
        for params in _distinct(stored or {}, {}):
            try:
                return self.chosen_spec(pattern, params)
            except ValueError as exc:
                if not params and not checkerboard:
                    raise
                instead = "using defaults" if params else "showing a checkerboard"
                log(f"stored settings for {pattern} not usable ({exc}); {instead}")
        try:
            return self.spec("checkerboard")
        except ValueError:      # no overlay fits so small a frame
            return make_spec("checkerboard", width=self.width, height=self.height,
                             bit_depth=self.bit_depth, limited=self.limited)

    def entry_spec(self, entry: Entry, *, dtype: str = "uint16") -> Spec:
        """A preset entry for this output: its own depth, range and overlay win over the
        format's; its transfer is its own (None: its pattern's)."""
        fmt = replace(self, bit_depth=self.bit_depth if entry.bit_depth is None else entry.bit_depth,
                      limited=self.limited if entry.limited is None else entry.limited,
                      transfer=entry.transfer)
        return fmt.spec(entry.pattern, dict(entry.params), counter_bits=entry.counter_bits, dtype=dtype)

    def preset_specs(self, preset, *, dtype: str = "uint16") -> list[Spec]:
        """Every entry of ``preset`` (a :class:`~core.patterns.Preset`) for this output, in
        order (``ValueError`` naming the preset and the entry)."""
        return entry_specs(self, preset.name, preset.entries, dtype=dtype)

    def respec(self, spec: Spec) -> Spec:
        """``spec`` at this format's depth and range, its colours carried there by the depth
        rule; a spec already there is returned as it is."""
        if (spec.bit_depth, spec.limited) == (self.bit_depth, self.limited):
            return spec
        return respec(spec, self.levels)


def respec(spec: Spec, levels: Levels) -> Spec:
    """``spec`` at ``levels``: colour and palette parameters converted with
    :func:`core.levels.rescale_code` from the spec's own levels, the rest as they are."""
    old = spec.levels
    kinds = {p.name: p.kind for p in get_pattern(spec.pattern).params}
    params = {}
    for name, value in spec.params:
        kind = kinds.get(name)
        if kind == "colour":
            value = tuple(rescale_code(int(v), old, levels) for v in value)
        elif kind == "palette":
            value = tuple(tuple(rescale_code(int(v), old, levels) for v in c) for c in value)
        params[name] = value
    return make_spec(spec.pattern, params, width=spec.width, height=spec.height,
                     bit_depth=levels.bit_depth, limited=levels.limited, dtype=spec.dtype,
                     roi=spec.roi, counter_bits=spec.counter_bits, transfer=spec.transfer,
                     mastering=spec.mastering)


def entry_specs(fmt: FrameFormat, name: str, entries: Iterable[Entry], *,
                dtype: str = "uint16") -> list[Spec]:
    """The entries of preset ``name`` in ``fmt``, in order; ``ValueError`` naming the entry."""
    out = []
    for i, entry in enumerate(entries):
        try:
            out.append(fmt.entry_spec(entry, dtype=dtype))
        except ValueError as exc:
            raise ValueError(f"preset {name!r} entry {i + 1} ({entry.pattern}): {exc}") from None
    return out


def _distinct(*candidates: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    out: list[Mapping[str, Any]] = []
    for c in candidates:
        if not out or c != out[-1]:
            out.append(c)
    return out
