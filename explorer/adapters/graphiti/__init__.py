"""Graphs written by graphiti-core into FalkorDB, read through the explorer's ports, read-only.

``open_graphiti`` connects to a FalkorDB server, checks that the named graph is graphiti's
(``NotGraphiti`` otherwise) and returns its three stores over one connection:
``GraphitiGraphStore`` (entities and facts), ``GraphitiChunkStore`` (episodes as chunks) and
``GraphitiConceptStore`` (entities as concept records). ``graphiti_graphs`` lists the graphs of a
server that look like graphiti's, for the window's picker. Nothing in this package can write to
a graph: it sends ``GRAPH.RO_QUERY`` only and its write methods raise ``ReadOnlyStore``. The
schema it reads is graphiti-core 0.31's (see ``cypher``). Imports the core, the other adapters'
shared helpers and ``redis``; never graphiti-core itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from explorer.adapters.graphiti.concepts import GraphitiConceptStore
from explorer.adapters.graphiti.connection import GraphitiConnection, NotGraphiti
from explorer.adapters.graphiti.store import GraphitiChunkStore, GraphitiGraphStore, VectorGate
from explorer.core.models import EmbeddingSpec

__all__ = [
    "GraphitiChunkStore",
    "GraphitiConceptStore",
    "GraphitiGraphStore",
    "GraphitiStores",
    "NotGraphiti",
    "graphiti_graphs",
    "open_graphiti",
]


@dataclass(frozen=True)
class GraphitiStores:
    graph: GraphitiGraphStore
    chunks: GraphitiChunkStore
    concepts: GraphitiConceptStore


async def open_graphiti(
    graph: str,
    *,
    query_spec: EmbeddingSpec,
    embedding_model: str | None = None,
    url: str | None = None,
    socket_path: str | Path | None = None,
    deadline: float = 10.0,
) -> GraphitiStores:
    """The stores of graphiti graph ``graph`` on the server at ``url`` or ``socket_path``.

    ``query_spec`` is the configured embedder's; ``embedding_model`` the model the graph's
    vectors came from (graphiti does not record it), without which they are not used.
    """
    connection = await GraphitiConnection.connect(
        graph, url=url, socket_path=socket_path, deadline=deadline
    )
    gate = VectorGate(connection, embedding_model)
    return GraphitiStores(
        graph=GraphitiGraphStore(connection, gate, query_spec),
        chunks=GraphitiChunkStore(connection, gate),
        concepts=GraphitiConceptStore(connection),
    )


async def graphiti_graphs(
    *, url: str | None = None, socket_path: str | Path | None = None, deadline: float = 10.0
) -> list[str]:
    """The graphs on a FalkorDB server that look like graphiti's, sorted."""
    connection = await GraphitiConnection.open(url=url, socket_path=socket_path, deadline=deadline)
    try:
        return await connection.graphiti_graphs()
    finally:
        await connection.aclose()
