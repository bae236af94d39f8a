"""Re-embedding a memory with another model, on the real embedded stores.

A small import is embedded with the local embedder; then ``reembed_all`` switches it to a hashing
embedder of another name and dimension written for these tests. Interrupted re-embeds must leave
each store searchable with the model it had.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from pathlib import Path

import asyncpg
import pytest

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.falkor import FalkorGraphStore
from explorer.adapters.local_embedder import LocalEmbedder
from explorer.adapters.postgres.chunks import PgChunkStore
from explorer.adapters.postgres.concepts import PgConceptStore
from explorer.core.errors import EmbeddingMismatch, ModelServiceError
from explorer.core.models import Chunk, EmbeddingSpec, Entity, chunk_embedding_text
from explorer.ingest.pipeline import Stores, ingest_file, reembed_all
from explorer.ingest.progress import Progress

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "ingest"
SOURCES = [(FIXTURES / "benchmark_small.json", "locomo"), (FIXTURES / "messages.jsonl", "jsonl")]


class HashingEmbedder:
    """Hashed character trigrams, unit length: a text's nearest vector is its own."""

    def __init__(self, dimension: int = 64, model: str = "test-trigram-hash") -> None:
        self._spec = EmbeddingSpec(model=model, dimension=dimension)
        self.calls = 0
        self.fail_on_call: int | None = None

    @property
    def spec(self) -> EmbeddingSpec:
        return self._spec

    def vector(self, text: str) -> list[float]:
        values = [0.0] * self._spec.dimension
        padded = f"  {text.casefold()}  "
        for start in range(len(padded) - 2):
            digest = hashlib.blake2b(padded[start : start + 3].encode(), digest_size=4).digest()
            values[int.from_bytes(digest, "big") % self._spec.dimension] += 1.0
        norm = math.sqrt(sum(v * v for v in values)) or 1.0
        return [v / norm for v in values]

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        if self.fail_on_call is not None and self.calls >= self.fail_on_call:
            raise ModelServiceError("the embedding service went away")
        return [self.vector(text) for text in texts]


@pytest.fixture
async def stores(
    graph_store: FalkorGraphStore,
    chunk_store: PgChunkStore,
    concept_store: PgConceptStore,
    embedder: LocalEmbedder,
) -> Stores:
    imported = Stores(chunk_store, graph_store, concept_store, embedder)
    for path, fmt in SOURCES:
        report = await ingest_file(imported, path, fmt)
        assert report.ok and report.chunks_new > 0
    return imported


async def all_chunks(store: PgChunkStore) -> list[Chunk]:
    return await store.scope_chunks(None)


async def all_entities(graph: FalkorGraphStore, chunks: Sequence[Chunk]) -> list[Entity]:
    mentioned = await graph.entities_in_chunks([chunk.id for chunk in chunks])
    return await graph.get_entities(sorted({i for ids in mentioned.values() for i in ids}))


async def counts(chunks: PgChunkStore, graph: FalkorGraphStore) -> tuple[object, ...]:
    c, g = await chunks.counts(), await graph.counts()
    return c["chunks"], c["pending"], g["entities"], g["relations"], g["mentions"]


async def staging_left(servers: EmbeddedServers, schema: str) -> bool:
    conn = await asyncpg.connect(servers.postgres_dsn, timeout=10)
    try:
        return bool(
            await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", f"{schema}.chunk_reembed")
        )
    finally:
        await conn.close()


def distinctive(entities: Sequence[Entity]) -> Entity:
    """An entity whose name no other entity's name contains, so its own vector is nearest."""
    names = [entity.name.casefold() for entity in entities]
    for entity in sorted(entities, key=lambda e: (-len(e.name), e.id)):
        if re.search(r"\w{4}", entity.name) and names.count(entity.name.casefold()) == 1:
            return entity
    raise AssertionError("no distinctive entity name")


