"""The interfaces the core needs from the outside world, as ``typing.Protocol`` classes.

Adapters in ``explorer.adapters`` implement these and return core types only; every method is a
coroutine that runs on the caller's event loop unless it says otherwise. Errors are the project's
own (``explorer.core.errors``): ``StoreUnavailable``/``StoreTimeout`` for transport,
``InvalidArgument`` for values the store will not accept, ``WriteFailed`` for an unacknowledged
write. ``MemoryService`` is the one interface the window and the tools talk to (the service in
``explorer.memory`` implements it) and ``ServiceFactory`` is how the window opens one (the
composition root's); ``IndexSnapshots`` keeps built search indexes between runs. Imports only
the standard library, numpy's types and core models (scour's, the journal's, the overview's
types and the settings for type checking only).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy.typing as npt

from explorer.core.models import (
    DEFAULT_SCOPE,
    Chunk,
    ChunkHit,
    EmbeddingSpec,
    Entity,
    EntityHit,
    Period,
    Relation,
    Subgraph,
)

if TYPE_CHECKING:  # the journal's records import scour, which imports these ports
    from explorer.core.journal import RecallCall, RecallSummary
    from explorer.core.overview import MemoryOverview
    from explorer.core.policy import RetrievalPolicy
    from explorer.core.progress import ProgressCallback
    from explorer.core.scour import ScourRequest, ScourResult
    from explorer.settings import Settings

Vector = Sequence[float]


class Embedder(Protocol):
    """Turns texts into unit-length vectors of one fixed model and dimension."""

    @property
    def spec(self) -> EmbeddingSpec:
        """The model name and dimension every vector from this embedder has."""
        ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order. CPU-bound work runs off the event loop."""
        ...


class ChunkStore(Protocol):
    """Verbatim conversation chunks with their embeddings (PostgreSQL + pgvector)."""

    async def aclose(self) -> None:
        """Release connections; later calls raise ``StoreUnavailable``. Safe to call twice."""
        ...

    async def embedding_spec(self) -> EmbeddingSpec | None:
        """The model the stored vectors came from, or ``None`` while the store is empty."""
        ...

    async def search(
        self,
        vector: Vector,
        k: int,
        *,
        spec: EmbeddingSpec,
        domain: str | None = None,
        scope: str | None = None,
    ) -> list[ChunkHit]:
        """The ``k`` nearest chunks by cosine similarity, best first.

        ``domain`` and ``scope`` filter inside the query, so ``k`` hits come back whenever ``k``
        matching chunks exist. ``scope`` matches the scope itself and everything below it.
        Raises ``EmbeddingMismatch`` when ``spec`` differs from the stored one.
        """
        ...

    async def lexical_search(
        self, text: str, k: int, *, domain: str | None = None, scope: str | None = None
    ) -> list[ChunkHit]:
        """The ``k`` best chunks by full-text rank of ``text``, best first; empty on no overlap."""
        ...

    async def get(self, ids: Sequence[str]) -> list[Chunk]:
        """The chunks with these ids, in the order asked; unknown ids are left out."""
        ...

    async def said_by(
        self, speaker: str, limit: int, *, scope: str | None = None
    ) -> tuple[list[Chunk], int]:
        """The ``limit`` latest chunks ``speaker`` said in ``scope`` and below it (``None``:
        anywhere), newest first, and how many they said there in all."""
        ...

    async def upsert(
        self,
        chunks: Sequence[Chunk],
        vectors: Sequence[Vector],
        spec: EmbeddingSpec,
        *,
        pending: bool = False,
    ) -> int:
        """Insert chunks not yet stored (by id / content hash); returns how many were new.

        With ``pending`` the rows are marked as not yet mirrored into the graph; ingest clears the
        mark with ``mark_done`` once the graph write is acknowledged.
        """
        ...

    async def pending(self) -> list[Chunk]:
        """Chunks still marked pending (an ingest that crashed between the two stores)."""
        ...

    async def mark_done(self, ids: Sequence[str]) -> None:
        """Clear the pending mark of these chunks."""
        ...

    async def scopes_holding(self, said: Sequence[tuple[str, datetime, str]]) -> dict[str, int]:
        """The scopes already holding some of these messages (speaker, time and text alike),
        with how many of them each holds: a file imported again under another scope."""
        ...

    async def read_mark(self, name: str) -> str | None:
        """A short note the memory keeps about itself (whether the demo was loaded, say)."""
        ...

    async def write_mark(self, name: str, value: str) -> None:
        """Keep ``value`` as the note ``name``, replacing the one before; read-only stores raise
        ``ReadOnlyStore``."""
        ...

    async def forget_scope(self, scope: str) -> int:
        """Delete every chunk of ``scope`` and of the scopes below it; how many went.

        ``scope`` is a plain, non-empty scope path (the caller checks it); read-only stores raise
        ``ReadOnlyStore``.
        """
        ...

    async def domains(self) -> list[str]:
        """Every domain tag in the store, sorted."""
        ...

    async def counts(self) -> Mapping[str, int]:
        """Row counts for statistics (at least ``chunks``; ``scope:<s>`` per scope)."""
        ...

    async def time_span(self) -> tuple[datetime, datetime] | None:
        """The earliest and latest chunk timestamps, or ``None`` when the store is empty."""
        ...

    async def version(self) -> str:
        """The server's version, for "Test connection" and statistics."""
        ...


