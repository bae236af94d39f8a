"""Writes a synthetic memory of any size into real stores, fast: the benchmark's data generator.

``generate`` plans the memory (``ingest.synthetic``, off the event loop), then streams it into the
stores through the ports' bulk upserts in large batches, embedding the next batch while the
previous one is written, with the chunk store and the graph filled side by side: chunks with their
vectors; entities with their provenance, then relations, then entity name vectors; then one
concept record per entity. Stable ids make a second run with the same seed add nothing. Imports
the standard library, core models and ports, and the ingest planner.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TypeVar

from explorer.core.errors import InvalidArgument, WriteFailed
from explorer.core.models import (
    Chunk,
    EmbeddingSpec,
    Entity,
    Relation,
    chunk_embedding_text,
    scope_parts,
)
from explorer.core.ports import ChunkStore, ConceptStore, Embedder, GraphStore
from explorer.ingest.concepts import concept_records
from explorer.ingest.progress import Progress, ProgressCallback
from explorer.ingest.synthetic import DEFAULT_END, SCALES, Scale, SyntheticMemory, plan_memory

__all__ = ["PHASES", "SCALES", "GenerateReport", "Scale", "generate"]

#: The phases reported to the progress callback. Chunks and the graph are written side by side,
#: so ``chunks`` interleaves with ``entities``, ``relations`` and ``vectors`` (entity names).
PHASES = ("plan", "chunks", "entities", "relations", "vectors", "concepts")

CHUNK_BATCH = 2_000
ENTITY_BATCH = 2_000
RELATION_BATCH = 10_000
CONCEPT_BATCH = 5_000

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class GenerateReport:
    """What a generation wrote and how long each stage took (seconds, wall clock)."""

    entities: int
    relations: int
    chunks: int
    chunks_new: int
    concepts: int
    mentions: int
    seed: int
    scope: str
    spec: EmbeddingSpec
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def total_seconds(self) -> float:
        return self.seconds.get("total", 0.0)

    @property
    def records_per_second(self) -> float:
        """Entities, relations and chunks written per second over the whole run."""
        total = self.total_seconds
        return (self.entities + self.relations + self.chunks) / total if total > 0 else 0.0

    def as_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["spec"] = {"model": self.spec.model, "dimension": self.spec.dimension}
        data["records_per_second"] = round(self.records_per_second, 1)
        return data


class _Clock:
    """Wall-clock seconds per stage, plus time spent inside the embedder (which overlaps)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def add(self, stage: str, seconds: float) -> None:
        self.seconds[stage] = round(self.seconds.get(stage, 0.0) + seconds, 3)

    async def timed(self, stage: str, work: Awaitable[T]) -> T:
        started = time.perf_counter()
        try:
            return await work
        finally:
            self.add(stage, time.perf_counter() - started)


class _Phases:
    """Reports ``Progress`` for several phases that may run at the same time."""

    def __init__(self, callback: ProgressCallback | None) -> None:
        self._callback = callback
        self._started: dict[str, float] = {}

    def __call__(self, phase: str, done: int, total: int) -> None:
        if self._callback is None:
            return
        now = time.monotonic()
        started = self._started.setdefault(phase, now)
        elapsed = now - started
        rate = done / elapsed if elapsed > 0 else 0.0
        self._callback(Progress(phase, done, total, rate, elapsed))


def _batches(items: Sequence[T], size: int) -> list[Sequence[T]]:
    return [items[start : start + size] for start in range(0, len(items), size)]


def _growing_batches(items: Sequence[T], first: int) -> list[Sequence[T]]:
    """Batches at least as large as everything before them: ``first``, ``first``, 2×, 4×...

    A vector index grows about five times faster rebuilt in bulk than one row at a time, and a
    store can only rebuild when a batch holds at least as many rows as it already has; batches
    that double keep every write on the bulk path while the next one is embedded meanwhile.
    """
    batches: list[Sequence[T]] = []
    start = 0
    while start < len(items):
        size = max(first, start)
        batches.append(items[start : start + size])
        start += size
    return batches


async def _embed_and_write(
    batches: Sequence[Sequence[T]],
    texts: Callable[[Sequence[T]], list[str]],
    embedder: Embedder,
    write: Callable[[Sequence[T], list[list[float]]], Awaitable[None]],
    clock: _Clock,
) -> None:
    """Write each batch with its vectors while the next batch is being embedded."""
    if not batches:
        return

    def embed(batch: Sequence[T]) -> asyncio.Future[list[list[float]]]:
        return asyncio.ensure_future(clock.timed("embed", embedder.embed(texts(batch))))

    upcoming = embed(batches[0])
    try:
        for index, batch in enumerate(batches):
            vectors = await upcoming
            if len(vectors) != len(batch):
                raise InvalidArgument(
                    f"the embedder returned {len(vectors)} vectors for {len(batch)} texts"
                )
            if index + 1 < len(batches):
                upcoming = embed(batches[index + 1])
            await write(batch, vectors)
    finally:
        if not upcoming.done():
            upcoming.cancel()
            await asyncio.gather(upcoming, return_exceptions=True)


