"""The merge behind the scour tool: both halves of memory through the coordinator, as one answer.

``scour`` builds a ``MemoryQuery`` from a validated ``ScourRequest`` (``n_chunks`` is the
episodic layer's size, ``kg_top_k`` the size of each graph layer and the cap on graph memories
together; 0 leaves that half's layers out, so its stores are never touched), gathers candidates
with a ``StoreCandidateSource``, lets the ``RetrievalCoordinator`` decide, and returns a
``ScourResult``. The result keeps the candidates and subgraph in hand, so ``ScourResult.decide``
re-runs the decision under another policy without asking the stores (the GUI's what-if).

Errors per half: a failing route's message lands in ``chunks_error`` (vector or lexical chunk
route) or ``kg_error`` (graph or concept route), the other half still answers, and the route is
listed in ``unavailable``. When every half that was asked failed (a skipped half counts as
neither) the answer is ``success: false`` with both errors and an ``error`` naming them: an empty
recall must never be mistaken for "this memory holds nothing".
Imports only the standard library and core.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from explorer.core.asked import GraphAnswer
from explorer.core.budget import Budget, budgeted
from explorer.core.candidates import (
    ROUTE_CONCEPTS,
    ROUTE_GRAPH,
    ROUTE_LEXICAL,
    ROUTE_VECTOR,
    AssociationSource,
    CandidateBatch,
    CandidateKind,
    MemoryQuery,
    Source,
    SourcesUnavailable,
    dropped_route,
)
from explorer.core.codec import chunk_fields, entity_fields, indented_json, relationship_fields
from explorer.core.coordinator import CoordinatedRetrieval, RetrievalCoordinator, decide
from explorer.core.credit import ChunkCredit
from explorer.core.errors import MemoryUnavailable, StoreUnavailable
from explorer.core.gates import GATE_SOURCE
from explorer.core.layers import CHUNK_LAYERS, GRAPH_LAYERS, RETRIEVABLE_LAYERS, layer_names
from explorer.core.lexical import LexicalIndexCache
from explorer.core.models import (
    DEFAULT_SCOPE,
    WEAK_RELATIONS,
    Chunk,
    Entity,
    MemoryLayer,
    Neighbour,
    Period,
    Relation,
    Subgraph,
)
from explorer.core.policy import RetrievalPolicy
from explorer.core.ports import ChunkStore, ConceptStore, Embedder, GraphStore
from explorer.core.select import Recollection
from explorer.core.shape import ShapeAssociations, ShapeCache, ShapeInHand
from explorer.core.sources import (
    CHUNK_ROUTES,
    GRAPH_ROUTES,
    GraphAssociations,
    StoreCandidateSource,
    describe_error,
)
from explorer.core.termscan import TermScan
from explorer.core.validate import printable, validate_scope, validate_scour_arguments

#: Provenance entries listed per entity in JSON (``provenance_count`` gives the full number).
MAX_PROVENANCE = 20
#: Relationships listed per entity in JSON.
MAX_RELATIONSHIPS = 10
SOURCE_KEYS = (Source.VECTOR, Source.LEXICAL, Source.GRAPH, Source.ACTIVATION)


@dataclass(frozen=True)
class ScourRequest:
    """scour's arguments, validated when built (``InvalidArgument`` with a clear message)."""

    query: str
    n_chunks: int = 3
    kg_top_k: int = 5
    domain: str | None = None
    temporal: str | None = None
    scope: str = DEFAULT_SCOPE
    agent: str | None = None
    now: datetime | None = None
    period: Period | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        checked = validate_scour_arguments(
            self.query, self.n_chunks, self.kg_top_k, self.domain, self.temporal
        )
        validate_scope(self.scope)
        if self.agent is not None:
            validate_scope(self.agent, "agent")
        object.__setattr__(self, "period", checked[4])

    def memory_query(self) -> MemoryQuery:
        layers = set(RETRIEVABLE_LAYERS)
        if self.n_chunks == 0:
            layers -= CHUNK_LAYERS
        if self.kg_top_k == 0:
            layers -= GRAPH_LAYERS
        return MemoryQuery(
            text=self.query,
            scope=self.scope,
            layers=frozenset(layers),
            k={
                MemoryLayer.EPISODIC: self.n_chunks,
                MemoryLayer.SEMANTIC: self.kg_top_k,
                MemoryLayer.CONCEPT: self.kg_top_k,
            },
            max_entities=self.kg_top_k,
            domain=self.domain,
            period=self.period,
            now=self.now,
            agent=self.agent,
        )


