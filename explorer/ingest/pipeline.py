"""The ingest pipeline: files to chunks, entities, relations and concepts in both stores, safely.

There is no transaction across PostgreSQL and FalkorDB, so writes go in an order that a crash at
any point can be resumed from without loss or duplication:

1. the whole file is read and validated first (strict: nothing is written if a record is bad);
2. chunks are written to PostgreSQL marked *pending*, whole conversations per call (the store
   writes a call in one transaction), with stable ids and content hashes so a replay adds nothing;
3. entities and relations are extracted per conversation, names the user detached from an
   entity are kept off it (``refusals``), short names are folded into the
   full names of people known in the same scope (``short_names``), a bare name said once with
   nothing said of it is left out (``unfounded``), and the result is merged
   into the graph with idempotent ``MERGE``s on stable ids (``GraphStore.upsert``), then the
   concept records;
4. only then are the chunks marked done, all of the import's in one call, so a crash leaves
   either every chunk of it pending or none.

Re-running an interrupted import redoes steps 3–4 for all of its conversations in one write, the
write a clean import makes, so the stored content is the same (only the write times
``created_at``/``updated_at`` say when it happened). ``reconcile`` (run at the start of every
import for other imports' pending chunks, and by whoever opens a memory) redoes steps 3–4 for
pending chunks whose import is not being re-run.
A failed or timed-out write raises (``WriteFailed``/``StoreUnavailable``) and is never reported as
success; chunks it left pending are picked up next time. ``reembed_all`` gives every chunk and
entity name a vector from another embedding model, each store swapping them in only once all
are staged. Progress goes to an optional callback on the event loop's thread. Imports the
standard library, core and ingest modules; the stores come in through the ports.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol, TypeVar, cast

from explorer.core.errors import ExplorerError, InvalidArgument, StoreUnavailable, WriteFailed
from explorer.core.models import Chunk, EmbeddingSpec, Entity, Relation, chunk_embedding_text
from explorer.core.ports import ChunkStore, ConceptStore, Embedder, GraphStore
from explorer.ingest.aliases import merge_keys, merge_near_duplicates
from explorer.ingest.chunking import chunk_turns
from explorer.ingest.concepts import concept_records, merged_with_stored
from explorer.ingest.evidence import combine, score
from explorer.ingest.extractor import Extraction, Extractor, OfflineExtractor, speaker_type
from explorer.ingest.ids import entity_id
from explorer.ingest.importers import BadRecord, ImportLimits, Turn, read_turns
from explorer.ingest.progress import ProgressCallback, ProgressTracker
from explorer.ingest.refusals import honour_refusals
from explorer.ingest.short_names import merge_short_names, short_name
from explorer.ingest.stats import memory_stats, stats
from explorer.ingest.stores import MemoryStores, Stores
from explorer.ingest.unfounded import drop_unfounded

T = TypeVar("T")
log = logging.getLogger(__name__)

__all__ = [
    "IngestReport",
    "MemoryStores",
    "ReembedReport",
    "Stores",
    "ingest_file",
    "ingest_turns",
    "memory_stats",
    "reconcile",
    "reembed_all",
    "stats",
]

WRITE_BATCH = 500  # chunks per store call (whole conversations, so a large one goes alone)
EMBED_BATCH = 512
LOOKUP_BATCH = 5_000
# Messages of an import looked up in the other scopes, to tell a file imported a second time.
COPY_SAMPLE = 40
ENTITY_BATCH = 500
RELATION_BATCH = 2_000
CONCEPT_BATCH = 500
NAME_LOOKUP_K = 50  # graph hits read per short name when looking for its full name
NAME_LOOKUP_CONCURRENCY = 4
MAX_SPOKEN_PROVENANCE = 50
EXTRACT_CONCURRENCY = 2  # conversations extracted at once while chunks are still being written


@dataclass
class IngestReport:
    """What an import did; ``ok`` is false when bad records were skipped."""

    path: str = ""
    format: str = ""
    turns: int = 0
    chunks: int = 0
    chunks_new: int = 0
    duplicates: int = 0
    conversations: int = 0
    conversations_unchanged: int = 0
    entities: int = 0
    relations: int = 0
    concepts: int = 0
    reconciled: int = 0
    bad_records: list[BadRecord] = field(default_factory=list)
    bad_count: int = 0
    skipped_empty: int = 0
    scopes: list[str] = field(default_factory=list)
    # Other scopes already holding this file's messages (a second copy), with how many of the
    # ``copies_looked_at`` messages each holds.
    copies: dict[str, int] = field(default_factory=dict)
    copies_looked_at: int = 0
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.bad_count == 0

    def copy_notes(self) -> list[str]:
        """A line per other scope already holding this file's messages, and what to do."""
        notes = []
        for scope, held in sorted(self.copies.items(), key=lambda item: (-item[1], item[0])):
            what = (
                "this is a second copy (forget one of the two scopes to keep one)"
                if held >= self.copies_looked_at
                else "part of this file is a second copy (forgetting either scope loses what "
                "only it holds)"
            )
            notes.append(
                f"{held} of {self.copies_looked_at} messages looked at were already stored "
                f"under {scope!r}: {what}"
            )
        return notes

    def summary(self) -> str:
        lines = [
            f"imported {self.path or 'turns'} ({self.format or 'turns'}): {_n(self.turns, 'turn')}"
            f" → {_n(self.chunks, 'chunk')} ({self.chunks_new} new), "
            f"{_n(self.entities, 'entity', 'entities')}, {_n(self.relations, 'relation')}, "
            f"{_n(self.concepts, 'concept')} in {self.seconds:.1f} s",
        ]
        if self.conversations_unchanged:
            lines.append(
                f"{self.conversations_unchanged} of {self.conversations} conversations were "
                "already imported and left as they are"
            )
        if self.duplicates:
            lines.append(
                f"skipped {_n(self.duplicates, 'chunk')} whose text was already stored or "
                "earlier in the file"
            )
        if self.reconciled:
            lines.append(f"finished {self.reconciled} chunks an earlier import left pending")
        lines.extend(self.copy_notes())
        if self.skipped_empty:
            lines.append(f"{self.skipped_empty} empty messages skipped")
        if self.bad_count:
            lines.append(f"{self.bad_count} bad records skipped:")
            lines.extend(f"  {record.describe(self.path)}" for record in self.bad_records[:20])
            if self.bad_count > 20:
                lines.append(f"  … and {self.bad_count - 20} more")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "format": self.format,
            "turns": self.turns,
            "chunks": self.chunks,
            "chunks_new": self.chunks_new,
            "duplicates": self.duplicates,
            "conversations": self.conversations,
            "conversations_unchanged": self.conversations_unchanged,
            "entities": self.entities,
            "relations": self.relations,
            "concepts": self.concepts,
            "reconciled": self.reconciled,
            "bad_count": self.bad_count,
            "bad_records": [
                {"location": record.location, "reason": record.reason}
                for record in self.bad_records
            ],
            "skipped_empty": self.skipped_empty,
            "scopes": self.scopes,
            "copies": self.copies,
            "copies_looked_at": self.copies_looked_at,
            "seconds": round(self.seconds, 3),
            "timings": {key: round(value, 3) for key, value in self.timings.items()},
        }


