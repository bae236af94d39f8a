"""The neighbourhood graph view: entities as nodes, relations as one path, with undoable edits.

The view renders a ``GraphState`` (``graph_model``); every edit the user makes (expand, collapse,
hide, move, re-layout) becomes a new state pushed on a ``QUndoStack``. Layout never runs here: the
view emits a ``LayoutRequest`` and applies the ``LayoutResult`` that comes back, so the caller can
compute it off the GUI thread. Drawing is shaped by measurement: the scene has no item index
(``NoIndex`` is far cheaper than the BSP tree when nodes move), every edge is part of one
``QGraphicsPathItem`` per line width, and node circles and labels are stock Qt items painted in
C++. The class is assembled from parts kept in their own modules: label placement and fitting
(``graph_labels``), what is shown and how brightly (``graph_visibility``), sizes, colours and the
shortest path (``graph_styling``) and exports (``graph_export``); the items are in
``graph_items``. Imports Qt, the standard library and the GUI's plain-data modules; never awaits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QBrush,
    QColor,
    QContextMenuEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPen,
    QResizeEvent,
    QUndoStack,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QMenu,
    QWidget,
)

from explorer.core.models import Entity
from explorer.gui import style
from explorer.gui.graph_analytics import GraphPath
from explorer.gui.graph_export import ExportMixin
from explorer.gui.graph_items import (
    APPLY_BATCH,
    EDGE_ANTIALIAS_LIMIT,
    EDGE_WIDTHS,
    EXPAND_CAP,
    EXPAND_STEP,
    MAX_SCALE,
    MIN_SCALE,
    SCENE_EXTENT,
    SELECT_MARGIN_X,
    SELECT_MARGIN_Y,
    ZOOM_STEP,
    EdgesItem,
    MoreHandle,
    NodeItem,
    StateCommand,
)
from explorer.gui.graph_labels import LabelsMixin
from explorer.gui.graph_model import (
    GraphState,
    NodeData,
    collapse,
    merge_neighbourhood,
    node_from_entity,
    remove_nodes,
    state_from_entities,
    with_positions,
)
from explorer.gui.graph_search import GraphSearchBar
from explorer.gui.graph_styling import StylingMixin
from explorer.gui.graph_visibility import VisibilityMixin
from explorer.gui.label_placement import Rect
from explorer.gui.layout import LayoutRequest, LayoutResult
from explorer.gui.legend import LegendWidget
from explorer.gui.recalled import ShownEntity
from explorer.gui.requests import Expansion, QueryOutcome, QueryParams


class GraphView(LabelsMixin, VisibilityMixin, StylingMixin, ExportMixin, QGraphicsView):
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
        pens = [QPen(style.EDGE_COLOUR, width) for width in EDGE_WIDTHS]
        # Weak signals (two names that came up together) last: thin, dashed, never a fact.
        pens.append(QPen(style.WEAK_EDGE_COLOUR, 0.8, Qt.PenStyle.DashLine))
        for depth, edge_pen in enumerate(pens):
            layer = EdgesItem()
            edge_pen.setCosmetic(True)
            layer.setPen(edge_pen)
            layer.setZValue(-3 if depth == len(EDGE_WIDTHS) else -2)
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
        # What _apply_visibility last did to the items (it only touches what changes).
        self._applied_hidden: set[str] = set()
        self._applied_faded: dict[str, float] = {}
        # Where every node seen in this view was last placed, so one that comes back returns.
        self._remembered: dict[str, tuple[float, float]] = {}
        self._shown_params: object = None
        self._size_values: dict[str, dict[str, float]] | None = None
        self.type_sizes: dict[str, str] = {}
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
        """Replace the graph with a query's entities and neighbours (see ``show_entities``)."""
        self.show_entities(outcome.entities, outcome.degrees, question=outcome.params)

    def show_entities(
        self,
        entities: Sequence[ShownEntity],
        degrees: Mapping[str, int],
        *,
        question: QueryParams,
    ) -> None:
        """Replace the graph with these entities and their neighbours. Nodes already on screen
        keep their places, and nodes seen before in this view go back to where they were (a
        layer toggled off and on, a floor moved and back); only new nodes are laid out, beside
        their neighbours. The same ``question`` asked again (a re-decided answer, a what-if)
        keeps the view unless something falls outside."""
        state = state_from_entities(entities, previous=self.state)
        state.degrees.update(degrees)
        for node_id in state.nodes:
            if node_id not in state.positions and node_id in self._remembered:
                state.positions[node_id] = self._remembered[node_id]
        for node in state.nodes.values():
            if node.root:
                state.expanded.setdefault(node.id, len(state.edges_of(node.id)))
        self._pending.clear()
        self.undo_stack.clear()

        # Another question is a new picture; the same one re-decided (a what-if) keeps the view.
        new_question = question != self._shown_params
        self._shown_params = question

        def settle(result: LayoutResult) -> None:
            self._apply_state(with_positions(state, result.positions), batched=True)
            if new_question or not self._all_in_view():
                self.fit()

        self._request_layout(state, {}, settle)

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
            self.undo_stack.push(StateCommand(self, before, after, f"Expand {name}"))

        self._request_layout(merged, parents, settle)

    def collapse_node(self, node_id: str) -> None:
        if node_id in self.state.nodes:
            after = collapse(self.state, node_id)
            name = self.state.nodes[node_id].name
            self.undo_stack.push(StateCommand(self, self.state, after, f"Collapse {name}"))

    def hide_nodes(self, node_ids: Iterable[str]) -> None:
        doomed = [n for n in node_ids if n in self.state.nodes]
        if doomed:
            after = remove_nodes(self.state, doomed)
            self.undo_stack.push(StateCommand(self, self.state, after, f"Hide {len(doomed)}"))

    def toggle_pin(self, node_ids: Iterable[str]) -> None:
        ids = [n for n in node_ids if n in self.state.nodes]
        if not ids:
            return
        after = self.state.copy()
        if all(n in after.pinned for n in ids):
            after.pinned -= set(ids)
        else:
            after.pinned |= set(ids)
        self.undo_stack.push(StateCommand(self, self.state, after, "Pin"))

    def relayout(self) -> None:
        """Lay out again from scratch, except for pinned nodes."""
        state = self.state.copy()
        fixed = {n: state.positions[n] for n in state.pinned if n in state.positions}
        before = self.state

        def settle(result: LayoutResult) -> None:
            after = with_positions(self.state, result.positions)
            self.undo_stack.push(StateCommand(self, before, after, "Re-layout"))
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
            # Scroll only as far as needed: a node already in view stays where the fit put
            # it, so selecting it does not push the rest of the graph out of the pane.
            self.ensureVisible(item, SELECT_MARGIN_X, SELECT_MARGIN_Y)

    def selected_ids(self) -> list[str]:
        return [i.node_id for i in self._scene.selectedItems() if isinstance(i, NodeItem)]

    def end_batches(self) -> None:
        """Create any items still waiting for their batch now (exports, tests)."""
        if self._apply_queue:
            self._finish_batches()
            self._after_apply()

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
            self.undo_stack.push(StateCommand(self, before, placed, f"Show {len(added)} linked"))
            if not self._all_in_view():
                self.fit()

        self._request_layout(after, {}, settle)
        return added

    # ----------------------------------------------------------------- analytics, style

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
            gone = self._items.pop(node_id)
            gone.detach_label()
            self._applied_hidden.discard(node_id)
            self._applied_faded.pop(node_id, None)
            self._scene.removeItem(gone)
            self._pos.pop(node_id, None)
            self._highlighted.discard(node_id)
            self._selected.discard(node_id)
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
            radii={node: self.node_radius(data) for node, data in state.nodes.items()},
        )
        self._pending[request.request_id] = settle
        self.layout_requested.emit(request)

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
                item.follow_label()
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
        self.undo_stack.push(StateCommand(self, before, after, f"Move {len(moved)}"))

    def _on_node_hovered(self, node_id: str, entered: bool) -> None:
        self._hovered = node_id if entered else ""
        if entered:
            item = self._items.get(node_id)
            if item is not None:
                item.setToolTip(self._node_tooltip(node_id))
        self._update_focus()
        self._refresh_labels()
        self.entity_hovered.emit(self._hovered)

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

    def wheelEvent(self, event: QWheelEvent) -> None:
        delta = event.angleDelta().y()
        if delta:
            self.zoom(ZOOM_STEP ** (delta / 120.0))
            event.accept()
        else:
            super().wheelEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
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

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
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

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
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

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
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

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.legend.move(8, 8)
        # A graph the user has not zoomed or panned stays fitted as the window changes size.
        if self._fitted:
            self._refit_timer.start()
        if self.search.isVisible():
            self.search.place()

    def _install_actions(self) -> None:
        def add(
            text: str, keys: Iterable[str | QKeySequence.StandardKey], slot: Callable[[], None]
        ) -> None:
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