def neighbours_in(subgraph: Subgraph, node: str, limit: int) -> tuple[Neighbour, ...]:
    """The node's relations in ``subgraph`` seen from it, in the order the stores list a hit's
    neighbours: stated facts first, then confidence and the other end's salience (both
    descending), then relation id."""
    found: list[Neighbour] = []

    def strongest(relation: Relation) -> tuple[bool, float, float, str]:
        other = subgraph.entities.get(
            relation.target_id if relation.source_id == node else relation.source_id
        )
        salience = other.salience if other is not None else 0.0
        return (relation.type in WEAK_RELATIONS, -relation.confidence, -salience, relation.id)

    relations: list[Relation] = sorted(
        (r for r in subgraph.relations if node in (r.source_id, r.target_id)), key=strongest
    )
    for relation in relations[:limit]:
        outgoing = relation.source_id == node
        other = relation.target_id if outgoing else relation.source_id
        entity = subgraph.entities.get(other)
        found.append(
            Neighbour(
                relation=relation,
                entity_id=other,
                name=entity.name if entity is not None else other,
                type=entity.type if entity is not None else "",
                outgoing=outgoing,
            )
        )
    return tuple(found)


def recalled_entity(
    memory: Recollection, subgraph: Subgraph | None, records: Mapping[str, Entity]
) -> tuple[Entity, tuple[Neighbour, ...]]:
    """The entity a recollection shows, and its relations, for the answer and the window alike.

    One whose candidate came with a lean record (found by activation, or by a search answered
    from the graph's shape: both read only what deciding needs) is shown from its full record,
    read once for what is shown, and one without relations takes them from the gathered
    ``subgraph``.
    """
    candidate = memory.candidate
    entity = candidate.record
    if not isinstance(entity, Entity):
        entity = Entity(id=candidate.id, name=candidate.label, type=candidate.kind.value)
    full = records.get(entity.id)
    if full is not None:
        entity = full
    neighbours = candidate.neighbours
    if not neighbours and subgraph is not None:
        neighbours = neighbours_in(subgraph, candidate.id, MAX_RELATIONSHIPS)
    return entity, tuple(neighbours[:MAX_RELATIONSHIPS])


def _entity_json(
    memory: Recollection, subgraph: Subgraph | None, records: Mapping[str, Entity]
) -> dict[str, Any]:
    entity, neighbours = recalled_entity(memory, subgraph, records)
    candidate = memory.candidate
    mentions = entity.mentions
    return {
        **entity_fields(entity, mentions[:MAX_PROVENANCE]),
        "layer": candidate.layer.value,
        "source": candidate.source.value,
        "relationships": [relationship_fields(n) for n in neighbours],
        "provenance_count": len(mentions),
        "score": memory.score,
        "score_breakdown": memory.breakdown.to_dict(),
    }


def _credit_json(credit: ChunkCredit | None, names: Mapping[str, str]) -> dict[str, Any] | None:
    """Where a chunk's activation credit came from (``None``: activation gave it none)."""
    if credit is None or credit.credit <= 0.0:
        return None

    def node(entity_id: str | None, energy: float) -> dict[str, Any] | None:
        if entity_id is None or energy <= 0.0:
            return None
        return {"id": entity_id, "name": names.get(entity_id, entity_id), "energy": energy}

    said = node(credit.said_by, credit.said)
    if said is not None and credit.fact_type is not None:
        said["by"] = "fact"
        end = credit.fact_end or ""
        said["fact"] = {"type": credit.fact_type, "named": {"id": end, "name": names.get(end, end)}}
    elif said is not None and credit.reply_to is not None:
        said["by"] = "reply"
        said["reply_to"] = credit.reply_to
    elif said is not None:
        said["by"] = "speaker" if credit.by_speaker else "mention"
    return {
        "credit": credit.credit,
        "said": said,
        "topic": node(credit.topic_of, credit.topic),
        "next_to": (
            {"chunk_id": credit.next_to, "strength": credit.contiguity}
            if credit.next_to is not None
            else None
        ),
    }


