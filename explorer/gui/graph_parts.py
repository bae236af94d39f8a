# mypy: disable-error-code="empty-body"
# (declarations only: the bodies live in the parts that define them)
"""What the parts of ``GraphView`` share, declared once for type checking.

``GraphView`` is one class assembled from mixins kept in their own modules (labels and fitting,
visibility, styling, export). Each mixin reads state the view owns and calls methods another
part defines; ``GraphViewParts`` declares those attributes and methods, so every mixin is type
checked against the same view. It is imported only by type checkers (at run time the mixins
derive from ``object``). Imports Qt and the graph view's plain-data modules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
)

from explorer.gui.graph_items import EdgesItem, MoreHandle, NodeItem
from explorer.gui.graph_model import EdgeData, GraphState, NodeData
from explorer.gui.label_placement import Rect
from explorer.gui.legend import LegendWidget


class GraphViewParts(QGraphicsView):
    """The view's shared state and the methods its parts call on one another."""

    state: GraphState
    legend: LegendWidget
    _scene: QGraphicsScene
    _items: dict[str, NodeItem]
    _handles: dict[str, MoreHandle]
    _pos: dict[str, tuple[float, float]]
    _edge_ends: list[tuple[str, str]]
    _edge_layers: list[EdgesItem]
    _focus_edges: QGraphicsPathItem
    _leaders: QGraphicsPathItem
    _path_item: QGraphicsPathItem
    _edge_labels: list[QGraphicsSimpleTextItem]
    _edge_label_pool: list[QGraphicsSimpleTextItem]
    _edge_label_specs: list[tuple[str, str, str, str]]
    _highlighted: set[str]
    _hovered: str
    _selected: set[str]
    _labels_forced: bool
    _label_rects: dict[str, Rect]
    _label_sizes: dict[tuple[str, bool], tuple[float, float]]
    _hub_ids: set[str]
    _lod: int
    _fitted: bool
    _node_overlay: dict[str, QColor] | None
    _size_values: dict[str, dict[str, float]] | None
    type_sizes: dict[str, str]
    hidden_types: set[str]
    hidden_relation_types: set[str]
    hidden_layers: set[str]
    hidden_sources: set[str]
    dimmed: set[str]
    _applied_hidden: set[str]
    _applied_faded: dict[str, float]
    size_by: str
    colour_by: str
    captions: dict[str, str]
    path: object

    # Defined by one part, called by others.
    def end_batches(self) -> None: ...
    def selected_ids(self) -> list[str]: ...
    def set_node_overlay(self, colours: Mapping[str, QColor] | None) -> None: ...
    def highlight_entities(self, node_ids: Iterable[str]) -> None: ...
    def edge_groups(self) -> dict[tuple[str, str], list[EdgeData]]: ...
    def label_rects(self) -> dict[str, tuple[str, tuple[float, float, float, float]]]: ...
    def label_text(self, data: NodeData) -> str: ...
    def node_radius(self, data: NodeData) -> float: ...
    def _hidden_nodes(self) -> set[str]: ...
    def _hubs(self) -> set[str]: ...
    def _nodes_rect(self) -> QRectF: ...
    def _refresh_labels(self, force: bool = False) -> None: ...
    def _update_focus(self) -> None: ...
    def _update_handles(self) -> None: ...
    def _rebuild_edges(self) -> None: ...
    def _apply_visibility(self) -> None: ...
    def _place_handle(self, node_id: str) -> None: ...
    def _focus_node(self) -> str: ...
    def expand_more(self, node_id: str) -> None: ...
    def expand(self, node_id: str, cap: int | None = None) -> None: ...
    def _on_node_hovered(self, node_id: str, entered: bool) -> None: ...
    def _apply_state(self, state: GraphState, *, batched: bool = False) -> None: ...