async def generate(
    graph: GraphStore,
    chunks: ChunkStore,
    concepts: ConceptStore | None,
    embedder: Embedder,
    *,
    entities: int = SCALES["seed"].entities,
    edges: int = SCALES["seed"].edges,
    chunks_n: int = SCALES["seed"].chunks,
    seed: int = 0,
    scope: str = "synthetic",
    progress: ProgressCallback | None = None,
) -> GenerateReport:
    """Plan a synthetic memory of this size and write it into the stores.

    Deterministic for a seed: the same arguments write the same ids, texts and vectors, so a
    second run adds nothing. Raises the stores' own errors (``StoreUnavailable``,
    ``EmbeddingMismatch``, ``WriteFailed``) unchanged.
    """
    if not scope_parts(scope):
        raise InvalidArgument("the synthetic memory needs a non-empty scope")
    report_progress = _Phases(progress)
    clock = _Clock()
    started = time.perf_counter()
    report_progress("plan", 0, 1)
    memory = await clock.timed(
        "plan",
        asyncio.to_thread(
            plan_memory, entities=entities, edges=edges, chunks=chunks_n, seed=seed, scope=scope
        ),
    )
    report_progress("plan", 1, 1)
    spec = embedder.spec
    new_chunks = await _write_both_stores(
        graph, chunks, embedder, memory, spec, clock, report_progress
    )
    records = 0
    if concepts is not None:
        records = await clock.timed("concepts", _write_concepts(concepts, memory, report_progress))
    clock.add("total", time.perf_counter() - started)
    return GenerateReport(
        entities=len(memory.entities),
        relations=len(memory.relations),
        chunks=len(memory.chunks),
        chunks_new=new_chunks,
        concepts=records,
        mentions=sum(len(entity.mentions) for entity in memory.entities),
        seed=seed,
        scope=scope,
        spec=spec,
        seconds=dict(clock.seconds),
    )


async def _write_both_stores(
    graph: GraphStore,
    chunk_store: ChunkStore,
    embedder: Embedder,
    memory: SyntheticMemory,
    spec: EmbeddingSpec,
    clock: _Clock,
    progress: _Phases,
) -> int:
    """Fill the chunk store and the graph concurrently; returns how many chunks were new."""
    written = {"chunks": 0, "new": 0, "entities": 0, "relations": 0, "vectors": 0}

    async def write_chunks(batch: Sequence[Chunk], vectors: list[list[float]]) -> None:
        written["new"] += await chunk_store.upsert(batch, vectors, spec)
        written["chunks"] += len(batch)
        progress("chunks", written["chunks"], len(memory.chunks))

    async def write_entities(batch: Sequence[Entity]) -> None:
        await graph.upsert(batch, ())
        written["entities"] += len(batch)
        progress("entities", written["entities"], len(memory.entities))

    async def write_vectors(batch: Sequence[Entity], vectors: list[list[float]]) -> None:
        by_id: Mapping[str, list[float]] = {
            entity.id: vector for entity, vector in zip(batch, vectors, strict=True)
        }
        await graph.upsert((), (), vectors=by_id)
        written["vectors"] += len(batch)
        progress("vectors", written["vectors"], len(memory.entities))

    async def write_relations(batch: Sequence[Relation]) -> None:
        await graph.upsert((), batch)
        written["relations"] += len(batch)
        progress("relations", written["relations"], len(memory.relations))

    async def fill_chunks() -> None:
        progress("chunks", 0, len(memory.chunks))
        await _embed_and_write(
            _growing_batches(memory.chunks, CHUNK_BATCH),
            lambda batch: [chunk_embedding_text(chunk.speaker, chunk.text) for chunk in batch],
            embedder,
            write_chunks,
            clock,
        )

    async def fill_graph() -> None:
        # Vectors go last: the vector index makes every later write to an entity node dearer.
        started = time.perf_counter()
        progress("entities", 0, len(memory.entities))
        for entity_batch in _batches(memory.entities, ENTITY_BATCH):
            await write_entities(entity_batch)
        clock.add("entities", time.perf_counter() - started)
        started = time.perf_counter()
        progress("relations", 0, len(memory.relations))
        for relation_batch in _batches(memory.relations, RELATION_BATCH):
            await write_relations(relation_batch)
        clock.add("relations", time.perf_counter() - started)
        progress("vectors", 0, len(memory.entities))
        await clock.timed(
            "vectors",
            _embed_and_write(
                _batches(memory.entities, ENTITY_BATCH),
                lambda batch: [entity.name for entity in batch],
                embedder,
                write_vectors,
                clock,
            ),
        )

    await _gather_or_cancel(
        [clock.timed("chunks", fill_chunks()), clock.timed("graph", fill_graph())]
    )
    return written["new"]


async def _gather_or_cancel(work: Sequence[Awaitable[None]]) -> None:
    tasks = [asyncio.ensure_future(item) for item in work]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def _write_concepts(
    concepts: ConceptStore, memory: SyntheticMemory, progress: _Phases
) -> int:
    chunks = {chunk.id: chunk for chunk in memory.chunks}
    # Stamped with the memory's own end, not the clock, so a seed always writes the same records.
    records = await asyncio.to_thread(concept_records, memory.entities, chunks, now=DEFAULT_END)
    total = sum(len(group) for group in records.values())
    written = 0
    progress("concepts", 0, total)
    for agent in sorted(records):
        for batch in _batches(records[agent], CONCEPT_BATCH):
            count = await concepts.upsert(agent, batch)
            if count != len(batch):
                raise WriteFailed(
                    f"the concept store acknowledged {count} of {len(batch)} records for {agent!r}"
                )
            written += count
            progress("concepts", written, total)
    return written