def _chunk_json(memory: Recollection, credit: dict[str, Any] | None) -> dict[str, Any]:
    candidate = memory.candidate
    chunk = candidate.record
    assert isinstance(chunk, Chunk)
    return {
        **chunk_fields(chunk),
        "layer": candidate.layer.value,
        "source": candidate.source.value,
        "score": memory.score,
        "score_breakdown": memory.breakdown.to_dict(),
        "activation_credit": credit,
    }


@dataclass(frozen=True)
class ScourResult:
    """One scour answer: the coordinated retrieval, per-half errors and timings."""

    request: ScourRequest
    retrieval: CoordinatedRetrieval
    kg_error: str | None = None
    chunks_error: str | None = None
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    # Full records (with mentions) of recalled entities whose candidates came without them
    # (concept-scan hits, activation finds), so every entity in the answer shows its provenance.
    records: Mapping[str, Entity] = field(default_factory=dict)
    # The halves ("graph", "chunks") every asked route of which failed: they gave nothing.
    failed_halves: frozenset[str] = frozenset()

    @property
    def memories(self) -> tuple[Recollection, ...]:
        return self.retrieval.result.memories

    @property
    def failure(self) -> str | None:
        """Why nothing could be recalled: every half asked failed; ``None`` otherwise."""
        asked = [
            (name, half, error)
            for name, half, count, error in (
                ("knowledge graph", "graph", self.request.kg_top_k, self.kg_error),
                ("chunks", "chunks", self.request.n_chunks, self.chunks_error),
            )
            if count
        ]
        if not asked or any(half not in self.failed_halves for _, half, _ in asked):
            return None
        return "every half asked failed: " + "; ".join(f"{n}: {e}" for n, _, e in asked)

    @property
    def chunks(self) -> list[Recollection]:
        return [m for m in self.memories if m.candidate.kind is CandidateKind.CHUNK]

    @property
    def entities(self) -> list[Recollection]:
        return [m for m in self.memories if m.candidate.kind is not CandidateKind.CHUNK]

    @property
    def answers(self) -> tuple[GraphAnswer, ...]:
        """The facts the graph held in answer, whose far ends the lexical route also looked for
        by name (``core.asked.graph_answers``); none when it did not look."""
        gathered = self.retrieval.gathered
        if gathered is None or not gathered.answered:
            return ()
        return gathered.answers or ()

    def decide(self, policy: RetrievalPolicy) -> ScourResult:
        """This answer decided again under ``policy`` from the candidates in hand (no I/O)."""
        started = time.perf_counter()
        retrieval = self.retrieval.with_policy(policy)
        timings = dict(self.timings_ms)
        timings["coordinator"] = (time.perf_counter() - started) * 1000.0
        return ScourResult(
            self.request,
            retrieval,
            self.kg_error,
            self.chunks_error,
            timings,
            self.records,
            self.failed_halves,
        )

    def to_json_dict(self) -> dict[str, Any]:
        """The scour JSON contract (see the project brief) as plain data."""
        result = self.retrieval.result
        gathered = self.retrieval.gathered
        subgraph = (
            gathered.associations.subgraph
            if gathered is not None and gathered.associations is not None
            else None
        )
        entities = [_entity_json(memory, subgraph, self.records) for memory in self.entities]
        names = {step.node: step.name for step in self.retrieval.activation.steps}
        credits = self.retrieval.credits
        chunks = [
            _chunk_json(memory, _credit_json(credits.get(memory.candidate.id), names))
            for memory in self.chunks
        ]
        failure = self.failure
        body: dict[str, Any] = {
            "success": failure is None,
            "query": self.request.query,
            "kg_entities": entities,
            "kg_count": len(entities),
            "chunks": chunks,
            "chunk_count": len(chunks),
        }
        if failure is not None:
            body["error"] = failure
        if self.kg_error is not None:
            body["kg_error"] = self.kg_error
        if self.chunks_error is not None:
            body["chunks_error"] = self.chunks_error
        if self.request.domain is not None:
            body["domain_filter"] = self.request.domain
        if self.request.temporal is not None:
            body["temporal_filter"] = self.request.temporal
        body["dropped"] = [entry.to_json_dict() for entry in result.dropped]
        body["activation"] = self.retrieval.activation.to_json_list()
        # What the graph holds in answer, which the lexical route also looked for by name.
        body["answers"] = [
            {"of": answer.named, "kind": answer.kind, "answer": answer.answer}
            for answer in self.answers
        ]
        body["layers"] = layer_names(self.retrieval.layers)
        body["sources"] = {key.value: int(result.sources.get(key.value, 0)) for key in SOURCE_KEYS}
        body["unavailable"] = list(result.unavailable)
        body["timings_ms"] = {
            key: float(self.timings_ms.get(key, 0.0))
            for key in ("kg", "chunks", "embed", "coordinator", "total")
        }
        return body

    def to_json(self) -> str:
        return indented_json(self.to_json_dict())


