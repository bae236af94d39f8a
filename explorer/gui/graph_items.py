"""The graph view's parts: node, edge and badge items, their shared pens and fonts, constants.

``NodeItem`` is one entity (a circle coloured by type, its label placed by the view),
``EdgesItem`` one path of many relations, ``MoreHandle`` the "+N more" badge, and
``StateCommand`` an undoable edit as a pair of states. The numbers that shape drawing and label
placement live here too, with the small geometry helpers. Imports Qt, the standard library and
the GUI's plain-data modules.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPen,
    QUndoCommand,
)
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsSceneHoverEvent,
    QGraphicsSceneMouseEvent,
    QGraphicsSimpleTextItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from explorer.core.models import WEAK_RELATIONS
from explorer.gui import style
from explorer.gui.graph_model import (
    EdgeData,
    GraphState,
    NodeData,
)

if TYPE_CHECKING:
    from explorer.gui.graph_parts import GraphViewParts

EXPAND_CAP = 25
EXPAND_STEP = 25
MAX_EDGE_LABELS = 40
# From this zoom up, every line in view is labelled with its relation types (where they fit).
EDGE_LABELS_SCALE = 1.2
# New nodes created per event-loop turn when a large graph is shown.
APPLY_BATCH = 150
# Above this many relations, edges are drawn without antialiasing (several times cheaper).
EDGE_ANTIALIAS_LIMIT = 1500
ZOOM_STEP = 1.25
MIN_SCALE = 0.02
MAX_SCALE = 8.0
# From this zoom up every node may be labelled (where there is room); below it only the ones
# that must be.
LABELS_ALL_SCALE = 0.7
# Hubs labelled at any zoom: the best-connected few, if they have at least this many relations.
HUBS_LABELLED = 6
# Fit leaves this much room (screen pixels) around the nodes for their labels, and never zooms
# in beyond MAX_FIT_SCALE.
FIT_MARGIN_X = 45.0
FIT_MARGIN_Y = 30.0
MAX_FIT_SCALE = 1.6
#: Room kept around a selected node scrolled into view (pixels), for its label.
SELECT_MARGIN_X = 90
SELECT_MARGIN_Y = 60
SCENE_EXTENT = 1e6
# Line widths (screen pixels) for one relation, two or three, four or more between a pair.
EDGE_WIDTHS = (1.0, 2.2, 3.6)
DIMMED_OPACITY = 0.15
UNLIT_OPACITY = 0.3
# Nodes further off screen than this (pixels) are skipped when labels are placed.
OFFSCREEN_REACH = 150.0
# Circles smaller than this on screen (pixels) may be covered by a label.
MIN_AVOIDED_RADIUS = 3.0
# A label further than this (pixels) from its circle is tied to it by a dotted line.
LEADER_MIN_GAP = 10.0
HUB_MIN_DEGREE = 4
# Labels are drawn above every node and edge.
LABEL_Z = 6


class ItemStyles:
    """Pens, brushes and fonts shared by every node, made once (creating them per item is a
    measurable part of drawing a 1,000-node graph)."""

    def __init__(self) -> None:
        self.brushes: dict[str, QBrush] = {}
        self.fonts = {}
        for root in (False, True):
            font = QFont()
            font.setPointSizeF(9.5 if root else 8.5)
            font.setBold(root)
            self.fonts[root] = font
        self.label_brush = QBrush(style.LABEL_COLOUR)
        self.plain_pen = QPen(QColor(255, 255, 255, 230), 1.5)
        self.selected_pen = QPen(style.SELECTION, 3.0)
        self.linked_pen = QPen(style.LINK_HIGHLIGHT, 4.0)
        self.pinned_pen = QPen(QColor("#37474f"), 2.0, Qt.PenStyle.DashLine)
        self.metrics = {root: QFontMetricsF(font) for root, font in self.fonts.items()}
        self.edge_font = QFont()
        self.edge_font.setPointSizeF(7.5)
        self.edge_metrics = QFontMetricsF(self.edge_font)

    def brush(self, entity_type: str) -> QBrush:
        brush = self.brushes.get(entity_type)
        if brush is None:
            brush = self.brushes[entity_type] = QBrush(style.type_colour(entity_type))
        return brush


_ITEM_STYLES: ItemStyles | None = None


def item_styles() -> ItemStyles:
    global _ITEM_STYLES
    if _ITEM_STYLES is None:
        _ITEM_STYLES = ItemStyles()
    return _ITEM_STYLES


class NodeItem(QGraphicsEllipseItem):
    """One entity: a circle coloured by type and sized by score, with a label below it.

    Only the hover and double-click handlers are Python; painting, moving and selection stay
    in C++ (the view learns about drags from its own mouse events, not from ``itemChange``).
    """

    def __init__(self, view: GraphViewParts, data: NodeData) -> None:
        super().__init__()
        self.view = view
        self.node_id = data.id
        self.data_ = data
        # Made on first show: most labels of a big graph are hidden at the zoom it opens at.
        self._label: QGraphicsSimpleTextItem | None = None
        self._label_offset = QPointF(0, 0)
        self.highlighted = False
        self.setFlags(
            QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
            | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
        )
        self.setAcceptHoverEvents(True)
        self.restyle(data)

    def restyle(self, data: NodeData) -> None:
        styles = item_styles()
        self.data_ = data
        radius = self.view.node_radius(data)
        self.r = radius  # read by label placement on every zoom, cheaper than rect()
        self.setRect(QRectF(-radius, -radius, 2 * radius, 2 * radius))
        self.setBrush(styles.brush(data.type))
        if self._label is not None:
            self._style_label(self._label)
        self.setZValue(2 if data.root else 1)
        self.update_pen()

    def _style_label(self, label: QGraphicsSimpleTextItem) -> None:
        label.setText(self.view.label_text(self.data_))
        label.setFont(item_styles().fonts[self.data_.root])

    def place_label(self, dx: float, dy: float, scale: float) -> None:
        """Show the label with its top-left corner ``dx, dy`` screen pixels from the centre at
        zoom ``scale`` (labels keep their size on screen and are placed again on every zoom;
        a plain position draws cheaper than an extra transform)."""
        label = self.label
        self._label_offset = QPointF(dx / scale, dy / scale)
        self.follow_label()
        if not label.isVisible():
            label.setVisible(True)

    def follow_label(self) -> None:
        """Keep the label beside the node after the node moved (a drag)."""
        if self._label is not None:
            point = self.pos() + self._label_offset
            if self._label.pos() != point:
                self._label.setPos(point)

    @property
    def label(self) -> QGraphicsSimpleTextItem:
        """The name beside the node (created on first use). A scene item of its own rather
        than a child, so that it is drawn above every circle, not only its own."""
        if self._label is None:
            label = QGraphicsSimpleTextItem()
            label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
            label.setBrush(item_styles().label_brush)
            label.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            label.setZValue(LABEL_Z)
            label.setVisible(False)
            self._style_label(label)
            scene = self.scene()
            if scene is not None:
                scene.addItem(label)
            self._label = label
        return self._label

    def set_faded(self, opacity: float) -> None:
        """The node and its label at ``opacity`` (1.0: drawn as usual)."""
        if self.opacity() != opacity:
            self.setOpacity(opacity)
        if self._label is not None and self._label.opacity() != opacity:
            self._label.setOpacity(opacity)

    def detach_label(self) -> None:
        """Take the label out of the scene with the node."""
        if self._label is not None:
            scene = self._label.scene()
            if scene is not None:
                scene.removeItem(self._label)
            self._label = None

    def label_shown(self) -> bool:
        return self._label is not None and self._label.isVisible()

    def show_label(self, on: bool) -> None:
        if on:
            label = self.label
            if not label.isVisible():
                label.setVisible(True)
        elif self._label is not None and self._label.isVisible():
            self._label.setVisible(False)

    @property
    def radius(self) -> float:
        return self.rect().width() / 2

    def set_highlighted(self, on: bool) -> None:
        if on != self.highlighted:
            self.highlighted = on
            self.update_pen()
            self.setZValue(3 if on else (2 if self.data_.root else 1))

    def update_pen(self) -> None:
        styles = item_styles()
        if self.highlighted:
            pen = styles.linked_pen
        elif self.isSelected():
            pen = styles.selected_pen
        elif self.node_id in self.view.state.pinned:
            pen = styles.pinned_pen
        else:
            pen = styles.plain_pen
        self.setPen(pen)

    def hoverEnterEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        self.view._on_node_hovered(self.node_id, True)
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        self.view._on_node_hovered(self.node_id, False)
        super().hoverLeaveEvent(event)

    def mouseDoubleClickEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        self.view.expand(self.node_id)
        event.accept()


class EdgesItem(QGraphicsPathItem):
    """Every relation as one path (one item is several times cheaper per frame than one per
    edge). Antialiasing is dropped for very large graphs, where it costs more than it shows."""

    def __init__(self) -> None:
        super().__init__()
        self.antialias = True

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionGraphicsItem,
        widget: QWidget | None = None,
    ) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, self.antialias)
        super().paint(painter, option, widget)


class MoreHandle(QGraphicsSimpleTextItem):
    """The "+N more" handle beside a node whose relations are not all drawn."""

    def __init__(self, view: GraphViewParts, node_id: str) -> None:
        super().__init__()
        self.view = view
        self.node_id = node_id
        font = QFont()
        font.setPointSizeF(7.5)
        font.setBold(True)
        self.setFont(font)
        self.setBrush(QBrush(QColor("#5f6368")))
        self.setZValue(4)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        # Readable at any zoom, like the labels.
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)

    def set_count(self, count: int) -> None:
        self.setText(f"+{count} more")
        self.setToolTip(f"{count} more relations not shown; click to show up to {EXPAND_STEP} more")

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        self.view.expand_more(self.node_id)
        event.accept()


class StateCommand(QUndoCommand):
    """An edit as a pair of states; undo and redo just swap which one is on screen."""

    def __init__(
        self, view: GraphViewParts, before: GraphState, after: GraphState, text: str
    ) -> None:
        super().__init__(text)
        self._view = view
        self._before = before
        self._after = after

    def redo(self) -> None:
        self._view._apply_state(self._after)

    def undo(self) -> None:
        self._view._apply_state(self._before)


def is_weak(edge: EdgeData) -> bool:
    """A signal, not a fact: a mention or a co-occurrence (``core.models.WEAK_RELATIONS``)."""
    return edge.type in WEAK_RELATIONS


def edge_caption(edges: list[EdgeData]) -> str:
    """The types of the facts drawn as one line: ``LIVES_IN``, ``KNOWS, WORKS_WITH ×2``; weak
    signals are never captioned (``""`` when the line holds nothing else)."""
    kinds: dict[str, int] = {}
    for edge in edges:
        if is_weak(edge):
            continue
        kinds[edge.type or "related"] = kinds.get(edge.type or "related", 0) + 1
    return ", ".join(f"{k} ×{n}" if n > 1 else k for k, n in sorted(kinds.items()))


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def segment_distance(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    if length2 <= 1e-12:
        return math.hypot(px - ax, py - ay)
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def add_arrow(path: QPainterPath, start: QPointF, end: QPointF, end_radius: float) -> None:
    dx, dy = end.x() - start.x(), end.y() - start.y()
    length = math.hypot(dx, dy)
    if length < 1e-6:
        return
    ux, uy = dx / length, dy / length
    tip = QPointF(end.x() - ux * (end_radius + 2), end.y() - uy * (end_radius + 2))
    path.moveTo(start)
    path.lineTo(tip)
    size = 7.0
    left = QPointF(tip.x() - ux * size - uy * size * 0.5, tip.y() - uy * size + ux * size * 0.5)
    right = QPointF(tip.x() - ux * size + uy * size * 0.5, tip.y() - uy * size - ux * size * 0.5)
    path.moveTo(tip)
    path.lineTo(left)
    path.lineTo(right)
    path.closeSubpath()
