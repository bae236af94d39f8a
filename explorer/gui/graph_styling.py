"""Node size, colour and caption for the graph view, and the drawn shortest path.

``StylingMixin`` gives ``GraphView`` sizing by score, salience, degree or centrality, colouring
by type or community, captions per entity type and the highlighted shortest path (networkx, in
``graph_analytics``). A part of ``GraphView`` kept in its own module; imports Qt, the standard
library and the graph view's parts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from PySide6.QtGui import (
    QPainterPath,
)

from explorer.gui import style
from explorer.gui.graph_analytics import GraphPath, centrality, communities, shortest_path
from explorer.gui.graph_items import (
    item_styles,
)
from explorer.gui.graph_model import (
    NodeData,
)

if TYPE_CHECKING:
    from explorer.gui.graph_parts import GraphViewParts as _Parts
else:
    _Parts = object


class StylingMixin(_Parts):
    """Part of ``GraphView``; see the module docstring."""

    def node_radius(self, data: NodeData) -> float:
        """A node's size: by its score (result entities) or by the measure chosen for its type,
        else for every node."""
        measure = self.type_sizes.get(data.type) or self.size_by
        values = (self._size_values or {}).get(measure)
        if values is None:
            return style.node_radius(data.score, data.root)
        return style.node_radius(values.get(data.id, 0.0), True)

    def set_size_by(self, mode: str) -> None:
        """Size nodes by ``score`` (the default), ``salience``, ``degree`` or ``centrality``."""
        self.size_by = mode
        self._remeasure()

    def _remeasure(self) -> None:
        """Compute the measures in use (for every node and per type) and resize the nodes."""
        wanted = ({self.size_by} | set(self.type_sizes.values())) - {"score"}
        self._size_values = {measure: self._measure(measure) for measure in wanted} or None
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

    def set_style(
        self,
        colours: Mapping[str, str],
        captions: Mapping[str, str],
        sizes: Mapping[str, str] | None = None,
    ) -> None:
        """Per entity type: colours (``#rrggbb``), captions (``name`` or ``name and type``) and
        what sizes its nodes (a measure, or absent for the one chosen for every node)."""
        style.TYPE_COLOUR_OVERRIDES.clear()
        style.TYPE_COLOUR_OVERRIDES.update({k.strip().lower(): v for k, v in colours.items()})
        self.captions = dict(captions)
        self.type_sizes = {k: v for k, v in (sizes or {}).items() if v}
        self._remeasure()
        item_styles().brushes.clear()
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