def scour_failure(query: object, error: str) -> dict[str, Any]:
    """The failure object: ``{"success": false, "error": ..., "query": ...}``."""
    shown = printable(query) if isinstance(query, str) else repr(query)
    return {"success": False, "error": error, "query": shown}


def _half_error(failures: Mapping[str, str], routes: tuple[str, ...]) -> str | None:
    messages = [f"{route}: {failures[route]}" for route in routes if route in failures]
    return "; ".join(messages) if messages else None


async def _full_records(
    retrieval: CoordinatedRetrieval, graph: GraphStore | None
) -> dict[str, Entity]:
    """Recalled entities that arrived without mentions, read in full; empty when the graph is
    down."""
    wanted = [
        memory.candidate.id
        for memory in retrieval.result.memories
        if memory.candidate.kind is not CandidateKind.CHUNK
        and not (isinstance(memory.candidate.record, Entity) and memory.candidate.record.mentions)
    ]
    if graph is None or not wanted:
        return {}
    try:
        entities = await graph.get_entities(wanted)
    except StoreUnavailable:
        # The recall stands without the garnish; the GUI fetches provenance on demand.
        return {}
    return {entity.id: entity for entity in entities}


class _TimedSource:
    """Wraps the store source so scour can read the batch's timings after coordinating."""

    def __init__(self, inner: StoreCandidateSource) -> None:
        self.inner = inner
        self.batch: CandidateBatch | None = None

    async def search(self, query: MemoryQuery, layers: frozenset[MemoryLayer]) -> CandidateBatch:
        self.batch = await self.inner.search(query, layers)
        return self.batch

    async def with_answers(
        self, query: MemoryQuery, batch: CandidateBatch, answers: Sequence[str]
    ) -> CandidateBatch:
        self.batch = await self.inner.with_answers(query, batch, answers)
        return self.batch


