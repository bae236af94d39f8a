"""The graph's shape held in process (``core.shape``) against the real embedded FalkorDB: every
neighbourhood read from it equals the store's own lean read, and a write invalidates it."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from explorer.adapters.falkor import FalkorGraphStore, cypher
from explorer.adapters.snapshots import FileSnapshots
from explorer.core.errors import StoreUnavailable
from explorer.core.models import Entity, Mention, Relation, scope_distance
from explorer.core.shape import WRITING, GraphShape, ShapeCache
from explorer.core.snapshot import pack_texts

SCOPES = ["", "acme", "acme/assistant", "acme/assistant/ana", "acme/bot", "globex/bot"]
START = datetime(2025, 1, 1, tzinfo=UTC)


def _graph(seed: int) -> tuple[list[Entity], list[Relation]]:
    rng = random.Random(seed)
    entities = [
        Entity(
            id=f"e{n:03d}",
            name=f"Entity {n}",
            type=rng.choice(["person", "place", "project"]),
            description="not part of the shape",
            confidence=rng.choice([0.5, 0.8, 1.0]),
            # Few distinct values, so the store's tie-breaks (salience, then id) decide often.
            salience=rng.choice([0.1, 0.4, 0.4, 0.9]),
            last_seen=START + timedelta(days=rng.randrange(300)),
            scope=rng.choice(SCOPES),
            mentions=tuple(
                Mention(chunk_id=f"c{rng.randrange(40)}", start=at, end=at + 4, timestamp=START)
                for at in range(rng.randrange(4))
            ),
        )
        for n in range(120)
    ]
    hubs = [entity.id for entity in entities[:4]]
    relations = []
    for n in range(900):
        source = rng.choice(hubs) if n % 3 == 0 else rng.choice(entities).id
        target = rng.choice(entities).id
        if target == source:
            continue
        relations.append(
            Relation(
                id=f"r{rng.randrange(10**6):06d}-{n}",
                source_id=source,
                target_id=target,
                type=rng.choice(["KNOWS", "WORKS_ON", "CO_OCCURS"]),
                fact=f"fact {n}",
                confidence=rng.choice([0.3, 0.6, 0.6, 0.9]),
                valid_from=START + timedelta(days=n) if n % 5 == 0 else None,
            )
        )
    return entities, relations


async def test_every_neighbourhood_from_the_shape_equals_the_stores_lean_read(
    graph_store: FalkorGraphStore,
) -> None:
    entities, relations = _graph(7)
    await graph_store.upsert(entities, relations)
    shape = GraphShape(*await graph_store.shape())
    assert len(shape) == len(relations) and len(shape.ids) == len(entities)
    # The same shape saved and loaded again (a later start) answers the same.
    loaded = GraphShape.from_arrays(shape.arrays())
    # And one whose records were all made up front, as the shape cache hands them out.
    made = GraphShape.from_arrays(shape.arrays())
    made.make_records()
    rng = random.Random(3)
    ids = [entity.id for entity in entities]
    for round_ in range(40):
        seeds = [*rng.sample(ids, rng.choice([1, 3, 12])), "missing"]
        limit = rng.choice([1, 5, 25])
        scope = rng.choice([None, *SCOPES[1:]])
        expected = await graph_store.spread_neighbourhood(seeds, limit_per_node=limit, scope=scope)
        for held in (shape, loaded, made):
            found = held.neighbours(seeds, limit_per_node=limit, scope=scope)
            assert found.relations == expected.relations, (round_, seeds, limit, scope)
            assert found.entities == expected.entities, (round_, seeds, limit, scope)
    chunks = [f"c{n}" for n in range(45)]  # five of them never mentioned
    stored = await graph_store.entities_in_chunks(chunks)
    assert shape.entities_in_chunks(chunks) == loaded.entities_in_chunks(chunks) == stored
    assert any(shape.entities_in_chunks(chunks).values())


async def test_every_read_puts_a_nodes_stated_facts_before_its_weak_signals(
    graph_store: FalkorGraphStore,
) -> None:
    # A speaker's often repeated mentions are confident; a stated fact still comes first.
    people = [Entity(id=f"p{n}", name=f"Person {n}", type="person", salience=0.5) for n in range(4)]
    relations = [
        Relation("r-mention", "p0", "p1", "MENTIONS", confidence=0.99),
        Relation("r-cooccur", "p2", "p0", "CO_OCCURS", confidence=0.95),
        Relation("r-fact", "p0", "p3", "FAMILY_OF", confidence=0.4),
    ]
    await graph_store.upsert(people, relations)
    shape = GraphShape(*await graph_store.shape())
    stored = await graph_store.spread_neighbourhood(["p0"], limit_per_node=1)
    assert [r.id for r in stored.relations] == ["r-fact"]
    assert shape.neighbours(["p0"], limit_per_node=1).relations == stored.relations
    ranked = await graph_store.ranked_entities("Person 0", 1)
    hits = await graph_store.hits_of(ranked, neighbour_limit=3)
    assert [hit.entity.id for hit in hits] == ["p0"]
    assert [n.relation.id for n in hits[0].neighbours] == ["r-fact", "r-mention", "r-cooccur"]
    held = shape.entity_hits(ranked, neighbour_limit=3)
    assert held is not None
    assert [n.relation.id for n in held[0].neighbours] == ["r-fact", "r-mention", "r-cooccur"]


LEAN_FIELDS = ("id", "name", "type", "confidence", "salience", "updated_at", "last_seen", "scope")


async def test_search_hits_from_the_shape_equal_the_stores_hit_read(
    graph_store: FalkorGraphStore,
) -> None:
    # With the shape in hand a search skips reading its hits: the shape gives the same hits,
    # their records lean and their relations without provenance.
    entities, relations = _graph(11)
    relations = [
        replace(r, mentions=(Mention(f"c{n % 40}", 0, 4, START),)) if n % 2 else r
        for n, r in enumerate(relations)
    ]
    await graph_store.upsert(entities, relations)
    shape = GraphShape(*await graph_store.shape())
    rng = random.Random(5)
    with_provenance = 0
    for round_ in range(12):
        scope = rng.choice([None, *SCOPES[1:]])
        limit = rng.choice([0, 1, 10])
        ranked = await graph_store.ranked_entities(f"entity {rng.randrange(120)}", 15, scope=scope)
        assert ranked, round_
        expected = await graph_store.hits_of(ranked, neighbour_limit=limit, scope=scope)
        found = shape.entity_hits(ranked, neighbour_limit=limit, scope=scope)
        assert found is not None and len(found) == len(expected), round_
        for hit, want in zip(found, expected, strict=True):
            assert [getattr(hit.entity, f) for f in LEAN_FIELDS] == [
                getattr(want.entity, f) for f in LEAN_FIELDS
            ], (round_, hit.entity.id)
            assert (hit.similarity, hit.lexical) == (want.similarity, want.lexical)
            assert [
                replace(n, relation=replace(n.relation, mentions=())) for n in hit.neighbours
            ] == [replace(n, relation=replace(n.relation, mentions=())) for n in want.neighbours], (
                round_,
                hit.entity.id,
                limit,
                scope,
            )
            with_provenance += sum(bool(n.relation.mentions) for n in want.neighbours)
    assert with_provenance  # the store's neighbours carried provenance the shape leaves out
    # An id the shape does not hold (written after its version was read): no answer from it.
    unknown = [replace(ranked[0], id="written-later")]
    assert shape.entity_hits(unknown, neighbour_limit=5) is None


async def test_a_later_start_loads_the_saved_shape_until_a_write(
    graph_store: FalkorGraphStore, tmp_path: Path
) -> None:
    entities, relations = _graph(13)
    await graph_store.upsert(entities, relations)
    first = ShapeCache(snapshots=FileSnapshots(tmp_path))
    read = await first.shape(graph_store, wait=True)
    later = ShapeCache(snapshots=FileSnapshots(tmp_path))
    loaded = await later.shape(graph_store, wait=True)
    assert (first.builds, first.loads, later.builds, later.loads) == (1, 0, 0, 1)
    assert read is not None and loaded is not None and loaded is not read
    for held in (read, loaded):  # every record made before the shape is handed out
        assert None not in held._entities and None not in held._relations
    seeds = [entity.id for entity in entities[:6]]
    assert loaded.neighbours(seeds, limit_per_node=5) == read.neighbours(seeds, limit_per_node=5)
    await graph_store.upsert([], relations[:1])  # a write: the saved shape is of another state
    assert await ShapeCache(snapshots=FileSnapshots(tmp_path)).shape(graph_store, wait=True)
    again = ShapeCache(snapshots=FileSnapshots(tmp_path))
    await again.shape(graph_store, wait=True)
    assert (again.builds, again.loads) == (0, 1)  # the state after the write was saved too


def test_arrays_that_are_not_one_shape_are_refused() -> None:
    entities, relations = _graph(2)
    arrays = GraphShape(entities, relations).arrays()
    with pytest.raises(ValueError, match="different lengths"):
        GraphShape.from_arrays({**arrays, "relation_confidence": arrays["relation_confidence"][1:]})
    with pytest.raises(ValueError, match="unknown memory layer"):
        GraphShape.from_arrays({**arrays, "entity_layers": pack_texts(["nope"] * len(entities))})


async def test_a_write_replaces_the_shape_version_and_the_cache_reads_it_again(
    graph_store: FalkorGraphStore,
) -> None:
    entities, relations = _graph(11)
    await graph_store.upsert(entities[:60], [])
    cache = ShapeCache()
    first = await cache.shape(graph_store, wait=True)
    assert first is not None and len(first.ids) == 60 and len(first) == 0
    assert await cache.shape(graph_store) is first and cache.builds == 1
    inside = [r for r in relations if r.source_id < "e060" and r.target_id < "e060"]
    await graph_store.upsert([], inside)
    second = await cache.shape(graph_store, wait=True)
    assert second is not None and second is not first and cache.builds == 2
    assert len(second) == len(inside)


async def test_a_shape_counts_as_built_only_once_its_records_are_made(
    graph_store: FalkorGraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The memory takes the heap out of garbage collection when the count moves; records made
    # after that would be walked by every full collection.
    entities, relations = _graph(3)
    await graph_store.upsert(entities, relations)
    cache = ShapeCache()
    counted: list[int] = []
    make_records = GraphShape.make_records

    def watched(shape: GraphShape) -> None:
        counted.append(cache.builds + cache.loads)
        make_records(shape)

    monkeypatch.setattr(GraphShape, "make_records", watched)
    shape = await cache.shape(graph_store, wait=True)
    assert shape is not None and counted == [0] and cache.builds == 1


async def test_a_missing_shape_loads_in_the_background_once_the_query_is_answered(
    graph_store: FalkorGraphStore,
) -> None:
    entities, relations = _graph(5)
    await graph_store.upsert(entities, relations)
    cache = ShapeCache()
    assert await cache.shape(graph_store) is None
    await asyncio.sleep(0.2)
    assert cache.builds == 0  # nothing loads until the query that found it missing is answered
    cache.load_pending()
    # A query while it loads finds it missing too; that starts no second load of the version.
    await cache.shape(graph_store)
    await cache.settled()
    cache.load_pending()
    await cache.settled()
    shape = await cache.shape(graph_store)
    assert shape is not None and len(shape) == len(relations) and cache.builds == 1


async def test_a_store_without_a_shape_gives_none() -> None:
    assert await ShapeCache().shape(object()) is None


@pytest.mark.parametrize("scope", [None, "acme/assistant/ana"])
async def test_an_empty_graph_has_an_empty_shape(
    graph_store: FalkorGraphStore, scope: str | None
) -> None:
    shape = GraphShape(*await graph_store.shape())
    assert await graph_store.shape_version() == ""
    found = shape.neighbours(["x"], limit_per_node=5, scope=scope)
    assert found.entities == {} and found.relations == ()


async def test_a_write_that_dies_halfway_leaves_no_saved_shape_passing_for_the_graph(
    graph_store: FalkorGraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entities, relations = _graph(17)
    await graph_store.upsert(entities[:50], [])
    conn = graph_store._conn
    real = conn.write_batches

    async def dies_at_relations(statement: str, rows: Any) -> None:
        if statement == cypher.UPSERT_RELATIONS:
            raise StoreUnavailable("killed")
        await real(statement, rows)

    monkeypatch.setattr(conn, "write_batches", dies_at_relations)
    inside = [r for r in relations if r.source_id < "e050" and r.target_id < "e050"]
    with pytest.raises(StoreUnavailable):
        await graph_store.upsert(entities[50:], inside)
    assert (await graph_store.shape_version()).startswith(WRITING)
    cache = ShapeCache(snapshots=FileSnapshots(tmp_path))
    shape = await cache.shape(graph_store, wait=True)
    assert shape is not None and len(shape.ids) == len(entities)  # what the store holds now
    saved = await asyncio.to_thread(lambda: list(tmp_path.iterdir()))
    assert not saved  # and nothing saved for a later start to trust


async def test_a_scope_that_sees_every_entity_ranks_the_same_without_the_scope_test(
    graph_store: FalkorGraphStore,
) -> None:
    entities, relations = _graph(12)
    # Every entity in acme or below it: a query in acme sees them all.
    entities = [
        replace(e, scope=["acme", "acme/assistant", "acme/bot"][n % 3])
        for n, e in enumerate(entities)
    ]
    await graph_store.upsert(entities, relations)
    cache = ShapeCache()
    shape = await cache.shape(graph_store, wait=True)
    assert shape is not None and cache.last_known(graph_store) is shape
    assert shape.sees_everything("acme") and shape.sees_everything(None)
    assert not shape.sees_everything("acme/bot")  # acme/assistant is out of its sight
    rng = random.Random(6)
    for round_ in range(10):
        text = f"entity {rng.randrange(120)} {rng.randrange(120)}"
        tested = await graph_store.ranked_entities(text, 15, scope="acme")
        untested = await graph_store.ranked_entities(text, 15, scope="acme", all_visible=True)
        assert tested and untested == tested, round_
    # A caller that vouches wrongly still gets no entity out of its sight, only fewer.
    vouched = await graph_store.ranked_entities("entity", 40, scope="acme/bot", all_visible=True)
    sighted = {e.id for e in entities if scope_distance(e.scope, "acme/bot") is not None}
    assert vouched and {r.id for r in vouched} <= sighted
    # Once a read finds a newer version, the held shape no longer vouches for anything.
    await graph_store.upsert([replace(entities[0], scope="globex")], [])
    assert await cache.shape(graph_store) is None  # the new version is loaded in the background
    assert cache.last_known(graph_store) is None
