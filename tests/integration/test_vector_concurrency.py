"""Concurrent vector searches on the real FalkorDB answer as one search alone does.

FalkorDB's HNSW search shares its visited-node state between concurrent queries (upstream issue
FalkorDB/FalkorDB#2848), so two searches running at once could return a node twice and lose
real neighbours, or none at all once a scope or period filter follows. The store runs its
vector searches one at a time; this checks the answers, not the lock.
"""

from __future__ import annotations

import asyncio
import random

from explorer.adapters.falkor.store import FalkorGraphStore
from explorer.core.models import Entity

DIMENSION = 16
ENTITIES = 600


async def test_concurrent_vector_searches_answer_as_one_alone(
    graph_store: FalkorGraphStore,
) -> None:
    rng = random.Random(11)
    entities = [
        Entity(id=f"e{n}", name=f"thing {n}", type="other", scope="acme") for n in range(ENTITIES)
    ]
    vectors = {e.id: [rng.gauss(0.0, 1.0) for _ in range(DIMENSION)] for e in entities}
    await graph_store.upsert(entities, [], vectors=vectors)
    queries = [[rng.gauss(0.0, 1.0) for _ in range(DIMENSION)] for _ in range(6)]

    async def ranked(vector: list[float]) -> list[str]:
        found = await graph_store.ranked_entities("", 40, vector=vector, scope="acme")
        return [hit.id for hit in found]

    alone = [await ranked(vector) for vector in queries]
    assert all(len(ids) == len(set(ids)) == 40 for ids in alone)
    for round_ in range(40):
        together = await asyncio.gather(*(ranked(vector) for vector in queries))
        assert together == alone, round_
