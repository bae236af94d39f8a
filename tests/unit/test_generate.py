"""The synthetic memory planner and the generator's writing, with in-memory fake stores."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.core.errors import InvalidArgument
from explorer.core.models import Chunk, EmbeddingSpec, Entity, Relation
from explorer.core.ports import Vector
from explorer.ingest.generate import PHASES, GenerateReport, _growing_batches, generate
from explorer.ingest.progress import Progress
from explorer.ingest.synthetic import (
    DEFAULT_END,
    DOMAINS,
    SCALES,
    SPAN,
    SyntheticMemory,
    plan_memory,
)


@pytest.fixture(scope="module")
def memory() -> SyntheticMemory:
    return plan_memory(entities=3_000, edges=9_000, chunks=3_600, seed=11)


def degrees(memory: SyntheticMemory) -> list[int]:
    counts = Counter({entity.id: 0 for entity in memory.entities})
    for relation in memory.relations:
        counts[relation.source_id] += 1
        counts[relation.target_id] += 1
    return sorted(counts.values(), reverse=True)


def test_counts_are_exact(memory: SyntheticMemory) -> None:
    assert len(memory.entities) == 3_000
    assert len(memory.relations) == 9_000
    assert len(memory.chunks) == 3_600
    assert len({e.id for e in memory.entities}) == 3_000
    assert len({r.id for r in memory.relations}) == 9_000
    assert len({c.id for c in memory.chunks}) == 3_600
    assert len({c.content_hash for c in memory.chunks}) == 3_600


def test_degrees_are_heavy_tailed(memory: SyntheticMemory) -> None:
    ranked = degrees(memory)
    mean = statistics.mean(ranked)
    # A random graph of the same density would top out near 2 × the mean; a power law does not.
    assert ranked[0] > 25 * mean
    assert statistics.median(ranked) <= mean
    top_one_percent = sum(ranked[: len(ranked) // 100])
    assert top_one_percent > 0.15 * sum(ranked)
    assert ranked[-1] >= 1  # the spanning tree leaves nobody isolated


def test_relations_are_well_formed(memory: SyntheticMemory) -> None:
    ids = {entity.id for entity in memory.entities}
    pairs = set()
    for relation in memory.relations:
        assert relation.source_id in ids and relation.target_id in ids
        assert relation.source_id != relation.target_id
        pairs.add(frozenset((relation.source_id, relation.target_id)))
        assert relation.fact
        if relation.valid_from and relation.valid_to:
            assert relation.valid_from < relation.valid_to
    assert len(pairs) == len(memory.relations)
    assert len({relation.type for relation in memory.relations}) > 15


def test_every_span_is_exactly_the_entity_name(memory: SyntheticMemory) -> None:
    chunks = {chunk.id: chunk for chunk in memory.chunks}
    names = {entity.id: entity.name for entity in memory.entities}
    for entity in memory.entities:
        for mention in entity.mentions:
            chunk = chunks[mention.chunk_id]
            assert chunk.text[mention.start : mention.end] == entity.name
            assert mention.timestamp == chunk.timestamp
    stated = 0
    for relation in memory.relations:
        for mention in relation.mentions:
            sentence = chunks[mention.chunk_id].text[mention.start : mention.end]
            assert names[relation.source_id] in sentence
            assert names[relation.target_id] in sentence
            stated += 1
    assert stated > len(memory.chunks)


def test_chunks_mention_one_to_four_entities_and_everyone_is_mentioned(
    memory: SyntheticMemory,
) -> None:
    per_chunk: dict[str, set[str]] = {chunk.id: set() for chunk in memory.chunks}
    for entity in memory.entities:
        assert entity.mentions, f"{entity.name} is never mentioned"
        for mention in entity.mentions:
            per_chunk[mention.chunk_id].add(entity.id)
    sizes = Counter(len(found) for found in per_chunk.values())
    assert set(sizes) <= {1, 2, 3, 4}
    assert sizes[4] > 0 and sizes[1] > 0


def test_time_spans_two_years_and_domains_are_known(memory: SyntheticMemory) -> None:
    stamps = [chunk.timestamp for chunk in memory.chunks]
    assert min(stamps) >= DEFAULT_END - SPAN
    assert max(stamps) <= DEFAULT_END
    assert max(stamps) - min(stamps) > timedelta(days=600)
    for chunk in memory.chunks:
        assert chunk.domains and set(chunk.domains) <= set(DOMAINS)
    for entity in memory.entities:
        assert entity.first_seen is not None and entity.last_seen is not None
        assert entity.first_seen <= entity.last_seen
        assert 0.0 <= entity.salience <= 1.0 and 0.0 < entity.confidence < 1.0
    positions = Counter(chunk.conversation_id for chunk in memory.chunks)
    assert 10 <= statistics.mean(positions.values()) <= 40


def test_same_seed_same_memory_other_seed_other_memory() -> None:
    first = plan_memory(entities=400, edges=1_200, chunks=500, seed=3)
    again = plan_memory(entities=400, edges=1_200, chunks=500, seed=3)
    other = plan_memory(entities=400, edges=1_200, chunks=500, seed=4)
    assert first == again
    assert [e.name for e in first.entities] != [e.name for e in other.entities]
    assert [c.text for c in first.chunks] != [c.text for c in other.chunks]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entities=st.integers(1, 60),
    edges=st.integers(0, 200),
    extra_chunks=st.integers(0, 40),
    seed=st.integers(0, 2**32),
)
def test_any_size_keeps_spans_exact_and_covers_every_entity(
    entities: int, edges: int, extra_chunks: int, seed: int
) -> None:
    chunks = entities + extra_chunks
    memory = plan_memory(entities=entities, edges=edges, chunks=chunks, seed=seed)
    assert len(memory.entities) == entities
    assert len(memory.relations) == min(edges, entities * (entities - 1) // 2)
    assert len(memory.chunks) == chunks
    texts = {chunk.id: chunk.text for chunk in memory.chunks}
    for entity in memory.entities:
        assert entity.mentions
        for mention in entity.mentions:
            assert texts[mention.chunk_id][mention.start : mention.end] == entity.name


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(InvalidArgument):
        plan_memory(entities=0, edges=0, chunks=0)
    with pytest.raises(InvalidArgument):
        plan_memory(entities=5, edges=-1, chunks=0)


def test_chunk_batches_never_shrink_below_what_came_before() -> None:
    sizes = [len(batch) for batch in _growing_batches(list(range(53_000)), 2_000)]
    assert sizes == [2_000, 2_000, 4_000, 8_000, 16_000, 21_000]
    assert [len(b) for b in _growing_batches(list(range(3)), 2_000)] == [3]
    assert _growing_batches([], 2_000) == []


def test_scales() -> None:
    assert SCALES["seed"].entities == 45_000
    assert SCALES["seed"].edges == 140_000
    assert SCALES["seed"].chunks == 53_000
    assert SCALES["small"].entities * 10 == SCALES["seed"].entities


# -- writing, with fakes -----------------------------------------------------------------------


class FakeEmbedder:
    def __init__(self) -> None:
        self.calls: list[int] = []

    @property
    def spec(self) -> EmbeddingSpec:
        return EmbeddingSpec("fake", 4)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(len(texts))
        return [[1.0, 0.0, 0.0, float(len(text) % 7)] for text in texts]


class FakeGraph:
    def __init__(self) -> None:
        self.entities: dict[str, Entity] = {}
        self.relations: dict[str, Relation] = {}
        self.vectors: dict[str, Vector] = {}

    async def upsert(
        self,
        entities: Sequence[Entity],
        relations: Sequence[Relation],
        *,
        vectors: Mapping[str, Vector] | None = None,
    ) -> None:
        for entity in entities:
            self.entities[entity.id] = entity
        for relation in relations:
            if relation.source_id not in self.entities or relation.target_id not in self.entities:
                raise InvalidArgument("relation before its entities")
            self.relations[relation.id] = relation
        self.vectors.update(vectors or {})


class FakeChunks:
    def __init__(self) -> None:
        self.rows: dict[str, tuple[Chunk, Vector]] = {}

    async def upsert(
        self,
        chunks: Sequence[Chunk],
        vectors: Sequence[Vector],
        spec: EmbeddingSpec,
        *,
        pending: bool = False,
    ) -> int:
        assert spec == EmbeddingSpec("fake", 4)
        new = 0
        for chunk, vector in zip(chunks, vectors, strict=True):
            if chunk.id not in self.rows:
                self.rows[chunk.id] = (chunk, vector)
                new += 1
        return new


class FakeConcepts:
    def __init__(self) -> None:
        self.records: dict[tuple[str, str | None, str], Mapping[str, object]] = {}

    async def upsert(
        self, agent: str, records: Sequence[Mapping[str, object]], tenant: str | None = None
    ) -> int:
        for record in records:
            self.records[(agent, tenant, str(record["name"]))] = record
        return len(records)


async def test_generate_writes_everything_through_the_ports() -> None:
    graph, chunks, concepts, embedder = FakeGraph(), FakeChunks(), FakeConcepts(), FakeEmbedder()
    seen: dict[str, tuple[int, int]] = {}

    def on_progress(step: Progress) -> None:
        assert step.phase in PHASES and 0 <= step.done <= step.total and step.rate >= 0
        seen[step.phase] = (step.done, step.total)

    report = await generate(
        graph,  # type: ignore[arg-type]
        chunks,  # type: ignore[arg-type]
        concepts,  # type: ignore[arg-type]
        embedder,
        entities=2_500,
        edges=7_000,
        chunks_n=4_500,
        seed=5,
        scope="bench/agent",
        progress=on_progress,
    )
    assert isinstance(report, GenerateReport)
    assert (report.entities, report.relations, report.chunks) == (2_500, 7_000, 4_500)
    assert report.chunks_new == 4_500 and report.concepts == 2_500
    assert len(graph.entities) == 2_500 and len(graph.relations) == 7_000
    assert set(graph.vectors) == set(graph.entities)
    assert len(chunks.rows) == 4_500
    assert {key[:2] for key in concepts.records} == {("bench/agent", None)}
    assert len(concepts.records) == 2_500
    owner = graph.entities[report_owner(graph)]
    record = concepts.records[("bench/agent", None, owner.name)]
    for key in ("description", "type", "confidence", "provenance", "sources", "body"):
        assert record[key], key
    assert record["occurrences"] == len(owner.mentions)
    assert sum(embedder.calls) == 2_500 + 4_500
    # Chunk batches double (2000, 2000, 500 left), each at least the size of all before it.
    assert embedder.calls.count(2_000) >= 2
    assert seen["chunks"] == (4_500, 4_500)
    assert seen["entities"] == (2_500, 2_500)
    assert seen["relations"] == (7_000, 7_000)
    assert seen["vectors"] == (2_500, 2_500)
    assert seen["concepts"] == (2_500, 2_500)
    for stage in ("plan", "chunks", "graph", "embed", "total"):
        assert report.seconds[stage] >= 0.0
    assert report.as_dict()["spec"] == {"model": "fake", "dimension": 4}

    again = await generate(
        graph,  # type: ignore[arg-type]
        chunks,  # type: ignore[arg-type]
        concepts,  # type: ignore[arg-type]
        embedder,
        entities=2_500,
        edges=7_000,
        chunks_n=4_500,
        seed=5,
        scope="bench/agent",
    )
    assert again.chunks_new == 0
    assert len(graph.entities) == 2_500 and len(graph.relations) == 7_000


def report_owner(graph: FakeGraph) -> str:
    """The memory's owner: the most-connected entity."""
    degree: Counter[str] = Counter()
    for relation in graph.relations.values():
        degree[relation.source_id] += 1
        degree[relation.target_id] += 1
    return degree.most_common(1)[0][0]


async def test_a_failing_store_stops_generation_and_propagates() -> None:
    class BrokenChunks(FakeChunks):
        async def upsert(
            self,
            chunks: Sequence[Chunk],
            vectors: Sequence[Vector],
            spec: EmbeddingSpec,
            *,
            pending: bool = False,
        ) -> int:
            raise InvalidArgument("refused")

    with pytest.raises(InvalidArgument, match="refused"):
        await generate(
            FakeGraph(),  # type: ignore[arg-type]
            BrokenChunks(),  # type: ignore[arg-type]
            None,
            FakeEmbedder(),
            entities=300,
            edges=900,
            chunks_n=400,
        )
