"""The app icon: the window's ``QIcon`` built from the shipped PNGs, and the rendering of the SVG
into those PNGs. The PNGs are committed (so no SVG plugin is needed at run time);
``python -m explorer.gui.icon`` renders them again after the SVG changes. Imports Qt and
``explorer.assets``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QGuiApplication, QIcon, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from explorer import assets


def app_icon() -> QIcon:
    """Every shipped size in one icon, so each place the system shows it picks a sharp one."""
    icon = QIcon()
    for size in assets.ICON_SIZES:
        icon.addFile(str(assets.icon_png(size)), QSize(size, size))
    return icon


def render(size: int) -> QImage:
    """The SVG drawn at ``size`` × ``size`` on a transparent background."""
    renderer = QSvgRenderer(str(assets.icon_svg()))
    if not renderer.isValid():
        raise ValueError(f"{assets.icon_svg()} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image


def write_pngs() -> list[Path]:
    """Render every size beside the SVG; returns the files written."""
    written = []
    for size in assets.ICON_SIZES:
        path = assets.icon_png(size)
        if not render(size).save(str(path), b"PNG"):
            raise OSError(f"could not write {path}")
        written.append(path)
    return written


if __name__ == "__main__":
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    for written in write_pngs():
        print(written)
