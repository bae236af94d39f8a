"""The neighbourhood graph view: entities as nodes, relations as one path, with undoable edits.

The view renders a ``GraphState`` (``graph_model``); every edit the user makes (expand, collapse,
hide, move, re-layout) becomes a new state pushed on a ``QUndoStack``. Layout never runs here: the
view emits a ``LayoutRequest`` and applies the ``LayoutResult`` that comes back, so the caller can
compute it off the GUI thread. Drawing is shaped by measurement: the scene has no item index
(``NoIndex`` is far cheaper than the BSP tree when nodes move), every edge is part of one
``QGraphicsPathItem``, and node circles and labels are stock Qt items painted in C++. Imports Qt,
the standard library and the GUI's plain-data modules; never awaits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QKeySequence,
    QPainter,
    QPainterPath,
    QPen,
    QTransform,
    QUndoCommand,
    QUndoStack,
)
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QMenu,
    QToolTip,
    QWidget,
)

from explorer.core.models import Entity
from explorer.gui import style
from explorer.gui.graph_analytics import GraphPath, centrality, communities, shortest_path
from explorer.gui.graph_model import (
    EdgeData,
    GraphState,
    NodeData,
    collapse,
    merge_neighbourhood,
    node_from_entity,
    remove_nodes,
    state_from_result,
    with_positions,
)
from explorer.gui.graph_search import GraphSearchBar
from explorer.gui.label_placement import LabelCandidate, Placer, Rect
from explorer.gui.layout import LayoutRequest, LayoutResult
from explorer.gui.legend import LegendWidget
from explorer.gui.requests import Expansion, QueryOutcome

EXPAND_CAP = 25
EXPAND_STEP = 25
MAX_EDGE_LABELS = 40
# New nodes created per event-loop turn when a large graph is shown.
APPLY_BATCH = 150
# Above this many relations, edges are drawn without antialiasing (several times cheaper).
EDGE_ANTIALIAS_LIMIT = 1500
ZOOM_STEP = 1.25
MIN_SCALE = 0.02
MAX_SCALE = 8.0
# Label level of detail: every label from this zoom up, result-entity labels from the lower one.
LABELS_ALL_SCALE = 0.7
LABELS_ROOT_SCALE = 0.0
# Hubs labelled at any zoom: the best-connected few, if they have at least this many relations.
HUBS_LABELLED = 6
# Fit leaves this much room (screen pixels) around the nodes for their labels, and never zooms
# in beyond MAX_FIT_SCALE.
FIT_MARGIN_X = 45.0
FIT_MARGIN_Y = 30.0
MAX_FIT_SCALE = 1.6
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


class _Styles:
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


_STYLES: _Styles | None = None


def _styles() -> _Styles:
    global _STYLES
    if _STYLES is None:
        _STYLES = _Styles()
    return _STYLES


class NodeItem(QGraphicsEllipseItem):
    """One entity: a circle coloured by type and sized by score, with a label below it.

    Only the hover and double-click handlers are Python; painting, moving and selection stay
    in C++ (the view learns about drags from its own mouse events, not from ``itemChange``).
    """

    def __init__(self, view: GraphView, data: NodeData) -> None:
        super().__init__()
        self.view = view
        self.node_id = data.id
        self.data_ = data
        # Made on first show: most labels of a big graph are hidden at the zoom it opens at.
        self._label: QGraphicsSimpleTextItem | None = None
        self.highlighted = False
        self.setFlags(
            QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
            | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
        )
        self.setAcceptHoverEvents(True)
        self.restyle(data)

    def restyle(self, data: NodeData) -> None:
        styles = _styles()
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
        label.setFont(_styles().fonts[self.data_.root])

    def place_label(self, dx: float, dy: float, scale: float) -> None:
        """Show the label with its top-left corner ``dx, dy`` screen pixels from the centre at
        zoom ``scale`` (labels keep their size on screen and are placed again on every zoom;
        a plain position draws cheaper than an extra transform)."""
        label = self.label
        point = QPointF(dx / scale, dy / scale)
        if label.pos() != point:
            label.setPos(point)
        if not label.isVisible():
            label.setVisible(True)

    @property
    def label(self) -> QGraphicsSimpleTextItem:
        """The name under the node (created on first use)."""
        if self._label is None:
            label = QGraphicsSimpleTextItem(self)
            label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
            label.setBrush(_styles().label_brush)
            label.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            self._style_label(label)
            self._label = label
        return self._label

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
        styles = _styles()
        if self.highlighted:
            pen = styles.linked_pen
        elif self.isSelected():
            pen = styles.selected_pen
        elif self.node_id in self.view.state.pinned:
            pen = styles.pinned_pen
        else:
            pen = styles.plain_pen
        self.setPen(pen)

    def hoverEnterEvent(self, event: Any) -> None:
        self.view._on_node_hovered(self.node_id, True)
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event: Any) -> None:
        self.view._on_node_hovered(self.node_id, False)
        super().hoverLeaveEvent(event)

    def mouseDoubleClickEvent(self, event: Any) -> None:
        self.view.expand(self.node_id)
        event.accept()


class EdgesItem(QGraphicsPathItem):
    """Every relation as one path (one item is several times cheaper per frame than one per
    edge). Antialiasing is dropped for very large graphs, where it costs more than it shows."""

    def __init__(self) -> None:
        super().__init__()
        self.antialias = True

    def paint(self, painter: QPainter, option: Any, widget: Any = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, self.antialias)
        super().paint(painter, option, widget)


class MoreHandle(QGraphicsSimpleTextItem):
    """The "+N more" handle beside a node whose relations are not all drawn."""

    def __init__(self, view: GraphView, node_id: str) -> None:
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

    def mousePressEvent(self, event: Any) -> None:
        self.view.expand_more(self.node_id)
        event.accept()


class _StateCommand(QUndoCommand):
    """An edit as a pair of states; undo and redo just swap which one is on screen."""

    def __init__(self, view: GraphView, before: GraphState, after: GraphState, text: str) -> None:
        super().__init__(text)
        self._view = view
        self._before = before
        self._after = after

    def redo(self) -> None:
        self._view._apply_state(self._after)

    def undo(self) -> None:
        self._view._apply_state(self._before)


class GraphView(QGraphicsView):
    """Interactive neighbourhood graph; see the module docstring."""

    entity_selected = Signal(str)  # the single selected entity, "" when none or several
    entity_hovered = Signal(str)  # "" when the pointer leaves
    selection_changed = Signal(list)
    expand_requested = Signal(str, int)  # node id, cap
    layout_requested = Signal(object)  # LayoutRequest
    graph_changed = Signal()
    layout_settled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = GraphState()
        self.undo_stack = QUndoStack(self)
        self._scene = QGraphicsScene(self)
        self._scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self._scene.setBackgroundBrush(QBrush(style.BACKGROUND))
        self.setScene(self._scene)
        self.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.IntersectsItemShape)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontSavePainterState, True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        # Panning is by dragging; a scene far larger than any graph lets it go anywhere without
        # the scroll bars that an ever-growing scene rectangle brings.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._scene.setSceneRect(-SCENE_EXTENT, -SCENE_EXTENT, 2 * SCENE_EXTENT, 2 * SCENE_EXTENT)

        # One path per line width (a single relation, 2-3 parallel ones, 4 or more). Opaque and
        # cosmetic: a translucent or scaled pen makes Qt stroke the whole path as one outline
        # with overlap handling, which costs several times more per frame.
        self._edge_layers: list[EdgesItem] = []
        for width in EDGE_WIDTHS:
            layer = EdgesItem()
            edge_pen = QPen(style.EDGE_COLOUR, width)
            edge_pen.setCosmetic(True)
            layer.setPen(edge_pen)
            layer.setZValue(-2)
            layer.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            self._scene.addItem(layer)
            self._edge_layers.append(layer)
        self._focus_edges = QGraphicsPathItem()
        self._focus_edges.setPen(QPen(style.EDGE_HIGHLIGHT, 2.2))
        self._focus_edges.setBrush(QBrush(style.EDGE_HIGHLIGHT))
        self._focus_edges.setZValue(-1)
        self._focus_edges.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self._scene.addItem(self._focus_edges)
        self._edge_labels: list[QGraphicsSimpleTextItem] = []  # the ones drawn now
        self._edge_label_pool: list[QGraphicsSimpleTextItem] = []
        self._edge_label_specs: list[tuple[str, str, str, str]] = []
        self._leaders = QGraphicsPathItem()
        # Solid: a dotted cosmetic pen costs several times more per frame.
        leader_pen = QPen(QColor("#c4c7c5"), 1.0)
        leader_pen.setCosmetic(True)
        self._leaders.setPen(leader_pen)
        self._leaders.setZValue(-1)
        self._leaders.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self._scene.addItem(self._leaders)

        self._items: dict[str, NodeItem] = {}
        self._handles: dict[str, MoreHandle] = {}
        self._highlighted: set[str] = set()
        self._hovered = ""
        self._pos: dict[str, tuple[float, float]] = {}
        self._edge_ends: list[tuple[str, str]] = []
        self._drag_before: GraphState | None = None
        self._dragging = False
        self._selected: set[str] = set()
        self._label_forced: set[str] = set()
        self._apply_queue: list[NodeData] = []
        self._apply_timer = QTimer(self)
        self._apply_timer.setSingleShot(True)
        self._apply_timer.setInterval(0)
        self._apply_timer.timeout.connect(self._apply_next_batch)
        self._layout_seq = 0
        self._pending: dict[int, Callable[[LayoutResult], None]] = {}
        self._lod = -1
        self._labels_forced = False
        self._label_rects: dict[str, Rect] = {}
        self._hub_ids: set[str] = set()
        self._label_sizes: dict[tuple[str, bool], tuple[float, float]] = {}
        self.hidden_types: set[str] = set()
        self.hidden_relation_types: set[str] = set()
        self.hidden_layers: set[str] = set()
        self.hidden_sources: set[str] = set()
        self.dimmed: set[str] = set()
        # Where every node seen in this view was last placed, so one that comes back returns.
        self._remembered: dict[str, tuple[float, float]] = {}
        self._shown_params: object = None
        self._size_values: dict[str, float] | None = None
        self.size_by = "score"
        self.colour_by = "type"
        self.captions: dict[str, str] = {}
        self.path: GraphPath | None = None
        self._path_item = QGraphicsPathItem()
        path_pen = QPen(style.LINK_HIGHLIGHT, 4.0)
        path_pen.setCosmetic(True)
        path_pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        self._path_item.setPen(path_pen)
        self._path_item.setZValue(-1)
        self._path_item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self._scene.addItem(self._path_item)
        self._fitted = False
        self._refit_timer = QTimer(self)
        self._refit_timer.setSingleShot(True)
        self._refit_timer.setInterval(30)
        self._refit_timer.timeout.connect(self.fit)
        self._node_overlay: dict[str, QColor] | None = None
        self._pan_origin: QPointF | None = None

        self.legend = LegendWidget(self)
        self.legend.move(8, 8)
        self.legend.hide()
        self.legend.type_toggled.connect(self.set_type_visible)
        self.search = GraphSearchBar(self, self)
        self._selection_timer = QTimer(self)
        self._selection_timer.setSingleShot(True)
        self._selection_timer.setInterval(0)
        self._selection_timer.timeout.connect(self._emit_selection)
        self._scene.selectionChanged.connect(self._selection_timer.start)
        self._install_actions()

    # ----------------------------------------------------------------- public API

    @property
    def node_ids(self) -> list[str]:
        return list(self._items)

    def node_item(self, node_id: str) -> NodeItem | None:
        return self._items.get(node_id)

    def is_layout_pending(self) -> bool:
        return bool(self._pending)

    def is_applying(self) -> bool:
        """True while a large graph is still being turned into items, a batch per loop turn."""
        return bool(self._apply_queue)

    def highlighted_ids(self) -> set[str]:
        return set(self._highlighted)

    def show_outcome(self, outcome: QueryOutcome) -> None:
        """Replace the graph with a query's entities and neighbours. Nodes already on screen
        keep their places, and nodes seen before in this view go back to where they were (a
        layer toggled off and on, a floor moved and back); only new nodes are laid out, beside
        their neighbours. A re-decided answer keeps the view unless something falls outside."""
        state = state_from_result(outcome.result, previous=self.state)
        state.degrees.update(outcome.degrees)
        for node_id in state.nodes:
            if node_id not in state.positions and node_id in self._remembered:
                state.positions[node_id] = self._remembered[node_id]
        for node in state.nodes.values():
            if node.root:
                state.expanded.setdefault(node.id, len(state.edges_of(node.id)))
        self._pending.clear()
        self.undo_stack.clear()

        # Another question is a new picture; the same one re-decided (a what-if) keeps the view.
        new_question = outcome.params != self._shown_params
        self._shown_params = outcome.params

        def settle(result: LayoutResult) -> None:
            self._apply_state(with_positions(state, result.positions), batched=True)
            if new_question or not self._all_in_view():
                self.fit()

        self._request_layout(state, {}, settle)

    def _all_in_view(self) -> bool:
        """True when every node (and the room its label needs) is inside the visible area."""
        rect = self._nodes_rect()
        if rect.isNull():
            return True
        scale = max(self.transform().m11(), 1e-6)
        room = rect.adjusted(
            -FIT_MARGIN_X / scale, -FIT_MARGIN_Y / scale, FIT_MARGIN_X / scale, FIT_MARGIN_Y / scale
        )
        back, _ = self.viewportTransform().inverted()
        return back.mapRect(self._free_area(rect)).contains(room)

    def clear(self) -> None:
        self._remembered.clear()
        self._shown_params = None
        self._pending.clear()
        self.undo_stack.clear()
        self._apply_state(GraphState())

    def expand(self, node_id: str, cap: int | None = None) -> None:
        """Ask for a node's neighbours (answered through ``apply_expansion``)."""
        if node_id not in self.state.nodes:
            return
        if cap is None:
            cap = max(EXPAND_CAP, self.state.expanded.get(node_id, 0))
        self.expand_requested.emit(node_id, cap)

    def expand_more(self, node_id: str) -> None:
        current = max(self.state.expanded.get(node_id, 0), len(self.state.edges_of(node_id)))
        self.expand_requested.emit(node_id, current + EXPAND_STEP)

    def apply_expansion(self, expansion: Expansion) -> None:
        """Add fetched neighbours next to their parent and lay out only the new nodes."""
        if expansion.node_id not in self.state.nodes:
            return
        merged, added = merge_neighbourhood(
            self.state,
            expansion.node_id,
            expansion.entities,
            expansion.relations,
            cap=expansion.cap,
            degrees=expansion.degrees,
        )
        parents = {node: expansion.node_id for node in added}

        def settle(result: LayoutResult) -> None:
            before = self.state
            after = merged.copy()
            # Anything placed or moved since the request keeps its current place.
            for node_id, point in before.positions.items():
                if node_id in after.nodes:
                    after.positions[node_id] = point
            after.pinned |= before.pinned & set(after.nodes)
            for node_id in after.nodes:
                if node_id not in after.positions and node_id in result.positions:
                    after.positions[node_id] = result.positions[node_id]
            name = before.nodes[expansion.node_id].name if expansion.node_id in before.nodes else ""
            self.undo_stack.push(_StateCommand(self, before, after, f"Expand {name}"))

        self._request_layout(merged, parents, settle)

    def collapse_node(self, node_id: str) -> None:
        if node_id in self.state.nodes:
            after = collapse(self.state, node_id)
            name = self.state.nodes[node_id].name
            self.undo_stack.push(_StateCommand(self, self.state, after, f"Collapse {name}"))

    def hide_nodes(self, node_ids: Iterable[str]) -> None:
        doomed = [n for n in node_ids if n in self.state.nodes]
        if doomed:
            after = remove_nodes(self.state, doomed)
            self.undo_stack.push(_StateCommand(self, self.state, after, f"Hide {len(doomed)}"))

    def toggle_pin(self, node_ids: Iterable[str]) -> None:
        ids = [n for n in node_ids if n in self.state.nodes]
        if not ids:
            return
        after = self.state.copy()
        if all(n in after.pinned for n in ids):
            after.pinned -= set(ids)
        else:
            after.pinned |= set(ids)
        self.undo_stack.push(_StateCommand(self, self.state, after, "Pin"))

    def relayout(self) -> None:
        """Lay out again from scratch, except for pinned nodes."""
        state = self.state.copy()
        fixed = {n: state.positions[n] for n in state.pinned if n in state.positions}
        before = self.state

        def settle(result: LayoutResult) -> None:
            after = with_positions(self.state, result.positions)
            self.undo_stack.push(_StateCommand(self, before, after, "Re-layout"))
            self.fit()

        state.positions = dict(fixed)
        self._request_layout(state, {}, settle)

    def on_layout_ready(self, result: LayoutResult) -> None:
        """Apply a layout computed elsewhere; answers to superseded requests are ignored."""
        settle = self._pending.pop(result.request_id, None)
        if settle is not None:
            settle(result)

    def select_entity(self, node_id: str, *, centre: bool = True) -> None:
        item = self._items.get(node_id)
        if item is None:
            return
        self._scene.clearSelection()
        item.setSelected(True)
        if centre:
            self.centerOn(item)

    def selected_ids(self) -> list[str]:
        return [i.node_id for i in self._scene.selectedItems() if isinstance(i, NodeItem)]

    def end_batches(self) -> None:
        """Create any items still waiting for their batch now (exports, tests)."""
        if self._apply_queue:
            self._finish_batches()
            self._after_apply()

    def highlight_entities(self, node_ids: Iterable[str]) -> None:
        """Light up these nodes (e.g. the entities a hovered chunk mentions); others go dark."""
        wanted = {n for n in node_ids if n in self._items}
        for node_id in self._highlighted - wanted:
            item = self._items.get(node_id)
            if item is not None:
                item.set_highlighted(False)
        for node_id in wanted - self._highlighted:
            self._items[node_id].set_highlighted(True)
        self._highlighted = wanted
        self._apply_opacity()
        self._refresh_labels()

    def _apply_opacity(self) -> None:
        """Greyed out by the time filter; while some nodes are lit, the others step back."""
        lit = self._highlighted
        for node_id, item in self._items.items():
            if node_id in self.dimmed:
                item.setOpacity(DIMMED_OPACITY)
            elif lit and node_id not in lit:
                item.setOpacity(UNLIT_OPACITY)
            else:
                item.setOpacity(1.0)

    def add_entities(self, entities: Iterable[Entity]) -> list[str]:
        """Draw entities that are not on screen yet (a hovered chunk names them), laid out
        beside what is there; returns the ids added."""
        after = self.state.copy()
        added = []
        for entity in entities:
            if entity.id in after.nodes:
                continue
            after.nodes[entity.id] = node_from_entity(entity)
            added.append(entity.id)
        if not added:
            return []
        before = self.state

        def settle(result: LayoutResult) -> None:
            placed = with_positions(after, result.positions)
            for node_id, point in self.state.positions.items():
                if node_id in placed.nodes:
                    placed.positions[node_id] = point
            self.undo_stack.push(_StateCommand(self, before, placed, f"Show {len(added)} linked"))
            if not self._all_in_view():
                self.fit()

        self._request_layout(after, {}, settle)
        return added

    # ----------------------------------------------------------------- analytics, style

    def node_radius(self, data: NodeData) -> float:
        """A node's size: by its score (result entities) or by the chosen measure."""
        if self._size_values is None:
            return style.node_radius(data.score, data.root)
        return style.node_radius(self._size_values.get(data.id, 0.0), True)

    def set_size_by(self, mode: str) -> None:
        """Size nodes by ``score`` (the default), ``salience``, ``degree`` or ``centrality``."""
        self.size_by = mode
        self._size_values = None if mode == "score" else self._measure(mode)
        for item in self._items.values():
            item.restyle(item.data_)
        self._refresh_labels()

    def _measure(self, mode: str) -> dict[str, float]:
        hidden = self._hidden_nodes()
        if mode == "centrality":
            return centrality(self.state, hidden)
        if mode == "salience":
            return {n.id: n.salience for n in self.state.nodes.values()}
        if mode == "degree":
            drawn: dict[str, int] = {}
            for edge in self.state.edges.values():
                drawn[edge.source] = drawn.get(edge.source, 0) + 1
                drawn[edge.target] = drawn.get(edge.target, 0) + 1
            degree = {
                n: float(max(self.state.degrees.get(n, 0), drawn.get(n, 0)))
                for n in self.state.nodes
            }
            top = max(degree.values(), default=0.0) or 1.0
            return {n: v / top for n, v in degree.items()}
        raise ValueError(f"unknown size measure {mode!r}")

    def label_text(self, data: NodeData) -> str:
        """What is written beside a node: its name, or name and type, as the style says."""
        name = data.shown_name
        name = name if len(name) <= 40 else name[:39] + "…"
        if self.captions.get(data.type) == "name and type" and data.type:
            return f"{name} ({data.type})"
        return name

    def set_style(self, colours: Mapping[str, str], captions: Mapping[str, str]) -> None:
        """Colours (``#rrggbb``) and captions (``name`` or ``name and type``) per entity type."""
        style.TYPE_COLOUR_OVERRIDES.clear()
        style.TYPE_COLOUR_OVERRIDES.update({k.strip().lower(): v for k, v in colours.items()})
        self.captions = dict(captions)
        _styles().brushes.clear()
        for item in self._items.values():
            item.restyle(item.data_)
        if self.colour_by == "community":
            self.set_colour_by("community")
        elif self._node_overlay is not None:
            self.set_node_overlay(self._node_overlay)
        self.legend.restyle()
        self._refresh_labels()

    def set_colour_by(self, mode: str) -> None:
        """Colour nodes by entity ``type`` (the default) or by ``community``."""
        self.colour_by = mode
        if mode == "community":
            groups = communities(self.state, self._hidden_nodes())
            self.set_node_overlay({n: style.community_colour(g) for n, g in groups.items()})
        else:
            self.set_node_overlay(None)

    def show_path(self, start: str, end: str) -> GraphPath | None:
        """Find and draw the shortest path between two nodes on screen (``None`` if none)."""
        path = shortest_path(self.state, start, end, self._hidden_nodes())
        drawn = QPainterPath()
        if path is not None:
            for edge in path.edges:
                a, b = self._items.get(edge.source), self._items.get(edge.target)
                if a is not None and b is not None:
                    drawn.moveTo(a.pos())
                    drawn.lineTo(b.pos())
            self.highlight_entities(path.nodes)
        self._path_item.setPath(drawn)
        self.path = path
        return path

    def clear_path(self) -> None:
        self.path = None
        self._path_item.setPath(QPainterPath())
        self.highlight_entities(())

    def set_node_overlay(self, colours: Mapping[str, QColor] | None) -> None:
        """Recolour nodes by something other than type (e.g. activation energy); None resets."""
        self._node_overlay = dict(colours) if colours is not None else None
        for node_id, item in self._items.items():
            colour = None if colours is None else colours.get(node_id)
            item.setBrush(QBrush(colour or style.type_colour(item.data_.type)))

    def zoom(self, factor: float) -> None:
        self._fitted = False
        current = self.transform().m11()
        factor = min(max(current * factor, MIN_SCALE), MAX_SCALE) / current
        self.scale(factor, factor)
        self._refresh_labels()

    def fit(self) -> None:
        """Show every node with room around it for labels, beside the legend rather than under
        it; never zoom in beyond 160 %. Labels then stay inside the view (see
        ``_refresh_labels``), so everything drawn fits."""
        rect = self._nodes_rect()
        if rect.isNull():
            return
        self._fit_into(rect)
        self._refresh_labels()
        self._fitted = True

    def _free_area(self, content: QRectF | None = None) -> QRectF:
        """The part of the viewport beside or below the legend (in pixels): whichever of the two
        shows ``content`` larger (the whole viewport when there is no legend)."""
        whole = QRectF(self.viewport().rect())
        if not self.legend.isVisible():
            return whole
        box = self.legend.geometry()
        beside = whole.adjusted(box.right() + 4 - whole.left(), 0, 0, 0)
        below = whole.adjusted(0, box.bottom() + 4 - whole.top(), 0, 0)
        if content is None or content.width() <= 0 or content.height() <= 0:
            return beside

        def scale(area: QRectF) -> float:
            return min(area.width() / content.width(), area.height() / content.height())

        return beside if scale(beside) >= scale(below) else below

    def _fit_into(self, rect: QRectF) -> None:
        area = self._free_area(rect)
        if rect.width() <= 0 or rect.height() <= 0 or area.width() <= 0:
            return
        width = max(area.width() - 2 * FIT_MARGIN_X, 1.0)
        height = max(area.height() - 2 * FIT_MARGIN_Y, 1.0)
        scale = min(width / max(rect.width(), 1.0), height / max(rect.height(), 1.0))
        scale = min(scale, MAX_FIT_SCALE)
        scale = max(scale, MIN_SCALE)
        self.resetTransform()
        self.scale(scale, scale)
        # Centre the content in the free area: shift the view centre by the area's offset.
        offset = area.center() - QRectF(self.viewport().rect()).center()
        self.centerOn(rect.center() - offset / scale)

    def export_png(self, path: Path, scale: float = 2.0) -> None:
        rect = self._nodes_rect().adjusted(-120, -50, 120, 70)
        if rect.isNull():
            rect = QRectF(0, 0, 400, 300)
        size = QSize(max(1, int(rect.width() * scale)), max(1, int(rect.height() * scale)))
        image = QImage(size, QImage.Format.Format_ARGB32)
        image.fill(style.BACKGROUND)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self._render_scene(painter, QRectF(0, 0, size.width(), size.height()), rect)
        painter.end()
        if not image.save(str(path), "PNG"):  # type: ignore[call-overload]  # stub says bytes
            raise OSError(f"could not write {path}")

    def export_svg(self, path: Path) -> None:
        from PySide6.QtSvg import QSvgGenerator

        rect = self._nodes_rect().adjusted(-120, -50, 120, 70)
        if rect.isNull():
            rect = QRectF(0, 0, 400, 300)
        generator = QSvgGenerator()
        generator.setFileName(str(path))
        generator.setSize(QSize(int(rect.width()), int(rect.height())))
        generator.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
        generator.setTitle("Scour Explorer neighbourhood")
        painter = QPainter(generator)
        self._render_scene(painter, QRectF(0, 0, rect.width(), rect.height()), rect)
        painter.end()

    def graph_json(self) -> dict[str, Any]:
        """The graph as drawn: nodes with positions, relations, pins and expansions."""
        return {
            "nodes": [
                {
                    "id": n.id,
                    "name": n.name,
                    "type": n.type,
                    "score": n.score,
                    "root": n.root,
                    "source": n.source,
                    "parent": n.parent,
                    "position": list(self.state.positions.get(n.id, (0.0, 0.0))),
                    "pinned": n.id in self.state.pinned,
                }
                for n in self.state.nodes.values()
            ],
            "edges": [
                {"id": e.id, "source": e.source, "target": e.target, "type": e.type, "fact": e.fact}
                for e in self.state.edges.values()
            ],
        }

    # ----------------------------------------------------------------- state → items

    def _apply_state(self, state: GraphState, *, batched: bool = False) -> None:
        """Make the items match ``state``.

        With ``batched``, new nodes beyond the first batch are created over the next turns of the
        event loop, so showing a 1,000-node graph never blocks the window for long; edges and
        handles follow when the last batch is in.
        """
        self._finish_batches()
        old = self.state
        self.state = state
        self._remembered.update(state.positions)
        for node_id in [n for n in self._items if n not in state.nodes]:
            self._scene.removeItem(self._items.pop(node_id))
            self._pos.pop(node_id, None)
            self._highlighted.discard(node_id)
            self._selected.discard(node_id)
            self._label_forced.discard(node_id)
        fresh: list[NodeData] = []
        for node_id, data in state.nodes.items():
            item = self._items.get(node_id)
            if item is None:
                fresh.append(data)
                continue
            if old.nodes.get(node_id) != data:
                item.restyle(data)
            point = state.positions.get(node_id)
            if point is not None and self._pos.get(node_id) != point:
                item.setPos(point[0], point[1])
                self._pos[node_id] = point
            if (node_id in old.pinned) != (node_id in state.pinned):
                item.update_pen()
        if batched and len(fresh) > APPLY_BATCH:
            self._add_nodes(fresh[:APPLY_BATCH])
            self._apply_queue = fresh[APPLY_BATCH:]
            self._apply_timer.start()
            return
        self._add_nodes(fresh)
        self._after_apply()

    def _add_nodes(self, nodes: Iterable[NodeData]) -> None:
        overlay = self._node_overlay
        for data in nodes:
            item = NodeItem(self, data)
            point = self.state.positions.get(data.id)
            if point is not None:
                item.setPos(point[0], point[1])
                self._pos[data.id] = point
            if overlay and data.id in overlay:
                item.setBrush(QBrush(overlay[data.id]))
            self._items[data.id] = item
            self._scene.addItem(item)

    def _apply_next_batch(self) -> None:
        batch, self._apply_queue = self._apply_queue[:APPLY_BATCH], self._apply_queue[APPLY_BATCH:]
        self._add_nodes(batch)
        if self._apply_queue:
            self._apply_timer.start()
        else:
            self._after_apply()

    def _finish_batches(self) -> None:
        if self._apply_queue:
            self._apply_timer.stop()
            queue, self._apply_queue = self._apply_queue, []
            self._add_nodes(queue)

    def _after_apply(self) -> None:
        self._edge_ends = [(e.source, e.target) for e in self.state.edges.values()]
        for layer in self._edge_layers:
            layer.antialias = len(self._edge_ends) <= EDGE_ANTIALIAS_LIMIT
        self._apply_visibility()
        self.graph_changed.emit()
        if not self._pending:
            self.layout_settled.emit()

    def _request_layout(
        self, state: GraphState, parents: Mapping[str, str], settle: Callable[[LayoutResult], None]
    ) -> None:
        self._layout_seq += 1
        request = LayoutRequest(
            nodes=tuple(state.nodes),
            edges=tuple((e.source, e.target) for e in state.edges.values()),
            fixed={n: p for n, p in state.positions.items() if n in state.nodes},
            parents=dict(parents),
            request_id=self._layout_seq,
        )
        self._pending[request.request_id] = settle
        self.layout_requested.emit(request)

    def _positions_now(self) -> dict[str, tuple[float, float]]:
        return dict(self._pos)

    def _hidden_nodes(self) -> set[str]:
        """Nodes filtered out: of a hidden type, or a result of a hidden layer or source."""
        if not (self.hidden_types or self.hidden_layers or self.hidden_sources):
            return set()
        return {
            n.id
            for n in self.state.nodes.values()
            if n.type in self.hidden_types
            or (n.layer and n.layer in self.hidden_layers)
            or (n.source and n.source in self.hidden_sources)
        }

    def edge_groups(self) -> dict[tuple[str, str], list[EdgeData]]:
        """The relations drawn between each pair of shown nodes (parallel ones as one line)."""
        hidden = self._hidden_nodes()
        groups: dict[tuple[str, str], list[EdgeData]] = {}
        for edge in self.state.edges.values():
            if edge.source in hidden or edge.target in hidden:
                continue
            if edge.type in self.hidden_relation_types:
                continue
            key = (
                (edge.source, edge.target)
                if edge.source <= edge.target
                else (edge.target, edge.source)
            )
            groups.setdefault(key, []).append(edge)
        return groups

    def _rebuild_edges(self) -> None:
        """One path per line width: a single relation, two or three, four or more."""
        paths = [QPainterPath() for _ in self._edge_layers]
        pos = self._pos
        for (source, target), edges in self.edge_groups().items():
            a = pos.get(source)
            b = pos.get(target)
            if a is None or b is None:
                continue
            path = paths[0 if len(edges) == 1 else (1 if len(edges) <= 3 else 2)]
            path.moveTo(a[0], a[1])
            path.lineTo(b[0], b[1])
        for item, path in zip(self._edge_layers, paths, strict=True):
            item.setPath(path)

    def set_type_visible(self, entity_type: str, visible: bool) -> None:
        """Show or hide every node of a type (the legend's toggles)."""
        self.set_filter_value("type", entity_type, visible)

    def set_filter_value(self, kind: str, value: str, shown: bool) -> None:
        """Show or hide one ``relation`` type, ``layer``, ``source`` or entity ``type``."""
        chosen = {
            "relation": self.hidden_relation_types,
            "layer": self.hidden_layers,
            "source": self.hidden_sources,
            "type": self.hidden_types,
        }[kind]
        if shown:
            chosen.discard(value)
        else:
            chosen.add(value)
        self._apply_visibility()

    def set_dimmed(self, node_ids: Iterable[str]) -> None:
        """Grey out these nodes (outside the time filter, say); the others are drawn as usual."""
        self.dimmed = set(node_ids) & set(self.state.nodes)
        self._apply_visibility()

    def _apply_visibility(self) -> None:
        self._hub_ids = self._hubs()
        hidden = self._hidden_nodes()
        for node_id, item in self._items.items():
            item.setVisible(node_id not in hidden)
        self._apply_opacity()
        self._rebuild_edges()
        self._update_handles()
        self._update_focus()
        self._refresh_labels()
        counts: dict[str, int] = {}
        for node in self.state.nodes.values():
            counts[node.type] = counts.get(node.type, 0) + 1
        self.hidden_types &= set(counts) | self.hidden_types
        self.legend.set_types(counts, self.hidden_types)

    def _update_handles(self) -> None:
        drawn: dict[str, int] = {}
        for source, target in self._edge_ends:
            drawn[source] = drawn.get(source, 0) + 1
            drawn[target] = drawn.get(target, 0) + 1
        wanted: dict[str, int] = {}
        invisible = self._hidden_nodes()
        for node_id, degree in self.state.degrees.items():
            node = self.state.nodes.get(node_id)
            if node is None or node_id in invisible:
                continue
            if not (node.root or node_id in self.state.expanded):
                continue
            hidden = degree - drawn.get(node_id, 0)
            if hidden > 0:
                wanted[node_id] = hidden
        for node_id in [n for n in self._handles if n not in wanted]:
            self._scene.removeItem(self._handles.pop(node_id))
        for node_id, count in wanted.items():
            handle = self._handles.get(node_id)
            if handle is None:
                handle = MoreHandle(self, node_id)
                self._handles[node_id] = handle
                self._scene.addItem(handle)
            handle.set_count(count)
            self._place_handle(node_id)

    def _place_handle(self, node_id: str) -> None:
        handle = self._handles.get(node_id)
        item = self._items.get(node_id)
        if handle is not None and item is not None:
            handle.setPos(item.x() + item.radius * 0.7, item.y() - item.radius * 0.7)
            handle.setTransform(QTransform.fromTranslate(2, -12))

    def _nodes_rect(self) -> QRectF:
        """Where the nodes are, with room for the biggest circle and a label under it."""
        if not self._pos:
            return QRectF()
        xs = [p[0] for p in self._pos.values()]
        ys = [p[1] for p in self._pos.values()]
        pad = style.NODE_MAX_RADIUS
        return QRectF(
            min(xs) - pad, min(ys) - pad, max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad
        )

    def _render_scene(self, painter: QPainter, target: QRectF, source: QRectF) -> None:
        # Labels follow the zoom level on screen and big graphs drop edge antialiasing; an
        # export shows every label and smooth edges.
        self.end_batches()
        self._labels_forced = True
        self._refresh_labels(force=True)
        antialias = [layer.antialias for layer in self._edge_layers]
        for layer in self._edge_layers:
            layer.antialias = True
        try:
            self._scene.render(painter, target, source)
            self._paint_legend(painter, target)
        finally:
            for layer, before in zip(self._edge_layers, antialias, strict=True):
                layer.antialias = before
            self._labels_forced = False
            self._refresh_labels(force=True)

    def _paint_legend(self, painter: QPainter, target: QRectF) -> None:
        """The legend of the types shown, in the top-left corner of an export."""
        entries = [e for e in self.legend.entries() if not e["hidden"]]
        if not entries:
            return
        font = QFont()
        font.setPointSizeF(9.0)
        painter.setFont(font)
        metrics = QFontMetricsF(font)
        line = metrics.height() + 2
        width = max(metrics.horizontalAdvance(f"{e['type']} ({e['count']})") for e in entries)
        box = QRectF(target.x() + 8, target.y() + 8, width + 34, line * len(entries) + 8)
        painter.setPen(QPen(QColor("#dadce0"), 1.0))
        painter.setBrush(QBrush(QColor(255, 255, 255, 230)))
        painter.drawRoundedRect(box, 4, 4)
        for row, entry in enumerate(entries):
            y = box.y() + 4 + row * line
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QBrush(QColor(str(entry["colour"]))))
            painter.drawEllipse(QRectF(box.x() + 8, y + line / 2 - 5, 10, 10))
            painter.setPen(QPen(style.LABEL_COLOUR))
            painter.drawText(
                QPointF(box.x() + 24, y + metrics.ascent() + 1),
                f"{entry['type'] or 'untyped'} ({entry['count']})",
            )

    # ----------------------------------------------------------------- focus, labels

    def _focus_node(self) -> str:
        selected = self.selected_ids()
        if len(selected) == 1:
            return selected[0]
        return self._hovered

    def _update_focus(self) -> None:
        """Draw the focused node's relations in the accent colour, with arrows; their types are
        labelled where there is room (placed with the node labels, ``_place_edge_labels``)."""
        focus = self._focus_node()
        path = QPainterPath()
        pairs: dict[tuple[str, str], list[EdgeData]] = {}
        if focus and focus in self._items:
            hidden = self._hidden_nodes()
            for edge in self.state.edges_of(focus)[: MAX_EDGE_LABELS * 4]:
                a, b = self._items.get(edge.source), self._items.get(edge.target)
                if a is None or b is None or edge.source in hidden or edge.target in hidden:
                    continue
                _add_arrow(path, a.pos(), b.pos(), b.radius)
                pairs.setdefault(tuple(sorted((edge.source, edge.target))), []).append(edge)  # type: ignore[arg-type]
        self._edge_label_specs = [
            (f"{a}|{b}", _edge_caption(edges), a, b)
            for (a, b), edges in list(pairs.items())[:MAX_EDGE_LABELS]
        ]
        self._focus_edges.setPath(path)

    def _refresh_labels(self, force: bool = False) -> None:
        """Place the labels that should show (see ``label_placement``) so none overlaps another
        or a badge: the selected, hovered and lit-up nodes, pinned nodes, result entities and
        hubs always; every other node once zoomed in (or in an export), where there is room.
        Runs on every zoom, so it works from plain numbers (positions, radii, label widths
        kept in dicts) rather than asking each Qt item.
        """
        del force  # every refresh is a full placement; kept for callers
        scale = self.transform().m11()
        self._lod = 2 if scale >= LABELS_ALL_SCALE or self._labels_forced else 1
        focus = self._focus_node()
        forced = self._selected | self._highlighted | ({focus} if focus else set())
        self._label_forced = forced
        view = self.viewportTransform()
        sx, sy, ox, oy = view.m11(), view.m22(), view.dx(), view.dy()
        hubs, pinned, nodes = self._hub_ids, self.state.pinned, self.state.nodes
        hidden = self._hidden_nodes()
        bounds = self._label_bounds()
        reach = OFFSCREEN_REACH
        all_labels = self._lod == 2
        candidates: list[LabelCandidate] = []
        circles: list[Rect] = []
        centres: dict[str, tuple[float, float, float]] = {}
        for node_id, (px, py) in self._pos.items():
            item = self._items.get(node_id)
            if item is None or node_id in hidden:
                continue
            x, y = px * sx + ox, py * sy + oy
            if bounds is not None and not (
                -reach < x < bounds[2] + reach and -reach < y < bounds[3] + reach
            ):
                continue  # far off screen: neither its label nor its circle can matter
            radius = item.r * scale
            centres[node_id] = (x, y, radius)
            if radius >= MIN_AVOIDED_RADIUS:
                circles.append((x - radius, y - radius, 2 * radius, 2 * radius))
            data = nodes.get(node_id) or item.data_
            if node_id in forced:
                priority = 0
            elif data.root or node_id in pinned:
                priority = 1
            elif node_id in hubs:
                priority = 2
            elif all_labels:
                priority = 3
            else:
                continue
            width, height = self._label_size(data)
            candidates.append(
                LabelCandidate(node_id, x, y, radius, width, height, priority, priority <= 2)
            )
        placer = Placer(circles, bounds)
        if self.legend.isVisible():
            box = self.legend.geometry()
            placer.block([(box.x(), box.y(), box.width(), box.height())])
        self._place_badges(placer)
        placed = placer.place(candidates)
        self._label_rects = placed
        leaders = QPainterPath()
        for node_id, item in self._items.items():
            rect = placed.get(node_id)
            if rect is None:
                item.show_label(False)
                continue
            x, y, radius = centres[node_id]
            item.place_label(rect[0] - x, rect[1] - y, scale)
            # A label moved away from its node gets a thin line back to it.
            nx = min(max(x, rect[0]), rect[0] + rect[2])
            ny = min(max(y, rect[1]), rect[1] + rect[3])
            if math.hypot(nx - x, ny - y) > radius + LEADER_MIN_GAP:
                leaders.moveTo(item.pos())
                leaders.lineTo(QPointF((nx - ox) / sx, (ny - oy) / sy))
        self._leaders.setPath(leaders)
        self._place_edge_labels(placer, sx, sy, ox, oy)

    def _place_edge_labels(
        self, placer: Placer, sx: float, sy: float, ox: float, oy: float
    ) -> None:
        """The focused node's relation types at the middle of their lines, where they fit."""
        metrics = _styles().edge_metrics
        wanted = []
        middles: dict[str, tuple[QPointF, str]] = {}
        for key, text, a, b in self._edge_label_specs:
            pa, pb = self._pos.get(a), self._pos.get(b)
            if pa is None or pb is None:
                continue
            middle = QPointF((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)
            middles[key] = (middle, text)
            x, y = middle.x() * sx + ox, middle.y() * sy + oy
            width, height = metrics.horizontalAdvance(text) + 2, metrics.height()
            wanted.append(LabelCandidate(key, x, y, 0.0, width, height, 5, False))
        placed = placer.place(wanted)
        while len(self._edge_label_pool) < len(placed):
            label = QGraphicsSimpleTextItem()
            label.setFont(_styles().edge_font)
            label.setBrush(QBrush(style.EDGE_HIGHLIGHT))
            label.setZValue(5)
            label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
            label.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            self._scene.addItem(label)
            self._edge_label_pool.append(label)
        self._edge_labels = []
        for label, (key, rect) in zip(self._edge_label_pool, placed.items(), strict=False):
            middle, text = middles[key]
            x, y = middle.x() * sx + ox, middle.y() * sy + oy
            label.setText(text)
            label.setPos(middle + QPointF((rect[0] - x) / sx, (rect[1] - y) / sy))
            label.setVisible(True)
            self._edge_labels.append(label)
        for label in self._edge_label_pool[len(placed) :]:
            label.setVisible(False)

    def _label_size(self, data: NodeData) -> tuple[float, float]:
        """A label's width and height in pixels (measured once per text and font)."""
        text = self.label_text(data)
        key = (text, data.root)
        size = self._label_sizes.get(key)
        if size is None:
            metrics = _styles().metrics[data.root]
            size = self._label_sizes[key] = (metrics.horizontalAdvance(text) + 2, metrics.height())
        return size

    def _label_bounds(self) -> Rect | None:
        """Labels and badges are placed inside the viewport (an export draws the whole scene)."""
        if self._labels_forced:
            return None
        return (0.0, 0.0, float(self.viewport().width()), float(self.viewport().height()))

    def _hubs(self) -> set[str]:
        """The best-connected nodes on screen (their "+N more" or many drawn relations)."""
        degree: dict[str, int] = {}
        for source, target in self._edge_ends:
            degree[source] = degree.get(source, 0) + 1
            degree[target] = degree.get(target, 0) + 1
        for node_id, total in self.state.degrees.items():
            degree[node_id] = max(degree.get(node_id, 0), total)
        ranked = sorted(degree, key=lambda n: (-degree[n], n))
        return {n for n in ranked[:HUBS_LABELLED] if degree[n] >= HUB_MIN_DEGREE}

    def _place_badges(self, placer: Placer) -> None:
        """Put the "+N more" badges beside their nodes without overlapping each other; their
        rectangles then keep every label off them."""
        to_screen = self.viewportTransform()
        scale = self.transform().m11()
        wanted = []
        for node_id, handle in self._handles.items():
            item = self._items.get(node_id)
            if item is None or not item.isVisible():
                handle.setVisible(False)
                continue
            centre = to_screen.map(item.pos())
            box = handle.boundingRect()
            wanted.append(
                LabelCandidate(
                    key=node_id,
                    x=centre.x(),
                    y=centre.y(),
                    radius=item.radius * scale,
                    width=box.width(),
                    height=box.height(),
                    priority=0,
                    must=True,
                    start=6,
                )
            )
        placed = placer.place(wanted)
        for node_id, handle in self._handles.items():
            rect = placed.get(node_id)
            item = self._items.get(node_id)
            if rect is None or item is None:
                handle.setVisible(False)
                continue
            centre = to_screen.map(item.pos())
            handle.setPos(item.pos())
            handle.setTransform(
                QTransform.fromTranslate(rect[0] - centre.x(), rect[1] - centre.y())
            )
            handle.setVisible(True)

    def scene_json(self) -> dict[str, Any]:
        """What the graph shows, in scene coordinates: the visible area, the legend, every node
        with its label rectangle (or ``None`` when unlabelled) and the edges as drawn (parallel
        relations between a pair as one edge with a count)."""
        view = self.mapToScene(self.viewport().rect()).boundingRect()
        labels = self.label_rects()
        hidden = self._hidden_nodes()
        nodes = []
        for node_id, node in self.state.nodes.items():
            if node_id in hidden or node_id not in self._items:
                continue
            x, y = self._pos.get(node_id, (0.0, 0.0))
            label = labels.get(node_id)
            nodes.append(
                {
                    "id": node_id,
                    "name": node.name,
                    "type": node.type,
                    "result": node.root,
                    "x": x,
                    "y": y,
                    "radius": self._items[node_id].radius,
                    "label": None if label is None else {"text": label[0], "rect": list(label[1])},
                }
            )
        edges = []
        for (source, target), group in self.edge_groups().items():
            kinds: dict[str, int] = {}
            for edge in group:
                kinds[edge.type] = kinds.get(edge.type, 0) + 1
            main = max(kinds, key=lambda k: (kinds[k], k))
            edges.append({"source": source, "target": target, "type": main, "count": len(group)})
        return {
            "view": [view.x(), view.y(), view.width(), view.height()],
            "legend": [
                {"type": e["type"], "colour": e["colour"], "count": e["count"]}
                for e in self.legend.entries()
            ],
            "nodes": nodes,
            "edges": edges,
        }

    def label_rects(self) -> dict[str, tuple[str, tuple[float, float, float, float]]]:
        """Each drawn label's text and rectangle in scene coordinates (``--scene-json``)."""
        back, _ = self.viewportTransform().inverted()
        out: dict[str, tuple[str, tuple[float, float, float, float]]] = {}
        for node_id, (x, y, w, h) in self._label_rects.items():
            item = self._items.get(node_id)
            if item is None or not item.label_shown():
                continue
            box = back.mapRect(QRectF(x, y, w, h))
            out[node_id] = (item.label.text(), (box.x(), box.y(), box.width(), box.height()))
        return out

    # ----------------------------------------------------------------- item callbacks

    def _on_nodes_dragged(self) -> None:
        """Nodes moved under the mouse: follow with edges, handles and the focus overlay."""
        if self._drag_before is None:
            self._drag_before = self.state
        for node_id in self._selected or set(self._items):
            item = self._items.get(node_id)
            if item is None:
                continue
            point = (item.x(), item.y())
            if self._pos.get(node_id) != point:
                self._pos[node_id] = point
                self._place_handle(node_id)
        self._rebuild_edges()
        self._update_focus()

    def _on_drag_finished(self) -> None:
        """A drag ended: the moved nodes are pinned where they were dropped (undoable)."""
        before = self._drag_before
        self._drag_before = None
        if before is None:
            return
        moved = {
            node_id: point
            for node_id, point in self._pos.items()
            if before.positions.get(node_id) != point
        }
        if not moved:
            return
        after = with_positions(before, moved)
        after.pinned |= set(moved)
        self.undo_stack.push(_StateCommand(self, before, after, f"Move {len(moved)}"))

    def _on_node_hovered(self, node_id: str, entered: bool) -> None:
        self._hovered = node_id if entered else ""
        if entered:
            item = self._items.get(node_id)
            if item is not None:
                item.setToolTip(self._node_tooltip(node_id))
        self._update_focus()
        self._refresh_labels()
        self.entity_hovered.emit(self._hovered)

    def _node_tooltip(self, node_id: str) -> str:
        node = self.state.nodes[node_id]
        kinds: dict[str, int] = {}
        for edge in self.state.edges_of(node_id):
            kinds[edge.type] = kinds.get(edge.type, 0) + 1
        relations = ", ".join(f"{k} ×{v}" if v > 1 else k for k, v in sorted(kinds.items()))
        lines = [f"<b>{_escape(node.name)}</b> <i>({_escape(node.type)})</i>"]
        if node.scope:
            lines.append(f"scope {_escape(node.scope)}")
        if node.root:
            lines.append(f"result entity, score {node.score:.2f}, found by {node.source or '?'}")
        if relations:
            lines.append("relations: " + _escape(relations))
        hidden = self.state.hidden_relations(node_id)
        if hidden:
            lines.append(f"+{hidden} relations not shown (double-click to expand)")
        return "<br/>".join(lines)

    def _emit_selection(self) -> None:
        selected = self.selected_ids()
        now = set(selected)
        for node_id in now ^ self._selected:
            item = self._items.get(node_id)
            if item is not None:
                item.update_pen()
        self._selected = now
        self._update_focus()
        self._refresh_labels()
        self.selection_changed.emit(selected)
        self.entity_selected.emit(selected[0] if len(selected) == 1 else "")

    # ----------------------------------------------------------------- events

    def wheelEvent(self, event: Any) -> None:
        delta = event.angleDelta().y()
        if delta:
            self.zoom(ZOOM_STEP ** (delta / 120.0))
            event.accept()
        else:
            super().wheelEvent(event)

    def mousePressEvent(self, event: Any) -> None:
        if event.button() == Qt.MouseButton.MiddleButton or (
            event.button() == Qt.MouseButton.LeftButton
            and event.modifiers() & Qt.KeyboardModifier.AltModifier
        ):
            self._pan_origin = event.position()
            self._fitted = False
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)
        self._dragging = isinstance(self._scene.mouseGrabberItem(), NodeItem)
        self._drag_before = None

    def mouseMoveEvent(self, event: Any) -> None:
        if self._pan_origin is not None:
            delta = event.position() - self._pan_origin
            self._pan_origin = event.position()
            self.horizontalScrollBar().setValue(int(self.horizontalScrollBar().value() - delta.x()))
            self.verticalScrollBar().setValue(int(self.verticalScrollBar().value() - delta.y()))
            event.accept()
            return
        super().mouseMoveEvent(event)
        if self._dragging and event.buttons() & Qt.MouseButton.LeftButton:
            self._on_nodes_dragged()
        elif (
            event.buttons() == Qt.MouseButton.NoButton
            and self.itemAt(event.position().toPoint()) is None
        ):
            self._edge_tooltip(event)

    def mouseReleaseEvent(self, event: Any) -> None:
        if self._pan_origin is not None:
            self._pan_origin = None
            self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)
        if self._dragging:
            self._dragging = False
            self._on_nodes_dragged()
            self._on_drag_finished()

    def _edge_tooltip(self, event: Any) -> None:
        point = self.mapToScene(event.position().toPoint())
        tolerance = 5.0 / max(self.transform().m11(), 1e-6)
        edge = self._edge_near(point, tolerance)
        if edge is None:
            QToolTip.hideText()
            return
        a, b = self.state.nodes.get(edge.source), self.state.nodes.get(edge.target)
        text = f"{a.name if a else edge.source} —{edge.type}→ {b.name if b else edge.target}"
        if edge.fact:
            text += f"\n{edge.fact}"
        QToolTip.showText(event.globalPosition().toPoint(), text, self)

    def _edge_near(self, point: QPointF, tolerance: float) -> EdgeData | None:
        best: tuple[float, EdgeData] | None = None
        px, py = point.x(), point.y()
        for edge in self.state.edges.values():
            a, b = self._items.get(edge.source), self._items.get(edge.target)
            if a is None or b is None:
                continue
            distance = _segment_distance(px, py, a.x(), a.y(), b.x(), b.y())
            if distance <= tolerance and (best is None or distance < best[0]):
                best = (distance, edge)
        return best[1] if best else None

    def contextMenuEvent(self, event: Any) -> None:
        item = self.itemAt(event.pos())
        while item is not None and not isinstance(item, NodeItem):
            item = item.parentItem()
        menu = QMenu(self)
        if isinstance(item, NodeItem):
            if not item.isSelected():
                self._scene.clearSelection()
                item.setSelected(True)
            node_id = item.node_id
            menu.addAction("Expand neighbours", lambda: self.expand(node_id))
            if self.state.hidden_relations(node_id):
                menu.addAction("Show more neighbours", lambda: self.expand_more(node_id))
            if node_id in self.state.expanded:
                menu.addAction("Collapse", lambda: self.collapse_node(node_id))
            menu.addAction("Hide", lambda: self.hide_nodes(self.selected_ids()))
            menu.addAction("Pin / unpin", lambda: self.toggle_pin(self.selected_ids()))
            menu.addSeparator()
        menu.addAction("Fit to view", self.fit)
        menu.addAction("Re-layout (keeps pinned nodes)", self.relayout)
        menu.exec(event.globalPos())

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self.legend.move(8, 8)
        # A graph the user has not zoomed or panned stays fitted as the window changes size.
        if self._fitted:
            self._refit_timer.start()
        if self.search.isVisible():
            self.search.place()

    def _install_actions(self) -> None:
        def add(text: str, keys: Iterable[Any], slot: Callable[[], None]) -> None:
            action = QAction(text, self)
            action.setShortcuts([QKeySequence(k) for k in keys])
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(slot)
            self.addAction(action)

        add("Zoom in", ["+", "=", QKeySequence.StandardKey.ZoomIn], lambda: self.zoom(ZOOM_STEP))
        add("Zoom out", ["-", QKeySequence.StandardKey.ZoomOut], lambda: self.zoom(1 / ZOOM_STEP))
        add("Fit", ["F"], self.fit)
        add("Hide selected", ["Delete", "H"], lambda: self.hide_nodes(self.selected_ids()))
        add("Expand selected", ["E"], self._expand_selected)
        add("Collapse selected", ["C"], self._collapse_selected)
        add("Pin selected", ["P"], lambda: self.toggle_pin(self.selected_ids()))
        add("Select all", [QKeySequence.StandardKey.SelectAll], self._select_all)
        # Ctrl+F is the window's (Edit menu), so it works wherever the focus is.
        add("Find in graph", ["/"], self.search.open)

    def _expand_selected(self) -> None:
        for node_id in self.selected_ids():
            self.expand(node_id)

    def _collapse_selected(self) -> None:
        for node_id in self.selected_ids():
            self.collapse_node(node_id)

    def _select_all(self) -> None:
        for item in self._items.values():
            item.setSelected(True)


def _edge_caption(edges: list[EdgeData]) -> str:
    """The types of the relations drawn as one line: ``LIVES_IN``, ``KNOWS, WORKS_WITH ×2``."""
    kinds: dict[str, int] = {}
    for edge in edges:
        kinds[edge.type or "related"] = kinds.get(edge.type or "related", 0) + 1
    return ", ".join(f"{k} ×{n}" if n > 1 else k for k, n in sorted(kinds.items()))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _segment_distance(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    if length2 <= 1e-12:
        return math.hypot(px - ax, py - ay)
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def _add_arrow(path: QPainterPath, start: QPointF, end: QPointF, end_radius: float) -> None:
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
