"""Candidate and association sources over the store ports (no drivers: ports only).

``StoreCandidateSource`` asks the stores for candidates along four routes, in two halves that run
concurrently: the *chunk half* (the query embedded, then ``ChunkStore.search`` with the domain
filter inside the query; ``ChunkStore.lexical_search`` for the lexical signal) and the *graph half*
(``GraphStore.search_entities`` with the query vector and the period; the term scan over the
``ConceptStore``). Every route is awaited on its own, so one failing never sinks another; a
failure is recorded (route name in ``unavailable``, message in ``failures``, an entry in the
ledger) and only when *every* route asked has failed does the search raise ``MemoryUnavailable``.
A layer not searched, a count of 0 or a relevance weight of 0 means the route that serves it is
not asked at all (``similarity`` 0: no embedding; ``lexical`` 0: no full-text search).

Signal conventions: similarity is the store's cosine clamped to ``[0, 1]`` (a chunk's scaled down
when it has fewer than three words of its own: ``substance``); the lexical scores of
the chunk and entity full-text routes are divided by the best score of that route for this query
among the memories within reach (relative score fusion: the best lexical hit is 1; a hit on
another branch, which the scope gate drops, moves no other score); the term scan's lexical
signal is its overlap as a share of the most the query's terms could score. A chunk found by both
chunk routes becomes one candidate with both signals (source ``vector``, both routes listed).
Each route searches the query's scope and, when scope blending may climb, the highest ancestor
within reach. A chunk store with a ``vector_refusal(spec)`` method (a graphiti graph) can decline
the vector route up front: the reason goes to the ledger and the route is listed in
``unavailable``, without a failure.

``GraphAssociations`` is the association source over ``GraphStore``. Imports only the standard
library and core.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from explorer.core.blend import reach_scopes, within_reach
from explorer.core.candidates import (
    ROUTE_CONCEPTS,
    ROUTE_EMBEDDER,
    ROUTE_GRAPH,
    ROUTE_LEXICAL,
    ROUTE_VECTOR,
    Candidate,
    CandidateBatch,
    CandidateKind,
    Dropped,
    MemoryQuery,
    Source,
    SourcesUnavailable,
    dropped_route,
)
from explorer.core.errors import ExplorerError
from explorer.core.gates import GATE_SOURCE
from explorer.core.layers import CHUNK_LAYERS, ENTITY_LAYERS
from explorer.core.lexical import LexicalIndexCache, ScopeChunks
from explorer.core.models import (
    ChunkHit,
    Entity,
    EntityHit,
    MemoryLayer,
    Subgraph,
    scope_distance,
    scope_parts,
)
from explorer.core.policy import RetrievalPolicy
from explorer.core.ports import ChunkStore, ConceptStore, Embedder, GraphStore
from explorer.core.scoring import clamp_unit
from explorer.core.shape import RankedSearch, ShapeInHand
from explorer.core.termscan import ConceptHit, TermScan
from explorer.core.text import STOP_WORDS, words

#: Which half of scour each route belongs to.
#: Agents a root- or tenant-level query scans concepts of, at most.
MAX_SCANNED_AGENTS = 32
CHUNK_ROUTES = (ROUTE_VECTOR, ROUTE_LEXICAL)
GRAPH_ROUTES = (ROUTE_GRAPH, ROUTE_CONCEPTS)

_H = TypeVar("_H", ChunkHit, EntityHit)


def describe_error(error: BaseException) -> str:
    """A one-line message; errors that are not the project's own also name their type."""
    text = str(error) or type(error).__name__
    return text if isinstance(error, ExplorerError) else f"{type(error).__name__}: {text}"


def _store_scope(scope: str) -> str | None:
    return scope or None


def _chunk_scope(hit: ChunkHit) -> str:
    return hit.chunk.scope


def _entity_scope(hit: EntityHit) -> str:
    return hit.entity.scope


def _normalised(values: Sequence[float]) -> float:
    best = max(values, default=0.0)
    return best if best > 0.0 else 1.0


#: Words of its own (stop words aside) a turn needs for its similarity to count in full.
SUBSTANTIAL_WORDS = 3


