"""The interfaces the core needs from the outside world, as ``typing.Protocol`` classes.

Adapters in ``explorer.adapters`` implement these and return core types only; every method is a
coroutine that runs on the caller's event loop unless it says otherwise. Errors are the project's
own (``explorer.core.errors``): ``StoreUnavailable``/``StoreTimeout`` for transport,
``InvalidArgument`` for values the store will not accept, ``WriteFailed`` for an unacknowledged
write. Imports only the standard library and core models (the journal's records for type
checking only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from explorer.core.models import (
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

        Idempotent, so a replay adds nothing; mentions are merged, never duplicated.
        """
        ...

    async def detach_alias(self, entity_id: str, alias: str) -> bool:
        """Remove ``alias`` (compared case-insensitively) and its evidence from the entity.

        True when something was removed; False for an unknown entity or an alias it does not
        carry. The entity's mentions stay as they are. Read-only stores raise ``ReadOnlyStore``.
        """
        ...

    async def counts(self) -> Mapping[str, int]:
        """Counts for statistics (at least ``entities`` and ``relations``; ``scope:<s>`` per
        scope)."""
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
