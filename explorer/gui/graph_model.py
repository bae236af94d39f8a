"""The neighbourhood graph the view shows, as plain data that can be snapshotted for undo.

A ``GraphState`` holds the nodes (result entities and the neighbours around them), the relations
between them, node positions, which nodes the user pinned, which were expanded and with what cap,
and the degrees known for "+N more" handles. The view renders a state; every user edit (expand,
collapse, hide, move) produces a new state, and undo swaps states back. Building a state from
scour's JSON and merging an expansion are pure functions here. Imports the standard library and
core (models, and scour's JSON shapes) only, no Qt, so all of it is testable without a display.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from explorer.core.codec import entity_fields
from explorer.core.models import Entity, Relation

Point = tuple[float, float]
JsonDict = dict[str, Any]


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
        return self.label or self.name


#: A relation's history fields, as scour's JSON names them.
HISTORY_KEYS = ("valid_from", "valid_to", "recorded_at", "expired_at")


@dataclass(frozen=True, slots=True)
class EdgeData:
    """One relation, directed from ``source`` to ``target``."""

    id: str
    source: str
    target: str
    type: str
    fact: str = ""
    confidence: float = 1.0
    # The fact's history (ISO 8601, "" unknown): valid time, and when the store learned and
    # retired it (graphiti keeps both times).
    valid_from: str = ""
    valid_to: str = ""
    recorded_at: str = ""
    expired_at: str = ""


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


def _edge_from_json(entity_id: str, relation: Mapping[str, Any]) -> EdgeData | None:
    neighbour = relation.get("neighbour") or {}
    other = neighbour.get("id")
    if not other:
        return None
    outgoing = relation.get("direction", "out") == "out"
    source, target = (entity_id, other) if outgoing else (other, entity_id)
    return EdgeData(
        id=str(relation.get("id") or f"{source}->{target}:{relation.get('type', '')}"),
        source=source,
        target=target,
        type=str(relation.get("type", "")),
        fact=str(relation.get("fact") or ""),
        confidence=float(relation.get("confidence") or 1.0),
        **{key: str(relation.get(key) or "") for key in HISTORY_KEYS},
    )


def state_from_result(result: Mapping[str, Any], previous: GraphState | None = None) -> GraphState:
    """The graph for a scour result: its entities, their listed neighbours and relations.

    Positions and pins of nodes that were already on screen carry over from ``previous`` so a
    follow-up query does not reshuffle what the user is looking at.
    """
    state = GraphState()
    entities = list(result.get("kg_entities") or [])
    top = max((float(e.get("score") or 0.0) for e in entities), default=0.0) or 1.0
    for entity in entities:
        node_id = str(entity["id"])
        state.nodes[node_id] = NodeData(
            id=node_id,
            name=str(entity.get("name", node_id)),
            type=str(entity.get("type", "")),
            score=float(entity.get("score") or 0.0) / top,
            root=True,
            source=str(entity.get("source", "")),
            scope=str(entity.get("scope") or ""),
            aliases=tuple(str(a) for a in entity.get("aliases") or ()),
            layer=str(entity.get("layer") or ""),
            salience=float(entity.get("salience") or 0.0),
            first_seen=str(entity.get("first_seen") or ""),
            last_seen=str(entity.get("last_seen") or ""),
        )
    _label_namesakes(state)
    for entity in entities:
        node_id = str(entity["id"])
        for relation in entity.get("relationships") or []:
            edge = _edge_from_json(node_id, relation)
            if edge is None:
                continue
            neighbour = relation["neighbour"]
            other = str(neighbour["id"])
            if other not in state.nodes:
                state.nodes[other] = NodeData(
                    id=other,
                    name=str(neighbour.get("name", other)),
                    type=str(neighbour.get("type", "")),
                    parent=node_id,
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
            merged.edges.setdefault(
                relation.id,
                EdgeData(
                    id=relation.id,
                    source=relation.source_id,
                    target=relation.target_id,
                    type=relation.type,
                    fact=relation.fact,
                    confidence=relation.confidence,
                    **{
                        key: moment.isoformat() if moment is not None else ""
                        for key, moment in (
                            ("valid_from", relation.valid_from),
                            ("valid_to", relation.valid_to),
                            ("recorded_at", relation.recorded_at),
                            ("expired_at", relation.expired_at),
                        )
                    },
                ),
            )
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
        first_seen=entity.first_seen.isoformat() if entity.first_seen else "",
        last_seen=entity.last_seen.isoformat() if entity.last_seen else "",
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


def entity_to_json(entity: Entity, neighbours: Sequence[JsonDict] = ()) -> JsonDict:
    """An entity fetched from the graph in the shape scour's ``kg_entities`` items have."""
    return {**entity_fields(entity), "source": "graph", "relationships": list(neighbours)}


def relations_to_json(entity_id: str, state: GraphState) -> list[JsonDict]:
    """The relations of a node as drawn, in the ``relationships`` shape of scour's JSON."""
    out: list[JsonDict] = []
    for edge in state.edges_of(entity_id):
        outgoing = edge.source == entity_id
        other = edge.target if outgoing else edge.source
        node = state.nodes.get(other)
        out.append(
            {
                "id": edge.id,
                "type": edge.type,
                "fact": edge.fact,
                "direction": "out" if outgoing else "in",
                "neighbour": {
                    "id": other,
                    "name": node.name if node else other,
                    "type": node.type if node else "",
                },
                "confidence": edge.confidence,
                **{key: getattr(edge, key) or None for key in HISTORY_KEYS},
            }
        )
    return out