def substance(text: str) -> float:
    """The share of a chunk's similarity that is its own words': a chunk is embedded with its
    speaker's name ("mo.haddad: damn"), so the embedding of a turn of a word or two is mostly
    that name, and a question naming the speaker found all their short turns ("lol fair", "🫠")
    before the turn that answered it. 1 from ``SUBSTANTIAL_WORDS`` words up, less below (0 for
    a turn of emoji alone); a chunk without a speaker is embedded as its text and keeps all."""
    own = sum(1 for word in words(text) if word not in STOP_WORDS)
    return 1.0 if own >= SUBSTANTIAL_WORDS else own / SUBSTANTIAL_WORDS


def _chunk_candidate(hit: ChunkHit, source: Source, lexical_scale: float) -> Candidate:
    chunk = hit.chunk
    return Candidate(
        id=chunk.id,
        kind=CandidateKind.CHUNK,
        label=chunk.text[:120],
        layer=chunk.layer,
        source=source,
        scope=chunk.scope,
        similarity=clamp_unit(hit.similarity) * (substance(chunk.text) if chunk.speaker else 1.0),
        lexical=clamp_unit(hit.lexical / lexical_scale),
        salience=None,
        confidence=None,
        timestamp=chunk.timestamp,
        record=chunk,
        routes=(source.value,),
    )


def _entity_candidate(hit: EntityHit, lexical_scale: float) -> Candidate:
    entity = hit.entity
    return Candidate(
        id=entity.id,
        kind=CandidateKind.ENTITY,
        label=entity.name,
        layer=entity.layer,
        source=Source.GRAPH,
        scope=entity.scope,
        similarity=clamp_unit(hit.similarity),
        lexical=clamp_unit(hit.lexical / lexical_scale),
        salience=entity.salience,
        confidence=entity.confidence,
        timestamp=entity.last_seen or entity.updated_at,
        record=entity,
        neighbours=hit.neighbours,
        routes=(ROUTE_GRAPH,),
        alias_text=hit.alias_text or " ".join(entity.aliases),
    )


def concept_entity(hit: ConceptHit, scope: str) -> Entity:
    """The concept record as an entity of the concept layer, for results and the GUI."""
    record = hit.record
    return Entity(
        id=record.id,
        name=record.name,
        type=record.type,
        description=record.description,
        aliases=record.aliases,
        confidence=record.confidence,
        salience=record.salience or 0.0,
        updated_at=record.updated_at,
        first_seen=record.first_seen,
        last_seen=record.last_seen,
        temporal=record.temporal,
        domains=record.domains,
        scope=record.scope or scope,
        layer=MemoryLayer.CONCEPT,
    )


def _concept_candidate(hit: ConceptHit, scope: str) -> Candidate:
    entity = concept_entity(hit, scope)
    return Candidate(
        id=entity.id,
        kind=CandidateKind.CONCEPT,
        label=entity.name,
        layer=MemoryLayer.CONCEPT,
        source=Source.LEXICAL,
        scope=entity.scope,
        similarity=None,
        lexical=hit.lexical,
        salience=hit.record.salience,
        confidence=hit.record.confidence,
        timestamp=hit.record.seen_at,
        record=entity,
        routes=(ROUTE_CONCEPTS,),
    )


def _merge(first: Candidate, second: Candidate) -> Candidate:
    """One candidate from two sightings of the same memory: the stronger signals, both routes."""

    def stronger(a: float | None, b: float | None) -> float | None:
        if a is None:
            return b
        return a if b is None else max(a, b)

    return replace(
        first,
        similarity=stronger(first.similarity, second.similarity),
        lexical=stronger(first.lexical, second.lexical),
        neighbours=first.neighbours or second.neighbours,
        routes=tuple(dict.fromkeys((*first.routes, *second.routes))),
    )


def _tally(by_route: Mapping[str, Sequence[Candidate]]) -> dict[str, int]:
    """How many memories each source found, from each route's finds."""
    count = {route: len({candidate.id for candidate in found}) for route, found in by_route.items()}
    return {
        Source.VECTOR.value: count.get(ROUTE_VECTOR, 0),
        Source.LEXICAL.value: count.get(ROUTE_LEXICAL, 0) + count.get(ROUTE_CONCEPTS, 0),
        Source.GRAPH.value: count.get(ROUTE_GRAPH, 0),
    }


