"""The values that travel between the widgets and the service bridge.

A widget asks for work by handing the bridge a request value; the bridge answers with a response
value on a signal. Each response carries the token of the request it answers, so a widget can drop
an answer that a newer request has made stale. Plain frozen dataclasses; imports the standard
library, core and the GUI's plain ``recalled`` view (no Qt).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from explorer.core.models import Chunk, Entity, Relation
from explorer.core.ports import ImportReport
from explorer.core.scour import ScourResult
from explorer.gui.recalled import ShownChunk, ShownEntity, chunks_of, entities_of


@dataclass(frozen=True)
class QueryParams:
    """What the query bar asks scour for."""

    query: str
    n_chunks: int = 8
    kg_top_k: int = 8
    domain: str | None = None
    temporal: str | None = None
    scope: str | None = None

    def describe(self) -> str:
        extras = [
            f"{name}={value}"
            for name, value in (
                ("domain", self.domain),
                ("temporal", self.temporal),
                ("scope", self.scope),
            )
            if value
        ]
        return self.query + (f"  [{', '.join(extras)}]" if extras else "")


@dataclass(frozen=True)
class QueryOutcome:
    """A finished scour: the typed answer and what the view links by.

    ``answer`` is the ``ScourResult``; ``entities`` and ``chunks`` are its recalled memories as
    the graph, the inspector and the chunk list draw them (read once, on first use).
    ``entities_by_chunk`` maps each returned chunk to the entities it mentions (for hover
    linking); ``degrees`` holds the relation count of every returned entity (for "+N more").
    The published JSON, for export and comparisons, is ``answer.to_json_dict()``.
    """

    token: int
    params: QueryParams
    answer: ScourResult
    entities_by_chunk: Mapping[str, list[str]] = field(default_factory=dict)
    degrees: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        token: int,
        params: QueryParams,
        answer: ScourResult,
        *,
        entities_by_chunk: Mapping[str, list[str]] | None = None,
        degrees: Mapping[str, int] | None = None,
    ) -> QueryOutcome:
        return cls(
            token=token,
            params=params,
            answer=answer,
            entities_by_chunk=entities_by_chunk or {},
            degrees=degrees or {},
        )

    @cached_property
    def entities(self) -> tuple[ShownEntity, ...]:
        return entities_of(self.answer)

    @cached_property
    def chunks(self) -> tuple[ShownChunk, ...]:
        return chunks_of(self.answer)

    def entity(self, entity_id: str) -> ShownEntity | None:
        """The recalled entity ``entity_id``, or ``None`` if the answer did not return it."""
        return next((shown for shown in self.entities if shown.id == entity_id), None)

    @property
    def kg_error(self) -> str | None:
        return self.answer.kg_error or None

    @property
    def chunks_error(self) -> str | None:
        return self.answer.chunks_error or None


@dataclass(frozen=True)
class ExpandRequest:
    """Fetch up to ``cap`` neighbours of ``node_id``."""

    token: int
    node_id: str
    cap: int


@dataclass(frozen=True)
class Expansion:
    """The neighbourhood fetched for an expand request."""

    token: int
    node_id: str
    cap: int
    entities: tuple[Entity, ...]
    relations: tuple[Relation, ...]
    degrees: Mapping[str, int]


@dataclass(frozen=True)
class EntityDetails:
    """One entity with its full provenance, and chunks its mentions point into.

    ``chunks`` holds the chunks fetched for this answer (those the caller already had are not
    fetched again); ``mention_total`` counts the distinct chunks mentioned, so the list can say
    "all N mentions" before fetching them all; ``complete`` says whether all were asked for.
    For a speaker, ``said`` holds their latest turns and ``said_total`` how many they said: in a
    chat between two people a speaker's name is seldom written, so mentions alone list little.
    """

    token: int
    entity_id: str
    entity: Entity | None
    chunks: tuple[Chunk, ...] = ()
    mention_total: int = 0
    complete: bool = False
    said: tuple[Chunk, ...] = ()
    said_total: int = 0


@dataclass(frozen=True)
class ImportRequest:
    """A file to import from the window: its format, the scope to put it under, strictness."""

    path: str
    format: str
    scope: str
    skip_bad: bool = False


@dataclass(frozen=True)
class ImportOutcome:
    """How an import from the window ended. ``report`` is the pipeline's ``IngestReport`` when
    it ran to the end; a cancelled import says how many written chunks were completed after the
    cancel (``completed``); ``error`` is set when it failed (nothing was imported in strict
    mode when the file was bad)."""

    request: ImportRequest
    report: ImportReport | None = None
    cancelled: bool = False
    completed: int = 0
    error: str = ""