@dataclass(frozen=True)
class _Stores:
    chunks: ChunkStore
    graph: GraphStore
    concepts: ConceptStore
    embedder: Embedder
    extractor: Extractor


def _open(memory: MemoryStores, extractor: Extractor | None) -> _Stores:
    errors: Mapping[str, str] = getattr(memory, "errors", None) or {}
    for name in ("chunks", "graph", "concepts"):
        if getattr(memory, name, None) is None:
            reason = errors.get(name) or errors.get("chunks" if name == "concepts" else name)
            raise StoreUnavailable(
                f"cannot import: the {name} store is unavailable"
                + (f" ({reason})" if reason else "")
            )
    assert memory.chunks is not None and memory.graph is not None and memory.concepts is not None
    chosen = extractor or getattr(memory, "extractor", None) or OfflineExtractor()
    return _Stores(memory.chunks, memory.graph, memory.concepts, memory.embedder, chosen)


def _batches(items: Sequence[T], size: int) -> Iterable[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


async def _embed(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    vectors: list[list[float]] = []
    for batch in _batches(texts, EMBED_BATCH):
        found = await embedder.embed(batch)
        if len(found) != len(batch):
            raise WriteFailed(f"the embedder returned {len(found)} vectors for {len(batch)} texts")
        vectors.extend(found)
    return vectors


def _conversations(chunks: Sequence[Chunk]) -> list[list[Chunk]]:
    """Chunks grouped by (scope, conversation), in first-appearance order."""
    groups: dict[tuple[str, str], list[Chunk]] = {}
    for chunk in chunks:
        groups.setdefault((chunk.scope, chunk.conversation_id), []).append(chunk)
    return list(groups.values())


def _units(conversations: Sequence[list[Chunk]], size: int) -> list[list[list[Chunk]]]:
    """Whole conversations packed into write units of about ``size`` chunks."""
    units: list[list[list[Chunk]]] = []
    current: list[list[Chunk]] = []
    count = 0
    for conversation in conversations:
        if current and count + len(conversation) > size:
            units.append(current)
            current, count = [], 0
        current.append(conversation)
        count += len(conversation)
    if current:
        units.append(current)
    return units


def _flatten(unit: Iterable[list[Chunk]]) -> list[Chunk]:
    return [chunk for conversation in unit for chunk in conversation]


async def stored_ids(store: ChunkStore, ids: Sequence[str]) -> set[str]:
    """Which of these chunk ids the store holds (looked up in batches)."""
    present: set[str] = set()
    for batch in _batches(list(ids), LOOKUP_BATCH):
        present.update(chunk.id for chunk in await store.get(batch))
    return present


class _Clock:
    """Seconds spent per phase, for the report."""

    def __init__(self) -> None:
        self.timings: dict[str, float] = defaultdict(float)

    async def time(self, phase: str, work: Awaitable[T]) -> T:
        started = time.perf_counter()
        try:
            return await work
        finally:
            self.timings[phase] += time.perf_counter() - started


async def ingest_file(
    memory: MemoryStores,
    path: Path | str,
    fmt: str,
    *,
    scope: str | None = None,
    skip_bad: bool = False,
    progress: ProgressCallback | None = None,
    extractor: Extractor | None = None,
    limits: ImportLimits | None = None,
    reextract: bool = False,
) -> IngestReport:
    """Import one file (``fmt`` is ``locomo``, ``jsonl`` or ``chatgpt``) into the memory.

    ``scope`` is the prefix for every record's scope. Strict unless ``skip_bad``: any bad record
    raises ``ImportFormatError`` before anything is written. Conversations whose chunks are all
    stored and done are left alone unless ``reextract``.
    """
    started = time.perf_counter()
    stores = _open(memory, extractor)
    tracker = ProgressTracker(progress)
    clock = _Clock()
    loop = asyncio.get_running_loop()

    def on_bytes(done: int, total: int) -> None:
        loop.call_soon_threadsafe(tracker.update, done, total)

    tracker.start("read", 0)
    result = await clock.time(
        "read",
        asyncio.to_thread(
            read_turns, path, fmt, scope=scope, skip_bad=skip_bad, limits=limits, on_bytes=on_bytes
        ),
    )
    tracker.finish()
    report = IngestReport(
        path=str(path),
        format=fmt,
        bad_records=list(result.bad),
        bad_count=result.bad_count,
        skipped_empty=result.skipped_empty,
    )
    await _ingest(stores, result.turns, report, tracker, clock, reextract=reextract)
    report.timings = dict(clock.timings)
    report.seconds = time.perf_counter() - started
    return report


async def ingest_turns(
    memory: MemoryStores,
    turns: Sequence[Turn],
    *,
    progress: ProgressCallback | None = None,
    extractor: Extractor | None = None,
    reextract: bool = False,
) -> IngestReport:
    """Import turns already read (the demo loader and tests use this)."""
    started = time.perf_counter()
    stores = _open(memory, extractor)
    tracker = ProgressTracker(progress)
    clock = _Clock()
    report = IngestReport()
    await _ingest(stores, turns, report, tracker, clock, reextract=reextract)
    report.timings = dict(clock.timings)
    report.seconds = time.perf_counter() - started
    return report


async def _ingest(
    stores: _Stores,
    turns: Sequence[Turn],
    report: IngestReport,
    tracker: ProgressTracker,
    clock: _Clock,
    *,
    reextract: bool,
) -> None:
    report.turns = len(turns)
    chunks: list[Chunk] = []
    hashes: set[str] = set()
    for chunk in chunk_turns(turns):
        if chunk.content_hash in hashes:
            report.duplicates += 1  # the same words, speaker and time twice in one file
            continue
        hashes.add(chunk.content_hash)
        chunks.append(chunk)
    report.chunks = len(chunks)
    report.scopes = sorted({chunk.scope for chunk in chunks})
    sample = chunks[:: max(1, len(chunks) // COPY_SAMPLE)][:COPY_SAMPLE]
    try:
        said = [(chunk.speaker, chunk.timestamp, chunk.text) for chunk in sample]
        held = await clock.time("copies", stores.chunks.scopes_holding(said))
    except ExplorerError as error:  # only a warning is lost: the import goes on
        log.warning("looking for earlier copies of the import failed: %s", error)
        held = {}
    report.copies = {scope: n for scope, n in held.items() if scope not in report.scopes}
    report.copies_looked_at = len(sample)
    # Pending chunks of other, interrupted imports are finished on their own; this import's
    # own pending chunks are redone below in its one knowledge write, as a clean import would.
    own = {chunk.id for chunk in chunks}
    report.reconciled = await clock.time("reconcile", _reconcile(stores, tracker, clock, own))
    conversations = _conversations(chunks)
    report.conversations = len(conversations)
    present = await clock.time("lookup", stored_ids(stores.chunks, [c.id for c in chunks]))
    pending = {chunk.id for chunk in await stores.chunks.pending()} & present
    work: list[list[Chunk]] = []
    for conversation in conversations:
        complete = all(chunk.id in present and chunk.id not in pending for chunk in conversation)
        if complete and not reextract:
            report.conversations_unchanged += 1
        else:
            work.append(conversation)
    if not work:
        return
    units = _units(work, WRITE_BATCH)
    tracker.start("chunks", sum(len(conversation) for conversation in work))
    stored_units: list[list[list[Chunk]]] = []
    contexts: list[list[Chunk]] = []
    # Each conversation is extracted as soon as its chunks are stored, while the next unit's
    # chunks are embedded and written: the database works while this process reads.
    limit = asyncio.Semaphore(EXTRACT_CONCURRENCY)

    async def extract(context: list[Chunk]) -> Extraction:
        async with limit:
            return await clock.time("extract", stores.extractor.extract(context))

    extracting: list[asyncio.Task[Extraction]] = []
    try:
        for unit in units:
            written = await clock.time("chunks", _write_chunks(stores, unit, present, report))
            stored_units.append(written)
            for conversation in written:
                if conversation:
                    contexts.append(conversation)
                    extracting.append(asyncio.create_task(extract(conversation)))
            tracker.advance(sum(len(conversation) for conversation in unit))
        tracker.start("extract", len(extracting))
        extractions: list[Extraction] = []
        for task in extracting:
            extractions.append(await task)
            tracker.advance()
    finally:
        for task in extracting:
            task.cancel()
        await asyncio.gather(*extracting, return_exceptions=True)
    counts = await _write_knowledge(stores, contexts, tracker, clock, extractions)
    report.entities, report.relations, report.concepts = counts
    # One call for the whole import: a crash leaves either all of it pending or none, so a
    # resumed import redoes the same single write a clean one made.
    tracker.start("done", 1)
    ids = [chunk.id for unit in stored_units for chunk in _flatten(unit)]
    if ids:
        await clock.time("mark_done", stores.chunks.mark_done(ids))
    tracker.advance()


async def _write_chunks(
    stores: _Stores, unit: list[list[Chunk]], present: set[str], report: IngestReport
) -> list[list[Chunk]]:
    """Embed and store a unit's new chunks as pending; the unit as the store now holds it."""
    chunks = _flatten(unit)
    new = [chunk for chunk in chunks if chunk.id not in present]
    if new:
        vectors = await _embed(
            stores.embedder, [chunk_embedding_text(chunk.speaker, chunk.text) for chunk in new]
        )
        report.chunks_new += await stores.chunks.upsert(
            new, vectors, stores.embedder.spec, pending=True
        )
    stored = await stored_ids(stores.chunks, [chunk.id for chunk in chunks])
    missing = [chunk.id for chunk in new if chunk.id not in stored]
    # A chunk the store left out although it was asked to write it repeats the content hash of
    # one stored under another id (an earlier import that numbered the turns differently).
    report.duplicates += len(missing)
    return [[chunk for chunk in conversation if chunk.id in stored] for conversation in unit]


def _spoken(contexts: Sequence[Sequence[Chunk]]) -> tuple[Counter[str], dict[str, list[str]]]:
    turns: Counter[str] = Counter()
    chunk_ids: dict[str, list[str]] = defaultdict(list)
    for context in contexts:
        for chunk in context:
            speaker = entity_id(chunk.scope, speaker_type(chunk.speaker), chunk.speaker)
            turns[speaker] += 1
            chunk_ids[speaker].append(chunk.id)
    return turns, {key: ids[-MAX_SPOKEN_PROVENANCE:] for key, ids in chunk_ids.items()}


async def _write_knowledge(
    stores: _Stores,
    contexts: Sequence[Sequence[Chunk]],
    tracker: ProgressTracker,
    clock: _Clock,
    extractions: Sequence[Extraction] | None = None,
) -> tuple[int, int, int]:
    """Extract (unless given), merge and write entities, relations and concepts."""
    if not contexts:
        return 0, 0, 0
    if extractions is None:
        tracker.start("extract", len(contexts))
        extracted: list[Extraction] = []
        for context in contexts:
            extracted.append(await clock.time("extract", stores.extractor.extract(context)))
            tracker.advance()
        extractions = extracted
    chunks = {chunk.id: chunk for context in contexts for chunk in context}
    # The graph's records of what was extracted are read first: their refusals (names the user
    # detached) correct the extractions before anything is merged, and they are merged in later.
    looked_up = sorted({entity.id for extraction in extractions for entity in extraction.entities})
    stored = await clock.time("lookup", _stored(stores.graph, looked_up))
    texts = {chunk_id: chunk.text for chunk_id, chunk in chunks.items()}
    extractions = [honour_refusals(extraction, stored, texts) for extraction in extractions]
    spoken, spoken_chunks = _spoken(contexts)
    keys = sorted({key for extraction in extractions for key in merge_keys(extraction)})
    vectors = dict(
        zip(keys, await clock.time("embed_names", _embed(stores.embedder, keys)), strict=True)
    )
    merged = [
        merge_near_duplicates(extraction, vectors, protected=spoken) for extraction in extractions
    ]
    combined = await clock.time(
        "short_names", _merge_short_names(stores.graph, combine(merged), set(spoken))
    )
    known = set(looked_up)
    missing = [entity.id for entity in combined.entities if entity.id not in known]
    stored.update(await clock.time("lookup", _stored(stores.graph, missing)))
    combined = drop_unfounded(combined, keep={*spoken, *stored})
    now = datetime.now(UTC)
    entities, relations = score(
        combined.entities, combined.relations, spoken=spoken, stored=stored, now=now
    )
    names = [entity.name for entity in entities]
    name_vectors = await clock.time("embed_names", _embed(stores.embedder, names))
    by_id = {entity.id: vector for entity, vector in zip(entities, name_vectors, strict=True)}
    await clock.time("graph", _write_graph(stores.graph, entities, relations, by_id, tracker))
    records = concept_records(entities, chunks, now=now, spoken=spoken_chunks)
    written = await clock.time("concepts", _write_concepts(stores.concepts, records, tracker))
    return len(entities), len(relations), written


async def _stored(graph: GraphStore, ids: Sequence[str]) -> dict[str, Entity]:
    """The graph's records of these entity ids (those it holds), looked up in batches."""
    stored: dict[str, Entity] = {}
    for batch in _batches(ids, LOOKUP_BATCH):
        stored.update((entity.id, entity) for entity in await graph.get_entities(batch))
    return stored


async def _merge_short_names(
    graph: GraphStore, extraction: Extraction, speakers: set[str]
) -> Extraction:
    """Short names folded into full names known in this write or stored in the same scope.

    Speakers, and names the graph holds as speakers, are never short forms. An empty graph
    (a first import) is not asked anything.
    """
    shorts = [entity for entity in extraction.entities if short_name(entity) is not None]
    if not shorts or not (await graph.counts()).get("entities", 0):
        return merge_short_names(extraction, protected=speakers)
    protected = set(speakers)
    for batch in _batches([entity.id for entity in shorts], LOOKUP_BATCH):
        for entity in await graph.get_entities(batch):
            if entity.type in ("person", "agent") and entity.confidence >= 1.0:
                protected.add(entity.id)
    limit = asyncio.Semaphore(NAME_LOOKUP_CONCURRENCY)

    async def full_names(scope: str, name: str) -> list[Entity]:
        async with limit:
            hits = await graph.search_entities(name, NAME_LOOKUP_K, scope=scope, neighbour_limit=0)
        return [
            hit.entity
            for hit in hits
            if hit.entity.scope == scope and name.casefold() in hit.entity.name.casefold()
        ]

    wanted = sorted(
        {(entity.scope, entity.name) for entity in shorts if entity.id not in protected}
    )
    found = await asyncio.gather(*(full_names(scope, name) for scope, name in wanted))
    known = {entity.id: entity for group in found for entity in group}
    return merge_short_names(extraction, known.values(), protected=protected)


async def _write_graph(
    graph: GraphStore,
    entities: Sequence[Entity],
    relations: Sequence[Relation],
    vectors: Mapping[str, list[float]],
    tracker: ProgressTracker,
) -> None:
    tracker.start("graph", len(entities) + len(relations))
    for batch in _batches(entities, ENTITY_BATCH):
        await graph.upsert(batch, (), vectors={entity.id: vectors[entity.id] for entity in batch})
        tracker.advance(len(batch))
    for relation_batch in _batches(relations, RELATION_BATCH):
        await graph.upsert((), relation_batch)
        tracker.advance(len(relation_batch))


async def _write_concepts(
    concepts: ConceptStore, records: Mapping[str, list[dict[str, object]]], tracker: ProgressTracker
) -> int:
    tracker.start("concepts", sum(len(group) for group in records.values()))
    written = 0
    for agent in sorted(records):
        for batch in _batches(records[agent], CONCEPT_BATCH):
            # Sources merge across imports: what an earlier file gave a concept stays. A store
            # that can merge under a lock does it, so overlapping imports both keep theirs.
            merging = getattr(concepts, "merge_upsert", None)
            if callable(merging):
                count = await merging(agent, batch, merged_with_stored)
            else:
                stored = await concepts.read(agent, [str(record["name"]) for record in batch])
                merged = [merged_with_stored(dict(r), stored.get(str(r["name"]))) for r in batch]
                count = await concepts.upsert(agent, merged)
            if count != len(batch):
                raise WriteFailed(
                    f"the concept store acknowledged {count} of {len(batch)} records for {agent!r}"
                )
            written += count
            tracker.advance(len(batch))
    return written


async def reconcile(
    memory: MemoryStores,
    *,
    progress: ProgressCallback | None = None,
    extractor: Extractor | None = None,
) -> int:
    """Finish every chunk an interrupted import left pending; returns how many were finished."""
    stores = _open(memory, extractor)
    return await _reconcile(stores, ProgressTracker(progress), _Clock())


async def _reconcile(
    stores: _Stores, tracker: ProgressTracker, clock: _Clock, skip: Iterable[str] = ()
) -> int:
    finished = 0
    seen: set[str] = set(skip)
    while True:
        pending = [chunk for chunk in await stores.chunks.pending() if chunk.id not in seen]
        if not pending:
            return finished
        seen.update(chunk.id for chunk in pending)
        conversations = _conversations(
            sorted(pending, key=lambda chunk: (chunk.scope, chunk.conversation_id, chunk.position))
        )
        await _write_knowledge(stores, conversations, tracker, clock)
        await clock.time("mark_done", stores.chunks.mark_done([chunk.id for chunk in pending]))
        finished += len(pending)


class ReembeddableChunks(Protocol):
    """A chunk store that can replace every stored vector (``PgChunkStore.reembed``)."""

    async def embedding_spec(self) -> EmbeddingSpec | None: ...

    async def reembed(
        self,
        embed: Callable[[Sequence[str]], Awaitable[Sequence[Sequence[float]]]],
        spec: EmbeddingSpec,
        *,
        batch: int = ...,
        progress: Callable[[int, int], None] | None = ...,
    ) -> int: ...


class ReembeddableGraph(Protocol):
    """A graph store that can replace every entity name vector."""

    async def reembed_entities(
        self,
        embed: Callable[[Sequence[str]], Awaitable[Sequence[Sequence[float]]]],
        dimension: int,
        *,
        batch: int = ...,
        progress: Callable[[int, int], None] | None = ...,
    ) -> int: ...


@dataclass
class ReembedReport:
    """What a re-embed did: chunks and entities given vectors of ``spec`` (was ``previous``)."""

    chunks: int
    entities: int
    spec: EmbeddingSpec
    previous: EmbeddingSpec | None
    seconds: float

    def summary(self) -> str:
        was = (
            f" (was {self.previous.model}, dimension {self.previous.dimension})"
            if self.previous is not None
            else ""
        )
        return (
            f"re-embedded {self.chunks} chunks and {self.entities} entity names with "
            f"{self.spec.model}, dimension {self.spec.dimension}{was}, in {self.seconds:.1f} s"
        )


async def reembed_all(
    memory: MemoryStores, *, progress: ProgressCallback | None = None
) -> ReembedReport:
    """Give every chunk (its text) and every entity (its name) a vector from the memory's embedder.

    Progress comes in two phases, ``chunks`` then ``entities``. Each store stages the new vectors
    beside the old ones and swaps them in at its end, so an interruption leaves that store
    searchable with the model it had; the chunk store then still records the old spec, and
    running this again redoes both halves. Re-embedding with the spec already stored is allowed
    and does the full work: a model upgraded under the same name gives other vectors.
    """
    started = time.perf_counter()
    errors: Mapping[str, str] = getattr(memory, "errors", None) or {}
    for name in ("chunks", "graph"):
        if getattr(memory, name, None) is None:
            reason = errors.get(name)
            raise StoreUnavailable(
                f"cannot re-embed: the {name} store is unavailable"
                + (f" ({reason})" if reason else "")
            )
    chunks: object = memory.chunks
    graph: object = memory.graph
    if not callable(getattr(chunks, "reembed", None)):
        raise InvalidArgument("this chunk store cannot replace its embeddings")
    if not callable(getattr(graph, "reembed_entities", None)):
        raise InvalidArgument("this graph store cannot replace its entity vectors")
    chunk_store = cast(ReembeddableChunks, chunks)
    graph_store = cast(ReembeddableGraph, graph)
    embedder = memory.embedder
    spec = embedder.spec
    previous = await chunk_store.embedding_spec()
    tracker = ProgressTracker(progress)

    async def embed(texts: Sequence[str]) -> list[list[float]]:
        return await _embed(embedder, texts)

    tracker.start("chunks", 0)
    chunk_count = await chunk_store.reembed(embed, spec, batch=EMBED_BATCH, progress=tracker.update)
    tracker.start("entities", 0)
    entity_count = await graph_store.reembed_entities(
        embed, spec.dimension, batch=ENTITY_BATCH, progress=tracker.update
    )
    return ReembedReport(
        chunks=chunk_count,
        entities=entity_count,
        spec=spec,
        previous=previous,
        seconds=time.perf_counter() - started,
    )


def _n(count: int, word: str, plural: str | None = None) -> str:
    """``count`` and the word for that many ("1 turn", "3 turns")."""
    return f"{count:,} {word if count == 1 else plural or word + 's'}"
