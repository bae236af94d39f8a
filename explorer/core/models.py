"""The memory model: chunks, entities, relations, provenance, scopes and search hits.

Plain frozen dataclasses with no behaviour beyond small derived views, shared by every layer.
Imports only the standard library.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass, field
from datetime import datetime

SCOPE_SEPARATOR = "/"
# The root of the scope hierarchy: a query there sees every memory.
DEFAULT_SCOPE = ""

#: The facts a relation may state (the extractors' and the gold files' fixed vocabulary).
RELATION_TYPES = (
    "WORKS_AT", "WORKS_ON", "WORKS_WITH", "LEADS", "STUDIES_AT", "LIVES_IN", "MOVED_TO", "FROM",
    "VISITED", "ATTENDED", "PLANS", "MARRIED_TO", "PARTNER_OF", "FAMILY_OF", "FRIEND_OF", "KNOWS",
    "RECOMMENDED", "HIRED", "OWNS", "LIKES", "DISLIKES", "SEES",
)  # fmt: skip
#: Relations that are signals, not facts: a speaker naming something, two names in one turn.
WEAK_RELATIONS = frozenset({"MENTIONS", "CO_OCCURS"})


class MemoryLayer(enum.StrEnum):
    """Which kind of memory a record belongs to; the coordinator searches a set of these."""

    EPISODIC = "episodic"  # verbatim conversation chunks
    SEMANTIC = "semantic"  # graph entities and the facts on their relations
    PROFILE = "profile"  # stable facts about the user (people entities, preferences)
    CONCEPT = "concept"  # concept records found by the term-overlap scan


def scope_parts(scope: str) -> tuple[str, ...]:
    """Split a scope path such as ``"acme/assistant/ana/conv-1"`` into its levels."""
    return tuple(part for part in scope.split(SCOPE_SEPARATOR) if part)


def normalise_scope(scope: str) -> str:
    """A scope path without empty levels or stray separators (``"/a//b/"`` is ``"a/b"``)."""
    return SCOPE_SEPARATOR.join(scope_parts(scope))


@functools.lru_cache(maxsize=4096)  # a query asks it per candidate, of a few scopes
def scope_distance(memory_scope: str, query_scope: str) -> int | None:
    """How many levels above the query's scope a memory sits, or ``None`` if it is unrelated.

    A memory inside the query's scope (the same path or below it) is at distance 0; one on the
    path above it is at the number of levels climbed; anything on another branch is unrelated.
    """
    memory, query = scope_parts(memory_scope), scope_parts(query_scope)
    if memory[: len(query)] == query:
        return 0
    if query[: len(memory)] == memory:
        return len(query) - len(memory)
    return None


def chunk_embedding_text(speaker: str, text: str) -> str:
    """What a chunk's vector is made from: who said it and what they said.

    The speaker belongs in the vector because questions name people ("what did Ana say about
    …"); measured on LoCoMo, embedding ``speaker: text`` instead of the bare text lifts the
    local embedder's recall@5 from 22 to 33.
    """
    return f"{speaker}: {text}" if speaker else text


@dataclass(frozen=True, slots=True)
class Mention:
    """Provenance: where in which chunk an entity or relation is stated, and when."""

    chunk_id: str
    start: int
    end: int
    timestamp: datetime


@dataclass(frozen=True, slots=True)
class Chunk:
    """A verbatim piece of a conversation, as stored in the chunk store."""

    id: str
    text: str
    conversation_id: str
    position: int
    speaker: str
    timestamp: datetime
    domains: tuple[str, ...] = ()
    scope: str = DEFAULT_SCOPE
    layer: MemoryLayer = MemoryLayer.EPISODIC
    content_hash: str = ""
    # Where this chunk's text starts inside its turn, so spans map back to the original turn.
    turn_id: str = ""
    turn_offset: int = 0
    # The conversation's title, when its file names one (a ChatGPT export does); not part of
    # the chunk's identity, so its id and content hash are as they were without it.
    title: str = ""


@dataclass(frozen=True, slots=True)
class AliasEvidence:
    """Why an entity carries an alias: the chunk that said so and the rule that read it there.

    ``reason`` is a short phrase such as ``"addressed as Kate"`` or ``"my sister Ada"``; the
    inspector shows it beside the alias, and ``GraphStore.detach_alias`` removes both.
    """

    alias: str
    chunk_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class Entity:
    """A node of the knowledge graph."""

    id: str
    name: str
    type: str
    description: str = ""
    aliases: tuple[str, ...] = ()
    confidence: float = 1.0
    salience: float = 0.0
    created_at: datetime | None = None
    updated_at: datetime | None = None
    first_seen: datetime | None = None
    last_seen: datetime | None = None
    temporal: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    scope: str = DEFAULT_SCOPE
    layer: MemoryLayer = MemoryLayer.SEMANTIC
    mentions: tuple[Mention, ...] = ()
    # Which turn linked each merged name to this entity, and why (see ``AliasEvidence``).
    alias_evidence: tuple[AliasEvidence, ...] = ()
    # Names the user detached from this entity, as they were written: later imports neither
    # attach them again nor merge another entity into this one through them. Only
    # ``GraphStore.detach_alias`` records one; an upsert leaves them as the store holds them.
    refused_aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Relation:
    """A typed, directed edge of the knowledge graph with the fact it states."""

    id: str
    source_id: str
    target_id: str
    type: str
    fact: str = ""
    confidence: float = 1.0
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    mentions: tuple[Mention, ...] = ()
    # When the store learned the fact and when it retired it (transaction time), for stores that
    # keep both, such as graphiti; ``None`` elsewhere.
    recorded_at: datetime | None = None
    expired_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Neighbour:
    """A relation seen from one entity: the edge and the entity at its other end."""

    relation: Relation
    entity_id: str
    name: str
    type: str
    outgoing: bool


@dataclass(frozen=True, slots=True)
class ChunkHit:
    """A chunk found by a search, with the raw score of the search that found it."""

    chunk: Chunk
    similarity: float = 0.0
    lexical: float = 0.0


@dataclass(frozen=True, slots=True)
class EntityHit:
    """An entity found by a search, its raw scores, and its immediate neighbourhood."""

    entity: Entity
    similarity: float = 0.0
    lexical: float = 0.0
    neighbours: tuple[Neighbour, ...] = ()
    #: The entity's aliases, space-separated, when ``entity`` is a lean record without them.
    alias_text: str = ""


@dataclass(frozen=True, slots=True)
class EmbeddingSpec:
    """Which model made a store's vectors; a query vector must match it exactly."""

    model: str
    dimension: int


@dataclass(frozen=True, slots=True)
class Period:
    """A half-open time interval ``[start, end)``; either end may be open (``None``)."""

    start: datetime | None
    end: datetime | None
    text: str = ""

    def contains(self, moment: datetime) -> bool:
        if self.start is not None and moment < self.start:
            return False
        return self.end is None or moment < self.end


@dataclass(frozen=True, slots=True)
class Subgraph:
    """A piece of the graph: entities by id and the relations among them."""

    entities: dict[str, Entity] = field(default_factory=dict)
    relations: tuple[Relation, ...] = ()
