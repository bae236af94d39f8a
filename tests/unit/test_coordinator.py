"""The coordinator: fetch then decide, degradation, drains, what-if and concurrency."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace

import pytest

from explorer.core.activation import SpreadingActivation
from explorer.core.asked import GraphAnswer
from explorer.core.candidates import (
    Candidate,
    CandidateBatch,
    CandidateSource,
    Dropped,
    MemoryQuery,
    Source,
    dropped_route,
)
from explorer.core.coordinator import (
    RetrievalCoordinator,
    answers_change,
    decide,
    named_by,
    refetch_reasons,
)
from explorer.core.errors import MemoryUnavailable, StoreTimeout, StoreUnavailable
from explorer.core.models import Entity, MemoryLayer, Relation, Subgraph
from explorer.core.policy import ActivationParams, RetrievalPolicy
from explorer.testing import FakeAssociations, make_candidate

SCOPE = "acme/ana"


def world() -> Subgraph:
    names = ["ana", "lisbon", "marta", "taberna", "portugal", "hub"]
    entities = {n: Entity(n, n.title(), "thing", salience=0.5, scope=SCOPE) for n in names}
    relations = (
        Relation("r1", "ana", "lisbon", "TRAVELS_TO"),
        Relation("r2", "marta", "lisbon", "LIVES_IN"),
        Relation("r3", "ana", "marta", "SISTER_OF"),
        Relation("r4", "marta", "taberna", "RECOMMENDS"),
        Relation("r5", "lisbon", "portugal", "CAPITAL_OF"),
    )
    return Subgraph(entities=entities, relations=relations)


class ListSource:
    """A candidate source over a fixed list, with the optional drains."""

    def __init__(self, items: Sequence[Candidate], refused: Iterable[Dropped] = ()) -> None:
        self.items = list(items)
        self.refused = list(refused)
        self.fail: BaseException | None = None
        self.calls = 0

    async def search(self, query: MemoryQuery, layers: frozenset[MemoryLayer]) -> list[Candidate]:
        self.calls += 1
        await asyncio.sleep(0)
        if self.fail is not None:
            raise self.fail
        return [item for item in self.items if query.text in item.label or query.text == "*"]

    def drain_dropped(self) -> list[Dropped]:
        out, self.refused = self.refused, []
        return out

    def drain_sources(self) -> tuple[dict[str, int], tuple[str, ...]]:
        return {"graph": len(self.items)}, ()


def entities(*pairs: tuple[str, float]) -> list[Candidate]:
    return [make_candidate(n, kind="entity", similarity=s, scope=SCOPE) for n, s in pairs]


POLICY = RetrievalPolicy(activation=ActivationParams(hops=2, threshold=0.01, max_found=3))


def query(text: str = "*") -> MemoryQuery:
    return MemoryQuery(text, scope=SCOPE)


async def test_coordinate_spreads_from_kept_hits_and_marks_what_activation_found() -> None:
    source = ListSource(entities(("ana", 0.9), ("lisbon", 0.7)))
    associations = FakeAssociations(world())
    coordinator = RetrievalCoordinator(source=source, policy=POLICY, associations=associations)
    retrieval = await coordinator.coordinate(query())
    assert isinstance(source, CandidateSource)
    assert retrieval.activation.seeds == ("ana", "lisbon")
    found = [m for m in retrieval.result.memories if m.source is Source.ACTIVATION]
    assert {m.id for m in found} <= {"marta", "portugal", "taberna"}
    assert found and all(m.energy > 0 for m in found)
    assert retrieval.result.sources["activation"] == len(retrieval.activation.found)
    assert retrieval.result.sources["graph"] == 2
    # Seeds that feed each other get an activation share on top of their match.
    ana = next(m for m in retrieval.result.memories if m.id == "ana")
    assert ana.breakdown.activation > 0
    assert associations.calls == 2  # one round per hop


async def test_an_unreachable_candidate_source_raises_memory_unavailable() -> None:
    source = ListSource([])
    source.fail = MemoryUnavailable("down")
    coordinator = RetrievalCoordinator(source=source, policy=POLICY)
    with pytest.raises(MemoryUnavailable):
        await coordinator.retrieve(query())


async def test_empty_is_not_unavailable() -> None:
    coordinator = RetrievalCoordinator(source=ListSource([]), policy=POLICY)
    result = await coordinator.retrieve(query())
    assert result.memories == () and result.unavailable == ()


@pytest.mark.parametrize("error", [StoreUnavailable("gone"), StoreTimeout("slow"), OSError("x")])
async def test_an_unreachable_association_source_degrades_and_keeps_the_recall(
    error: BaseException,
) -> None:
    associations = FakeAssociations(world())
    associations.fail = error
    source = ListSource(entities(("ana", 0.9)))
    coordinator = RetrievalCoordinator(source=source, policy=POLICY, associations=associations)
    retrieval = await coordinator.coordinate(query())
    assert [m.id for m in retrieval.result.memories] == ["ana"]
    assert retrieval.result.unavailable == ("associations",)
    (entry,) = [e for e in retrieval.result.dropped if e.gate == "associations"]
    assert entry.kind == "none" and "recall stands" in entry.reason


async def test_contract_errors_from_the_association_source_propagate() -> None:
    associations = FakeAssociations(world())
    associations.fail = TypeError("a bug, not a transport problem")
    source = ListSource(entities(("ana", 0.9)))
    coordinator = RetrievalCoordinator(source=source, policy=POLICY, associations=associations)
    with pytest.raises(TypeError):
        await coordinator.coordinate(query())


async def test_refusals_are_drained_into_the_ledger_once() -> None:
    refusal = dropped_route("legacy", "source", "row without a scope")
    source = ListSource(entities(("ana", 0.9)), refused=[refusal])
    coordinator = RetrievalCoordinator(source=source, policy=POLICY)
    first = await coordinator.coordinate(query())
    second = await coordinator.coordinate(query())
    assert refusal in first.result.dropped
    assert refusal not in second.result.dropped


async def test_no_layers_does_not_ask_the_source() -> None:
    source = ListSource(entities(("ana", 0.9)))
    policy = replace(POLICY, enabled_layers=frozenset())
    retrieval = await RetrievalCoordinator(source=source, policy=policy).coordinate(query())
    assert source.calls == 0
    assert [e.gate for e in retrieval.result.dropped] == ["layers"]


async def test_what_if_decides_again_without_io_and_matches_a_fresh_decide() -> None:
    source = ListSource(entities(("ana", 0.9), ("lisbon", 0.4), ("taberna", 0.2)))
    associations = FakeAssociations(world())
    coordinator = RetrievalCoordinator(source=source, policy=POLICY, associations=associations)
    retrieval = await coordinator.coordinate(query())
    calls = (source.calls, associations.calls)

    stricter = replace(POLICY, min_relevance=0.35)
    what_if = retrieval.with_policy(stricter)
    assert (source.calls, associations.calls) == calls
    assert retrieval.gathered is not None
    gathered = retrieval.gathered
    fresh = decide(
        gathered.candidates, query(), stricter, gathered.associations, sources=gathered.sources
    )
    assert what_if.result == fresh.result
    assert what_if.activation == fresh.activation
    assert "taberna" in {e.id for e in what_if.result.dropped if e.gate == "relevance"}
    # Back to the first policy: exactly what the coordinator said.
    assert retrieval.with_policy(POLICY).result == retrieval.result


async def test_concurrent_coordinations_return_independent_logs() -> None:
    graph = world()
    pools = {
        name: ListSource(entities((name, 0.9)))
        for name in ["ana", "lisbon", "marta", "taberna", "portugal"]
    }

    class Routed:
        async def search(
            self, query: MemoryQuery, layers: frozenset[MemoryLayer]
        ) -> list[Candidate]:
            await asyncio.sleep(0.001)
            return await pools[query.text].search(replace(query, text="*"), layers)

    associations = FakeAssociations(graph)
    coordinator = RetrievalCoordinator(source=Routed(), policy=POLICY, associations=associations)
    names = list(pools) * 8
    results = await asyncio.gather(*(coordinator.coordinate(query(name)) for name in names))
    solo = {name: await coordinator.coordinate(query(name)) for name in pools}
    for name, retrieval in zip(names, results, strict=True):
        assert retrieval.activation.seeds == (name,)
        assert retrieval.activation == solo[name].activation
        assert retrieval.result.memories == solo[name].result.memories


def test_decide_is_fast_at_demo_size() -> None:
    from explorer.bench.coordinator import demo_workload

    candidates, subgraph, demo_query = demo_workload()
    policy = RetrievalPolicy()
    engine = SpreadingActivation()
    decide(candidates, demo_query, policy, subgraph, engine=engine)
    timings = []
    for _ in range(15):
        started = time.perf_counter()
        decide(candidates, demo_query, policy, subgraph, engine=engine)
        timings.append(time.perf_counter() - started)
    timings.sort()
    # The benchmark reports the real figure (target 5 ms); loose here for busy CI hosts.
    assert timings[len(timings) // 2] < 0.05


class RecordingAssociations(FakeAssociations):
    """Remembers which ids each round asked for."""

    def __init__(self, subgraph: Subgraph) -> None:
        super().__init__(subgraph)
        self.asked: list[list[str]] = []

    async def neighbours(
        self, ids: Sequence[str], *, limit_per_node: int, scope: str | None = None
    ) -> Subgraph:
        self.asked.append(list(ids))
        return await super().neighbours(ids, limit_per_node=limit_per_node, scope=scope)


async def test_the_first_round_fetches_only_the_strongest_would_be_seeds() -> None:
    source = ListSource(entities(("ana", 0.9), ("lisbon", 0.7), ("taberna", 0.2)))
    associations = RecordingAssociations(world())
    policy = replace(POLICY, activation=replace(POLICY.activation, max_frontier=2, hops=1))
    coordinator = RetrievalCoordinator(source=source, policy=policy, associations=associations)
    retrieval = await coordinator.coordinate(query())
    assert associations.asked == [["ana", "lisbon"]]
    assert retrieval.activation.seeds


def test_a_persons_alias_names_them_word_by_word() -> None:
    def entity(key: str, name: str, kind: str, aliases: str) -> Candidate:
        record = Entity(id=key, name=name, type=kind)
        found = make_candidate(key, kind="entity", scope=SCOPE)
        return replace(found, label=name, record=record, alias_text=aliases)

    handle = entity("emi", "emi_k", "person", "Kate EMI")
    plain = entity("jo", "Jo Reyes", "person", "")
    topic = entity("group", "LGBTQ support group", "topic", "support group")
    people = [handle, plain, topic]
    assert named_by("what does Kate do now?", people) == {"emi"}
    assert named_by("where do Jo and Kate live", people) == {"emi"}  # "Reyes" unsaid
    assert named_by("what about the support", people) == set()  # a topic's alias words: no
    assert named_by("what about the weather", people) == set()
    # a relative asked about by whose they are names the one the graph calls so
    mother = entity("mum", "Mummy", "person", "Sunita Iyer")
    partner = entity("jun", "Jun", "person", "my bf")
    family = [handle, mother, partner, topic]
    assert named_by("where did Kate's mum see the doctor?", family) == {"emi", "mum"}
    assert named_by("where does her boyfriend live?", family) == {"jun"}
    assert named_by("does Kate like being a mum?", family) == {"emi"}  # nobody's mum asked


async def test_an_entity_the_query_names_seeds_at_the_named_energy() -> None:
    named = replace(
        make_candidate("marta", kind="entity", similarity=0.1, scope=SCOPE), label="Marta"
    )
    other = make_candidate("ana", kind="entity", similarity=0.9, scope=SCOPE)
    params = replace(POLICY.activation, hops=1, named_energy=1.0)
    on = decide(
        [named, other],
        MemoryQuery("where does marta live", scope=SCOPE),
        replace(POLICY, activation=params),
        world(),
    )
    off = decide(
        [named, other],
        MemoryQuery("where does marta live", scope=SCOPE),
        replace(POLICY, activation=replace(params, named_energy=0.0)),
        world(),
    )
    seed = {s.node: s.energy for s in on.activation.steps if s.hop == 0}
    assert seed["marta"] == pytest.approx(1.0)
    assert {s.node: s.energy for s in off.activation.steps if s.hop == 0}["marta"] < 0.5


class AnsweringSource:
    """A source of batches whose lexical route, asked again with the graph's answers, finds the
    chunk that names one; ``fails`` makes that second asking fail (the batch stands, noted)."""

    def __init__(self, fails: bool = False) -> None:
        self.fails = fails
        self.asked_with: list[list[str]] = []
        ana = replace(
            make_candidate("ana", kind="entity", similarity=0.9, scope=SCOPE), label="Ana"
        )
        self.first = [ana, make_candidate("c-rain", similarity=0.4, scope=SCOPE)]

    async def search(self, query: MemoryQuery, layers: frozenset[MemoryLayer]) -> CandidateBatch:
        return CandidateBatch(self.first, sources={"graph": 1}, by_route={"graph": self.first})

    async def with_answers(
        self, query: MemoryQuery, batch: CandidateBatch, answers: Sequence[str]
    ) -> CandidateBatch:
        self.asked_with.append(list(answers))
        if self.fails:
            note = dropped_route("lexical", "source", "the chunk store went away", SCOPE)
            return CandidateBatch(batch, refused=(note,), by_route=batch.by_route)
        found = make_candidate("c-lisbon", similarity=0.0, lexical=1.0, scope=SCOPE)
        return CandidateBatch([*batch, found], answered=answers, by_route=batch.by_route)


TRIP = MemoryQuery("Where did Ana visit?", scope=SCOPE)
TRIPS = Subgraph(
    entities={
        "ana": Entity("ana", "Ana", "person", scope=SCOPE),
        "lisbon": Entity("lisbon", "Lisbon", "place", scope=SCOPE),
        "porto": Entity("porto", "Porto", "place", scope=SCOPE),
    },
    relations=(
        Relation("r1", "ana", "lisbon", "VISITED"),
        Relation("r2", "ana", "porto", "LIVES_IN"),
    ),
)


async def test_the_lexical_route_is_asked_again_for_what_the_graph_holds_in_answer() -> None:
    source = AnsweringSource()
    coordinator = RetrievalCoordinator(
        source=source, policy=POLICY, associations=FakeAssociations(TRIPS)
    )
    retrieval = await coordinator.coordinate(TRIP)
    assert source.asked_with == [["Lisbon"]]  # a visit was asked for; where she lives was not
    assert retrieval.gathered is not None
    assert retrieval.gathered.answers == (GraphAnswer("Ana", "VISITED", "Lisbon", "r1"),)
    assert retrieval.gathered.answered
    assert "c-lisbon" in {m.candidate.id for m in retrieval.result.memories}
    # Decided again from what is in hand, the answers stay with the candidates they found.
    again = retrieval.with_policy(POLICY).gathered
    assert again is not None and again.answers == retrieval.gathered.answers
    assert again.answered


async def test_when_the_second_asking_fails_the_first_finds_stand_and_the_ledger_says_so() -> None:
    source = AnsweringSource(fails=True)
    coordinator = RetrievalCoordinator(
        source=source, policy=POLICY, associations=FakeAssociations(TRIPS)
    )
    retrieval = await coordinator.coordinate(TRIP)
    assert source.asked_with == [["Lisbon"]]
    gathered = retrieval.gathered
    assert gathered is not None and not gathered.answered  # sought, not looked for
    assert gathered.answers == (GraphAnswer("Ana", "VISITED", "Lisbon", "r1"),)
    assert "c-rain" in {m.candidate.id for m in retrieval.result.memories}
    assert any("went away" in entry.reason for entry in retrieval.result.dropped)
    # The same policy would ask for the same answers: a what-if needs no stores.
    assert refetch_reasons(POLICY, POLICY, TRIP, gathered=gathered) == []


async def test_a_what_if_that_would_look_for_other_answers_needs_the_stores() -> None:
    coordinator = RetrievalCoordinator(
        source=AnsweringSource(), policy=POLICY, associations=FakeAssociations(TRIPS)
    )
    gathered = (await coordinator.coordinate(TRIP)).gathered
    assert gathered is not None
    assert not answers_change(gathered, POLICY)
    assert refetch_reasons(POLICY, POLICY, TRIP, gathered=gathered) == []
    no_words = replace(POLICY, weights=replace(POLICY.weights, lexical=0.0))
    no_spread = replace(POLICY, activation=replace(POLICY.activation, enabled=False))
    fewer = replace(POLICY, activation=replace(POLICY.activation, limit_per_node=1))
    for policy in (no_words, no_spread, fewer):
        assert answers_change(gathered, policy)
        assert "other answers" in " ".join(refetch_reasons(POLICY, policy, TRIP, gathered=gathered))
