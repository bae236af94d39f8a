"""The values that travel between the widgets and the service bridge.

A widget asks for work by handing the bridge a request value; the bridge answers with a response
value on a signal. Each response carries the token of the request it answers, so a widget can drop
an answer that a newer request has made stale. Plain frozen dataclasses; imports the standard
library and core only (no Qt).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from explorer.core.models import Chunk, Entity, Relation
from explorer.core.ports import ImportReport
from explorer.core.scour import ScourResult

#: Scour's published JSON (the tool contract's answer, or a part of it), as the widgets draw it:
#: values are whatever JSON holds, so this is the one place the GUI spells them ``Any``.
JsonDict = dict[str, Any]
JsonMap = Mapping[str, Any]


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
    """A finished scour: the typed answer, the scour JSON it publishes, what the view links by.

    ``answer`` is the ``ScourResult`` (``None`` only for a saved case too old to decide again);
    ``result`` is its tool-contract JSON, the form the graph, chunk list and comparisons draw
    and export, exactly as an agent receives it. ``entities_by_chunk`` maps each returned chunk
    to the entities it mentions (for hover linking); ``degrees`` holds the relation count of
    every returned entity (for "+N more").
    """

    token: int
    params: QueryParams
    result: JsonDict
    answer: ScourResult | None = None
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
        """The outcome of a fresh answer (its JSON made here, once)."""
        return cls(
            token=token,
            params=params,
            result=answer.to_json_dict(),
            answer=answer,
            entities_by_chunk=entities_by_chunk or {},
            degrees=degrees or {},
        )

    @property
    def kg_error(self) -> str | None:
        value = self.result.get("kg_error")
        return str(value) if value else None

    @property
    def chunks_error(self) -> str | None:
        value = self.result.get("chunks_error")
        return str(value) if value else None


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
    """

    token: int
    entity_id: str
    entity: Entity | None
    chunks: tuple[Chunk, ...] = ()
    mention_total: int = 0
    complete: bool = False


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
