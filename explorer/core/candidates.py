"""What the coordinator works on: queries, candidates with their raw signals, and the ports.

A ``Candidate`` is one chunk, entity or concept that some route (vector, lexical, graph,
activation) brought back, with the raw signals scoring needs and the core model object behind it.
``CandidateSource`` and ``AssociationSource`` are the coordinator's two ports: one finds
candidates for a query, the other fetches the graph around them for spreading activation.
Imports only the standard library and core models, layers and errors.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any, NamedTuple, Protocol, overload, runtime_checkable

from explorer.core.activation import AdjacencyIndex
from explorer.core.errors import MemoryUnavailable
from explorer.core.layers import RETRIEVABLE_LAYERS
from explorer.core.models import (
    DEFAULT_SCOPE,
    Chunk,
    Entity,
    MemoryLayer,
    Neighbour,
    Period,
    Subgraph,
)

#: Memories per layer when a query does not say.
DEFAULT_K = 5


class CandidateKind(enum.StrEnum):
    CHUNK = "chunk"
    ENTITY = "entity"
    CONCEPT = "concept"


class Source(enum.StrEnum):
    """The route that found a candidate, as badged in the GUI and tallied in ``sources``."""

    VECTOR = "vector"  # nearest chunks by embedding
    LEXICAL = "lexical"  # full-text chunk search, or the concept term scan
    GRAPH = "graph"  # the graph store's entity search
    ACTIVATION = "activation"  # reached by spreading activation from kept hits


#: Route names used in ``unavailable`` and source ledger entries (finer than ``Source``).
ROUTE_VECTOR = "vector"
ROUTE_LEXICAL = "lexical"
ROUTE_GRAPH = "graph"
ROUTE_CONCEPTS = "concepts"
ROUTE_EMBEDDER = "embedder"
ROUTE_ASSOCIATIONS = "associations"


@dataclass(frozen=True, slots=True)
class Candidate:
    """One memory a route found, before any decision about it.

    Signals are in ``[0, 1]``; ``None`` means the signal does not apply to this kind of memory
    (chunks have no salience or confidence; a concept record has no embedding), and scoring
    leaves it out of the weighted mean rather than counting it as 0. ``timestamp`` feeds the
    recency signal. ``routes`` lists every route that returned it when several did.
    """

    id: str
    kind: CandidateKind
    label: str
    layer: MemoryLayer
    source: Source
    scope: str = DEFAULT_SCOPE
    similarity: float | None = 0.0
    lexical: float | None = 0.0
    salience: float | None = None
    confidence: float | None = None
    timestamp: datetime | None = None
    record: Chunk | Entity | None = None
    neighbours: tuple[Neighbour, ...] = ()
    routes: tuple[str, ...] = ()
    #: An entity's other names, space-separated: a query naming one names the entity.
    alias_text: str = ""

    @property
    def key(self) -> tuple[str, str]:
        """Identity for de-duplication: chunks by chunk id, entities and concepts by node id."""
        return ("chunk" if self.kind is CandidateKind.CHUNK else "node", self.id)


@dataclass(frozen=True)
class MemoryQuery:
    """One recall request.

    ``k`` caps memories per layer (``DEFAULT_K`` for a layer it does not name; the profile layer
    uses the policy's ``profile_slots`` instead). ``max_entities`` caps every non-chunk memory
    together (scour's ``kg_top_k``); ``None`` leaves only the per-layer caps. ``now`` anchors
    recency; ``None`` anchors it at the newest timestamp among the candidates, so an old archive
    is not uniformly stale and a re-run gives the same scores. ``agent`` names the concept store's
    agent (default: the scope).
    """

    text: str
    scope: str = DEFAULT_SCOPE
    layers: frozenset[MemoryLayer] = RETRIEVABLE_LAYERS
    k: Mapping[MemoryLayer, int] = field(default_factory=dict)
    max_entities: int | None = None
    domain: str | None = None
    period: Period | None = None
    now: datetime | None = None
    agent: str | None = None

    def limit(self, layer: MemoryLayer) -> int:
        return self.k.get(layer, DEFAULT_K)

    @property
    def concept_agent(self) -> str:
        return self.agent if self.agent is not None else self.scope


class Dropped(NamedTuple):
    """One ledger entry: a candidate (or, with kind ``"none"``, a whole route) not recalled.

    ``value`` and ``threshold`` are the numbers the gate compared (``None`` where the gate is not
    numeric, such as ``layer``); ``margin`` is how far below its floor the value fell.
    """

    id: str
    kind: str
    label: str
    gate: str
    value: float | None
    threshold: float | None
    layer: MemoryLayer | None
    scope: str
    source: str
    reason: str

    @property
    def margin(self) -> float | None:
        if self.value is None or self.threshold is None:
            return None
        return self.threshold - self.value

    def to_json_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "kind": self.kind,
            "label": self.label,
            "gate": self.gate,
            "value": self.value,
            "threshold": self.threshold,
            "layer": self.layer.value if self.layer is not None else None,
            "scope": self.scope,
            "source": self.source,
            "reason": self.reason,
        }


def dropped_candidate(
    candidate: Candidate,
    gate: str,
    reason: str,
    value: float | None = None,
    threshold: float | None = None,
) -> Dropped:
    # ``_value_`` rather than ``.value``: the enum property is slow on a path run per candidate.
    return Dropped(
        id=candidate.id,
        kind=candidate.kind._value_,
        label=candidate.label,
        gate=gate,
        value=value,
        threshold=threshold,
        layer=candidate.layer,
        scope=candidate.scope,
        source=candidate.source._value_,
        reason=reason,
    )


def dropped_route(route: str, gate: str, reason: str, scope: str = "") -> Dropped:
    """A ledger entry about a route rather than a candidate (a failed or missing source)."""
    return Dropped(
        id="",
        kind="none",
        label=route,
        gate=gate,
        value=None,
        threshold=None,
        layer=None,
        scope=scope,
        source=route,
        reason=reason,
    )


class CandidateBatch(Sequence[Candidate]):
    """Candidates with the per-call report of the source that found them.

    A source that returns one of these needs no ``drain_*`` methods, so one source object can
    serve concurrent queries without one turn's tally leaking into another's.
    """

    __slots__ = (
        "_items",
        "answered",
        "asked",
        "by_route",
        "failures",
        "refused",
        "sources",
        "timings_ms",
        "unavailable",
    )

    def __init__(
        self,
        items: Sequence[Candidate] = (),
        *,
        refused: Sequence[Dropped] = (),
        sources: Mapping[str, int] | None = None,
        unavailable: Sequence[str] = (),
        failures: Mapping[str, str] | None = None,
        timings_ms: Mapping[str, float] | None = None,
        asked: Sequence[str] = (),
        by_route: Mapping[str, Sequence[Candidate]] | None = None,
        answered: Sequence[str] = (),
    ) -> None:
        self._items = tuple(items)
        self.asked = tuple(asked)  # the routes the stores were asked along
        # What each route found before the routes' finds were merged (for asking one again).
        self.by_route = {route: tuple(found) for route, found in (by_route or {}).items()}
        # The names the lexical route also looked for (``with_answers``).
        self.answered = tuple(answered)
        self.refused = tuple(refused)
        self.sources = dict(sources or {})
        self.unavailable = tuple(unavailable)
        self.failures = dict(failures or {})
        self.timings_ms = dict(timings_ms or {})

    def but(self, items: Sequence[Candidate] | None = None, **changes: Any) -> CandidateBatch:
        """This batch with other ``items`` and/or other report fields (``changes``)."""
        fields = {name: getattr(self, name) for name in self.__slots__ if name != "_items"}
        return CandidateBatch(self._items if items is None else items, **{**fields, **changes})

    @overload
    def __getitem__(self, index: int) -> Candidate: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Candidate]: ...
    def __getitem__(self, index: int | slice) -> Candidate | Sequence[Candidate]:
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Candidate]:
        return iter(self._items)


class SourcesUnavailable(MemoryUnavailable):
    """Every route a candidate source asked failed; ``failures`` maps route to message."""

    def __init__(self, failures: Mapping[str, str]) -> None:
        self.failures = dict(failures)
        detail = "; ".join(f"{route}: {message}" for route, message in self.failures.items())
        super().__init__(f"memory unavailable: every source failed ({detail})")


@runtime_checkable
class CandidateSource(Protocol):
    """Finds candidates for a query in the given layers.

    Raises ``MemoryUnavailable`` when the memory cannot be reached at all: an empty sequence means
    "this scope remembers nothing". May also offer ``drain_dropped() -> Iterable[Dropped]`` (rows
    it refused) and ``drain_sources() -> (Mapping[str, int], Sequence[str])`` (route tally and
    unavailable routes), drained once per call; or return a ``CandidateBatch`` carrying both.
    A source returning batches may offer ``with_answers(query, batch, answers) -> CandidateBatch``:
    the batch with its lexical route asked again, ``answers`` (names) added to what it scores.
    """

    async def search(
        self, query: MemoryQuery, layers: frozenset[MemoryLayer]
    ) -> Sequence[Candidate]: ...


@runtime_checkable
class AssociationSource(Protocol):
    """Fetches the graph around entities for spreading activation.

    ``neighbours`` returns the given entities, up to ``limit_per_node`` relations of each, the
    entities at their other ends and the relations among them. Transport errors are
    ``StoreUnavailable``; the coordinator then degrades and keeps the recall. A source may also
    offer ``async entities_in_chunks(chunk_ids) -> Mapping[str, Sequence[str]]`` so chunk hits
    can seed activation through the entities they mention.
    """

    async def neighbours(
        self, ids: Sequence[str], *, limit_per_node: int, scope: str | None = None
    ) -> Subgraph: ...


@dataclass(frozen=True)
class Associations:
    """The graph in hand for activation: the subgraph and which chunks mention which entities.

    ``expanded`` names the nodes whose neighbourhood was fetched and ``hops`` how many rounds
    were fetched, so a caller can tell whether another policy needs more of the graph.
    ``adjacency`` is the subgraph's adjacency index when the fetch built it already; ``index``
    is what activation spreads over: that one when it is ``subgraph``'s own, else one built on
    first use and kept, so what-ifs on the same associations build it once.
    """

    subgraph: Subgraph = field(default_factory=Subgraph)
    chunk_entities: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    expanded: frozenset[str] = frozenset()
    hops: int = 0
    limit_per_node: int = 0
    adjacency: AdjacencyIndex | None = field(default=None, compare=False, repr=False)

    @cached_property
    def index(self) -> AdjacencyIndex:
        held = self.adjacency
        return (
            held
            if held is not None and held.subgraph is self.subgraph
            else AdjacencyIndex(self.subgraph)
        )
