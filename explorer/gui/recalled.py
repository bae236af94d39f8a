"""What the window draws of an answer: each recalled entity and chunk with how it was found.

``ShownEntity`` and ``ShownChunk`` pair a stored record (``Entity``, ``Chunk``) with what a query
made of it: the layer and source of its ``Recollection``, its score and breakdown, an entity's
relations, a chunk's activation credit. ``entities_of`` and ``chunks_of`` read them from a typed
``ScourResult`` the way scour's published answer does (an entity found by activation is shown
from its full record, and one that came without relations takes them from the gathered
subgraph), so the window shows what an agent receives. The overview and the store's reads build
the same values without a recollection. Imports the standard library and core; no Qt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from explorer.core.candidates import Source
from explorer.core.credit import ChunkCredit
from explorer.core.models import Chunk, Entity, Neighbour, Relation
from explorer.core.scoring import ScoreBreakdown
from explorer.core.scour import ScourResult, recalled_entity
from explorer.core.select import Recollection


@dataclass(frozen=True, slots=True)
class ShownEntity:
    """An entity as the graph and the inspector show it.

    ``score`` and ``breakdown`` are ``None`` for an entity the query did not return (read from
    the graph); ``placeholder`` marks one of which only the drawn name and type are known yet.
    """

    entity: Entity
    neighbours: tuple[Neighbour, ...] = ()
    layer: str = ""
    source: str = ""
    score: float | None = None
    breakdown: ScoreBreakdown | None = None
    placeholder: bool = False

    @property
    def id(self) -> str:
        return self.entity.id

    @classmethod
    def read(cls, entity: Entity, neighbours: Sequence[Neighbour] = ()) -> ShownEntity:
        """An entity read from the graph store, not recalled by a query."""
        return cls(entity, tuple(neighbours), layer=entity.layer.value, source=Source.GRAPH.value)

    @classmethod
    def stub(cls, entity_id: str, name: str, type_: str) -> ShownEntity:
        return cls(Entity(id=entity_id, name=name, type=type_), placeholder=True)


@dataclass(frozen=True, slots=True)
class ShownChunk:
    """A chunk as a card shows it; ``score`` is ``None`` for one the query did not return.

    ``credit`` says where its activation credit came from (``None``: activation gave it none);
    ``names`` names the entities the credit points at; ``placeholder`` marks one known only by
    its id and label.
    """

    chunk: Chunk
    layer: str = ""
    source: str = ""
    score: float | None = None
    breakdown: ScoreBreakdown | None = None
    credit: ChunkCredit | None = None
    names: Mapping[str, str] = field(default_factory=dict)
    placeholder: bool = False

    @property
    def id(self) -> str:
        return self.chunk.id

    @classmethod
    def stub(cls, chunk_id: str, text: str, *, layer: str = "", source: str = "") -> ShownChunk:
        """A chunk known only by its id and a label (a dropped one whose record is not in hand)."""
        chunk = Chunk(chunk_id, text, "", 0, "", datetime.fromtimestamp(0, UTC))
        return cls(chunk, layer=layer, source=source, placeholder=True)

    @classmethod
    def read(cls, chunk: Chunk, *, layer: str | None = None, source: str = "") -> ShownChunk:
        """A chunk read from the chunk store (a mention, a dropped candidate)."""
        return cls(chunk, layer=chunk.layer.value if layer is None else layer, source=source)


def _shown_entity(memory: Recollection, answer: ScourResult) -> ShownEntity:
    candidate = memory.candidate
    gathered = answer.retrieval.gathered
    associations = gathered.associations if gathered is not None else None
    subgraph = associations.subgraph if associations is not None else None
    entity, neighbours = recalled_entity(memory, subgraph, answer.records)
    return ShownEntity(
        entity,
        neighbours,
        layer=candidate.layer.value,
        source=candidate.source.value,
        score=memory.score,
        breakdown=memory.breakdown,
    )


def entities_of(answer: ScourResult) -> tuple[ShownEntity, ...]:
    """The answer's recalled entities, in rank order."""
    return tuple(_shown_entity(memory, answer) for memory in answer.entities)


def chunks_of(answer: ScourResult) -> tuple[ShownChunk, ...]:
    """The answer's recalled chunks, in rank order, with their activation credit."""
    names = {step.node: step.name for step in answer.retrieval.activation.steps}
    credits = answer.retrieval.credits
    shown: list[ShownChunk] = []
    for memory in answer.chunks:
        chunk = memory.candidate.record
        assert isinstance(chunk, Chunk)
        credit = credits.get(memory.candidate.id)
        shown.append(
            ShownChunk(
                chunk,
                layer=memory.candidate.layer.value,
                source=memory.candidate.source.value,
                score=memory.score,
                breakdown=memory.breakdown,
                credit=credit if credit is not None and credit.credit > 0.0 else None,
                names=names,
            )
        )
    return tuple(shown)


def seen_from(entity_id: str, relation: Relation, names: Mapping[str, Entity]) -> Neighbour:
    """``relation`` seen from ``entity_id``, naming the other end from ``names``."""
    outgoing = relation.source_id == entity_id
    other = relation.target_id if outgoing else relation.source_id
    known = names.get(other)
    return Neighbour(
        relation=relation,
        entity_id=other,
        name=known.name if known is not None else other,
        type=known.type if known is not None else "",
        outgoing=outgoing,
    )


#: The timings the window reports for every answer (0 for a part that did not run).
TIMING_KEYS = ("kg", "chunks", "embed", "coordinator", "total")


def timings_of(answer: ScourResult) -> dict[str, float]:
    """The answer's timings in milliseconds, one per ``TIMING_KEYS`` entry."""
    return {key: float(answer.timings_ms.get(key, 0.0)) for key in TIMING_KEYS}
