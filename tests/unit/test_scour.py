"""The scour merge over in-memory fakes: both halves, skips, failures, filters, JSON, what-if."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import pytest

from explorer.core.compact import compact_answer
from explorer.core.coordinator import refetch_reasons
from explorer.core.errors import InvalidArgument, StoreTimeout, StoreUnavailable
from explorer.core.models import Entity, Mention, Period, Relation, Subgraph
from explorer.core.policy import RetrievalPolicy, preset
from explorer.core.scour import ScourRequest, ScourResult, neighbours_in, scour, scour_failure
from explorer.core.termscan import TermScan
from explorer.testing import (
    T0,
    FakeChunkStore,
    FakeConceptStore,
    FakeEmbedder,
    FakeGraphStore,
    sample_memory,
)

Memory = tuple[FakeEmbedder, FakeChunkStore, FakeGraphStore, FakeConceptStore]

TOP_KEYS = {
    "success", "query", "kg_entities", "kg_count", "chunks", "chunk_count", "dropped",
    "activation", "answers", "layers", "sources", "unavailable", "timings_ms",
}  # fmt: skip
ENTITY_KEYS = {
    "id", "name", "type", "description", "aliases", "confidence", "salience", "first_seen",
    "last_seen", "scope", "layer", "source", "temporal_concepts", "domain_concepts",
    "relationships", "provenance", "provenance_count", "score", "score_breakdown",
}  # fmt: skip
CHUNK_KEYS = {
    "id", "text", "conversation_id", "position", "speaker", "timestamp", "domains", "scope",
    "layer", "source", "score", "score_breakdown", "activation_credit", "turn_id",
}  # fmt: skip
BREAKDOWN_KEYS = {
    "similarity",
    "lexical",
    "recency",
    "salience",
    "confidence",
    "activation",
    "scope",
}
DROPPED_KEYS = {
    "id", "kind", "label", "gate", "value", "threshold", "layer", "scope", "source", "reason",
}  # fmt: skip
STEP_KEYS = {"node", "name", "energy", "from", "relation", "relation_type", "hop"}


@pytest.fixture
def memory() -> Memory:
    return sample_memory()


async def run(
    memory: Memory, policy: RetrievalPolicy | None = None, **arguments: object
) -> ScourResult:
    embedder, chunks, graph, concepts = memory
    request = ScourRequest(scope="acme/ana", **arguments)  # type: ignore[arg-type]
    return await scour(
        request,
        graph=graph,
        chunks=chunks,
        concepts=concepts,
        embedder=embedder,
        policy=policy or RetrievalPolicy(),
    )


async def test_both_halves_merge_into_the_json_contract(memory: Memory) -> None:
    result = await run(memory, query="Lisbon trip with Marta", n_chunks=3, kg_top_k=5)
    body = json.loads(result.to_json())
    assert set(body) == TOP_KEYS
    assert body["success"] is True and body["query"] == "Lisbon trip with Marta"
    assert 0 < body["chunk_count"] == len(body["chunks"]) <= 3
    assert 0 < body["kg_count"] == len(body["kg_entities"]) <= 5
    for entity in body["kg_entities"]:
        assert set(entity) == ENTITY_KEYS
        assert set(entity["score_breakdown"]) == BREAKDOWN_KEYS
        assert entity["source"] in {"graph", "lexical", "activation"}
        assert entity["score"] == pytest.approx(sum(entity["score_breakdown"].values()))
    for chunk in body["chunks"]:
        assert set(chunk) == CHUNK_KEYS
        assert chunk["source"] in {"vector", "lexical"} and chunk["layer"] == "episodic"
    assert all(set(entry) == DROPPED_KEYS for entry in body["dropped"])
    assert all(set(step) == STEP_KEYS for step in body["activation"])
    assert body["activation"], "the kept entities seed activation over the sample graph"
    assert body["layers"] == ["episodic", "semantic", "profile", "concept"]
    assert set(body["sources"]) == {"vector", "lexical", "graph", "activation"}
    assert body["sources"]["vector"] > 0 and body["sources"]["graph"] > 0
    assert body["unavailable"] == []
    assert set(body["timings_ms"]) == {"kg", "chunks", "embed", "coordinator", "total"}
    assert "kg_error" not in body and "chunks_error" not in body
    assert "domain_filter" not in body and "temporal_filter" not in body
    marta = next(e for e in body["kg_entities"] if e["id"] == "marta")
    assert {r["neighbour"]["id"] for r in marta["relationships"]} >= {"lisbon", "ana"}
    assert {r["direction"] for r in marta["relationships"]} == {"in", "out"}
    assert marta["provenance"][0]["chunk_id"] == "c2"


async def test_n_chunks_zero_never_touches_the_chunk_store(memory: Memory) -> None:
    _, chunks, graph, _ = memory
    result = await run(memory, query="Lisbon", n_chunks=0, kg_top_k=5)
    assert chunks.calls == []
    body = result.to_json_dict()
    assert body["chunks"] == [] and body["kg_count"] > 0
    assert "episodic" not in body["layers"]
    assert graph.called("search_entities")


async def test_kg_top_k_zero_never_touches_graph_or_concepts(memory: Memory) -> None:
    _, _, graph, concepts = memory
    result = await run(memory, query="Lisbon", n_chunks=3, kg_top_k=0)
    assert graph.calls == [] and concepts.calls == []
    body = result.to_json_dict()
    assert body["kg_entities"] == [] and body["chunk_count"] == 3
    assert body["layers"] == ["episodic"] and body["activation"] == []


@pytest.mark.parametrize("error", [StoreUnavailable("graph is down"), StoreTimeout("frozen")])
async def test_a_failing_graph_half_reports_kg_error_and_chunks_still_come_back(
    memory: Memory, error: Exception
) -> None:
    _, _, graph, concepts = memory
    graph.fail = error
    concepts.fail = error
    body = (await run(memory, query="Lisbon", n_chunks=3, kg_top_k=5)).to_json_dict()
    assert body["success"] is True
    assert str(error) in body["kg_error"] and "chunks_error" not in body
    assert body["chunk_count"] == 3
    assert {"graph", "concepts"} <= set(body["unavailable"])
    assert any(e["gate"] == "source" and e["source"] == "graph" for e in body["dropped"])


async def test_a_failing_chunk_half_reports_chunks_error_and_entities_still_come_back(
    memory: Memory,
) -> None:
    _, chunks, _, _ = memory
    chunks.fail = StoreUnavailable("pg is down")
    body = (await run(memory, query="Lisbon", n_chunks=3, kg_top_k=5)).to_json_dict()
    assert "pg is down" in body["chunks_error"] and "kg_error" not in body
    assert body["chunks"] == [] and body["kg_count"] > 0
    assert {"vector", "lexical"} <= set(body["unavailable"])


async def test_a_slow_half_does_not_delay_the_other_halfs_answer(memory: Memory) -> None:
    _, _, graph, _ = memory
    graph.delay = 0.05
    result = await run(memory, query="Lisbon", n_chunks=2, kg_top_k=2)
    assert result.timings_ms["chunks"] < result.timings_ms["kg"]


async def test_every_half_failing_is_a_failure_with_both_errors(memory: Memory) -> None:
    _, chunks, graph, concepts = memory
    for store in (chunks, graph, concepts):
        store.fail = StoreUnavailable("everything is down")
    body = (await run(memory, query="Lisbon")).to_json_dict()
    assert body["success"] is False
    assert "every half asked failed" in body["error"]
    assert "everything is down" in body["kg_error"]
    assert "everything is down" in body["chunks_error"]
    assert body["chunks"] == [] and body["kg_entities"] == []
    assert set(body["unavailable"]) >= {"vector", "lexical", "graph", "concepts"}


async def test_an_embedder_failure_keeps_lexical_chunks_and_text_search_of_the_graph(
    memory: Memory,
) -> None:
    embedder, _, graph, _ = memory
    embedder.fail = StoreUnavailable("model not loaded")
    body = (await run(memory, query="Lisbon", n_chunks=3, kg_top_k=5)).to_json_dict()
    assert "could not be embedded" in body["chunks_error"]
    assert body["chunks"] and all(chunk["source"] == "lexical" for chunk in body["chunks"])
    assert all(call["vector"] is None for call in graph.called("search_entities"))
    assert body["kg_count"] > 0 and "kg_error" not in body
    assert "embedder" in body["unavailable"]


async def test_domain_filters_inside_the_store_query(memory: Memory) -> None:
    _, chunks, _, _ = memory
    body = (await run(memory, query="garden tomatoes", n_chunks=3, domain="travel")).to_json_dict()
    assert body["domain_filter"] == "travel"
    assert all(call["domain"] == "travel" for call in chunks.called("search"))
    assert all(call["domain"] == "travel" for call in chunks.called("lexical_search"))
    # Post-filtering the garden query's top hits would leave fewer than 3 travel chunks.
    assert body["chunk_count"] == 3
    assert all("travel" in chunk["domains"] for chunk in body["chunks"])


async def test_temporal_period_reaches_the_graph_search(memory: Memory) -> None:
    _, _, graph, _ = memory
    body = (await run(memory, query="Lisbon Marta Taberna", temporal="2024-03-04")).to_json_dict()
    assert body["temporal_filter"] == "2024-03-04"
    periods = {call["period"] for call in graph.called("search_entities")}
    assert all(isinstance(p, Period) and p.text == "2024-03-04" for p in periods)
    graph_hits = [e for e in body["kg_entities"] if e["source"] == "graph"]
    assert graph_hits and {e["id"] for e in graph_hits} <= {"marta", "taberna"}


async def test_provenance_is_capped_with_a_count(memory: Memory) -> None:
    _, _, graph, _ = memory
    mentions = tuple(Mention(f"c{i}", 0, 1, T0) for i in range(30))
    graph.entities["lisbon"] = replace(graph.entities["lisbon"], mentions=mentions)
    body = (await run(memory, query="Lisbon", n_chunks=0)).to_json_dict()
    lisbon = next(e for e in body["kg_entities"] if e["id"] == "lisbon")
    assert len(lisbon["provenance"]) == 20 and lisbon["provenance_count"] == 30


async def test_what_if_re_decides_without_asking_the_stores(memory: Memory) -> None:
    embedder, chunks, graph, concepts = memory
    result = await run(memory, query="Lisbon trip with Marta", n_chunks=3, kg_top_k=5)
    calls = [len(store.calls) for store in (embedder, chunks, graph, concepts)]
    stricter = replace(RetrievalPolicy(), min_relevance=0.45)
    again = result.decide(stricter)
    assert [len(store.calls) for store in (embedder, chunks, graph, concepts)] == calls

    def direct(found: ScourResult) -> list[str]:
        return [m.id for m in found.memories if m.source.value != "activation"]

    assert set(direct(again)) < set(direct(result))
    assert any(e.gate == "relevance" for e in again.retrieval.result.dropped)
    assert result.retrieval.gathered is not None
    assert refetch_reasons(RetrievalPolicy(), stricter, result.retrieval.gathered.query) == []
    assert refetch_reasons(RetrievalPolicy(), preset("broad"), again.request.memory_query())


async def test_concurrent_scours_are_independent(memory: Memory) -> None:
    queries = ["Lisbon", "garden tomatoes", "window seats flights", "Marta restaurant"]
    embedder, chunks, graph, concepts = memory
    scan = TermScan(concepts)

    async def one(text: str) -> ScourResult:
        return await scour(
            ScourRequest(text, scope="acme/ana"),
            graph=graph,
            chunks=chunks,
            concepts=concepts,
            embedder=embedder,
            policy=RetrievalPolicy(),
            term_scan=scan,
        )

    together = await asyncio.gather(*(one(q) for q in queries * 5))
    alone = {q: await one(q) for q in queries}
    for text, result in zip(queries * 5, together, strict=True):
        expected = alone[text].to_json_dict()
        got = result.to_json_dict()
        for key in ("kg_entities", "chunks", "dropped", "activation", "sources"):
            assert got[key] == expected[key]


def test_request_validation_and_the_failure_object() -> None:
    with pytest.raises(InvalidArgument, match="n_chunks"):
        ScourRequest("x", n_chunks=-1)
    with pytest.raises(InvalidArgument, match="kg_top_k"):
        ScourRequest("x", kg_top_k=True)
    with pytest.raises(InvalidArgument, match="temporal"):
        ScourRequest("x", temporal="soon")
    with pytest.raises(InvalidArgument, match="empty"):
        ScourRequest("")
    assert scour_failure("x", "bad") == {"success": False, "error": "bad", "query": "x"}
    period = ScourRequest("x", temporal="2023..").period
    assert period is not None and period.start == T0.replace(year=2023, month=1, day=1, hour=0)
    assert period.end is None


async def test_concepts_come_back_as_entities_of_the_concept_layer(memory: Memory) -> None:
    body = (await run(memory, query="garden tomatoes", n_chunks=0, kg_top_k=5)).to_json_dict()
    garden = next(e for e in body["kg_entities"] if e["id"] == "concept-garden")
    assert garden["layer"] == "concept" and garden["source"] == "lexical"
    assert garden["score_breakdown"]["similarity"] == 0.0


async def test_an_entity_on_another_branch_is_ledgered_not_recalled(memory: Memory) -> None:
    _, _, graph, _ = memory
    graph.entities["bob-lisbon"] = Entity(
        "bob-lisbon", "Lisbon office", "place", scope="acme/bob", salience=0.9
    )
    body = (await run(memory, query="Lisbon", n_chunks=0)).to_json_dict()
    assert "bob-lisbon" not in {e["id"] for e in body["kg_entities"]}
    (entry,) = [e for e in body["dropped"] if e["id"] == "bob-lisbon"]
    assert entry["gate"] == "scope" and "another branch" in entry["reason"]


async def test_a_sibling_branch_changes_no_score_in_the_query_scope(memory: Memory) -> None:
    # The ancestor's subtree is searched too (scope blending may climb); what it holds on
    # another branch is ledgered, and must not move the relative scores of the query's own.
    def scores(result: ScourResult) -> list[tuple[str, float]]:
        return [(m.candidate.id, m.score) for m in (*result.chunks, *result.entities)]

    before = await run(memory, query="Lisbon trip", n_chunks=3, kg_top_k=3)
    embedder, chunks, graph, _ = memory
    sibling = replace(chunks.chunks["c1"], id="bob-1", text="Lisbon trip", scope="acme/bob")
    await chunks.upsert([sibling], await embedder.embed([sibling.text]), embedder.spec)
    graph.entities["bob-trip"] = Entity("bob-trip", "Lisbon trip", "event", scope="acme/bob")
    after = await run(memory, query="Lisbon trip", n_chunks=3, kg_top_k=3)
    assert scores(after) == scores(before)
    ledgered = {entry.id: entry.reason for entry in after.retrieval.result.dropped}
    assert "another branch" in ledgered["bob-1"] and "another branch" in ledgered["bob-trip"]


async def test_the_store_source_raises_memory_unavailable_only_when_every_route_failed(
    memory: Memory,
) -> None:
    from explorer.core.candidates import SourcesUnavailable
    from explorer.core.errors import MemoryUnavailable
    from explorer.core.sources import StoreCandidateSource

    embedder, chunks, graph, concepts = memory
    source = StoreCandidateSource(
        chunks=chunks, graph=graph, embedder=embedder, concepts=concepts, policy=RetrievalPolicy()
    )
    query = ScourRequest("Lisbon", scope="acme/ana").memory_query()
    layers = RetrievalPolicy().effective_layers(query)
    graph.fail = StoreUnavailable("graph down")
    batch = await source.search(query, layers)
    assert batch.unavailable == ("graph",) and batch.failures == {"graph": "graph down"}
    assert batch.sources["vector"] > 0
    chunks.fail = concepts.fail = StoreUnavailable("all down")
    with pytest.raises(MemoryUnavailable) as caught:
        await source.search(query, layers)
    assert isinstance(caught.value, SourcesUnavailable)
    assert set(caught.value.failures) == {"vector", "lexical", "graph", "concepts"}


async def test_zero_weights_skip_their_routes(memory: Memory) -> None:
    embedder, chunks, graph, _ = memory
    await run(memory, policy=preset("lexical"), query="Lisbon", n_chunks=3)
    assert embedder.calls == [] and chunks.called("search") == []
    assert chunks.called("lexical_search") and graph.calls == []


async def test_a_skipped_half_and_a_failed_half_is_a_failure(memory: Memory) -> None:
    _, chunks, _, _ = memory
    chunks.fail = StoreUnavailable("pg is down")
    body = (await run(memory, query="Lisbon", n_chunks=3, kg_top_k=0)).to_json_dict()
    assert body["success"] is False and "pg is down" in body["error"]
    assert compact_answer(body)["success"] is False
    assert compact_answer(body)["error"] == body["error"]


async def test_one_half_failing_is_still_a_success(memory: Memory) -> None:
    _, chunks, _, _ = memory
    chunks.fail = StoreUnavailable("pg is down")
    body = (await run(memory, query="Lisbon", n_chunks=3, kg_top_k=5)).to_json_dict()
    assert body["success"] is True and "error" not in body


def test_a_lone_surrogate_in_the_query_is_refused_and_echoed_escaped() -> None:
    with pytest.raises(InvalidArgument, match="lone surrogate"):
        ScourRequest(query="Lisbon \udcff")
    echoed = scour_failure("Lisbon \udcff", "bad")["query"]
    assert echoed == "Lisbon \\udcff"
    echoed.encode("utf-8")


def test_an_entitys_listed_relations_put_stated_facts_first() -> None:
    # As the stores order a node's neighbours: facts before weak signals however confident
    # those are, then confidence and the other end's salience.
    people = {
        key: Entity(id=key, name=key.upper(), type="person", salience=salience)
        for key, salience in (("a", 0.5), ("low", 0.1), ("high", 0.9), ("loud", 1.0))
    }
    subgraph = Subgraph(
        entities=people,
        relations=(
            Relation("r1", "a", "loud", "MENTIONS", confidence=0.99),
            Relation("r2", "a", "low", "FAMILY_OF", confidence=0.7),
            Relation("r3", "high", "a", "FAMILY_OF", confidence=0.7),
            Relation("r4", "a", "low", "KNOWS", confidence=0.9),
        ),
    )
    listed = neighbours_in(subgraph, "a", 10)
    assert [n.relation.id for n in listed] == ["r4", "r3", "r2", "r1"]
    assert [n.outgoing for n in listed] == [True, False, True, True]
    assert [n.relation.id for n in neighbours_in(subgraph, "a", 2)] == ["r4", "r3"]