async def scour(
    request: ScourRequest,
    *,
    graph: GraphStore | None,
    chunks: ChunkStore | None,
    concepts: ConceptStore | None,
    embedder: Embedder | None,
    policy: RetrievalPolicy,
    term_scan: TermScan | None = None,
    associations: AssociationSource | None = None,
    lexical_index: LexicalIndexCache | None = None,
    shape: ShapeCache | None = None,
    deadline: float | None = None,
) -> ScourResult:
    """Query both halves of memory concurrently and merge them through the coordinator.

    ``term_scan`` lets a long-lived caller keep the concept read cache across calls, and
    ``lexical_index`` the per-scope BM25 indexes of the lexical route (without one, the chunk
    store's own full-text search ranks);
    ``associations`` defaults to the graph store's neighbourhoods, read from ``shape`` (the
    graph held in process) when the store offers one. ``deadline`` is each half's
    budget in seconds for all its round trips together (``core.budget``).
    """
    started = time.perf_counter()
    query = request.memory_query()
    unbounded_graph = graph
    if deadline is not None:
        graph_budget = Budget("the graph half (entities and concepts)", deadline)
        chunk_budget = Budget("the chunk half", deadline)
        graph = budgeted(graph, graph_budget)
        concepts = budgeted(concepts, graph_budget)
        associations = budgeted(associations, graph_budget)
        chunks = budgeted(chunks, chunk_budget)
        embedder = budgeted(embedder, chunk_budget)
    in_hand = None
    if shape is not None and graph is not None and policy.effective_layers(query) & GRAPH_LAYERS:
        in_hand = ShapeInHand(shape, graph, unbounded_graph)
    source = _TimedSource(
        StoreCandidateSource(
            chunks=chunks,
            graph=graph,
            embedder=embedder,
            concepts=concepts,
            policy=policy,
            term_scan=term_scan,
            lexical_index=lexical_index,
            shape=in_hand,
        )
    )
    if associations is None and graph is not None:
        associations = GraphAssociations(graph)
        spreads = policy.activation.enabled and policy.activation.hops > 0
        if in_hand is not None and spreads:
            associations = ShapeAssociations(in_hand, associations)
    coordinator = RetrievalCoordinator(source=source, policy=policy, associations=associations)
    try:
        retrieval = await coordinator.coordinate(query)
    except MemoryUnavailable as error:
        failures = (
            error.failures
            if isinstance(error, SourcesUnavailable)
            else {route: describe_error(error) for route in (ROUTE_VECTOR, ROUTE_GRAPH)}
        )
        refused = [
            dropped_route(route, GATE_SOURCE, f"{route} route failed: {message}", query.scope)
            for route, message in failures.items()
        ]
        retrieval = decide((), query, policy, refused=refused, unavailable=tuple(failures))
        timings = {"total": (time.perf_counter() - started) * 1000.0}
        asked_chunks = bool(policy.effective_layers(query) & CHUNK_LAYERS)
        asked_graph = bool(policy.effective_layers(query) & GRAPH_LAYERS)
        every = describe_error(error)
        return ScourResult(
            request,
            retrieval,
            kg_error=(_half_error(failures, GRAPH_ROUTES) or every) if asked_graph else None,
            chunks_error=(_half_error(failures, CHUNK_ROUTES) or every) if asked_chunks else None,
            timings_ms=timings,
            failed_halves=frozenset({"graph", "chunks"}),
        )

    records = await _full_records(retrieval, graph)
    if shape is not None:
        shape.load_pending()
    batch = source.batch
    failures = batch.failures if batch is not None else {}
    timings = dict(batch.timings_ms) if batch is not None else {}
    timings["kg"] = timings.get("kg", 0.0) + retrieval.timings_ms.get("associations", 0.0)
    # The lexical route asked again for the graph's answers is chunk work, after the graph's.
    timings["chunks"] = timings.get("chunks", 0.0) + timings.pop("answers", 0.0)
    timings["coordinator"] = retrieval.timings_ms.get("decide", 0.0)
    timings["total"] = (time.perf_counter() - started) * 1000.0
    return ScourResult(
        request,
        retrieval,
        kg_error=_half_error(failures, (ROUTE_GRAPH, ROUTE_CONCEPTS)),
        chunks_error=_half_error(failures, (ROUTE_VECTOR, ROUTE_LEXICAL)),
        timings_ms=timings,
        records=records,
        failed_halves=frozenset(
            half
            for half, routes in (("graph", GRAPH_ROUTES), ("chunks", CHUNK_ROUTES))
            if _all_failed(batch, routes)
        ),
    )


def _all_failed(batch: CandidateBatch | None, routes: tuple[str, ...]) -> bool:
    """Whether the batch asked any of ``routes`` and every one it asked failed."""
    if batch is None:
        return False
    asked = [route for route in routes if route in batch.asked]
    return bool(asked) and all(route in batch.failures for route in asked)
