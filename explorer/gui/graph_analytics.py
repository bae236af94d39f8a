"""Graph analytics over what the view shows, with networkx: paths, communities, centrality.

``shortest_path`` finds the fewest-relations path between two nodes on screen (relations taken
in either direction, strongest relation first between a pair) and returns the nodes and the
relations along it; ``communities`` groups the nodes by Louvain modularity (seeded, so the same
graph always gives the same groups); ``centrality`` scores each node's betweenness in [0, 1].
Plain functions of a ``GraphState``; imports networkx, the standard library and the graph model
(no Qt).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

import networkx as nx

from explorer.gui.graph_model import EdgeData, GraphState


@dataclass(frozen=True)
class GraphPath:
    """A path between two nodes: the nodes in order and the relation taken at each step."""

    nodes: tuple[str, ...]
    edges: tuple[EdgeData, ...]


def to_networkx(state: GraphState, hidden: Iterable[str] = ()) -> nx.Graph:
    """The drawn graph, undirected; between a pair, the most confident relation is kept."""
    skip = set(hidden)
    graph = nx.Graph()
    graph.add_nodes_from(n for n in state.nodes if n not in skip)
    for edge in state.edges.values():
        if edge.source in skip or edge.target in skip or edge.source == edge.target:
            continue
        if edge.source not in graph or edge.target not in graph:
            continue
        known = graph.get_edge_data(edge.source, edge.target)
        if known is None or edge.confidence > known["edge"].confidence:
            graph.add_edge(edge.source, edge.target, edge=edge)
    return graph


def shortest_path(
    state: GraphState, start: str, end: str, hidden: Iterable[str] = ()
) -> GraphPath | None:
    """The fewest-relations path from ``start`` to ``end``, or ``None`` when none is drawn."""
    graph = to_networkx(state, hidden)
    if start not in graph or end not in graph:
        return None
    try:
        nodes = nx.shortest_path(graph, start, end)
    except nx.NetworkXNoPath:
        return None
    edges = tuple(graph.edges[a, b]["edge"] for a, b in itertools.pairwise(nodes))
    return GraphPath(tuple(nodes), edges)


def communities(state: GraphState, hidden: Iterable[str] = ()) -> dict[str, int]:
    """Each node's community (0 the largest), by Louvain modularity with a fixed seed."""
    graph = to_networkx(state, hidden)
    if graph.number_of_nodes() == 0:
        return {}
    groups = nx.community.louvain_communities(graph, seed=0)
    ranked = sorted(groups, key=lambda group: (-len(group), min(group)))
    return {node: index for index, group in enumerate(ranked) for node in group}


def centrality(state: GraphState, hidden: Iterable[str] = ()) -> dict[str, float]:
    """Betweenness centrality scaled so the most central node on screen has 1.0."""
    graph = to_networkx(state, hidden)
    if graph.number_of_nodes() == 0:
        return {}
    # Sampling keeps a 1,000-node graph fast; the seed keeps it repeatable.
    sample = min(graph.number_of_nodes(), 200)
    scores = nx.betweenness_centrality(graph, k=sample, seed=0)
    top = max(scores.values(), default=0.0) or 1.0
    return {node: value / top for node, value in scores.items()}
