"""A graphiti graph written by graphiti-core's own code, for the tests of the graphiti adapter.

No LLM is involved: the nodes and edges graphiti would extract are built directly with
``EntityNode``, ``EpisodicNode``, ``EntityEdge``, ``EpisodicEdge``, ``CommunityNode``,
``CommunityEdge``, ``SagaNode`` and ``HasEpisodeEdge`` and stored with their ``save()`` through
``FalkorDriver(falkor_db=...)``, after graphiti's own index build. Embeddings come from
``HashEmbedder``, a small deterministic bag-of-words embedder (also usable as the explorer's
query embedder). ``graph_snapshot`` reads back every node, edge and index with all properties,
to prove that reading the graph wrote nothing.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from falkordb import FalkorDB as SyncFalkorDB
from falkordb.asyncio import FalkorDB
from graphiti_core.driver.falkordb_driver import FalkorDriver
from graphiti_core.edges import CommunityEdge, EntityEdge, EpisodicEdge, HasEpisodeEdge
from graphiti_core.nodes import CommunityNode, EntityNode, EpisodeType, EpisodicNode, SagaNode

from explorer.core.models import EmbeddingSpec

DIMENSION = 16
MODEL = "test-hash-16"
GROUP = "acme"
OTHER_GROUP = "racing"


def _vector(text: str) -> list[float]:
    values = [0.0] * DIMENSION
    for word in re.findall(r"\w+", text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        values[digest[0] % DIMENSION] += 1.0 if digest[1] % 2 else -1.0
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


class HashEmbedder:
    """Deterministic unit vectors from hashed words (an ``Embedder`` of the explorer)."""

    spec = EmbeddingSpec(MODEL, DIMENSION)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [_vector(text) for text in texts]


def at(month: int, day: int, hour: int = 10) -> datetime:
    return datetime(2026, month, day, hour, tzinfo=UTC)


@dataclass
class GraphitiFixture:
    """What the tests look for, by name."""

    graph: str
    entities: dict[str, str] = field(default_factory=dict)  # name -> uuid
    episodes: dict[str, str] = field(default_factory=dict)  # key -> uuid
    contents: dict[str, str] = field(default_factory=dict)  # key -> text
    facts: dict[str, str] = field(default_factory=dict)  # key -> uuid


EPISODES = (
    # key, group, source, description, content, valid_at
    (
        "dog",
        GROUP,
        EpisodeType.message,
        "chat with Maya",
        "Maya: I adopted a greyhound called Biscuit.",
        at(1, 10),
    ),
    (
        "lisbon",
        GROUP,
        EpisodeType.message,
        "chat with Maya",
        "Maya: We moved from Porto to Lisbon last week, maya loves the light.",
        at(2, 1),
    ),
    (
        "berlin",
        GROUP,
        EpisodeType.message,
        "chat with Maya",
        "Maya: I left Lisbon; I live in Berlin now and work at Zalando.",
        at(5, 3),
    ),
    (
        "race",
        OTHER_GROUP,
        EpisodeType.text,
        "race notes",
        "Tom ran the Lisbon marathon in spring.",
        at(4, 12),
    ),
)

ENTITIES: tuple[tuple[str, str, list[str], str, tuple[str, ...]], ...] = (
    # name, group, labels, summary, mentioned in
    (
        "Maya",
        GROUP,
        ["Person"],
        "Maya moved from Porto to Lisbon, then to Berlin.",
        ("dog", "lisbon", "berlin"),
    ),
    ("Biscuit", GROUP, ["Animal"], "Maya's greyhound.", ("dog",)),
    ("Porto", GROUP, ["Location"], "A city in Portugal.", ("lisbon",)),
    ("Lisbon", GROUP, ["Location"], "The capital of Portugal.", ("lisbon", "berlin")),
    ("Berlin", GROUP, ["Location"], "The capital of Germany.", ("berlin",)),
    ("Zalando", GROUP, [], "An online retailer in Berlin.", ("berlin",)),
    ("Tom", OTHER_GROUP, ["Person"], "A runner.", ("race",)),
    ("Lisbon Marathon", OTHER_GROUP, ["Event"], "A race in Lisbon.", ("race",)),
)

FACTS = (
    # key, source, name, target, fact, episodes, valid_at, invalid_at, expired_at
    ("dog", "Maya", "OWNS", "Biscuit", "Maya adopted a greyhound called Biscuit", ("dog",),
     at(1, 10), None, None),
    ("porto", "Maya", "LIVES_IN", "Porto", "Maya lives in Porto", ("lisbon",),
     None, at(1, 25), at(2, 1)),
    ("lisbon", "Maya", "LIVES_IN", "Lisbon", "Maya lives in Lisbon", ("lisbon",),
     at(1, 25), at(5, 1), at(5, 3)),
    ("berlin", "Maya", "LIVES_IN", "Berlin", "Maya lives in Berlin", ("berlin",),
     at(5, 1), None, None),
    ("work", "Maya", "WORKS_AT", "Zalando", "Maya works at Zalando", ("berlin",),
     at(5, 3), None, None),
    ("race", "Tom", "RAN", "Lisbon Marathon", "Tom ran the Lisbon marathon", ("race",),
     at(4, 12), None, None),
)  # fmt: skip


async def write_graphiti_graph(socket_path: str | Path, graph: str) -> GraphitiFixture:
    """Write the fixture graph with graphiti-core 0.31's own driver and models."""
    client = FalkorDB(unix_socket_path=str(socket_path))
    driver = FalkorDriver(falkor_db=client, database=graph)
    fixture = GraphitiFixture(graph=graph)
    try:
        await driver.build_indices_and_constraints()  # type: ignore[no-untyped-call]
        episodes: dict[str, EpisodicNode] = {}
        for key, group, source, description, content, valid_at in EPISODES:
            episode = EpisodicNode(
                name=key,
                group_id=group,
                source=source,
                source_description=description,
                content=content,
                valid_at=valid_at,
                created_at=valid_at,
            )
            episodes[key] = episode
            fixture.episodes[key] = episode.uuid
            fixture.contents[key] = content
        nodes: dict[str, EntityNode] = {}
        for name, group, labels, summary, _ in ENTITIES:
            node = EntityNode(
                name=name,
                group_id=group,
                labels=labels,
                summary=summary,
                name_embedding=_vector(name),
                created_at=at(1, 1),
            )
            nodes[name] = node
            fixture.entities[name] = node.uuid
            await node.save(driver)
        for key, subject, name, target, fact, sources, since, invalid_at, expired_at in FACTS:
            edge = EntityEdge(
                source_node_uuid=nodes[subject].uuid,
                target_node_uuid=nodes[target].uuid,
                name=name,
                fact=fact,
                fact_embedding=_vector(fact),
                group_id=nodes[subject].group_id,
                episodes=[episodes[k].uuid for k in sources],
                created_at=episodes[sources[0]].valid_at,
                valid_at=since,
                invalid_at=invalid_at,
                expired_at=expired_at,
            )
            fixture.facts[key] = edge.uuid
            await edge.save(driver)
            for k in sources:
                episodes[k].entity_edges.append(edge.uuid)
        for episode in episodes.values():
            await episode.save(driver)
        for name, group, _, _, mentioned_in in ENTITIES:
            for key in mentioned_in:
                await EpisodicEdge(
                    source_node_uuid=episodes[key].uuid,
                    target_node_uuid=nodes[name].uuid,
                    group_id=group,
                    created_at=episodes[key].valid_at,
                ).save(driver)
        # A community and a saga, as graphiti's later steps write them: read past, never shown.
        community = CommunityNode(
            name="Maya's cities",
            group_id=GROUP,
            summary="Where Maya lived",
            name_embedding=_vector("cities"),
            created_at=at(5, 4),
        )
        await community.save(driver)
        for name in ("Lisbon", "Berlin"):
            await CommunityEdge(
                source_node_uuid=community.uuid,
                target_node_uuid=nodes[name].uuid,
                group_id=GROUP,
                created_at=at(5, 4),
            ).save(driver)
        saga = SagaNode(name="Maya's moves", group_id=GROUP, created_at=at(5, 4))
        await saga.save(driver)
        await HasEpisodeEdge(
            source_node_uuid=saga.uuid,
            target_node_uuid=episodes["lisbon"].uuid,
            group_id=GROUP,
            created_at=at(5, 4),
        ).save(driver)
    finally:
        await driver.close()
    return fixture


