"""Graphiti memories on the real embedded FalkorDB, written by graphiti-core's own code.

scour over a graphiti graph returns its entities, its facts as relations with their validity
history and its episodes as chunks with the spans that mention each entity; group ids scope the
recall; vectors are compared only for the declared model and otherwise the answer says why;
every write is refused; ``--graphiti`` works for ``query`` and ``stats`` and names a graph that
is not graphiti's clearly. After every test every node, edge, property and index of the graph is
exactly what graphiti wrote.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.falkor import FalkorGraphStore
from explorer.adapters.graphiti import NotGraphiti, graphiti_graphs, open_graphiti
from explorer.cli import main
from explorer.compose import build_memory, open_memory
from explorer.core.errors import EmbeddingMismatch, ReadOnlyStore
from explorer.core.models import Chunk, EmbeddingSpec, Entity, Relation
from explorer.core.scour import ScourRequest
from explorer.memory import StoreMemoryService
from explorer.settings import Settings
from tests.graphiti_graph import (
    GROUP,
    MODEL,
    OTHER_GROUP,
    GraphitiFixture,
    HashEmbedder,
    graph_snapshot,
    write_graphiti_graph,
)
from tests.stores import unique_name


@pytest.fixture(scope="module")
async def written(servers: EmbeddedServers) -> AsyncIterator[GraphitiFixture]:
    fixture = await write_graphiti_graph(servers.falkordb_socket, unique_name("graphiti"))
    yield fixture
    store = await FalkorGraphStore.connect(
        socket_path=servers.falkordb_socket, graph=fixture.graph, ensure_schema=False
    )
    await store.delete_graph(recreate_schema=False)
    await store.aclose()


@pytest.fixture
def graphiti(servers: EmbeddedServers, written: GraphitiFixture) -> Iterator[GraphitiFixture]:
    """The fixture graph; the test fails if any node, edge, property or index changed."""
    before = graph_snapshot(servers.falkordb_socket, written.graph)
    yield written
    assert graph_snapshot(servers.falkordb_socket, written.graph) == before, "the graph was written"


def _settings(servers: EmbeddedServers, graph: str, tmp_path: Path, **more: Any) -> Settings:
    return Settings(
        data_dir=tmp_path,
        falkordb_url=f"unix://{servers.falkordb_socket}",
        graphiti_graph=graph,
        **more,
    )


async def _scour(memory: StoreMemoryService, query: str, **request: Any) -> dict[str, Any]:
    result = await memory.scour(ScourRequest(query=query, **request))
    return result.to_json_dict()


def _entity(result: dict[str, Any], name: str) -> dict[str, Any]:
    # The concept scan reads graphiti's entities too, so a hit may come from either layer.
    found: list[dict[str, Any]] = [e for e in result["kg_entities"] if e["name"] == name]
    assert found, f"{name} not among {[e['name'] for e in result['kg_entities']]}"
    return found[0]


async def test_scour_returns_entities_facts_with_validity_and_episodes_with_spans(
    servers: EmbeddedServers, graphiti: GraphitiFixture, tmp_path: Path
) -> None:
    async with open_memory(_settings(servers, graphiti.graph, tmp_path)) as memory:
        result = await _scour(memory, "Where does Maya live?", n_chunks=4, kg_top_k=5)
        maya = _entity(result, "Maya")
        assert maya["id"] == graphiti.entities["Maya"] and maya["type"] == "Person"
        assert maya["scope"] == GROUP and "Porto" in maya["description"]
        lived = {
            r["neighbour"]["name"]: r for r in maya["relationships"] if r["type"] == "LIVES_IN"
        }
        assert set(lived) == {"Porto", "Lisbon", "Berlin"}
        lisbon = lived["Lisbon"]
        assert lisbon["id"] == graphiti.facts["lisbon"] and lisbon["fact"] == "Maya lives in Lisbon"
        assert lisbon["valid_from"].startswith("2026-01-25")
        assert lisbon["valid_to"].startswith("2026-05-01")
        assert lisbon["expired_at"].startswith("2026-05-03")
        assert lisbon["recorded_at"].startswith("2026-02-01")
        assert lived["Berlin"]["valid_to"] is None and lived["Berlin"]["expired_at"] is None
        # A fact graphiti retired counts for less than a current one.
        assert lisbon["confidence"] == 0.5 and lived["Berlin"]["confidence"] == 1.0
        assert maya["first_seen"].startswith("2026-01-10")
        # Episodes are the chunks: verbatim, with their time and source description.
        chunks = {c["id"]: c for c in result["chunks"]}
        assert graphiti.episodes["lisbon"] in chunks
        episode = chunks[graphiti.episodes["lisbon"]]
        assert episode["text"] == graphiti.contents["lisbon"]
        assert episode["timestamp"].startswith("2026-02-01")
        assert episode["conversation_id"] == "chat with Maya" and episode["speaker"] == "Maya"
        assert episode["scope"] == GROUP
        # Each mention is a span of the entity's name in the episode text, any case.
        by_id = {uuid: graphiti.contents[key] for key, uuid in graphiti.episodes.items()}
        spans = [(p["chunk_id"], p["start"], p["end"]) for p in maya["provenance"]]
        assert {chunk for chunk, _, _ in spans} == {
            graphiti.episodes[k] for k in ("dog", "lisbon", "berlin")
        }
        assert all(by_id[c][s:e].lower() == "maya" for c, s, e in spans)
        assert sum(1 for c, _, _ in spans if c == graphiti.episodes["lisbon"]) == 2
        assert result["success"] and "kg_error" not in result


async def test_the_graph_stores_read_what_graphiti_wrote(
    servers: EmbeddedServers, graphiti: GraphitiFixture, tmp_path: Path
) -> None:
    async with open_memory(_settings(servers, graphiti.graph, tmp_path)) as memory:
        assert memory.graph is not None and memory.chunks is not None
        assert memory.concepts is not None
        counts = await memory.graph.counts()
        assert counts["entities"] == 8 and counts["relations"] == 6
        assert counts["episodes"] == 4 and counts["communities"] == 1 and counts["sagas"] == 1
        assert counts["scope:acme"] == 6 and counts["type:Location"] == 3
        assert counts["type:Entity"] == 1  # Zalando: no label beyond Entity
        chunk_counts = await memory.chunks.counts()
        assert chunk_counts["chunks"] == 4 and chunk_counts["scope:racing"] == 1
        span = await memory.chunks.time_span()
        assert span is not None and (span[0].month, span[1].month) == (1, 5)
        top = await memory.graph.most_salient(2, scope=GROUP)
        assert [e.name for e in top] == ["Maya", "Lisbon"]
        berlin = graphiti.episodes["berlin"]
        linked = await memory.graph.entities_in_chunks([berlin])
        named = {graphiti.entities[n] for n in ("Maya", "Lisbon", "Berlin", "Zalando")}
        assert set(linked[berlin]) == named
        [chunk] = await memory.chunks.get([berlin])
        assert chunk.position == 2 and chunk.text == graphiti.contents["berlin"]
        # What its speaker said there, newest first: the same episode among them.
        said, total = await memory.chunks.said_by(chunk.speaker, 10, scope=chunk.scope)
        assert berlin in [c.id for c in said] and total == len(said) >= 1
        assert said == sorted(said, key=lambda c: (c.timestamp, c.id), reverse=True)
        # The overview the window shows before the first query.
        overview = await memory.overview()
        assert overview.chunks == 4 and overview.entities == 8 and overview.relations == 6
        assert not overview.errors
        assert {graphiti.entities["Maya"], graphiti.entities["Lisbon"]} <= {
            e.id for e in overview.salient
        }
        agents = await memory.concepts.agents()
        assert agents == [GROUP, OTHER_GROUP]
        record = json.loads((await memory.concepts.read(GROUP, ["Maya"]))["Maya"])
        assert (
            record["id"] == graphiti.entities["Maya"] and "Maya lives in Berlin" in record["body"]
        )


async def test_what_if_and_recall_cases_work_over_a_graphiti_answer(
    servers: EmbeddedServers, graphiti: GraphitiFixture, tmp_path: Path
) -> None:
    from dataclasses import replace

    from explorer.core.recall_case import RecallCase, load_case, save_case

    async with open_memory(_settings(servers, graphiti.graph, tmp_path)) as memory:
        answer = await memory.scour(ScourRequest(query="Where does Maya live?", n_chunks=4))
    # What-if: no chunks at all, decided again from the candidates in hand (the memory is closed).
    no_chunks = answer.decide(replace(memory.policy, min_relevance=1.0))
    assert not no_chunks.chunks and answer.chunks
    case = RecallCase.capture(answer, title="graphiti")
    save_case(tmp_path / "case.json", case)
    opened = load_case(tmp_path / "case.json")
    again = opened.scour_result().to_json_dict()

    def shown(result: dict[str, Any]) -> list[Any]:
        return [(e["id"], e["score"], e["relationships"]) for e in result["kg_entities"]]

    assert shown(again) == shown(answer.to_json_dict())
    assert [c["id"] for c in again["chunks"]] == [c.candidate.id for c in answer.chunks]
    subgraph = opened.retrieval().gathered.associations.subgraph  # type: ignore[union-attr]
    lisbon = next(r for r in subgraph.relations if r.id == graphiti.facts["lisbon"])
    assert lisbon.expired_at is not None and lisbon.expired_at.day == 3
    assert lisbon.recorded_at is not None and lisbon.valid_to is not None


async def test_group_ids_scope_the_recall(
    servers: EmbeddedServers, graphiti: GraphitiFixture, tmp_path: Path
) -> None:
    async with open_memory(_settings(servers, graphiti.graph, tmp_path)) as memory:
        racing = await _scour(memory, "Lisbon marathon", scope=OTHER_GROUP)
        names = {e["name"] for e in racing["kg_entities"]}
        assert names and names <= {"Tom", "Lisbon Marathon"}
        assert {c["scope"] for c in racing["chunks"]} == {OTHER_GROUP}
        acme = await _scour(memory, "Lisbon marathon", scope=GROUP)
        assert "Tom" not in {e["name"] for e in acme["kg_entities"]}
        assert {c["scope"] for c in acme["chunks"]} <= {GROUP}
        whole = await _scour(memory, "Lisbon marathon", kg_top_k=8)
        assert {e["scope"] for e in whole["kg_entities"]} == {GROUP, OTHER_GROUP}


async def test_temporal_filter_reads_the_episode_times(
    servers: EmbeddedServers, graphiti: GraphitiFixture, tmp_path: Path
) -> None:
    async with open_memory(_settings(servers, graphiti.graph, tmp_path)) as memory:
        assert memory.graph is not None
        named = "Maya Biscuit Berlin Zalando Porto"
        january = await memory.graph.search_entities(named, 8, period=_period("2026-01"))
        assert {hit.entity.name for hit in january} == {"Maya", "Biscuit"}
        may = await memory.graph.search_entities(named, 8, period=_period("2026-05"))
        assert {hit.entity.name for hit in may} == {"Maya", "Berlin", "Zalando"}


def _period(text: str) -> Any:
    from explorer.core.temporal import parse_period

    return parse_period(text)


async def test_vectors_of_an_undeclared_model_are_not_compared_and_the_answer_says_so(
    servers: EmbeddedServers, graphiti: GraphitiFixture, tmp_path: Path
) -> None:
    async with open_memory(_settings(servers, graphiti.graph, tmp_path)) as memory:
        result = await _scour(memory, "greyhound Biscuit")
        # Not asked at all, with the reason in the ledger; not a failure of the chunk half.
        assert "vector" in result["unavailable"] and "chunks_error" not in result
        [note] = [d["reason"] for d in result["dropped"] if d["source"] == "vector"]
        assert "graphiti does not record which model" in note
        assert "graphiti_embedding_model" in note
        assert result["sources"]["vector"] == 0
        # Lexical and graph still answer.
        assert result["success"] and graphiti.episodes["dog"] in {c["id"] for c in result["chunks"]}
        assert "Biscuit" in {e["name"] for e in result["kg_entities"]}
        assert memory.chunks is not None
        with pytest.raises(EmbeddingMismatch, match="vector search is off"):
            await memory.chunks.search([0.1] * 256, 3, spec=memory.embedder.spec)
    declared = _settings(servers, graphiti.graph, tmp_path, graphiti_embedding_model="other-model")
    async with open_memory(declared) as memory:
        result = await _scour(memory, "greyhound Biscuit")
        [note] = [d["reason"] for d in result["dropped"] if d["source"] == "vector"]
        assert "the graphiti vectors are other-model, 16 dimensions" in note
        assert "the embedder is wordllama" in note


async def test_vectors_of_the_declared_model_rank_entities_and_episodes(
    servers: EmbeddedServers, graphiti: GraphitiFixture, tmp_path: Path
) -> None:
    settings = _settings(servers, graphiti.graph, tmp_path, graphiti_embedding_model=MODEL)
    memory = build_memory(settings, embedder=HashEmbedder())
    await memory.connect()
    try:
        assert memory.chunks is not None and memory.graph is not None
        assert await memory.chunks.embedding_spec() == EmbeddingSpec(MODEL, 16)
        result = await _scour(memory, "Maya works at Zalando")
        assert "chunks_error" not in result and "kg_error" not in result
        assert result["sources"]["vector"] > 0 and "vector" not in result["unavailable"]
        # The fact's own words make its episode the nearest one.
        [best] = await memory.chunks.search(
            (await HashEmbedder().embed(["Maya works at Zalando"]))[0], 1, spec=HashEmbedder.spec
        )
        assert best.chunk.id == graphiti.episodes["berlin"] and best.similarity > 0.99
        hits = await memory.graph.search_entities(
            "", 1, vector=(await HashEmbedder().embed(["Biscuit"]))[0]
        )
        assert [h.entity.name for h in hits] == ["Biscuit"] and hits[0].similarity > 0.99
    finally:
        await memory.aclose()


async def test_every_write_is_refused(
    servers: EmbeddedServers, graphiti: GraphitiFixture, tmp_path: Path
) -> None:
    async with open_memory(_settings(servers, graphiti.graph, tmp_path)) as memory:
        assert memory.graph is not None and memory.chunks is not None
        assert memory.concepts is not None
        entity = Entity(id="x", name="X", type="Thing")
        with pytest.raises(ReadOnlyStore, match="read-only"):
            await memory.graph.upsert([entity], [Relation("r", "x", "x", "SELF")])
        chunk = Chunk("c", "text", "conv", 0, "me", tmp_time())
        with pytest.raises(ReadOnlyStore, match="read-only"):
            await memory.chunks.upsert([chunk], [[0.0] * 16], EmbeddingSpec(MODEL, 16))
        with pytest.raises(ReadOnlyStore):
            await memory.concepts.upsert(GROUP, [{"name": "X"}])
        with pytest.raises(ReadOnlyStore):
            await memory.ensure_demo(reset=True)
        assert await memory.ensure_demo() is False
        with pytest.raises(ReadOnlyStore, match="nothing is forgotten"):
            await memory.forget_scope(GROUP)
        for store in (memory.graph, memory.chunks, memory.concepts):
            with pytest.raises(ReadOnlyStore, match="forgetting a scope"):
                await store.forget_scope(GROUP)
        assert await memory.chunks.read_mark("demo") is None
        with pytest.raises(ReadOnlyStore, match="keeping a note"):
            await memory.chunks.write_mark("demo", "loaded")


def tmp_time() -> Any:
    from tests.graphiti_graph import at

    return at(6, 1)


async def test_a_graph_that_is_not_graphiti_is_a_clear_error(
    servers: EmbeddedServers,
    graphiti: GraphitiFixture,
    graph_store: FalkorGraphStore,
    tmp_path: Path,
) -> None:
    await graph_store.upsert([Entity(id="e1", name="Ana", type="person")], [])
    with pytest.raises(NotGraphiti, match="is not a graphiti graph"):
        await open_graphiti(
            graph_store.graph_name,
            query_spec=HashEmbedder.spec,
            socket_path=servers.falkordb_socket,
        )
    with pytest.raises(NotGraphiti, match="there is no graph 'missing_graph'"):
        await open_graphiti(
            "missing_graph", query_spec=HashEmbedder.spec, socket_path=servers.falkordb_socket
        )
    listed = await graphiti_graphs(socket_path=servers.falkordb_socket)
    assert graphiti.graph in listed and graph_store.graph_name not in listed


def _cli(servers: EmbeddedServers, graph: str, *args: str) -> int:
    return main(["--data-dir", str(servers.data_dir), "--graphiti", graph, *args])


def test_cli_query_and_stats_open_a_graphiti_graph(
    servers: EmbeddedServers, graphiti: GraphitiFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli(servers, graphiti.graph, "query", "Where does Maya live?", "--explain") == 0
    answer = json.loads(capsys.readouterr().out)
    maya = _entity(answer, "Maya")
    assert any(r["fact"] == "Maya lives in Berlin" for r in maya["relationships"])
    assert graphiti.episodes["berlin"] in {c["id"] for c in answer["chunks"]}
    assert _cli(servers, graphiti.graph, "query", "Biscuit") == 0
    compact = json.loads(capsys.readouterr().out)
    assert "Biscuit" in {e["name"] for e in compact["kg_entities"]}
    assert _cli(servers, graphiti.graph, "stats", "--json") == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["chunks"], stats["entities"], stats["relations"]) == (4, 8, 6)
    assert "graphiti does not record which model" in stats["vector_search"]
    assert _cli(servers, graphiti.graph, "stats") == 0
    text = capsys.readouterr().out
    assert "embedding: None" in text and "did not answer" not in text  # none recorded, not lost


def test_cli_names_a_graph_that_is_not_graphiti(
    servers: EmbeddedServers,
    graphiti: GraphitiFixture,
    graph_store: FalkorGraphStore,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _cli(servers, graph_store.graph_name, "query", "anything") == 2
    error = capsys.readouterr().err
    assert f"graph {graph_store.graph_name!r} is not a graphiti graph" in error
    assert error.count("\n") == 1  # one line, no traceback
    assert _cli(servers, "no_such_graph", "stats") == 2
    assert graphiti.graph in capsys.readouterr().err  # the graphiti graphs there are named


def test_the_snapshot_sees_any_write(servers: EmbeddedServers) -> None:
    """The unchanged-graph check can fail: one property set is a different snapshot."""
    import redis

    name = unique_name("snapshot")
    client = redis.Redis(unix_socket_path=str(servers.falkordb_socket))
    try:
        client.execute_command("GRAPH.QUERY", name, "CREATE (:Episodic {uuid: 'a', content: 'x'})")  # type: ignore[no-untyped-call]
        before = graph_snapshot(servers.falkordb_socket, name)
        assert graph_snapshot(servers.falkordb_socket, name) == before
        client.execute_command("GRAPH.QUERY", name, "MATCH (e:Episodic) SET e.content = 'y'")  # type: ignore[no-untyped-call]
        assert graph_snapshot(servers.falkordb_socket, name) != before
    finally:
        client.execute_command("GRAPH.DELETE", name)  # type: ignore[no-untyped-call]
        client.close()
