"""What the graph view draws and how brightly: filters, hidden types, dimming, lit nodes, edges.

``VisibilityMixin`` gives ``GraphView`` its filters (entity and relation types, layers,
sources), the time filter's greying, the halo of lit nodes, the grouped edge paths (parallel
relations as one line whose width shows the count), the "+N more" badges and the tooltips. A
part of ``GraphView`` kept in its own module; imports Qt, the standard library and the graph
view's parts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF
from PySide6.QtGui import (
    QMouseEvent,
    QPainterPath,
    QTransform,
)
from PySide6.QtWidgets import (
    QToolTip,
)

from explorer.gui.graph_items import (
    DIMMED_OPACITY,
    UNLIT_OPACITY,
    MoreHandle,
    edge_caption,
    escape,
    is_weak,
    segment_distance,
)
from explorer.gui.graph_model import (
    EdgeData,
)

if TYPE_CHECKING:
    from explorer.gui.graph_parts import GraphViewParts as _Parts
else:
    _Parts = object


class VisibilityMixin(_Parts):
    """Part of ``GraphView``; see the module docstring."""

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
        if not lit and not self.dimmed and not self._applied_faded:
            return
        faded: dict[str, float] = {}
        for node_id in self._items:
            if node_id in self.dimmed:
                faded[node_id] = DIMMED_OPACITY
            elif lit and node_id not in lit:
                faded[node_id] = UNLIT_OPACITY
        for node_id in faded.keys() | self._applied_faded.keys():
            item = self._items.get(node_id)
            if item is not None:
                item.set_faded(faded.get(node_id, 1.0))
        self._applied_faded = faded

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
        """One path per line width: a single fact, two or three, four or more; a line that
        holds only weak signals goes on the last, dashed layer."""
        paths = [QPainterPath() for _ in self._edge_layers]
        pos = self._pos
        for (source, target), edges in self.edge_groups().items():
            a = pos.get(source)
            b = pos.get(target)
            if a is None or b is None:
                continue
            facts = sum(1 for edge in edges if not is_weak(edge))
            path = paths[3 if not facts else 0 if facts == 1 else (1 if facts <= 3 else 2)]
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
        # Only the items whose state changes are touched: this runs after every edit.
        for node_id in hidden ^ self._applied_hidden:
            item = self._items.get(node_id)
            if item is not None:
                item.setVisible(node_id not in hidden)
        self._applied_hidden = {n for n in hidden if n in self._items}
        self._apply_opacity()
        self._rebuild_edges()
        self._update_handles()
        self._update_focus()
        self._refresh_labels()
        counts: dict[str, int] = {}
        for node in self.state.nodes.values():
            counts[node.type] = counts.get(node.type, 0) + 1
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

    def _node_tooltip(self, node_id: str) -> str:
        node = self.state.nodes[node_id]
        edges = self.state.edges_of(node_id)
        relations = edge_caption(edges)
        together = sum(1 for edge in edges if is_weak(edge))
        lines = [f"<b>{escape(node.name)}</b> <i>({escape(node.type)})</i>"]
        if node.scope:
            lines.append(f"scope {escape(node.scope)}")
        if node.root:
            lines.append(f"result entity, score {node.score:.2f}, found by {node.source or '?'}")
        if relations:
            lines.append("relations: " + escape(relations))
        if together:
            lines.append(f"came up together with others {together} time(s) (not facts)")
        hidden = self.state.hidden_relations(node_id)
        if hidden:
            lines.append(f"+{hidden} relations not shown (double-click to expand)")
        return "<br/>".join(lines)

    def _edge_tooltip(self, event: QMouseEvent) -> None:
        point = self.mapToScene(event.position().toPoint())
        tolerance = 5.0 / max(self.transform().m11(), 1e-6)
        edge = self._edge_near(point, tolerance)
        if edge is None:
            QToolTip.hideText()
            return
        QToolTip.showText(event.globalPosition().toPoint(), self.pair_tooltip(edge), self)

    def pair_tooltip(self, edge: EdgeData) -> str:
        """Every relation drawn on the line of ``edge`` (parallel ones share it), with facts."""
        pair = {edge.source, edge.target}
        lines = []
        weak: list[str] = []
        for other in self.state.edges.values():
            if {other.source, other.target} != pair:
                continue
            a, b = self.state.nodes.get(other.source), self.state.nodes.get(other.target)
            first, second = (a.name if a else other.source), (b.name if b else other.target)
            if is_weak(other):
                weak.append(f"{first} and {second} came up together ({other.type}, not a fact)")
                continue
            line = f"{first} —{other.type}→ {second}"
            lines.append(line + (f"\n    {other.fact}" if other.fact else ""))
        return "\n".join([*lines, *weak])

    def _edge_near(self, point: QPointF, tolerance: float) -> EdgeData | None:
        best: tuple[float, EdgeData] | None = None
        px, py = point.x(), point.y()
        for edge in self.state.edges.values():
            a, b = self._items.get(edge.source), self._items.get(edge.target)
            if a is None or b is None:
                continue
            distance = segment_distance(px, py, a.x(), a.y(), b.x(), b.y())
            if distance <= tolerance and (best is None or distance < best[0]):
                best = (distance, edge)
        return best[1] if best else None