def _collect(groups: Sequence[Sequence[Candidate]]) -> list[Candidate]:
    merged: dict[tuple[str, str], Candidate] = {}
    for group in groups:
        for candidate in group:
            key = (candidate.kind.value, candidate.id)
            seen = merged.get(key)
            merged[key] = candidate if seen is None else _merge(seen, candidate)
    return list(merged.values())


@dataclass(frozen=True, slots=True)
class _Outcome:
    candidates: tuple[Candidate, ...] = ()
    error: str | None = None
    elapsed_ms: float = 0.0


class StoreCandidateSource:
    """A ``CandidateSource`` over the store ports; returns a ``CandidateBatch`` per call.

    Holds no per-query state, so one instance can serve concurrent queries. ``policy`` decides
    which routes are asked and how many candidates (``k * fetch_factor``) each returns.
    """

    def __init__(
        self,
        *,
        chunks: ChunkStore | None,
        graph: GraphStore | None,
        embedder: Embedder | None,
        concepts: ConceptStore | None = None,
        policy: RetrievalPolicy,
        term_scan: TermScan | None = None,
        neighbour_limit: int = 10,
        clock: Callable[[], float] = time.perf_counter,
        lexical_index: LexicalIndexCache | None = None,
        shape: ShapeInHand | None = None,
    ) -> None:
        self._chunks = chunks
        self._shape = shape
        self._graph = graph
        self._embedder = embedder
        self._concepts = concepts
        self._scan = term_scan or TermScan()
        self._policy = policy
        self._neighbour_limit = neighbour_limit
        self._clock = clock
        self._lexical_index = lexical_index

    async def search(self, query: MemoryQuery, layers: frozenset[MemoryLayer]) -> CandidateBatch:
        policy = self._policy
        weights = policy.weights
        fetch = policy.fetch_factor
        scopes = reach_scopes(query.scope, policy.blend)
        refused: list[Dropped] = []

        k_chunks = query.limit(MemoryLayer.EPISODIC) * fetch if layers & CHUNK_LAYERS else 0
        graph_k = 0
        if MemoryLayer.SEMANTIC in layers:
            graph_k = query.limit(MemoryLayer.SEMANTIC)
        if MemoryLayer.PROFILE in layers:
            graph_k = max(graph_k, policy.profile_slots)
        graph_k *= fetch
        concept_k = query.limit(MemoryLayer.CONCEPT) * fetch if MemoryLayer.CONCEPT in layers else 0

        ask_vector = k_chunks > 0 and weights.similarity > 0
        ask_lexical = k_chunks > 0 and weights.lexical > 0
        ask_graph = graph_k > 0 and bool(layers & ENTITY_LAYERS)
        ask_concepts = concept_k > 0
        for wanted, store, route, what in (
            (ask_vector, self._chunks and self._embedder, ROUTE_VECTOR, "chunk store or embedder"),
            (ask_lexical, self._chunks, ROUTE_LEXICAL, "chunk store"),
            (ask_graph, self._graph, ROUTE_GRAPH, "graph store"),
            (ask_concepts, self._concepts, ROUTE_CONCEPTS, "concept store"),
        ):
            if wanted and not store:
                refused.append(
                    dropped_route(route, GATE_SOURCE, f"no {what} is configured", query.scope)
                )
        ask_vector = ask_vector and self._chunks is not None and self._embedder is not None
        # A store that knows its vectors cannot be compared with this embedder's (a graphiti
        # graph of another or unknown model) says why; the route is then not asked at all.
        skipped: list[str] = []
        if ask_vector:
            reason = await _vector_refusal(self._chunks, self._embedder)
            if reason is not None:
                ask_vector = False
                skipped.append(ROUTE_VECTOR)
                refused.append(dropped_route(ROUTE_VECTOR, GATE_SOURCE, reason, query.scope))
        ask_lexical = ask_lexical and self._chunks is not None
        ask_graph = ask_graph and self._graph is not None
        ask_concepts = ask_concepts and self._concepts is not None

        embed_ms: list[float] = []
        embedding: asyncio.Task[list[float]] | None = None
        wants_vector = weights.similarity > 0 and self._embedder is not None
        if ask_vector or (ask_graph and wants_vector):
            embedding = asyncio.ensure_future(self._embed(query.text, embed_ms))

        routes: dict[str, Awaitable[_Outcome]] = {}
        if ask_vector:
            routes[ROUTE_VECTOR] = self._timed(
                lambda: self._vector(query, scopes, k_chunks, embedding)
            )
        if ask_lexical:
            routes[ROUTE_LEXICAL] = self._timed(lambda: self._lexical(query, scopes, k_chunks))
        if ask_graph:
            routes[ROUTE_GRAPH] = self._timed(
                lambda: self._entities(query, scopes, graph_k, embedding)
            )
        if ask_concepts:
            routes[ROUTE_CONCEPTS] = self._timed(lambda: self._concept_scan(query, concept_k))

        try:
            outcomes = dict(zip(routes, await asyncio.gather(*routes.values()), strict=True))
        finally:
            if embedding is not None and not embedding.done():
                embedding.cancel()

        failures: dict[str, str] = {}
        unavailable: list[str] = list(skipped)
        if embedding is not None and embedding.done() and not embedding.cancelled():
            trouble = embedding.exception()
            if trouble is not None:
                failures[ROUTE_EMBEDDER] = describe_error(trouble)
                unavailable.append(ROUTE_EMBEDDER)
        for route, outcome in outcomes.items():
            if outcome.error is not None:
                failures[route] = outcome.error
                unavailable.append(route)
                refused.append(
                    dropped_route(
                        route, GATE_SOURCE, f"{route} route failed: {outcome.error}", query.scope
                    )
                )
        if outcomes and all(outcome.error is not None for outcome in outcomes.values()):
            raise SourcesUnavailable(failures)

        by_route = {route: outcome.candidates for route, outcome in outcomes.items()}

        def half_ms(names: Sequence[str]) -> float:
            return max(
                (outcomes[name].elapsed_ms for name in names if name in outcomes), default=0.0
            )

        return CandidateBatch(
            _collect(list(by_route.values())),
            refused=refused,
            sources=_tally(by_route),
            unavailable=unavailable,
            failures=failures,
            asked=tuple(outcomes),
            timings_ms={
                "embed": sum(embed_ms),
                "chunks": half_ms(CHUNK_ROUTES),
                "kg": half_ms(GRAPH_ROUTES),
            },
            by_route=by_route,
        )

    async def with_answers(
        self, query: MemoryQuery, batch: CandidateBatch, answers: Sequence[str]
    ) -> CandidateBatch:
        """``batch`` with its lexical route asked again, ``answers`` (the names the graph
        holds for what the query asks) in the pool of instances it scores (``answered`` says
        so); the batch as it was when the route was not asked or failed the first time, cannot
        take them (no index in process, no weight for instances) or fails now (with a note)."""
        cache, chunks = self._lexical_index, self._chunks
        routes = batch.by_route
        if not answers or ROUTE_LEXICAL not in routes or ROUTE_LEXICAL in batch.failures:
            return batch
        if cache is None or cache.params.instance_weight <= 0.0:
            return batch
        if not isinstance(chunks, ScopeChunks):
            return batch
        policy = self._policy
        scopes = reach_scopes(query.scope, policy.blend)
        k = query.limit(MemoryLayer.EPISODIC) * policy.fetch_factor
        outcome = await self._timed(lambda: self._lexical(query, scopes, k, answers))
        if outcome.error is not None:
            note = dropped_route(
                ROUTE_LEXICAL,
                GATE_SOURCE,
                f"the graph's answers could not be searched for ({outcome.error}); "
                "the lexical route's first finds stand",
                query.scope,
            )
            return batch.but(refused=(*batch.refused, note))
        again = {**routes, ROUTE_LEXICAL: outcome.candidates}
        return batch.but(
            _collect(list(again.values())),
            sources=_tally(again),
            timings_ms={**batch.timings_ms, "answers": outcome.elapsed_ms},
            by_route=again,
            answered=answers,
        )

    async def _embed(self, text: str, elapsed: list[float]) -> list[float]:
        assert self._embedder is not None
        started = self._clock()
        try:
            vectors = await self._embedder.embed([text])
        finally:
            elapsed.append((self._clock() - started) * 1000.0)
        if len(vectors) != 1:
            raise ExplorerError(f"the embedder returned {len(vectors)} vectors for 1 text")
        return vectors[0]

    async def _timed(self, work: Callable[[], Awaitable[list[Candidate]]]) -> _Outcome:
        # ``work`` makes its coroutine only once this runs: a route cancelled before it starts
        # (a newer query superseding this one) must leave no coroutine that was never awaited.
        started = self._clock()
        try:
            found = await work()
        except Exception as error:  # one route failing must never sink the others
            return _Outcome(error=describe_error(error), elapsed_ms=self._elapsed(started))
        return _Outcome(candidates=tuple(found), elapsed_ms=self._elapsed(started))

    def _elapsed(self, started: float) -> float:
        return (self._clock() - started) * 1000.0

    @staticmethod
    async def _per_scope(
        query: MemoryQuery,
        scopes: Sequence[str],
        search: Callable[[str | None], Awaitable[Sequence[_H]]],
        scope_of: Callable[[_H], str],
    ) -> list[_H]:
        """The hits of every scope searched, each memory from the search that owns it.

        The first scope is the query's own; an ancestor's subtree holds it again, but the
        query's own memories are taken from their own search only, so that their scores are
        measured against their own scope and not against what sibling branches hold.
        """
        groups = await asyncio.gather(*(search(_store_scope(scope)) for scope in scopes))
        found = list(groups[0]) if groups else []
        for group in groups[1:]:
            found.extend(hit for hit in group if scope_distance(scope_of(hit), query.scope) != 0)
        return found

    def _scale(
        self, query: MemoryQuery, hits: Sequence[_H], scope_of: Callable[[_H], str]
    ) -> float:
        """The best lexical score among the hits within reach: a memory the scope gate will
        drop (another branch) must not lower the others' relative scores."""
        blend = self._policy.blend
        return _normalised(
            [
                hit.lexical
                for hit in hits
                if within_reach(scope_of(hit), query.scope, blend) is not None
            ]
        )

    async def _vector(
        self,
        query: MemoryQuery,
        scopes: Sequence[str],
        k: int,
        embedding: asyncio.Task[list[float]] | None,
    ) -> list[Candidate]:
        assert self._chunks is not None and self._embedder is not None and embedding is not None
        chunks, spec = self._chunks, self._embedder.spec
        try:
            vector = await asyncio.shield(embedding)
        except Exception as error:
            raise ExplorerError(
                f"the query could not be embedded: {describe_error(error)}"
            ) from error
        hits = await self._per_scope(
            query,
            scopes,
            lambda scope: chunks.search(vector, k, spec=spec, domain=query.domain, scope=scope),
            _chunk_scope,
        )
        return [_chunk_candidate(hit, Source.VECTOR, 1.0) for hit in hits]

    async def _lexical(
        self, query: MemoryQuery, scopes: Sequence[str], k: int, answers: Sequence[str] = ()
    ) -> list[Candidate]:
        assert self._chunks is not None
        chunks = self._chunks
        cache = self._lexical_index
        if cache is not None and isinstance(chunks, ScopeChunks):
            listing: ScopeChunks = chunks

            async def search(scope: str | None) -> list[ChunkHit]:
                return await _indexed_search(cache, listing, query, scope, k, answers)

        else:

            async def search(scope: str | None) -> list[ChunkHit]:
                return await chunks.lexical_search(query.text, k, domain=query.domain, scope=scope)

        hits = await self._per_scope(query, scopes, search, _chunk_scope)
        scale = self._scale(query, hits, _chunk_scope)
        found = [_chunk_candidate(hit, Source.LEXICAL, scale) for hit in hits]
        # The lexical route measures no similarity; its chunks carry the lexical signal only.
        return [replace(candidate, similarity=0.0) for candidate in found]

    async def _entities(
        self,
        query: MemoryQuery,
        scopes: Sequence[str],
        k: int,
        embedding: asyncio.Task[list[float]] | None,
    ) -> list[Candidate]:
        assert self._graph is not None
        graph = self._graph
        vector: list[float] | None = None
        if embedding is not None:
            try:
                vector = await asyncio.shield(embedding)
            except Exception:
                # Without a vector the graph still answers by full text; the embedder's
                # failure is reported once, as its own route.
                vector = None
        shape = self._shape
        if shape is not None and query.period is None and isinstance(graph, RankedSearch):
            # With the shape in hand the hits' lean records and neighbours need no round trip;
            # the period gate needs the hits' provenance, so a period query reads them.
            async def search(scope: str | None) -> list[EntityHit]:
                assert isinstance(graph, RankedSearch) and shape is not None
                # The shape held before this query says whether the scope sees every entity.
                # It is of the last version read; a write after that read leaves the queries
                # already under way at worst a shorter candidate list (the ranking still drops
                # what is out of sight).
                known = shape.last_known
                ranked, held = await asyncio.gather(
                    graph.ranked_entities(
                        query.text,
                        k,
                        vector=vector,
                        scope=scope,
                        all_visible=known is not None and known.sees_everything(scope),
                    ),
                    shape.get(),
                )
                limit = self._neighbour_limit
                hits = None
                if held is not None:
                    hits = held.entity_hits(ranked, neighbour_limit=limit, scope=scope)
                if hits is None:
                    hits = await graph.hits_of(ranked, neighbour_limit=limit, scope=scope)
                return hits

        else:

            async def search(scope: str | None) -> list[EntityHit]:
                return await graph.search_entities(
                    query.text,
                    k,
                    vector=vector,
                    scope=scope,
                    period=query.period,
                    neighbour_limit=self._neighbour_limit,
                )

        hits = await self._per_scope(query, scopes, search, _entity_scope)
        scale = self._scale(query, hits, _entity_scope)
        return [_entity_candidate(hit, scale) for hit in hits]

    async def _concept_scan(self, query: MemoryQuery, k: int) -> list[Candidate]:
        concepts = self._concepts
        assert concepts is not None
        # Concepts belong to one agent; a query above the agents (the root, a tenant) scans
        # every agent inside its scope, each with its own cache keys, and keeps the best k.
        if query.agent is not None:
            agents = [query.agent]
        else:
            agents = (await concepts.agents(query.scope))[:MAX_SCANNED_AGENTS]

        async def scan(agent: str) -> list[tuple[float, int, ConceptHit]]:
            parts = scope_parts(agent)
            result = await self._scan.search(
                agent,
                query.text,
                tenant=parts[0] if parts else None,
                top_k=k,
                now=query.now,
                store=concepts,
            )
            return [(hit.score, order, hit) for order, hit in enumerate(result.hits)]

        groups = await asyncio.gather(*(scan(agent) for agent in agents))
        ranked = sorted(
            (item for group in groups for item in group), key=lambda item: (-item[0], item[1])
        )
        return [_concept_candidate(hit, query.scope) for _, _, hit in ranked[:k]]