async def test_reembed_switches_both_stores_to_the_new_model(
    stores: Stores, chunk_store: PgChunkStore, graph_store: FalkorGraphStore
) -> None:
    old_spec = await chunk_store.embedding_spec()
    assert old_spec == stores.embedder.spec and old_spec.dimension == 256
    before = await counts(chunk_store, graph_store)
    chunks = await all_chunks(chunk_store)
    entities = await all_entities(graph_store, chunks)
    assert len(chunks) == before[0] and len(entities) > 10
    old_query = (await stores.embedder.embed([chunks[0].text]))[0]

    new = HashingEmbedder()
    seen: list[Progress] = []
    report = await reembed_all(
        Stores(chunk_store, graph_store, stores.concepts, new), progress=seen.append
    )

    assert report.chunks == len(chunks)
    assert report.entities == before[2]
    assert report.spec == new.spec and report.previous == old_spec
    assert await chunk_store.embedding_spec() == new.spec
    assert await counts(chunk_store, graph_store) == before
    finals = {p.phase: p for p in seen if p.finished and p.total}
    assert finals["chunks"].done == len(chunks) and finals["entities"].done == before[2]
    assert [p.phase for p in seen].index("chunks") < [p.phase for p in seen].index("entities")

    for chunk in chunks:
        hits = await chunk_store.search(
            new.vector(chunk_embedding_text(chunk.speaker, chunk.text)), 1, spec=new.spec
        )
        assert hits and hits[0].chunk.id == chunk.id
        assert hits[0].similarity == pytest.approx(1.0, abs=1e-4)
    with pytest.raises(EmbeddingMismatch):
        await chunk_store.search(old_query, 3, spec=old_spec)

    target = distinctive(entities)
    found = await graph_store.search_entities("", 3, vector=new.vector(target.name))
    assert found and found[0].entity.id == target.id
    assert found[0].similarity == pytest.approx(1.0, abs=1e-3)
    with pytest.raises(EmbeddingMismatch):
        await graph_store.search_entities("", 3, vector=old_query)


async def test_reembed_with_the_stored_spec_redoes_the_vectors(
    stores: Stores, chunk_store: PgChunkStore, graph_store: FalkorGraphStore
) -> None:
    before = await counts(chunk_store, graph_store)
    report = await reembed_all(stores)
    assert (report.chunks, report.entities) == (before[0], before[2])
    assert report.spec == report.previous == await chunk_store.embedding_spec()
    chunk = (await all_chunks(chunk_store))[3]
    vector = (await stores.embedder.embed([chunk.text]))[0]
    hits = await chunk_store.search(vector, 1, spec=stores.embedder.spec)
    assert hits[0].chunk.id == chunk.id


async def test_an_interrupted_chunk_reembed_leaves_the_old_model_working(
    stores: Stores,
    chunk_store: PgChunkStore,
    graph_store: FalkorGraphStore,
    servers: EmbeddedServers,
    pg_schema: str,
) -> None:
    old_spec = await chunk_store.embedding_spec()
    assert old_spec is not None
    before = await counts(chunk_store, graph_store)
    chunk = (await all_chunks(chunk_store))[5]
    old_query = (await stores.embedder.embed([chunk.text]))[0]
    failing = HashingEmbedder(dimension=48)
    failing.fail_on_call = 3

    with pytest.raises(ModelServiceError):
        await chunk_store.reembed(failing.embed, failing.spec, batch=4)

    assert failing.calls == 3  # two batches were staged before the failure
    assert await chunk_store.embedding_spec() == old_spec
    hits = await chunk_store.search(old_query, 1, spec=old_spec)
    assert hits[0].chunk.id == chunk.id
    with pytest.raises(EmbeddingMismatch):
        await chunk_store.search(
            failing.vector(chunk_embedding_text(chunk.speaker, chunk.text)), 1, spec=failing.spec
        )
    assert not await staging_left(servers, pg_schema)
    assert await counts(chunk_store, graph_store) == before

    # Running it again starts over and succeeds.
    failing.fail_on_call = None
    assert await chunk_store.reembed(failing.embed, failing.spec, batch=4) == before[0]
    hits = await chunk_store.search(
        failing.vector(chunk_embedding_text(chunk.speaker, chunk.text)), 1, spec=failing.spec
    )
    assert hits[0].chunk.id == chunk.id


async def test_an_interrupted_entity_reembed_leaves_the_old_vectors_working(
    stores: Stores, chunk_store: PgChunkStore, graph_store: FalkorGraphStore
) -> None:
    entities = await all_entities(graph_store, await all_chunks(chunk_store))
    target = distinctive(entities)
    old_vector = (await stores.embedder.embed([target.name]))[0]
    failing = HashingEmbedder(dimension=32)
    failing.fail_on_call = 2

    with pytest.raises(ModelServiceError):
        await graph_store.reembed_entities(failing.embed, 32, batch=5)

    found = await graph_store.search_entities("", 3, vector=old_vector)
    assert found and found[0].entity.id == target.id
    with pytest.raises(EmbeddingMismatch):
        await graph_store.search_entities("", 3, vector=failing.vector(target.name))

    failing.fail_on_call = None
    total = (await graph_store.counts())["entities"]
    assert await graph_store.reembed_entities(failing.embed, 32, batch=5) == total
    found = await graph_store.search_entities("", 3, vector=failing.vector(target.name))
    assert found and found[0].entity.id == target.id
