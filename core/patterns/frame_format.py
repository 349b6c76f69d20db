"""The frame format: what every frame of an output shares, as one value.

:class:`FrameFormat` holds the size, bit depth, range, the counter overlay's bits and the
transfer an output renders at.  It is made once (from the settings, the command line or the
window's frame settings) and builds every spec of that output: a pattern's
(:meth:`FrameFormat.spec`), a preset's entries (:meth:`FrameFormat.preset_specs`).  It owns
the overlay rule: the counter overlay is laid over every pattern but the counter pattern,
which is a counter already, and an entry's own depth, range and overlay win over the format's.

:meth:`FrameFormat.respec` carries a spec to another depth or range: its colours converted
from their own levels by :func:`core.levels.rescale_code` (the one depth rule), everything
else kept, so following a surface that was granted 8 bits shows the colours the operator
typed at 10.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from core.levels import Levels, rescale_code
from core.patterns.presets import Preset, PresetEntry
from core.patterns.registry import get_pattern
from core.patterns.spec import Spec, make_spec

COLOUR_KINDS = ("colour", "palette")


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

    def overlay_for(self, pattern: str) -> int | None:
        """The counter overlay a pattern gets: none on the counter pattern itself."""
        return self.counter_bits if pattern != "counter" else None

    def spec(self, pattern: str, params: Mapping[str, Any] | None = None, **extra) -> Spec:
        """``pattern`` with ``params`` in this format (``ValueError``: one sentence)."""
        transfer = extra.pop("transfer", self.transfer)
        return make_spec(pattern, params or {}, width=self.width, height=self.height,
                         bit_depth=self.bit_depth, limited=self.limited,
                         counter_bits=self.overlay_for(pattern), transfer=transfer, **extra)

    def entry_spec(self, entry: PresetEntry) -> Spec:
        return entry.spec(self.width, self.height, bit_depth=self.bit_depth, limited=self.limited,
                          counter_bits=self.counter_bits)

    def preset_specs(self, preset: Preset) -> list[Spec]:
        """Every entry of ``preset`` for this output, in order (``ValueError`` naming the entry)."""
        return preset.specs(self.width, self.height, bit_depth=self.bit_depth, limited=self.limited,
                            counter_bits=self.counter_bits)

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
