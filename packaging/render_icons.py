"""Render resources/icons/testcard.svg to the PNG sizes desktops use.

Sizes up to SMALL_MAX px come from testcard-small.svg, the same art without the
circle, which turns to mush at 16 px.

Run after editing the SVG and commit the PNGs:  python packaging/render_icons.py
Uses PySide6's QtSvg (part of PySide6-Essentials), so it needs nothing beyond
testcard's own dependencies.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SIZES = (16, 32, 48, 64, 128, 256)
SMALL_MAX = 16
ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"


def render(svg: Path, size: int):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"render_icons: {svg.name} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841
    for size in SIZES:
        svg = ICONS / ("testcard-small.svg" if size <= SMALL_MAX else "testcard.svg")
        out = ICONS / f"testcard-{size}.png"
        if not render(svg, size).save(str(out), "PNG"):
            raise SystemExit(f"render_icons: could not write {out}")
        print(f"wrote {out.relative_to(ICONS.parents[1])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
