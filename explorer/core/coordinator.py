"""The retrieval coordinator: the component that decides what a query recalls.

Split in two so every decision can be re-made on what is already in hand. ``decide`` is pure and
synchronous: layers, then gates (scoring and scope blending inside them), then spreading
activation over an already-fetched subgraph, then selection; it does no I/O, so the GUI can re-run
it with another policy in a few milliseconds. ``RetrievalCoordinator.coordinate`` fetches the
candidates and the graph around them, then calls ``decide``.

Transport degrades, contracts propagate. An unreachable candidate source raises
``MemoryUnavailable``, because an empty result must keep meaning "this scope remembers nothing".
An unreachable association source does not: the recall is already in hand, so the failure is
recorded (in ``unavailable`` and the ledger) and the recall stands without its neighbours.
Nothing about a query is stored on the coordinator; the log rides the return value, so concurrent
calls never see each other's recall. Imports only the standard library and core.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from explorer.core.activation import ActivationLog, AdjacencyIndex, SpreadingActivation
from explorer.core.asked import GraphAnswer, asked_kinds, calls_kin, graph_answers, kin_asked
from explorer.core.blend import reach_scopes
from explorer.core.candidates import (
    ROUTE_ASSOCIATIONS,
    Associations,
    AssociationSource,
    Candidate,
    CandidateBatch,
    CandidateKind,
    CandidateSource,
    Dropped,
    MemoryQuery,
    Source,
    dropped_route,
)
from explorer.core.credit import ChunkCredit, credit_chunks
from explorer.core.errors import StoreUnavailable
from explorer.core.gates import GATE_ASSOCIATIONS, GATE_LAYERS, GateOutcome, Scored, gate
from explorer.core.layers import CHUNK_LAYERS, GRAPH_LAYERS, layer_names
from explorer.core.lexical import tokens
from explorer.core.models import Entity, MemoryLayer, Relation, Subgraph
from explorer.core.policy import RetrievalPolicy
from explorer.core.scoring import Scorer, recency_anchor
from explorer.core.select import Recollection, select

#: The most entity ids sent to the association source in one round (``max_frontier`` caps it).
MAX_FETCH_IDS = 500


@dataclass(frozen=True)
class RetrievalResult:
    """What was recalled, what was not (the ledger), the route tally and any missing routes."""

    memories: tuple[Recollection, ...] = ()
    dropped: tuple[Dropped, ...] = ()
    sources: Mapping[str, int] = field(default_factory=dict)
    unavailable: tuple[str, ...] = ()


@dataclass(frozen=True)
class Gathered:
    """Everything fetched for one query: enough to decide again without asking the stores."""

    query: MemoryQuery
    candidates: tuple[Candidate, ...] = ()
    associations: Associations | None = None
    refused: tuple[Dropped, ...] = ()
    sources: Mapping[str, int] = field(default_factory=dict)
    unavailable: tuple[str, ...] = ()
    # The facts the graph holds in answer (``asked.graph_answers``), whose far ends the lexical
    # route was asked to look for; ``None``: not recorded (a recall case saved before).
    answers: tuple[GraphAnswer, ...] | None = ()
    answered: bool = False  # whether the lexical route did look for them


@dataclass(frozen=True)
class CoordinatedRetrieval:
    """One retrieval pass with its work shown, and what it was decided from."""

    result: RetrievalResult
    activation: ActivationLog = field(default_factory=ActivationLog)
    layers: frozenset[MemoryLayer] = frozenset()
    policy: RetrievalPolicy | None = None
    gathered: Gathered | None = None
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    # Where each kept chunk's activation credit came from, by chunk id.
    credits: Mapping[str, ChunkCredit] = field(default_factory=dict)

    def with_policy(self, policy: RetrievalPolicy) -> CoordinatedRetrieval:
        """The same candidates and subgraph decided again under ``policy`` (no I/O)."""
        if self.gathered is None:
            raise ValueError("this retrieval carries nothing to decide again from")
        return decide_gathered(self.gathered, policy)


def _no_layers(query: MemoryQuery, policy: RetrievalPolicy) -> Dropped:
    enabled = ", ".join(layer_names(policy.enabled_layers)) or "none"
    asked = ", ".join(layer_names(query.layers)) or "none"
    return dropped_route(
        "coordinator",
        GATE_LAYERS,
        f"no layer left to search: enabled ({enabled}) narrowed by the query ({asked}) is empty",
        scope=query.scope,
    )


def named_by(query_text: str, candidates: Iterable[Candidate]) -> set[str]:
    """Ids of the entity candidates the query names: every word of the name is a query word,
    or, for a person, a word of one of their aliases is ("What does Kate do?" names emi_k,
    called Kate; a topic's alias words are too loose a match), or the person is called the
    relative the query asks about by whose they are ("Where did Anu's mum go?" names the
    speaker Mummy, and whoever's alias is "my mum": ``asked.kin_asked``).

    Words are compared as the lexical route compares them (case folded, stop words out, lightly
    stemmed), so "Caroline's" names Caroline and "the support group" names "support group".
    Aliases are compared word by word because a lean record carries them as one text.
    """
    words = set(tokens(query_text))
    if not words:
        return set()
    kin = kin_asked(query_text)
    named: set[str] = set()
    for candidate in candidates:
        if candidate.kind is CandidateKind.CHUNK:
            continue
        name = _terms(candidate.label)
        person = _is_person(candidate)
        by_alias = person and not words.isdisjoint(_terms(candidate.alias_text))
        # "Anu's mum" names the one the graph calls Mummy, or "my mum"
        by_kin = person and bool(kin) and calls_kin(candidate.label, candidate.alias_text, kin)
        if (name and words.issuperset(name)) or by_alias or by_kin:
            named.add(candidate.id)
    return named


@functools.lru_cache(maxsize=1 << 15)
def _terms(text: str) -> frozenset[str]:
    """A name's or alias text's ``tokens``, made once: the same entities are candidates of many
    queries, and a scour asks three times (the first frontier, the probe and the spread)."""
    return frozenset(tokens(text))


def _is_person(candidate: Candidate) -> bool:
    return isinstance(candidate.record, Entity) and candidate.record.type == "person"


def _seed_energies(
    kept: Sequence[Scored],
    chunk_entities: Mapping[str, Sequence[str]],
    named: Iterable[str] = (),
    named_energy: float = 0.0,
) -> dict[str, float]:
    """Kept entities seed with their scores; a kept chunk splits its score among its entities.

    An entity the query names (``named``, and kept) seeds with at least ``named_energy``.
    """
    seeds: dict[str, float] = {}
    for item in kept:
        candidate = item.candidate
        if candidate.kind is CandidateKind.CHUNK:
            mentioned = chunk_entities.get(candidate.id, ())
            if not mentioned:
                continue
            share = item.score / len(mentioned)
            for entity_id in mentioned:
                seeds[entity_id] = max(seeds.get(entity_id, 0.0), share)
        else:
            seeds[candidate.id] = max(seeds.get(candidate.id, 0.0), item.score)
    if named_energy > 0.0:
        kept_ids = {item.candidate.id for item in kept}
        for entity_id in named:
            if entity_id in kept_ids:
                seeds[entity_id] = max(seeds.get(entity_id, 0.0), named_energy)
    return seeds


def seeds_for(
    kept: Sequence[Scored],
    query: MemoryQuery,
    policy: RetrievalPolicy,
    chunk_entities: Mapping[str, Sequence[str]],
) -> dict[str, float]:
    """The energies activation would seed with, given the kept hits (see ``_seed_energies``)."""
    energy = policy.activation.named_energy
    named = named_by(query.text, (item.candidate for item in kept)) if energy > 0.0 else set[str]()
    return _seed_energies(kept, chunk_entities, named, energy)


_ACTIVATION_ROUTES = (Source.ACTIVATION.value,)


def _found_candidate(entity: Entity) -> Candidate:
    return Candidate(
        id=entity.id,
        kind=CandidateKind.ENTITY,
        label=entity.name,
        layer=entity.layer,
        source=Source.ACTIVATION,
        scope=entity.scope,
        similarity=0.0,
        lexical=0.0,
        salience=entity.salience,
        confidence=entity.confidence,
        timestamp=entity.last_seen or entity.updated_at,
        record=entity,
        routes=_ACTIVATION_ROUTES,
    )


def _spread(
    kept: Sequence[Scored],
    query: MemoryQuery,
    policy: RetrievalPolicy,
    layers: frozenset[MemoryLayer],
    associations: Associations | None,
    engine: SpreadingActivation | None,
    *,
    logged: bool = True,
    seeds: Mapping[str, float] | None = None,
) -> ActivationLog:
    """Activation spread from the seeds the kept candidates give (empty when it does not run);
    ``logged`` as ``SpreadingActivation.spread`` takes it; ``seeds`` when worked out already."""
    if (
        associations is None
        or not policy.activation.enabled
        or not layers & GRAPH_LAYERS
        or not kept
        or policy.activation.hops <= 0
    ):
        return ActivationLog()
    if seeds is None:
        seeds = seeds_for(kept, query, policy, associations.chunk_entities)
    if not seeds:
        return ActivationLog()
    names = {
        item.candidate.id: item.candidate.label
        for item in kept
        if item.candidate.kind is not CandidateKind.CHUNK
    }
    return (engine or SpreadingActivation()).spread(
        seeds, associations.index, policy.activation, names, logged=logged
    )


def _gated(
    candidates: Sequence[Candidate],
    query: MemoryQuery,
    policy: RetrievalPolicy,
    layers: frozenset[MemoryLayer],
    anchor: datetime | None,
    scorer: Scorer,
) -> GateOutcome:
    """Every gate over the candidates a route found (not those activation finds)."""
    return gate(
        candidates,
        layers=layers,
        policy=policy,
        query_scope=query.scope,
        anchor=anchor,
        scorer=scorer,
        period=query.period,
    )


def decide(
    candidates: Sequence[Candidate],
    query: MemoryQuery,
    policy: RetrievalPolicy,
    subgraph: Subgraph | Associations | None = None,
    *,
    engine: SpreadingActivation | None = None,
    refused: Sequence[Dropped] = (),
    sources: Mapping[str, int] | None = None,
    unavailable: Sequence[str] = (),
    gated: GateOutcome | None = None,
    answers: Sequence[GraphAnswer] | None = (),
    answered: bool = False,
) -> CoordinatedRetrieval:
    """Decide what ``candidates`` recall under ``policy``: pure, synchronous, no I/O.

    Gates (with scope blending) → spreading activation over ``subgraph`` seeded by the kept hits
    → re-scoring with the activation each node received → selection. Nodes activation found
    (including entities seeded only through a kept chunk that mentions them) pass the layer,
    scope and salience gates but not ``min_relevance``: the activation threshold is their floor,
    since they match by association rather than by the query's words. Every candidate, including
    those activation found, ends up exactly once in ``memories`` or in the ledger. ``gated`` is
    the gates' outcome over ``candidates`` under ``policy`` when the caller has it already (the
    coordinator ran the gates to choose what to fetch). ``answers`` are the graph's answers the
    lexical route was asked to look for, ``answered`` whether it did (kept with the candidates,
    for the record and a what-if).
    """
    started = time.perf_counter()
    associations = Associations(subgraph=subgraph) if isinstance(subgraph, Subgraph) else subgraph
    candidates = tuple(candidates)
    gathered = Gathered(
        query=query,
        candidates=candidates,
        associations=associations,
        refused=tuple(refused),
        sources=dict(sources or {}),
        unavailable=tuple(unavailable),
        answers=None if answers is None else tuple(answers),
        answered=answered,
    )
    layers = policy.effective_layers(query)
    ledger: list[Dropped] = list(refused)
    if not layers:
        ledger.append(_no_layers(query, policy))

    anchor = recency_anchor(candidates, query.now)
    scorer = Scorer(policy.weights)
    outcome = (
        gated if gated is not None else _gated(candidates, query, policy, layers, anchor, scorer)
    )
    ledger.extend(outcome.dropped)
    kept: list[Scored] = list(outcome.kept)

    log = _spread(kept, query, policy, layers, associations, engine)
    found: list[Scored] = []
    found_count = 0
    credits: dict[str, ChunkCredit] = {}
    if associations is not None and log.steps:
        strongest = max(step.energy for step in log.steps if step.hop == 0)
        signal = {node: min(1.0, amount / strongest) for node, amount in log.received.items()}
        kept = [_rescored(item, scorer, signal) for item in kept]
        kept, credits = credit_chunks(
            kept,
            scorer,
            log,
            strongest,
            associations,
            candidates,
            policy.activation,
            asked_kinds(query.text),
        )
        kept_ids = {
            item.candidate.id for item in kept if item.candidate.kind is not CandidateKind.CHUNK
        }
        entities = associations.subgraph.entities
        # Seeds that are no candidate themselves came from the entities a kept chunk
        # mentions: they are recalled through that chunk, so they count as found too.
        extra = [
            _found_candidate(entities[node])
            for node in (*log.found, *log.seeds)
            if node not in kept_ids and node in entities
        ]
        found_count = len(extra)
        found_outcome = gate(
            extra,
            layers=layers,
            policy=policy,
            query_scope=query.scope,
            anchor=anchor,
            scorer=scorer,
            check_relevance=False,
            activation=signal,
            period=query.period,
        )
        ledger.extend(found_outcome.dropped)
        found = list(found_outcome.kept)

    selection = select([*kept, *found], query, policy, energies=log.energy)
    ledger.extend(selection.dropped)
    tally = dict(gathered.sources)
    tally[Source.ACTIVATION.value] = found_count
    return CoordinatedRetrieval(
        result=RetrievalResult(
            memories=selection.memories,
            dropped=tuple(ledger),
            sources=tally,
            unavailable=gathered.unavailable,
        ),
        activation=log,
        layers=layers,
        policy=policy,
        gathered=gathered,
        timings_ms={"decide": (time.perf_counter() - started) * 1000.0},
        credits=credits,
    )


def _rescored(item: Scored, scorer: Scorer, signal: Mapping[str, float]) -> Scored:
    amount = signal.get(item.candidate.id, 0.0)
    if item.signals.activation is None or amount <= 0.0:
        return item
    signals = item.signals._replace(activation=amount)
    return Scored.of(item.candidate, item.distance, item.factor, signals, scorer)


def decide_gathered(
    gathered: Gathered, policy: RetrievalPolicy, *, engine: SpreadingActivation | None = None
) -> CoordinatedRetrieval:
    """``decide`` on a previous retrieval's candidates and subgraph (the GUI's what-if)."""
    return decide(
        gathered.candidates,
        gathered.query,
        policy,
        gathered.associations,
        engine=engine,
        refused=gathered.refused,
        sources=gathered.sources,
        unavailable=gathered.unavailable,
        answers=gathered.answers,
        answered=gathered.answered,
    )


def _answers(
    query: MemoryQuery,
    policy: RetrievalPolicy,
    kept: Sequence[Scored],
    associations: Associations | None,
) -> list[GraphAnswer]:
    """The facts the fetched neighbourhood holds of a kind the query asks for, about the kept
    entities it names (``asked.graph_answers``), when the lexical route is asked."""
    layers = policy.effective_layers(query)
    asks_lexical = policy.weights.lexical > 0 and bool(layers & CHUNK_LAYERS)
    if associations is None or not asks_lexical or not asked_kinds(query.text):
        return []
    named = named_by(query.text, (item.candidate for item in kept))
    return graph_answers(query.text, named, associations.subgraph)


def answers_change(gathered: Gathered, policy: RetrievalPolicy) -> bool:
    """Whether a fresh query under ``policy`` would ask the lexical route for other answers from
    the graph than ``gathered`` was (a what-if then needs the stores): the gates over the
    candidates in hand and the neighbourhood in hand say which, as they would for that query. A
    neighbourhood read with more relations a node than ``policy`` reads may hold answers a
    fresh read would not, so a smaller ``limit_per_node`` counts as a change when there were
    answers. Unrecorded answers (an older recall case) never count."""
    if gathered.answers is None:
        return False
    query = gathered.query
    params = policy.activation
    layers = policy.effective_layers(query)
    fetches = params.enabled and params.hops > 0 and bool(layers & GRAPH_LAYERS)
    associations = gathered.associations if fetches else None
    if associations is None:
        return bool(gathered.answers)
    if gathered.answers and params.limit_per_node < associations.limit_per_node:
        return True
    candidates = gathered.candidates
    anchor = recency_anchor(candidates, query.now)
    kept = _gated(candidates, query, policy, layers, anchor, Scorer(policy.weights)).kept
    return tuple(_answers(query, policy, kept, associations)) != gathered.answers


def merge_subgraphs(first: Subgraph, second: Subgraph) -> Subgraph:
    """The union of two subgraphs; relations are de-duplicated by id, first occurrence kept."""
    if not first.entities and not first.relations:
        return second
    entities = {**first.entities, **second.entities}
    seen = {relation.id for relation in first.relations}
    relations: list[Relation] = list(first.relations)
    for relation in second.relations:
        if relation.id not in seen:
            seen.add(relation.id)
            relations.append(relation)
    return Subgraph(entities=entities, relations=tuple(relations))


def _unique(ids: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def _first_frontier(candidates: Sequence[Candidate], seeds: Mapping[str, float]) -> list[str]:
    """Would-be seeds strongest first (ties by id), then the other entity candidates in order."""
    ranked = sorted(seeds.items(), key=lambda item: (-item[1], item[0]))
    return _unique(
        [node for node, _ in ranked]
        + [c.id for c in candidates if c.kind is not CandidateKind.CHUNK]
    )


class RetrievalCoordinator:
    """Owns layers, scoring, gates, scope blending and activation; holds no per-query state."""

    def __init__(
        self,
        *,
        source: CandidateSource,
        policy: RetrievalPolicy | None = None,
        activation: SpreadingActivation | None = None,
        associations: AssociationSource | None = None,
    ) -> None:
        self._source = source
        self._policy = policy or RetrievalPolicy()
        self._engine = activation or SpreadingActivation()
        self._associations = associations

    @property
    def policy(self) -> RetrievalPolicy:
        return self._policy

    async def coordinate(self, query: MemoryQuery) -> CoordinatedRetrieval:
        """Retrieve for ``query``, returning the result and its provenance."""
        policy = self._policy
        layers = policy.effective_layers(query)
        if not layers:
            return decide((), query, policy, engine=self._engine)

        found = await self._source.search(query, layers)
        candidates = tuple(found)
        if isinstance(found, CandidateBatch):
            refused: tuple[Dropped, ...] = found.refused
            sources: dict[str, int] = dict(found.sources)
            unavailable: tuple[str, ...] = found.unavailable
        else:
            # Optional drains: a source with nothing to report has none, and draining (rather
            # than reading) keeps one query's refusals and tally out of the next one's.
            drain = getattr(self._source, "drain_dropped", None)
            refused = tuple(drain()) if callable(drain) else ()
            tally = getattr(self._source, "drain_sources", None)
            counted, missing = tally() if callable(tally) else ({}, ())
            sources, unavailable = dict(counted), tuple(missing)

        def gates(candidates: tuple[Candidate, ...]) -> GateOutcome:
            anchor = recency_anchor(candidates, query.now)
            return _gated(candidates, query, policy, layers, anchor, Scorer(policy.weights))

        # The gates do not depend on the graph: run once, for the fetch's seeds and the decision
        # (again only when the candidates change).
        gated = gates(candidates)
        fetching = time.perf_counter()
        associations, trouble = await self._associate(query, layers, candidates, policy, gated.kept)
        fetched_ms = (time.perf_counter() - fetching) * 1000.0
        answers = _answers(query, policy, gated.kept, associations)
        extend = getattr(self._source, "with_answers", None)
        answered = False
        if answers and callable(extend) and isinstance(found, CandidateBatch):
            # The graph holds what the query asks for: the lexical route looks for it by name.
            again = await extend(query, found, [answer.answer for answer in answers])
            candidates = tuple(again)
            refused, sources = again.refused, dict(again.sources)
            answered = bool(again.answered)
            if answered:
                gated = gates(candidates)
        if trouble is not None:
            refused = (*refused, trouble)
            unavailable = (*unavailable, ROUTE_ASSOCIATIONS)
        retrieval = decide(
            candidates,
            query,
            policy,
            associations,
            engine=self._engine,
            refused=refused,
            sources=sources,
            unavailable=unavailable,
            gated=gated,
            answers=answers,
            answered=answered,
        )
        return replace(retrieval, timings_ms={**retrieval.timings_ms, "associations": fetched_ms})

    async def retrieve(self, query: MemoryQuery) -> RetrievalResult:
        """Just the result, for callers that do not show the work."""
        return (await self.coordinate(query)).result

    async def _associate(
        self,
        query: MemoryQuery,
        layers: frozenset[MemoryLayer],
        candidates: tuple[Candidate, ...],
        policy: RetrievalPolicy,
        kept: Sequence[Scored],
    ) -> tuple[Associations | None, Dropped | None]:
        """Fetch the graph activation will spread over, hop by hop, guided by the spread itself.

        The first round asks for the neighbourhood of the strongest would-be seeds: the seeds the
        candidates the gates ``kept`` would give, ranked by energy, and the first
        ``max_frontier`` taken, topped up with the other entity candidates (so a what-if that
        lowers a floor still finds some of its new seeds' neighbours). Later rounds ask only for
        the nodes the spread activated in the round before, strongest first, under the same cap.
        The neighbourhood is read in the query's own scope, which admits its ancestors and
        descendants; sibling branches could only ever be dropped by the scope gate.
        """
        params = policy.activation
        source = self._associations
        if source is None or not params.enabled or params.hops == 0 or not layers & GRAPH_LAYERS:
            return None, None
        scope = query.scope or None
        cap = min(params.max_frontier, MAX_FETCH_IDS)
        chunk_entities: dict[str, tuple[str, ...]] = {}
        subgraph = Subgraph()
        index: AdjacencyIndex | None = None
        expanded: set[str] = set()
        rounds = 0
        try:
            chunk_ids = [c.id for c in candidates if c.kind is CandidateKind.CHUNK]
            lookup = getattr(source, "entities_in_chunks", None)
            if chunk_ids and callable(lookup):
                mentions = await lookup(chunk_ids)
                chunk_entities = {key: tuple(value) for key, value in mentions.items()}
            # What the probes spread from (decide works them out again: its policy may differ).
            seeds = seeds_for(kept, query, policy, chunk_entities)
            frontier = _first_frontier(candidates, seeds)[:cap]
            for hop in range(1, params.hops + 1):
                if not frontier:
                    break
                part = await source.neighbours(
                    frontier, limit_per_node=params.limit_per_node, scope=scope
                )
                before = len(subgraph.relations)
                subgraph = merge_subgraphs(subgraph, part)
                # The spread's index grows with the subgraph instead of being built per round.
                index = (
                    AdjacencyIndex(subgraph)
                    if index is None
                    else index.grown(subgraph, subgraph.relations[before:])
                )
                expanded.update(frontier)
                rounds = hop
                if hop == params.hops:
                    break
                # The spread alone (no scoring, crediting or selection) picks the next frontier.
                probe = replace(policy, activation=replace(params, hops=hop))
                spread = _spread(
                    kept,
                    query,
                    probe,
                    layers,
                    Associations(subgraph=subgraph, chunk_entities=chunk_entities, adjacency=index),
                    self._engine,
                    logged=False,
                    seeds=seeds,
                )
                fresh = [node for node in spread.found if node not in expanded]
                fresh.sort(key=lambda node: (-spread.energy.get(node, 0.0), node))
                frontier = fresh[:cap]
        except (StoreUnavailable, TimeoutError, OSError) as error:
            trouble = dropped_route(
                ROUTE_ASSOCIATIONS,
                GATE_ASSOCIATIONS,
                f"association source unavailable ({error}); the recall stands with the "
                f"neighbourhood fetched before the failure ({len(subgraph.relations)} relations)",
                scope=query.scope,
            )
            return (
                Associations(
                    subgraph,
                    chunk_entities,
                    frozenset(expanded),
                    rounds,
                    params.limit_per_node,
                    index,
                ),
                trouble,
            )
        return (
            Associations(
                subgraph, chunk_entities, frozenset(expanded), rounds, params.limit_per_node, index
            ),
            None,
        )


def refetch_reasons(
    old: RetrievalPolicy,
    new: RetrievalPolicy,
    query: MemoryQuery,
    fetched_hops: int | None = None,
    gathered: Gathered | None = None,
) -> list[str]:
    """Why ``new`` needs candidates or graph that were not fetched under ``old`` (empty: none).

    An empty list means deciding again on the retrieval in hand gives exactly what a fresh
    query would (a what-if); anything listed needs the stores. ``gathered`` (the retrieval in
    hand) also says whether the lexical route would look for other answers from the graph.
    """
    reasons: list[str] = []
    if gathered is not None and answers_change(gathered, new):
        reasons.append("the lexical route would look for other answers from the graph")
    added = new.effective_layers(query) - old.effective_layers(query)
    for layer in sorted(added, key=lambda item: item.value):
        reasons.append(f"layer {layer.value!r} was not searched")
    for name in ("similarity", "lexical"):
        if getattr(old.weights, name) == 0 and getattr(new.weights, name) > 0:
            reasons.append(f"the {name} signal was not fetched (its weight was 0)")
    if new.fetch_factor > old.fetch_factor:
        reasons.append("more candidates per route are needed (fetch_factor grew)")
    if MemoryLayer.PROFILE in new.effective_layers(query) and new.profile_slots > max(
        old.profile_slots, query.limit(MemoryLayer.SEMANTIC)
    ):
        reasons.append("more profile candidates are needed (profile_slots grew)")
    if reach_scopes(query.scope, new.blend) != reach_scopes(query.scope, old.blend):
        reasons.append("the scopes within reach changed (blend.max_levels)")
    was, now = old.activation, new.activation
    if now.enabled and now.hops > 0:
        hops_in_hand = (
            fetched_hops if fetched_hops is not None else (was.hops if was.enabled else 0)
        )
        if not was.enabled or hops_in_hand < now.hops:
            reasons.append("activation needs more of the graph (hops grew or it was off)")
        elif now.limit_per_node > was.limit_per_node:
            reasons.append("activation needs more relations per node (limit_per_node grew)")
    return reasons