async def _vector_refusal(chunks: object, embedder: Embedder | None) -> str | None:
    """Why the chunk store cannot compare its vectors with the embedder's, if it can tell."""
    check = getattr(chunks, "vector_refusal", None)
    if embedder is None or not callable(check):
        return None
    reason = await check(embedder.spec)
    return None if reason is None else str(reason)


async def _indexed_search(
    cache: LexicalIndexCache,
    store: ScopeChunks,
    query: MemoryQuery,
    scope: str | None,
    k: int,
    answers: Sequence[str] = (),
) -> list[ChunkHit]:
    """The lexical route over the scope's cached contextual BM25 index, its chunks read by id
    (the index keeps positions and ids, not the chunks; one deleted meanwhile is left out)."""
    index = await cache.index(store, scope)
    ranked = index.ranked(query.text, k, domain=query.domain, answers=answers)
    if not ranked:
        return []
    chunks = {chunk.id: chunk for chunk in await store.get([index.ids[p] for p, _ in ranked])}
    return [
        ChunkHit(chunk=chunks[index.ids[position]], lexical=score)
        for position, score in ranked
        if index.ids[position] in chunks
    ]


class GraphAssociations:
    """The ``AssociationSource`` over a ``GraphStore``: neighbourhoods and chunk mentions."""

    def __init__(self, graph: GraphStore) -> None:
        self._graph = graph

    async def neighbours(
        self, ids: Sequence[str], *, limit_per_node: int, scope: str | None = None
    ) -> Subgraph:
        # A store with a lean read for the spread (no relations among the neighbours, which a
        # spread fetches when those fire, and no provenance) uses it: it is several times faster.
        lean = getattr(self._graph, "spread_neighbourhood", None)
        if callable(lean):
            found: Subgraph = await lean(ids, limit_per_node=limit_per_node, scope=scope)
            return found
        return await self._graph.neighbourhood(ids, limit_per_node=limit_per_node, scope=scope)

    async def entities_in_chunks(self, chunk_ids: Sequence[str]) -> Mapping[str, Sequence[str]]:
        return await self._graph.entities_in_chunks(chunk_ids)
