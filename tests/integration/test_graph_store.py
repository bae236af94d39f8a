"""FalkorGraphStore on the real embedded FalkorDB: every method, filters, injection, outages."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.falkor import FalkorGraphStore, cypher
from explorer.adapters.falkor.store import MIN_CANDIDATES, SPLIT_SPREAD_AT
from explorer.core.errors import (
    EmbeddingMismatch,
    InvalidArgument,
    StoreTimeout,
    StoreUnavailable,
)
from explorer.core.models import (
    AliasEvidence,
    Entity,
    MemoryLayer,
    Mention,
    Period,
    Relation,
    Subgraph,
)

MAY = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
JUNE = datetime(2024, 6, 10, 9, 30, tzinfo=UTC)
AUGUST = datetime(2024, 8, 3, 18, 0, tzinfo=UTC)


class HostileStr(str):
    """Escapes nothing and prints a Cypher payload: what the raw client would paste."""

    def __str__(self) -> str:
        return 'x"}) MATCH (z) DETACH DELETE z //'

    def replace(self, *args: object, **kwargs: object) -> str:
        return 'x"}) MATCH (z) DETACH DELETE z //'


class HostileInt(int):
    def __str__(self) -> str:
        return "1 MATCH (z) DETACH DELETE z //"

    __repr__ = __str__

    def __index__(self) -> int:
        return 10**9


def people() -> list[Entity]:
    return [
        Entity(
            id="ada",
            name="Ada Lovelace",
            type="person",
            description="Mathematician who wrote the first program for the analytical engine",
            aliases=("Countess of Lovelace",),
            confidence=0.9,
            salience=0.8,
            temporal=("1843",),
            domains=("history", "computing"),
            scope="acme/assistant/ana",
            mentions=(Mention("chunk-1", 0, 12, MAY), Mention("chunk-2", 4, 7, JUNE)),
        ),
        Entity(
            id="babbage",
            name="Charles Babbage",
            type="person",
            description="Engineer who designed the difference engine",
            scope="acme/assistant",
            mentions=(Mention("chunk-1", 30, 45, MAY),),
        ),
        Entity(
            id="engine",
            name="Analytical Engine",
            type="machine",
            description="A proposed mechanical general-purpose computer",
            scope="acme",
            mentions=(Mention("chunk-3", 0, 17, AUGUST),),
        ),
        Entity(
            id="elsewhere",
            name="Engine Room",
            type="place",
            description="A room on another tenant's ship",
            scope="globex/bot",
        ),
    ]


def links() -> list[Relation]:
    return [
        Relation(
            id="r-ada-babbage",
            source_id="ada",
            target_id="babbage",
            type="worked_with",
            fact="Ada worked with Babbage on the engine notes",
            confidence=0.95,
            valid_from=datetime(1833, 6, 5, tzinfo=UTC),
            mentions=(Mention("chunk-1", 0, 45, MAY),),
        ),
        Relation(
            id="r-ada-engine",
            source_id="ada",
            target_id="engine",
            type="wrote_about",
            fact="Ada wrote the notes on the Analytical Engine",
            confidence=0.7,
            mentions=(Mention("chunk-3", 0, 17, AUGUST),),
        ),
    ]


VECTORS = {
    "ada": [1.0, 0.0, 0.0, 0.0],
    "babbage": [0.0, 1.0, 0.0, 0.0],
    "engine": [0.6, 0.8, 0.0, 0.0],
    "elsewhere": [0.0, 0.0, 1.0, 0.0],
}


async def fill(store: FalkorGraphStore) -> None:
    await store.upsert(people(), links(), vectors=VECTORS)


async def test_upsert_then_get_entities_round_trips_every_field(
    graph_store: FalkorGraphStore,
) -> None:
    await fill(graph_store)
    found = await graph_store.get_entities(["engine", "missing", "ada"])
    assert [e.id for e in found] == ["engine", "ada"]
    ada = found[1]
    assert ada.name == "Ada Lovelace"
    assert ada.type == "person"
    assert ada.aliases == ("Countess of Lovelace",)
    assert ada.confidence == pytest.approx(0.9)
    assert ada.salience == pytest.approx(0.8)
    assert ada.temporal == ("1843",)
    assert ada.domains == ("history", "computing")
    assert ada.scope == "acme/assistant/ana"
    assert ada.layer is MemoryLayer.SEMANTIC
    assert ada.first_seen == MAY
    assert ada.last_seen == JUNE
    assert ada.created_at is not None and ada.updated_at is not None
    assert [(m.chunk_id, m.start, m.end, m.timestamp) for m in ada.mentions] == [
        ("chunk-1", 0, 12, MAY),
        ("chunk-2", 4, 7, JUNE),
    ]


async def test_upsert_twice_changes_nothing(graph_store: FalkorGraphStore) -> None:
    await fill(graph_store)
    before = dict(await graph_store.counts())
    await fill(graph_store)
    assert dict(await graph_store.counts()) == before
    assert before["entities"] == 4
    assert before["relations"] == 2
    assert before["sources"] == 3
    assert before["mentions"] == 4
    assert before["type:person"] == 2


async def test_mentions_and_aliases_are_merged_without_duplicates(
    graph_store: FalkorGraphStore,
) -> None:
    await fill(graph_store)
    later = Entity(
        id="ada",
        name="Ada Lovelace",
        type="person",
        aliases=("Ada King", "Countess of Lovelace"),
        scope="acme/assistant/ana",
        mentions=(Mention("chunk-2", 4, 7, JUNE), Mention("chunk-9", 1, 3, AUGUST)),
    )
    relation = Relation(
        id="r-ada-babbage",
        source_id="ada",
        target_id="babbage",
        type="worked_with",
        mentions=(Mention("chunk-1", 0, 45, MAY), Mention("chunk-9", 0, 9, AUGUST)),
    )
    await graph_store.upsert([later, later], [relation, relation])
    (ada,) = await graph_store.get_entities(["ada"])
    assert ada.aliases == ("Countess of Lovelace", "Ada King")
    assert [m.chunk_id for m in ada.mentions] == ["chunk-1", "chunk-2", "chunk-9"]
    assert ada.first_seen == MAY and ada.last_seen == AUGUST
    graph = await graph_store.neighbourhood(["ada"])
    (edge,) = [r for r in graph.relations if r.id == "r-ada-babbage"]
    assert [(m.chunk_id, m.start) for m in edge.mentions] == [("chunk-1", 0), ("chunk-9", 0)]
    counts = await graph_store.counts()
    assert counts["mentions"] == 5
    assert counts["relations"] == 2


async def test_full_text_search_finds_names_aliases_and_descriptions(
    graph_store: FalkorGraphStore,
) -> None:
    await fill(graph_store)
    by_alias = await graph_store.search_entities("Who was the Countess?", 5)
    assert [h.entity.id for h in by_alias] == ["ada"]
    assert by_alias[0].lexical == pytest.approx(1.0)
    assert by_alias[0].similarity == 0.0
    by_description = await graph_store.search_entities("difference engine designer", 5)
    assert by_description[0].entity.id == "babbage"
    assert 0.0 < by_description[0].lexical <= 1.0
    assert await graph_store.search_entities("zeppelin", 5) == []
    assert await graph_store.search_entities("who is the", 5) == []


async def test_equal_full_text_scores_are_cut_in_the_order_entities_were_written(
    graph_store: FalkorGraphStore,
) -> None:
    # More entities tie on one word than the candidate read fetches: the ones kept are the
    # first written (ids that sort the other way round), so no tie needs its id read.
    tied = [
        Entity(id=f"z{99 - n:02d}", name=f"Lamp {n}", type="product", description="a brass lamp")
        for n in range(MIN_CANDIDATES + 20)
    ]
    for entity in tied:  # one write each, in this order
        await graph_store.upsert([entity], [])
    rows = await graph_store._conn.read(
        cypher.FULLTEXT_ANY.format(period=""),
        {"query": "brass", "fetch": MIN_CANDIDATES, "vector": None},
    )
    assert len({row[1] for row in rows}) == 1  # one score: every match ties
    assert [row[0] for row in rows] == [e.id for e in tied[:MIN_CANDIDATES]]


async def test_a_detached_alias_is_no_longer_found_nor_shown_with_evidence(
    graph_store: FalkorGraphStore,
) -> None:
    await fill(graph_store)
    said = AliasEvidence("Countess of Lovelace", "chunk-1", "addressed as Countess of Lovelace")
    (ada,) = await graph_store.get_entities(["ada"])
    await graph_store.upsert([replace(ada, alias_evidence=(said,))], [])
    (ada,) = await graph_store.get_entities(["ada"])
    assert ada.alias_evidence == (said,)
    assert [h.entity.id for h in await graph_store.search_entities("Countess", 5)] == ["ada"]
    assert await graph_store.detach_alias("ada", "countess of lovelace") is True
    (ada,) = await graph_store.get_entities(["ada"])
    assert "Countess of Lovelace" not in ada.aliases and ada.alias_evidence == ()
    assert await graph_store.search_entities("Countess", 5) == []
    assert await graph_store.detach_alias("ada", "Countess of Lovelace") is False


async def test_search_syntax_characters_cannot_break_the_full_text_query(
    graph_store: FalkorGraphStore,
) -> None:
    await fill(graph_store)
    for text in ['@name:(ada) | -babbage ~x* %lov% "', "{}[]()<>|&!:;", "'\\\"", "ada\\"]:
        hits = await graph_store.search_entities(text, 5)
        assert all(h.entity.id in VECTORS for h in hits)
    hits = await graph_store.search_entities('"Ada" (Lovelace)!', 5)
    assert hits[0].entity.id == "ada"


async def test_vector_search_ranks_by_cosine_similarity(graph_store: FalkorGraphStore) -> None:
    await fill(graph_store)
    hits = await graph_store.search_entities("", 3, vector=[0.9, 0.1, 0.0, 0.0])
    assert [h.entity.id for h in hits][:2] == ["ada", "engine"]
    assert hits[0].similarity == pytest.approx(0.9939, abs=1e-3)
    assert hits[0].lexical == 0.0
    combined = await graph_store.search_entities("Babbage", 2, vector=[0.0, 1.0, 0.0, 0.0])
    assert combined[0].entity.id == "babbage"
    assert combined[0].similarity == pytest.approx(1.0, abs=1e-5)
    assert combined[0].lexical == pytest.approx(1.0)


async def test_scope_filter_keeps_the_scope_its_subtree_and_its_ancestors(
    graph_store: FalkorGraphStore,
) -> None:
    await fill(graph_store)
    query = [0.5, 0.5, 0.5, 0.0]
    in_assistant = await graph_store.search_entities(
        "engine", 10, vector=query, scope="acme/assistant"
    )
    assert {h.entity.id for h in in_assistant} == {"ada", "babbage", "engine"}
    in_globex = await graph_store.search_entities("engine", 10, vector=query, scope="globex")
    assert {h.entity.id for h in in_globex} == {"elsewhere"}
    nowhere = await graph_store.search_entities("engine", 10, vector=query, scope="initech")
    assert nowhere == []


async def test_period_filter_uses_provenance_timestamps(graph_store: FalkorGraphStore) -> None:
    await fill(graph_store)
    summer = Period(datetime(2024, 6, 1, tzinfo=UTC), datetime(2024, 9, 1, tzinfo=UTC))
    hits = await graph_store.search_entities("engine Ada Babbage", 10, period=summer)
    assert {h.entity.id for h in hits} == {"ada", "engine"}
    may_only = Period(datetime(2024, 5, 1, tzinfo=UTC), datetime(2024, 6, 1, tzinfo=UTC))
    vector_hits = await graph_store.search_entities(
        "", 10, vector=[0.5, 0.5, 0.0, 0.0], period=may_only
    )
    assert {h.entity.id for h in vector_hits} == {"ada", "babbage"}
    open_end = Period(datetime(2024, 8, 1, tzinfo=UTC), None)
    late = await graph_store.search_entities("engine Ada", 10, period=open_end)
    assert {h.entity.id for h in late} == {"engine"}
    before_any = Period(None, datetime(2024, 5, 1, tzinfo=UTC))
    assert await graph_store.search_entities("engine Ada", 10, period=before_any) == []


async def test_hits_carry_their_neighbours_up_to_the_limit(graph_store: FalkorGraphStore) -> None:
    await fill(graph_store)
    (ada,) = await graph_store.search_entities("Lovelace", 1, neighbour_limit=10)
    assert [(n.entity_id, n.outgoing, n.relation.type) for n in ada.neighbours] == [
        ("babbage", True, "worked_with"),
        ("engine", True, "wrote_about"),
    ]
    assert ada.neighbours[0].relation.valid_from == datetime(1833, 6, 5, tzinfo=UTC)
    (limited,) = await graph_store.search_entities("Lovelace", 1, neighbour_limit=1)
    assert [n.entity_id for n in limited.neighbours] == ["babbage"]
    (babbage,) = await graph_store.search_entities("Charles", 1)
    assert [(n.entity_id, n.outgoing, n.name) for n in babbage.neighbours] == [
        ("ada", False, "Ada Lovelace")
    ]


async def test_neighbourhood_degree_and_entities_in_chunks(graph_store: FalkorGraphStore) -> None:
    await fill(graph_store)
    graph = await graph_store.neighbourhood(["babbage"])
    assert set(graph.entities) == {"babbage", "ada"}
    assert {r.id for r in graph.relations} == {"r-ada-babbage"}
    wider = await graph_store.neighbourhood(["ada"], limit_per_node=1)
    assert set(wider.entities) == {"ada", "babbage"}
    scoped = await graph_store.neighbourhood(["ada"], scope="acme/assistant/ana")
    assert set(scoped.entities) == {"ada", "babbage", "engine"}
    assert await graph_store.degree(["ada", "engine", "elsewhere", "missing"]) == {
        "ada": 2,
        "engine": 1,
        "elsewhere": 0,
    }
    assert await graph_store.entities_in_chunks(["chunk-1", "chunk-3", "chunk-404"]) == {
        "chunk-1": ["ada", "babbage"],
        "chunk-3": ["engine"],
        "chunk-404": [],
    }


async def test_spread_neighbourhood_is_each_seeds_strongest_relations_without_provenance(
    graph_store: FalkorGraphStore,
) -> None:
    await fill(graph_store)
    lean = await graph_store.spread_neighbourhood(["ada"], limit_per_node=1)
    assert set(lean.entities) == {"ada", "babbage"}
    (edge,) = lean.relations
    assert (edge.id, edge.source_id, edge.target_id) == ("r-ada-babbage", "ada", "babbage")
    assert edge.type == "worked_with" and edge.confidence == pytest.approx(0.95)
    assert edge.mentions == ()
    assert lean.entities["ada"].name == "Ada Lovelace"
    # Lean: no descriptions or aliases (a recalled entity is read in full afterwards).
    assert lean.entities["ada"].description == "" and lean.entities["ada"].aliases == ()
    assert lean.entities["babbage"].scope == "acme/assistant"
    wide = await graph_store.spread_neighbourhood(["ada", "missing"], scope="acme/assistant/ana")
    assert set(wide.entities) == {"ada", "babbage", "engine"}
    assert [r.id for r in wide.relations] == ["r-ada-babbage", "r-ada-engine"]
    elsewhere = await graph_store.spread_neighbourhood(["ada"], scope="globex/bot")
    assert set(elsewhere.entities) == {"ada"} and elsewhere.relations == ()
    assert await graph_store.spread_neighbourhood([]) == Subgraph()


async def test_a_wide_spread_read_in_two_halves_equals_the_seeds_read_alone(
    graph_store: FalkorGraphStore,
) -> None:
    await fill(graph_store)
    known = ["ada", "babbage", "engine", "elsewhere"]
    # Known seeds in both halves, padded with unknown ones to a width that splits the read.
    missing = [f"missing-{n}" for n in range(SPLIT_SPREAD_AT)]
    seeds = ["ada", *missing[:3], "babbage", "engine", *missing[3:], "elsewhere"]
    wide = await graph_store.spread_neighbourhood(seeds, limit_per_node=5)
    alone = [await graph_store.spread_neighbourhood([seed], limit_per_node=5) for seed in known]
    assert set(wide.entities) == {e for part in alone for e in part.entities}
    assert [r.id for r in wide.relations] == sorted({r.id for p in alone for r in p.relations})


async def test_relations_to_unknown_entities_are_refused_before_any_write(
    graph_store: FalkorGraphStore,
) -> None:
    dangling = Relation(id="r1", source_id="ada", target_id="nobody", type="knows")
    with pytest.raises(InvalidArgument, match="nobody"):
        await graph_store.upsert(people()[:1], [dangling])
    assert (await graph_store.counts())["entities"] == 0


async def test_vectors_of_another_dimension_are_an_embedding_mismatch(
    graph_store: FalkorGraphStore,
) -> None:
    await fill(graph_store)
    with pytest.raises(EmbeddingMismatch):
        await graph_store.search_entities("ada", 3, vector=[1.0, 0.0])
    with pytest.raises(EmbeddingMismatch):
        await graph_store.upsert(people()[:1], [], vectors={"ada": [1.0] * 8})
    with pytest.raises(InvalidArgument):
        await graph_store.search_entities("ada", 3, vector=[float("nan")] * 4)


async def test_injection_attempts_leave_the_graph_untouched(graph_store: FalkorGraphStore) -> None:
    await fill(graph_store)
    before = dict(await graph_store.counts())
    payloads = [
        'x"}) DETACH DELETE n //',
        "x'}) MATCH (n) DETACH DELETE n //",
        "ada\"}) MATCH (n) SET n.name = 'pwned' RETURN 1 //",
        "`) DETACH DELETE n //",
        "\\",
    ]
    for payload in payloads:
        await graph_store.search_entities(payload, 5, scope=payload)
        assert await graph_store.get_entities([payload]) == []
        await graph_store.neighbourhood([payload], scope=payload)
        await graph_store.degree([payload])
        await graph_store.entities_in_chunks([payload])
    hostile = HostileStr("ada")
    assert [e.id for e in await graph_store.get_entities([hostile])] == ["ada"]
    assert await graph_store.search_entities(hostile, 5, scope=hostile) == []
    assert await graph_store.degree([hostile]) == {"ada": 2}
    # Hostile values stored as data come back as plain text, nothing more.
    await graph_store.upsert(
        [Entity(id=HostileStr("ada"), name='x"}) DETACH DELETE n //', type=HostileStr("t"))], []
    )
    (stored,) = await graph_store.get_entities(["ada"])
    assert stored.name == 'x"}) DETACH DELETE n //'
    assert stored.type == "t"
    # A hostile int counts as its true value; its __str__ and __index__ never run.
    (hit,) = await graph_store.search_entities(
        "Lovelace", HostileInt(1), neighbour_limit=HostileInt(1)
    )
    assert hit.entity.id == "ada" and len(hit.neighbours) == 1
    for bad_k in (True, -1, 10**9, 2.5, "3", None):
        with pytest.raises(InvalidArgument):
            await graph_store.search_entities("ada", bad_k)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        await graph_store.search_entities("ada", 3, neighbour_limit=10**6)
    with pytest.raises(InvalidArgument):
        await graph_store.neighbourhood(["ada"], limit_per_node=-5)
    for bad_text in ("ada\x00", "a" * 20_000, "\ud800"):
        with pytest.raises(InvalidArgument):
            await graph_store.search_entities(bad_text, 3)
    with pytest.raises(InvalidArgument):
        await graph_store.get_entities("ada")
    with pytest.raises(InvalidArgument):
        await graph_store.get_entities(["ada\x00"])
    with pytest.raises(InvalidArgument):
        await graph_store.upsert([Entity(id="x", name="n\x00", type="t")], [])
    after = dict(await graph_store.counts())
    for key in ("entities", "relations", "sources", "mentions"):
        assert after[key] == before[key]
    names = {e.id: e.name for e in await graph_store.get_entities(list(VECTORS))}
    assert names["babbage"] == "Charles Babbage" and len(names) == 4


async def test_a_closed_store_refuses_calls(
    servers: EmbeddedServers, fresh_name: Callable[[str], str]
) -> None:
    store = await FalkorGraphStore.connect(
        socket_path=servers.falkordb_socket, graph=fresh_name("closed")
    )
    await store.delete_graph(recreate_schema=False)
    await store.aclose()
    await store.aclose()
    with pytest.raises(StoreUnavailable, match="closed"):
        await store.counts()


async def test_a_missing_server_is_unavailable_at_once(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(StoreUnavailable) as caught:
        await FalkorGraphStore.connect(socket_path=tmp_path / "none.sock", deadline=5)
    assert not isinstance(caught.value, StoreTimeout)
    assert time.monotonic() - started < 1.0
    with pytest.raises(StoreUnavailable):
        await FalkorGraphStore.connect(url="redis://127.0.0.1:1", deadline=5)
    with pytest.raises(InvalidArgument):
        await FalkorGraphStore.connect(url="http://example.invalid")


async def test_a_frozen_server_times_out_within_the_deadline(
    own_servers: EmbeddedServers,
    freeze: Callable[[int | None], AbstractContextManager[None]],
    fresh_name: Callable[[str], str],
) -> None:
    graph = fresh_name("frozen")
    setup = await FalkorGraphStore.connect(socket_path=own_servers.falkordb_socket, graph=graph)
    store = await FalkorGraphStore.connect(
        socket_path=own_servers.falkordb_socket, graph=graph, deadline=1.5, write_deadline=1.5
    )
    try:
        await fill(setup)
        with freeze(own_servers.falkordb_pid()):
            started = time.monotonic()
            with pytest.raises(StoreTimeout):
                await store.search_entities("Ada", 3)
            with pytest.raises(StoreTimeout):
                await store.upsert(people()[:1], [])
            with pytest.raises(StoreTimeout):
                await FalkorGraphStore.connect(
                    socket_path=own_servers.falkordb_socket, graph="other", deadline=1.5
                )
            assert time.monotonic() - started < 7.0
        hits = await setup.search_entities("Ada", 3)
        assert hits[0].entity.id == "ada"
    finally:
        await setup.delete_graph(recreate_schema=False)
        await store.aclose()
        await setup.aclose()


async def test_a_killed_server_is_unavailable_and_a_restart_keeps_the_data(
    own_servers: EmbeddedServers, fresh_name: Callable[[str], str]
) -> None:
    graph = fresh_name("killed")
    store = await FalkorGraphStore.connect(socket_path=own_servers.falkordb_socket, graph=graph)
    await fill(store)
    pid = own_servers.falkordb_pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    for _ in range(100):
        if own_servers.falkordb_pid() is None:
            break
        await asyncio.sleep(0.05)
    started = time.monotonic()
    with pytest.raises(StoreUnavailable):
        await store.counts()
    assert time.monotonic() - started < 2.0
    await store.aclose()
    await asyncio.to_thread(own_servers.start)
    again = await FalkorGraphStore.connect(socket_path=own_servers.falkordb_socket, graph=graph)
    try:
        assert (await again.counts())["entities"] == 4
    finally:
        await again.delete_graph(recreate_schema=False)
        await again.aclose()
