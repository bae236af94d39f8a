"""The app icon: a PNG for every size, each the current rendering of the SVG, and the window's
icon offering all of them."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QColor, QImage

from explorer import assets
from explorer.gui.icon import render


def _rgba(colour: QColor) -> tuple[int, int, int, int]:
    return colour.red(), colour.green(), colour.blue(), colour.alpha()


@pytest.mark.parametrize("size", assets.ICON_SIZES)
def test_png_is_the_svg_rendered_at_its_size(qapp: Any, size: int) -> None:
    shipped = QImage(str(assets.icon_png(size))).convertToFormat(QImage.Format.Format_ARGB32)
    assert (shipped.width(), shipped.height()) == (size, size)
    # A rounded tile: transparent corners, an opaque middle.
    assert shipped.pixelColor(0, 0).alpha() == 0
    assert shipped.pixelColor(size // 2, size // 2).alpha() == 255
    fresh = render(size)
    worst = max(
        abs(a - b)
        for x in range(0, size, max(1, size // 32))
        for y in range(0, size, max(1, size // 32))
        for a, b in zip(_rgba(shipped.pixelColor(x, y)), _rgba(fresh.pixelColor(x, y)), strict=True)
    )
    assert worst <= 8, f"{assets.icon_png(size).name} is stale: python -m explorer.gui.icon"


def test_window_icon_offers_every_size(qapp: Any) -> None:
    from explorer.gui.application import application

    icon = application().windowIcon()
    sizes = {s.width() for s in icon.availableSizes()}
    assert sizes == set(assets.ICON_SIZES)