def graph_snapshot(socket_path: str | Path, graph: str) -> list[list[str]]:
    """Every node (internal id, labels, every property), every edge (internal id, type, ends,
    every property) and every index (label, fields, kinds), sorted: equal snapshots mean
    nothing was written. (``DUMP`` is no fingerprint: FalkorDB serialises some sets in a
    varying order.)"""
    client = SyncFalkorDB(unix_socket_path=str(socket_path))
    try:
        handle = client.select_graph(graph)
        statements = (
            "MATCH (n) RETURN id(n), labels(n), properties(n)",
            "MATCH (a)-[r]->(b) RETURN id(r), type(r), id(a), id(b), properties(r)",
            "CALL db.indexes() YIELD label, properties, types, entitytype "
            "RETURN label, properties, types, entitytype",
        )
        return [sorted(repr(row) for row in handle.ro_query(q).result_set) for q in statements]
    finally:
        client.connection.close()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tests.graphiti_graph DATA_DIR GRAPH``: write the fixture graph into the
    embedded FalkorDB of DATA_DIR (started if needed, left running), to look at it."""
    import asyncio
    import sys

    from explorer.adapters.embedded import EmbeddedServers

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m tests.graphiti_graph DATA_DIR GRAPH", file=sys.stderr)
        return 2
    servers = EmbeddedServers(Path(args[0]))
    servers.start()
    fixture = asyncio.run(write_graphiti_graph(servers.falkordb_socket, args[1]))
    print(
        f"graphiti graph {fixture.graph!r}: {len(fixture.entities)} entities, "
        f"{len(fixture.facts)} facts, {len(fixture.episodes)} episodes"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
