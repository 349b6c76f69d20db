"""A manifest's counter geometry as a hint for the decoder, refused unless it is a panel
testcard draws.

A manifest (``--manifest FILE``, or the sidecar found beside a capture) says where the
counter panel was rendered.  It is a hint, never the truth about a capture: the decoder
still looks for a robust panel first and checks a compat reading against the image
(``core.decode.reader``).  Before it is used at all, its geometry must be the layout's own:
fields of the right type and sign (:func:`core.manifest.counter_fields`), a known layout,
bits ``MIN_BITS..MAX_BITS``, the panel inside the frame, and every field what
``CounterGeometry.compat`` or ``.robust`` gives for that frame size, bit count, Gray flag
and band count.  A hand-edited, truncated or mixed-up entry is
refused with one sentence naming the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from core.counter import (
    LAYOUTS,
    MAX_BANDS,
    MAX_BITS,
    MIN_BANDS,
    MIN_BITS,
    ROBUST_VERSION,
    CounterGeometry,
    robust_cells,
)
from core.manifest import GEOMETRY_FIELDS, counter_fields, manifest_frame, read_manifest


@dataclass(frozen=True)
class Hint:
    """A checked manifest: where its panel is, and the frame its own image shows (if it says)."""

    geometry: CounterGeometry
    frame: int | None
    source: str

    def describe(self) -> dict:
        g = self.geometry
        return {"source": self.source, "layout": g.layout, "bits": g.bits, "width": g.width,
                "height": g.height, "frame": self.frame}


def load_hint(path) -> Hint:
    """The checked counter geometry of the manifest at ``path``; ``ValueError`` (one sentence
    naming the file and the field) when it cannot be read, describes no counter panel, or
    describes one testcard does not draw."""
    p = Path(path)
    doc = read_manifest(p)
    fields = counter_fields(doc, p.name)
    if fields is None:
        raise ValueError(f"manifest {p.name} describes no counter panel")
    return Hint(geometry_from_fields(fields, p.name), manifest_frame(doc, p.name), str(p))


def geometry_from_fields(f: dict, name: str) -> CounterGeometry:
    """The panel ``f`` (checked by ``counter_fields``) describes, as the layout draws it."""
    layout, w, h, bits = f["layout"], f["width"], f["height"], f["bits"]
    if layout not in LAYOUTS:
        raise ValueError(f"manifest {name}: unknown counter.layout {layout[:40]!r} "
                         f"(expected {' or '.join(LAYOUTS)})")
    if not MIN_BITS <= bits <= MAX_BITS:
        raise ValueError(f"manifest {name}: counter.bits must be {MIN_BITS}..{MAX_BITS}, got {bits}")
    extra = f["extra"]
    if layout == "robust":
        cells = extra.get("cells", robust_cells(bits)[1])
        bands = extra.get("band_y", [])
        if not MIN_BANDS <= len(bands) <= MAX_BANDS or extra.get("bands", len(bands)) != len(bands):
            raise ValueError(f"manifest {name}: counter.extra must list {MIN_BANDS}..{MAX_BANDS} "
                             "band lines (band_y), as many as its bands")
        x1 = f["pad_x"] + cells * f["cell_w"]
        y1 = max(bands) + 3 * f["cell_h"]
    else:
        x1, y1 = f["pad_x"] + bits * f["cell_w"], f["pad_y"] + f["cell_h"]
    if x1 > w or y1 > h:
        raise ValueError(f"manifest {name}: the counter panel (to x {x1}, y {y1}) lies outside "
                         f"its {w}x{h} frame")
    try:
        if layout == "robust":
            if extra.get("version", ROBUST_VERSION) > ROBUST_VERSION:
                raise ValueError(f"robust panel version {extra['version']} is newer than this "
                                 f"testcard reads ({ROBUST_VERSION})")
            want = CounterGeometry.robust(w, h, bits, gray=bool(extra.get("gray", False)),
                                          bands=len(bands))
        else:
            want = CounterGeometry.compat(w, h, bits)
    except ValueError as exc:
        raise ValueError(f"manifest {name}: {exc}") from None
    for key in GEOMETRY_FIELDS:
        if f[key] != getattr(want, key):
            raise ValueError(f"manifest {name}: counter.{key} is {f[key]}, but a {bits}-bit {layout} "
                             f"panel in a {w}x{h} frame has {getattr(want, key)}")
    if layout == "robust":
        for key in ("cells", "band_y"):
            if key in extra and extra[key] != want.extra[key]:
                raise ValueError(f"manifest {name}: counter.extra.{key} is {extra[key]}, but a "
                                 f"{bits}-bit robust panel in a {w}x{h} frame has {want.extra[key]}")
    return want
