"""Colours and sizes shared by the explorer's widgets.

Entity types get fixed colours for the common ones and a stable colour derived from the type name
for anything else, so the legend means the same thing from one query to the next. Imports Qt's
gui types and the standard library.
"""

from __future__ import annotations

import zlib

from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap

KNOWN_TYPE_COLOURS = {
    "person": "#4e79a7",
    "organization": "#f28e2b",
    "organisation": "#f28e2b",
    "place": "#59a14f",
    "location": "#59a14f",
    "event": "#e15759",
    "project": "#b07aa1",
    "product": "#76b7b2",
    "concept": "#edc948",
    "topic": "#edc948",
    "tool": "#9c755f",
    "thing": "#bab0ac",
    "preference": "#ff9da7",
    "date": "#86bcb6",
    "time": "#86bcb6",
    "skill": "#d37295",
    "document": "#a0cbe8",
}

LINK_HIGHLIGHT = QColor("#ff6f00")
SELECTION = QColor("#1565c0")
WEAK_EDGE_COLOUR = QColor("#c9ccd1")  # a co-occurrence or a mention: dashed, under the facts
EDGE_COLOUR = QColor("#bfc1c8")  # opaque: translucent pens are far slower to stroke
EDGE_HIGHLIGHT = QColor("#1565c0")
LABEL_COLOUR = QColor("#202124")
BACKGROUND = QColor("#fbfbfd")
BANNER_WARNING = "background:#fff3cd;color:#5c4400;border:1px solid #e0c46c;padding:4px 8px;"
BANNER_ERROR = "background:#f8d7da;color:#58151c;border:1px solid #e3a0a6;padding:4px 8px;"
INVALID_INPUT = "background:#fde2e2;border:1px solid #d93025;"

NODE_MIN_RADIUS = 7.0
NODE_MAX_RADIUS = 20.0


#: Colours the user chose per entity type (the style editor); they win over the defaults.
TYPE_COLOUR_OVERRIDES: dict[str, str] = {}


def type_colour(entity_type: str) -> QColor:
    """The colour of an entity type: the user's, a fixed one for common types, or a stable hue."""
    key = entity_type.strip().lower()
    known = TYPE_COLOUR_OVERRIDES.get(key) or KNOWN_TYPE_COLOURS.get(key)
    if known is not None:
        return QColor(known)
    hue = zlib.crc32(key.encode("utf-8")) % 360
    return QColor.fromHsl(hue, 140, 150)


def node_radius(score: float, root: bool) -> float:
    """Result entities grow with their (normalised) score; neighbours stay small."""
    if not root:
        return NODE_MIN_RADIUS
    score = min(max(score, 0.0), 1.0)
    return NODE_MIN_RADIUS + 3.0 + (NODE_MAX_RADIUS - NODE_MIN_RADIUS - 3.0) * score


def swatch_icon(colour: QColor | None, size: int = 12) -> QIcon:
    """A round swatch of ``colour`` (an empty ring for ``None``), for legends and menus."""
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor(0, 0, 0, 0))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    if colour is None:
        painter.setPen(QColor("#9aa0a6"))
    else:
        painter.setPen(colour.darker(115))
        painter.setBrush(colour)
    painter.drawEllipse(1, 1, size - 2, size - 2)
    painter.end()
    return QIcon(pixmap)


#: Distinct colours for communities, in order of community size.
COMMUNITY_COLOURS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def community_colour(index: int) -> QColor:
    """The colour of a community; beyond the palette, a stable hue."""
    if index < len(COMMUNITY_COLOURS):
        return QColor(COMMUNITY_COLOURS[index])
    return QColor.fromHsl((index * 47) % 360, 120, 160)