class GraphStore(Protocol):
    """Entities, relations and provenance in a knowledge graph (FalkorDB)."""

    async def aclose(self) -> None:
        """Release connections; later calls raise ``StoreUnavailable``. Safe to call twice."""
        ...

    async def search_entities(
        self,
        text: str,
        k: int,
        *,
        vector: Vector | None = None,
        scope: str | None = None,
        period: Period | None = None,
        neighbour_limit: int = 10,
    ) -> list[EntityHit]:
        """Up to ``k`` entities matching ``text`` (full text) or near ``vector``, best first.

        ``period`` keeps only entities with a provenance timestamp inside it. Each hit carries up
        to ``neighbour_limit`` neighbours.
        """
        ...

    async def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        """The entities with these ids, in the order asked; unknown ids are left out."""
        ...

    async def neighbourhood(
        self, ids: Sequence[str], *, limit_per_node: int = 50, scope: str | None = None
    ) -> Subgraph:
        """The given entities, their neighbours (capped per node) and the relations between them."""
        ...

    async def degree(self, ids: Sequence[str]) -> dict[str, int]:
        """How many relations each entity has, for "+N more" handles on supernodes."""
        ...

    async def entities_in_chunks(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        """For each chunk id, the ids of the entities whose provenance points into it."""
        ...

    async def upsert(
        self,
        entities: Sequence[Entity],
        relations: Sequence[Relation],
        *,
        vectors: Mapping[str, Vector] | None = None,
    ) -> None:
        """Merge entities (with optional name vectors by id) and relations by id.

        Idempotent, so a replay adds nothing; mentions are merged, never duplicated. An alias the
        stored entity refuses (``Entity.refused_aliases``, compared case-insensitively) is not
        added back, nor its evidence; the refusals themselves are never changed by an upsert.
        """
        ...

    async def detach_alias(self, entity_id: str, alias: str) -> bool:
        """Remove ``alias`` (compared case-insensitively) and its evidence from the entity, and
        remember the refusal: the alias, as the entity carried it, joins ``refused_aliases``.

        True when something was removed; False for an unknown entity or an alias it does not
        carry (nothing is recorded then). The entity's mentions stay as they are. Read-only
        stores raise ``ReadOnlyStore``.
        """
        ...

    async def allow_alias(self, entity_id: str, alias: str) -> bool:
        """Forget that the user refused ``alias`` (compared case-insensitively) for the entity.

        True when a refusal was dropped; False for an unknown entity or a name it does not
        refuse. Nothing else changes: the alias comes back only when a write brings it again.
        Read-only stores raise ``ReadOnlyStore``.
        """
        ...

    async def counts(self) -> Mapping[str, int]:
        """Counts for statistics (at least ``entities`` and ``relations``; ``scope:<s>`` per
        scope)."""
        ...

    async def forget_scope(self, scope: str) -> int:
        """Delete every entity of ``scope`` and of the scopes below it, with their relations and
        mentions (and the sources no entity mentions any more); how many entities went.
        Read-only stores raise ``ReadOnlyStore``."""
        ...

    async def most_salient(self, limit: int, *, scope: str | None = None) -> list[Entity]:
        """Up to ``limit`` entities visible from ``scope`` (all for ``None`` or the root), most
        salient first, ties by id; the overview's starting graph."""
        ...

    async def version(self) -> str:
        """The server's version, for "Test connection" and statistics."""
        ...


class ConceptStore(Protocol):
    """Concept records for the term-overlap scan, one per entity, kept as raw JSON text.

    Keyed by ``(agent, tenant, name)`` where the agent is a scope path and the tenant its first
    level. ``updated_at`` is readable without fetching or parsing the record, so a reader can keep
    a parse cache that a write invalidates by itself.
    """

    async def aclose(self) -> None:
        """Release connections; later calls raise ``StoreUnavailable``. Safe to call twice."""
        ...

    async def names(self, agent: str, tenant: str | None = None) -> list[str]:
        """Names of the agent's concepts in store order (stable between calls)."""
        ...

    async def agents(self, within: str = "") -> list[str]:
        """Every agent scope equal to or below ``within`` that holds concepts, sorted."""
        ...

    async def updated_at(
        self, agent: str, names: Sequence[str], tenant: str | None = None
    ) -> dict[str, str]:
        """The ``updated_at`` stamp of each named record, without reading its body."""
        ...

    async def read(
        self, agent: str, names: Sequence[str], tenant: str | None = None
    ) -> dict[str, str]:
        """The raw JSON text of each named record."""
        ...

    async def upsert(
        self, agent: str, records: Sequence[Mapping[str, object]], tenant: str | None = None
    ) -> int:
        """Write records (each with at least ``name``); stamps ``updated_at``; returns the count."""
        ...

    async def forget_scope(self, scope: str) -> int:
        """Delete the records of ``scope``'s agent and of every agent below it; how many went."""
        ...


class RecallJournal(Protocol):
    """Every scour call made through the tool contract, kept for a bounded time (PostgreSQL).

    The journal keeps the calls of the last ``keep_days`` days and at most ``keep_calls`` of
    them; older ones are removed as new ones arrive.
    """

    async def aclose(self) -> None:
        """Release connections; later calls raise ``StoreUnavailable``. Safe to call twice."""
        ...

    async def record(self, call: RecallCall) -> int:
        """Store one call; returns its id (ids increase with every call)."""
        ...

    async def recent(self, after: int = 0, limit: int = 100) -> list[RecallSummary]:
        """Summaries of the newest ``limit`` calls with an id above ``after``, oldest first."""
        ...

    async def get(self, call_id: int) -> RecallCall | None:
        """One call in full, or ``None`` when it is not (or no longer) in the journal."""
        ...


class IndexSnapshots(Protocol):
    """Search indexes built from a store, kept between runs as named flat arrays.

    A ``slot`` is what an index is of (a scope's BM25 index, an agent's concepts, a graph) and
    holds one snapshot, the newest; ``key`` names the state it was built from (the store's
    stamp and the index's format), so a snapshot is only ever read back for the data it
    describes.
    Both calls are blocking (run them in a thread); neither raises: a snapshot that cannot be
    read is missing, one that cannot be written is skipped.
    """

    def load(self, kind: str, slot: str, key: str) -> Mapping[str, npt.NDArray[Any]] | None:
        """The arrays of ``slot`` when they were saved under ``key``, else ``None``."""
        ...

    def save(self, kind: str, slot: str, key: str, arrays: Mapping[str, npt.NDArray[Any]]) -> None:
        """Keep ``arrays`` as ``slot``'s snapshot, built from ``key``, replacing the older one."""
        ...

    def clear(self) -> None:
        """Remove every snapshot (after a scope is forgotten: its words stay in none of them)."""
        ...


#: The two halves of a memory, as health reports and errors name them, and a half that answers.
GRAPH = "graph"
CHUNKS = "chunks"
HALVES = (GRAPH, CHUNKS)
OK = "ok"


@dataclass(frozen=True, slots=True)
class Health:
    """Per half, ``"ok"`` or what is wrong with it (in words a status bar can show)."""

    graph: str = OK
    chunks: str = OK

    def __getitem__(self, half: str) -> str:
        if half == GRAPH:
            return self.graph
        if half == CHUNKS:
            return self.chunks
        raise KeyError(half)

    @property
    def ok(self) -> bool:
        return self.graph == OK and self.chunks == OK

    def as_dict(self) -> dict[str, str]:
        return {GRAPH: self.graph, CHUNKS: self.chunks}


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What forgetting a scope deleted: its chunks, entities (their relations with them) and
    concept records, the scope's own and those of every scope below it."""

    scope: str
    chunks: int
    entities: int
    concepts: int

    def describe(self) -> str:
        return (
            f"forgot {self.scope!r}: {self.chunks:,} chunks, {self.entities:,} entities, "
            f"{self.concepts:,} concept records"
        )


class BadImportRecord(Protocol):
    """One record an import skipped, able to say where it was."""

    def describe(self, path: Path | str) -> str:
        """One line naming the record's place in ``path`` and what was wrong with it."""
        ...


class ImportReport(Protocol):
    """What an import did, as the window reports it (the pipeline's ``IngestReport``)."""

    @property
    def format(self) -> str: ...
    @property
    def seconds(self) -> float: ...
    @property
    def chunks(self) -> int: ...
    @property
    def chunks_new(self) -> int: ...
    @property
    def entities(self) -> int: ...
    @property
    def relations(self) -> int: ...
    @property
    def conversations(self) -> int: ...
    @property
    def conversations_unchanged(self) -> int: ...
    @property
    def duplicates(self) -> int: ...
    @property
    def skipped_empty(self) -> int: ...
    @property
    def bad_count(self) -> int: ...
    @property
    def bad_records(self) -> Sequence[BadImportRecord]: ...
    def copy_notes(self) -> list[str]:
        """A line per other scope already holding the file's messages (a second copy)."""
        ...


class MemoryService(Protocol):
    """An open memory: both halves, the embedder and the retrieval policy behind one interface.

    A half whose store is down does not stop the other: reads of that half raise
    ``StoreUnavailable`` naming the reason, ``scour`` answers with the half it has, and
    ``health`` reports it as data, never raising. Every coroutine runs on the loop the memory was
    opened on (the window reaches it through its bridge).
    """

    policy: RetrievalPolicy

    @property
    def settings(self) -> Settings:
        """The settings this memory was opened with (read once, by the composition root)."""
        ...

    @property
    def read_only(self) -> bool:
        """True for a memory that is only ever read (a graphiti graph)."""
        ...

    async def scour(
        self, request: ScourRequest, policy: RetrievalPolicy | None = None
    ) -> ScourResult:
        """Scour over whichever halves are connected, with ``policy`` or the memory's own."""
        ...

    async def health(self) -> Health:
        """Each half's state; restarts a dead embedded server first. Never raises."""
        ...

    async def supervise(self) -> Mapping[str, str]:
        """Restart embedded servers that died; the halves being restarted and how it goes."""
        ...

    async def reconnect_half(self, half: str) -> None:
        """Connect the stores of one half (``graph``, ``chunks``) anew."""
        ...

    async def restart_half(self, half: str) -> None:
        """Restart the embedded server of one half (reconnect an external one)."""
        ...

    async def warm(self, scope: str = DEFAULT_SCOPE) -> None:
        """Build what a first query at ``scope`` would build, so that one is quick."""
        ...

    async def overview(self, scope: str = DEFAULT_SCOPE, salient: int = 20) -> MemoryOverview:
        """What the memory holds; a half that fails is named in ``errors``, never raised."""
        ...

    async def domains(self) -> list[str]:
        """Every domain tag of the chunks, sorted."""
        ...

    async def entities(self, ids: Sequence[str]) -> list[Entity]:
        """The entities with these ids, in the order asked; unknown ids are left out."""
        ...

    async def neighbourhood(self, ids: Sequence[str], *, limit_per_node: int = 50) -> Subgraph:
        """The given entities, their neighbours (capped per node) and the relations between."""
        ...

    async def degree(self, ids: Sequence[str]) -> dict[str, int]:
        """How many relations each entity has."""
        ...

    async def entities_in_chunks(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        """For each chunk id, the ids of the entities mentioned in it."""
        ...

    async def chunks_by_id(self, ids: Sequence[str]) -> list[Chunk]:
        """The chunks with these ids, in the order asked; unknown ids are left out."""
        ...

    async def chunks_said_by(
        self, speaker: str, limit: int, *, scope: str | None = None
    ) -> tuple[list[Chunk], int]:
        """What a speaker said (the chunk store's ``said_by``): the latest turns and a count."""
        ...

    async def detach_alias(self, entity_id: str, alias: str) -> bool:
        """Undo a merge: remove ``alias`` and its evidence from the entity and remember the
        refusal, so later imports do not merge it again (the graph store's ``detach_alias``).
        False when the entity does not carry it; a read-only memory raises ``ReadOnlyStore``."""
        ...

    async def allow_alias(self, entity_id: str, alias: str) -> bool:
        """Forget that the user detached ``alias`` from the entity (the graph store's
        ``allow_alias``): later imports may merge it again; it does not come back by itself.
        False when the entity does not refuse it; a read-only memory raises ``ReadOnlyStore``."""
        ...

    async def recent_calls(self, after: int = 0, limit: int = 100) -> list[RecallSummary]:
        """The recall journal's newest calls above ``after``, oldest first."""
        ...

    async def recall_call(self, call_id: int) -> RecallCall | None:
        """One journalled call in full, or ``None`` when it is no longer kept."""
        ...

    async def ensure_demo(
        self, progress: Callable[..., None] | None = None, *, reset: bool = False
    ) -> bool:
        """Load the demo memory if this one is empty (or ``reset``); True if it loaded."""
        ...

    async def import_file(
        self,
        path: Path | str,
        fmt: str,
        *,
        scope: str | None = None,
        skip_bad: bool = False,
        progress: ProgressCallback | None = None,
    ) -> ImportReport:
        """Import a conversation file under ``scope``; cancellable."""
        ...

    async def finish_pending(self, progress: ProgressCallback | None = None) -> int:
        """After a cancelled import, complete the chunks it left pending; how many."""
        ...

    async def forget_scope(self, scope: str) -> Forgotten:
        """Delete ``scope`` and every scope below it from both halves (never the root). Both
        stores must answer, and no import may be running; a read-only memory raises
        ``ReadOnlyStore``. A memory left empty stops loading the demo by itself."""
        ...


class ServiceFactory(Protocol):
    """How the window opens memories, and looks at stores without opening one.

    The composition root's; the window is handed one so that it never names an adapter.
    """

    @property
    def formats(self) -> tuple[str, ...]:
        """The conversation file formats ``import_file`` reads."""
        ...

    def open(self, settings: Settings) -> AbstractAsyncContextManager[MemoryService]:
        """Start or attach the stores of ``settings``; the memory is closed on exit."""
        ...

    async def test_connection(self, settings: Settings) -> dict[str, tuple[bool, str]]:
        """Per half, whether its store answers and its version (or why not); writes nothing."""
        ...

    async def graphiti_graphs(self, settings: Settings) -> list[str]:
        """The graphs on the FalkorDB of ``settings`` that look like graphiti's."""
        ...

    def detect_format(self, path: Path | str) -> str | None:
        """The format a file looks like, or ``None``."""
        ...

    def suggest_scope(self, path: Path | str) -> str:
        """A scope to import a file under, from its name."""
        ...
