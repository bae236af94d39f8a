"""The synthetic memory generator against the real embedded stores and the local embedder."""

from __future__ import annotations

import random

from explorer.adapters.falkor import FalkorGraphStore
from explorer.adapters.local_embedder import LocalEmbedder
from explorer.adapters.postgres.chunks import PgChunkStore
from explorer.adapters.postgres.concepts import PgConceptStore
from explorer.ingest.concepts import concept_agent
from explorer.ingest.generate import generate

SCOPE = "synthetic/test"


async def test_a_tiny_memory_lands_in_both_stores_with_exact_provenance(
    graph_store: FalkorGraphStore,
    chunk_store: PgChunkStore,
    concept_store: PgConceptStore,
    embedder: LocalEmbedder,
) -> None:
    report = await generate(
        graph_store,
        chunk_store,
        concept_store,
        embedder,
        entities=500,
        edges=1_500,
        chunks_n=600,
        seed=3,
        scope=SCOPE,
    )
    assert (report.entities, report.relations, report.chunks) == (500, 1_500, 600)
    assert report.chunks_new == 600 and report.concepts == 500

    graph_counts = await graph_store.counts()
    assert graph_counts["entities"] == 500
    assert graph_counts["relations"] == 1_500
    assert (await chunk_store.counts())["chunks"] == 600
    assert await chunk_store.embedding_spec() == embedder.spec
    names = await concept_store.names(concept_agent(SCOPE))
    assert len(names) == 500

    # Provenance round trip: every stored span is its entity's name in the stored chunk.
    entity_ids: list[str] = []
    for name in random.Random(1).sample(names, 5):
        found = await graph_store.search_entities(name, 5, scope=SCOPE)
        assert found and found[0].entity.name == name
        entity_ids.extend(hit.entity.id for hit in found)
    entities = await graph_store.get_entities(entity_ids)
    chunk_ids = sorted({m.chunk_id for e in entities for m in e.mentions})
    chunks = {chunk.id: chunk for chunk in await chunk_store.get(chunk_ids)}
    assert set(chunks) == set(chunk_ids)
    for entity in entities:
        assert entity.mentions
        for mention in entity.mentions:
            assert chunks[mention.chunk_id].text[mention.start : mention.end] == entity.name
    in_chunks = await graph_store.entities_in_chunks(chunk_ids[:10])
    assert all(in_chunks[chunk_id] for chunk_id in chunk_ids[:10])

    # The vector half finds a chunk by its own words.
    target = chunks[chunk_ids[0]]
    vector = (await embedder.embed([target.text]))[0]
    nearest = await chunk_store.search(vector, 3, spec=embedder.spec, scope=SCOPE)
    assert nearest[0].chunk.id == target.id

    # Same seed again: stable ids, nothing added.
    again = await generate(
        graph_store,
        chunk_store,
        concept_store,
        embedder,
        entities=500,
        edges=1_500,
        chunks_n=600,
        seed=3,
        scope=SCOPE,
    )
    assert again.chunks_new == 0
    assert (await graph_store.counts())["entities"] == 500
    assert (await graph_store.counts())["relations"] == 1_500
    assert (await chunk_store.counts())["chunks"] == 600
    assert len(await concept_store.names(concept_agent(SCOPE))) == 500
