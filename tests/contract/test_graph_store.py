"""The ``GraphStore`` contract, for the fake and for FalkorDB."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from explorer.core.models import AliasEvidence, Entity, Mention, Period, Relation
from explorer.core.ports import GraphStore

T0 = datetime(2024, 5, 1, 9, tzinfo=UTC)


def _entity(entity_id: str, name: str, kind: str, scope: str, salience: float, day: int) -> Entity:
    return Entity(
        id=entity_id,
        name=name,
        type=kind,
        scope=scope,
        salience=salience,
        confidence=0.8,
        mentions=(Mention(f"chunk-{entity_id}", 0, len(name), T0 + timedelta(days=day)),),
    )


NOOR = _entity("noor", "Noor Haddad", "person", "home", 0.9, 0)
KARIM = _entity("karim", "Karim Haddad", "person", "home", 0.7, 1)
LISBON = _entity("lisbon", "Lisbon", "place", "home/trips", 0.5, 10)
ACME = _entity("acme", "Acme Tools", "organization", "work", 0.3, 20)
RELATIONS = [
    Relation("r1", "noor", "karim", "MARRIED_TO", "Noor is married to Karim.", 0.9),
    Relation("r2", "noor", "lisbon", "VISITED", "Noor visited Lisbon.", 0.7),
]


async def _filled(store: GraphStore) -> GraphStore:
    await store.upsert([NOOR, KARIM, LISBON, ACME], RELATIONS)
    return store


async def test_get_entities_keeps_the_order_asked_and_leaves_unknown_out(graph: GraphStore) -> None:
    store = await _filled(graph)
    found = await store.get_entities(["lisbon", "nobody", "noor"])
    assert [entity.id for entity in found] == ["lisbon", "noor"]
    assert found[1].name == "Noor Haddad" and found[1].type == "person"
    assert [mention.chunk_id for mention in found[1].mentions] == ["chunk-noor"]


async def test_upsert_is_idempotent_and_merges_mentions(graph: GraphStore) -> None:
    store = await _filled(graph)
    await store.upsert([NOOR, KARIM, LISBON, ACME], RELATIONS)
    counts = await store.counts()
    assert counts["entities"] == 4 and counts["relations"] == 2
    later = Mention("chunk-later", 0, 4, T0 + timedelta(days=30))
    await store.upsert([replace(NOOR, mentions=(later,))], [])
    (noor,) = await store.get_entities(["noor"])
    assert sorted(m.chunk_id for m in noor.mentions) == ["chunk-later", "chunk-noor"]


async def test_search_finds_names_within_a_scope_and_a_period(graph: GraphStore) -> None:
    store = await _filled(graph)
    hits = await store.search_entities("Lisbon", 5)
    assert hits and hits[0].entity.id == "lisbon"
    assert await store.search_entities("Lisbon", 5, scope="work") == []
    below = await store.search_entities("Haddad", 5, scope="home")
    assert {hit.entity.id for hit in below} == {"noor", "karim"}
    early = Period(start=T0, end=T0 + timedelta(hours=12))
    assert [hit.entity.id for hit in await store.search_entities("Haddad", 5, period=early)] == [
        "noor"
    ]


async def test_neighbourhood_brings_neighbours_and_the_relations_among_them(
    graph: GraphStore,
) -> None:
    store = await _filled(graph)
    around = await store.neighbourhood(["noor"])
    assert set(around.entities) == {"noor", "karim", "lisbon"}
    assert {relation.id for relation in around.relations} == {"r1", "r2"}
    married = next(relation for relation in around.relations if relation.id == "r1")
    assert (married.source_id, married.target_id, married.type) == ("noor", "karim", "MARRIED_TO")
    assert (await store.neighbourhood(["nobody"])).entities == {}


async def test_degree_and_the_entities_each_chunk_mentions(graph: GraphStore) -> None:
    store = await _filled(graph)
    degree = await store.degree(["noor", "karim", "acme"])
    assert degree["noor"] == 2 and degree["karim"] == 1 and degree.get("acme", 0) == 0
    named = await store.entities_in_chunks(["chunk-noor", "chunk-lisbon"])
    assert named["chunk-noor"] == ["noor"] and named["chunk-lisbon"] == ["lisbon"]


async def test_most_salient_is_ordered_and_scoped(graph: GraphStore) -> None:
    store = await _filled(graph)
    assert [e.id for e in await store.most_salient(3)] == ["noor", "karim", "lisbon"]
    assert [e.id for e in await store.most_salient(5, scope="home")] == ["noor", "karim", "lisbon"]
    assert [e.id for e in await store.most_salient(5, scope="work")] == ["acme"]
    assert await store.most_salient(0) == []
    assert (await store.counts())["scope:home"] == 2
    assert await store.version()


async def test_alias_evidence_round_trips_and_an_alias_can_be_detached(graph: GraphStore) -> None:
    store = await _filled(graph)
    kate = AliasEvidence("Kate", "chunk-7", "addressed as Kate by Ana")
    mum = AliasEvidence("Mum", "chunk-9", "my mum Noor")
    await store.upsert([replace(NOOR, aliases=("Kate",), alias_evidence=(kate,))], [])
    await store.upsert([replace(NOOR, aliases=("Mum",), alias_evidence=(mum,))], [])
    (noor,) = await store.get_entities(["noor"])
    assert set(noor.aliases) == {"Kate", "Mum"}
    assert set(noor.alias_evidence) == {kate, mum}
    assert await store.detach_alias("noor", "kate") is True
    (noor,) = await store.get_entities(["noor"])
    assert noor.aliases == ("Mum",)
    assert noor.alias_evidence == (mum,)
    assert [m.chunk_id for m in noor.mentions] == ["chunk-noor"]
    assert await store.detach_alias("noor", "Kate") is False
    assert await store.detach_alias("nobody", "Mum") is False


async def test_a_detached_alias_is_refused_by_later_upserts(graph: GraphStore) -> None:
    store = await _filled(graph)
    kate = AliasEvidence("Kate", "chunk-7", "addressed as Kate by Ana")
    await store.upsert([replace(NOOR, aliases=("Kate",), alias_evidence=(kate,))], [])
    assert await store.detach_alias("noor", "KATE") is True
    (noor,) = await store.get_entities(["noor"])
    assert noor.refused_aliases == ("Kate",)  # as the entity wrote it, not as asked
    again = AliasEvidence("kate", "chunk-8", "addressed as kate by Ana")
    mum = AliasEvidence("Mum", "chunk-9", "my mum Noor")
    await store.upsert(
        [replace(NOOR, aliases=("kate", "Mum"), alias_evidence=(again, kate, mum))], []
    )
    (noor,) = await store.get_entities(["noor"])
    assert noor.aliases == ("Mum",)
    assert noor.alias_evidence == (mum,)
    assert noor.refused_aliases == ("Kate",)  # an upsert without refusals keeps them
    assert await store.detach_alias("noor", "Kate") is False
    assert await store.detach_alias("noor", "Mum") is True
    (noor,) = await store.get_entities(["noor"])
    assert noor.refused_aliases == ("Kate", "Mum")
    # Only a detach records a refusal: an upsert that carries some writes none.
    await store.upsert([replace(KARIM, aliases=("Kaz",), refused_aliases=("Kaz",))], [])
    (karim,) = await store.get_entities(["karim"])
    assert karim.aliases == ("Kaz",) and karim.refused_aliases == ()


async def test_a_refused_alias_can_be_allowed_again(graph: GraphStore) -> None:
    store = await _filled(graph)
    kate = AliasEvidence("Kate", "chunk-7", "addressed as Kate by Ana")
    await store.upsert([replace(NOOR, aliases=("Kate", "Mum"), alias_evidence=(kate,))], [])
    assert await store.detach_alias("noor", "Kate") is True
    assert await store.detach_alias("noor", "Mum") is True
    assert await store.allow_alias("noor", "kate") is True
    (noor,) = await store.get_entities(["noor"])
    assert noor.refused_aliases == ("Mum",) and noor.aliases == ()  # nothing comes back by itself
    assert await store.allow_alias("noor", "Kate") is False
    assert await store.allow_alias("nobody", "Kate") is False
    await store.upsert([replace(NOOR, aliases=("Kate", "Mum"), alias_evidence=(kate,))], [])
    (noor,) = await store.get_entities(["noor"])
    assert noor.aliases == ("Kate",) and noor.alias_evidence == (kate,)


async def test_forgetting_a_scope_deletes_its_entities_and_their_relations(
    graph: GraphStore,
) -> None:
    store = await _filled(graph)
    # Lisbon (home/trips) is below home; Acme's "work" is not "home", nor is "homework".
    homework = _entity("essay", "Essay Club", "organization", "homework", 0.2, 3)
    await store.upsert([homework], [])
    assert await store.forget_scope("home") == 3
    assert [e.id for e in await store.get_entities(["noor", "lisbon", "acme", "essay"])] == [
        "acme",
        "essay",
    ]
    counts = await store.counts()
    assert counts["entities"] == 2 and counts["relations"] == 0
    assert await store.forget_scope("home") == 0
