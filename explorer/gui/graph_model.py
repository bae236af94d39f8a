"""The neighbourhood graph the view shows, as plain data that can be snapshotted for undo.

A ``GraphState`` holds the nodes (result entities and the neighbours around them), the relations
between them, node positions, which nodes the user pinned, which were expanded and with what cap,
and the degrees known for "+N more" handles. The view renders a state; every user edit (expand,
collapse, hide, move) produces a new state, and undo swaps states back. Building a state from an
answer's entities (``recalled.ShownEntity``) and merging an expansion are pure functions here.
Imports the standard library, core models and the GUI's plain ``recalled`` view, no Qt, so all
of it is testable without a display.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from explorer.core.models import Entity, Neighbour, Relation
from explorer.gui.recalled import ShownEntity

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class NodeData:
    """One entity as the graph view knows it."""

    id: str
    name: str
    type: str
    score: float = 0.0
    root: bool = False  # returned by the query, not only reached as a neighbour
    source: str = ""  # graph / lexical / activation, for roots
    parent: str | None = None  # the node it was expanded from, if any
    scope: str = ""  # where the memory lives, for result entities
    label: str = ""  # what the view writes under it, when the name alone is ambiguous
    aliases: tuple[str, ...] = ()
    layer: str = ""
    salience: float = 0.0
    # When the memory was first and last evidenced (ISO 8601), for the time filter; "" unknown.
    first_seen: str = ""
    last_seen: str = ""

    @property
    def shown_name(self) -> str:
        """The label, or the name; a display handle ("nellie.h") with the name people call
        its owner by ("Nellie (nellie.h)")."""
        if self.label:
            return self.label
        called = called_name(self.name, self.aliases) if self.type in ("person", "agent") else ""
        return f"{called} ({self.name})" if called else self.name


_HANDLE = re.compile(r"[a-z0-9._-]+")
_PLAIN_NAME = re.compile(r"[^\W\d_][^\W\d_'’-]*(?:[ '’-][^\W\d_]+)*")


def called_name(name: str, aliases: Sequence[str]) -> str:
    """For a lower-case handle with a dot, underscore or digit in it, the longest capitalised
    plain name among its aliases; else ``""``."""
    if not _HANDLE.fullmatch(name) or not any(char in "._-0123456789" for char in name):
        return ""
    names = [alias for alias in aliases if alias[:1].isupper() and _PLAIN_NAME.fullmatch(alias)]
    return max(names, key=len, default="")


@dataclass(frozen=True, slots=True)
class EdgeData:
    """One relation, directed from ``source`` to ``target``; ``relation`` is the relation it
    draws (with the fact's history), when it was drawn from one."""

    id: str
    source: str
    target: str
    type: str
    fact: str = ""
    confidence: float = 1.0
    relation: Relation | None = None


@dataclass
class GraphState:
    """Everything the graph view draws; cheap to copy for undo."""

    nodes: dict[str, NodeData] = field(default_factory=dict)
    edges: dict[str, EdgeData] = field(default_factory=dict)
    positions: dict[str, Point] = field(default_factory=dict)
    pinned: set[str] = field(default_factory=set)
    expanded: dict[str, int] = field(default_factory=dict)
    degrees: dict[str, int] = field(default_factory=dict)

    def copy(self) -> GraphState:
        return GraphState(
            nodes=dict(self.nodes),
            edges=dict(self.edges),
            positions=dict(self.positions),
            pinned=set(self.pinned),
            expanded=dict(self.expanded),
            degrees=dict(self.degrees),
        )

    def edges_of(self, node_id: str) -> list[EdgeData]:
        return [e for e in self.edges.values() if node_id in (e.source, e.target)]

    def hidden_relations(self, node_id: str) -> int:
        """How many of a node's relations are not drawn (the "+N more" count); 0 if unknown."""
        degree = self.degrees.get(node_id)
        if degree is None:
            return 0
        return max(0, degree - len(self.edges_of(node_id)))

    def unplaced(self) -> list[str]:
        return [node for node in self.nodes if node not in self.positions]


def _iso(moment: datetime | None) -> str:
    return moment.isoformat() if moment is not None else ""


def edge_from_relation(relation: Relation) -> EdgeData:
    """The drawn form of a relation."""
    key = relation.id or f"{relation.source_id}->{relation.target_id}:{relation.type}"
    ends = (relation.source_id, relation.target_id)
    return EdgeData(key, *ends, relation.type, relation.fact, relation.confidence, relation)


def state_from_entities(
    entities: Sequence[ShownEntity], previous: GraphState | None = None
) -> GraphState:
    """The graph for an answer's entities: them, their listed neighbours and relations.

    Positions and pins of nodes that were already on screen carry over from ``previous`` so a
    follow-up query does not reshuffle what the user is looking at.
    """
    state = GraphState()
    top = max((shown.score or 0.0 for shown in entities), default=0.0) or 1.0
    for shown in entities:
        state.nodes[shown.id] = replace(
            node_from_entity(shown.entity),
            score=(shown.score or 0.0) / top,
            root=True,
            source=shown.source,
            layer=shown.layer,
        )
    _label_namesakes(state)
    for shown in entities:
        for neighbour in shown.neighbours:
            edge = edge_from_relation(neighbour.relation)
            other = neighbour.entity_id
            if other not in state.nodes:
                state.nodes[other] = NodeData(
                    id=other, name=neighbour.name, type=neighbour.type, parent=shown.id
                )
            state.edges.setdefault(edge.id, edge)
    if previous is not None:
        for node_id in state.nodes:
            if node_id in previous.positions:
                state.positions[node_id] = previous.positions[node_id]
                if node_id in previous.pinned:
                    state.pinned.add(node_id)
    return state


def _label_namesakes(state: GraphState) -> None:
    """Result entities that share a name but live in different scopes are labelled with the
    end of their scope ("Maya Okafor · maya"), so the view never shows two identical names."""
    groups: dict[str, list[NodeData]] = {}
    for node in state.nodes.values():
        groups.setdefault(" ".join(node.name.casefold().split()), []).append(node)
    for group in groups.values():
        if len({node.scope for node in group}) < 2:
            continue
        tails = [node.scope.rsplit("/", 1)[-1] for node in group]
        distinct = len(set(tails)) == len(tails)
        for node, tail in zip(group, tails, strict=True):
            where = (tail if distinct else node.scope) or "root"
            state.nodes[node.id] = replace(node, label=f"{node.name} · {where}")


def merge_neighbourhood(
    state: GraphState,
    parent: str,
    entities: Iterable[Entity],
    relations: Iterable[Relation],
    *,
    cap: int,
    degrees: Mapping[str, int] | None = None,
) -> tuple[GraphState, list[str]]:
    """A new state with a node's neighbourhood added; returns it and the ids that are new.

    Nodes are added only across the parent's own relations, so an expansion never drags in
    entities two hops away; relations among nodes on screen are all drawn.
    """
    merged = state.copy()
    added: list[str] = []
    by_id = {entity.id: entity for entity in entities}
    relation_list = list(relations)
    # New nodes come only from the parent's own relations; other relations in the fetched
    # neighbourhood are drawn when both of their ends are on screen afterwards.
    for relation in relation_list:
        if parent not in (relation.source_id, relation.target_id):
            continue
        other = relation.target_id if relation.source_id == parent else relation.source_id
        entity = by_id.get(other)
        if other in merged.nodes or entity is None:
            continue
        merged.nodes[other] = node_from_entity(entity, parent=parent)
        added.append(other)
    for relation in relation_list:
        if relation.source_id in merged.nodes and relation.target_id in merged.nodes:
            merged.edges.setdefault(relation.id, edge_from_relation(relation))
    merged.expanded[parent] = max(cap, merged.expanded.get(parent, 0))
    if degrees:
        merged.degrees.update(degrees)
    return merged, added


def node_from_entity(entity: Entity, parent: str | None = None) -> NodeData:
    """A neighbour node (not a result entity) for an entity read from the graph."""
    return NodeData(
        id=entity.id,
        name=entity.name,
        type=entity.type,
        parent=parent,
        aliases=tuple(entity.aliases),
        layer=entity.layer.value,
        salience=entity.salience,
        first_seen=_iso(entity.first_seen),
        last_seen=_iso(entity.last_seen),
        scope=entity.scope,
    )


def remove_nodes(state: GraphState, node_ids: Iterable[str]) -> GraphState:
    """A new state without these nodes and any relation touching them."""
    gone = set(node_ids)
    result = state.copy()
    for node_id in gone:
        result.nodes.pop(node_id, None)
        result.positions.pop(node_id, None)
        result.expanded.pop(node_id, None)
        result.pinned.discard(node_id)
    result.edges = {
        key: edge
        for key, edge in result.edges.items()
        if edge.source not in gone and edge.target not in gone
    }
    return result


def collapse(state: GraphState, node_id: str) -> GraphState:
    """A new state with everything expanded out of ``node_id`` (recursively) removed.

    Result entities stay: collapsing a neighbour never takes away what the query returned.
    """
    doomed: set[str] = set()
    frontier = [node_id]
    while frontier:
        current = frontier.pop()
        for child in state.nodes.values():
            if child.parent == current and not child.root and child.id not in doomed:
                doomed.add(child.id)
                frontier.append(child.id)
    doomed.discard(node_id)
    result = remove_nodes(state, doomed)
    result.expanded.pop(node_id, None)
    return result


def with_positions(state: GraphState, positions: Mapping[str, Point]) -> GraphState:
    """A new state with positions set for the nodes it has (others are ignored)."""
    result = state.copy()
    for node_id, point in positions.items():
        if node_id in result.nodes:
            result.positions[node_id] = (float(point[0]), float(point[1]))
    return result


def relations_of(entity_id: str, state: GraphState) -> list[Neighbour]:
    """The relations of a node as drawn, each seen from the node."""
    out: list[Neighbour] = []
    for edge in state.edges_of(entity_id):
        outgoing = edge.source == entity_id
        other = edge.target if outgoing else edge.source
        node = state.nodes.get(other)
        relation = edge.relation or Relation(
            edge.id, edge.source, edge.target, edge.type, edge.fact, edge.confidence
        )
        out.append(
            Neighbour(
                relation=relation,
                entity_id=other,
                name=node.name if node else other,
                type=node.type if node else "",
                outgoing=outgoing,
            )
        )
    return out
