"""PgChunkStore on the real embedded PostgreSQL + pgvector: every method, filters, outages."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta

import asyncpg
import numpy as np
import pytest

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.postgres.chunks import BULK_MIN_ROWS, PgChunkStore
from explorer.core.errors import (
    EmbeddingMismatch,
    InvalidArgument,
    StoreTimeout,
    StoreUnavailable,
)
from explorer.core.models import Chunk, EmbeddingSpec
from tests.stores import drop_schema

SPEC = EmbeddingSpec("test-model", 8)
START = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


def unit(values: list[float]) -> list[float]:
    norm = float(np.linalg.norm(values))
    return [v / norm for v in values]


def axis(index: int, dimension: int = 8) -> list[float]:
    vector = [0.0] * dimension
    vector[index] = 1.0
    return vector


def chunk(number: int, text: str, **fields: object) -> Chunk:
    values: dict[str, object] = {
        "id": f"c{number}",
        "text": text,
        "conversation_id": "conv-1",
        "position": number,
        "speaker": "user",
        "timestamp": START + timedelta(minutes=number),
        "domains": ("general",),
        "scope": "acme/assistant/ana",
        "content_hash": f"hash-{number}",
    }
    values.update(fields)
    return Chunk(**values)  # type: ignore[arg-type]


SAMPLE = [
    chunk(1, "We adopted a cat called Miso last spring", domains=("pets", "home")),
    chunk(2, "The quarterly budget review is on Friday", domains=("work",)),
    chunk(3, "Miso the cat hates the vacuum cleaner", domains=("pets",), speaker="assistant"),
    chunk(4, "Book the flights to Lisbon for the conference", domains=("work", "travel")),
    chunk(5, "Company wide policy on travel expenses", domains=("work",), scope="acme"),
    chunk(6, "Another tenant's secret roadmap", domains=("work",), scope="globex/bot"),
]
SAMPLE_VECTORS = [axis(i % 8) for i in range(len(SAMPLE))]


async def test_upsert_and_get_round_trip_and_idempotence(chunk_store: PgChunkStore) -> None:
    assert await chunk_store.embedding_spec() is None
    assert await chunk_store.upsert(SAMPLE, SAMPLE_VECTORS, SPEC) == len(SAMPLE)
    assert await chunk_store.embedding_spec() == SPEC
    before = dict(await chunk_store.counts())
    assert await chunk_store.upsert(SAMPLE, SAMPLE_VECTORS, SPEC) == 0
    assert dict(await chunk_store.counts()) == before
    same_text = chunk(99, "duplicate", content_hash="hash-1")
    assert await chunk_store.upsert([same_text], [axis(0)], SPEC) == 0
    found = await chunk_store.get(["c3", "missing", "c1"])
    assert [c.id for c in found] == ["c3", "c1"]
    assert found[0] == SAMPLE[2]
    assert found[1].domains == ("pets", "home")
    assert found[1].timestamp == START + timedelta(minutes=1)
    assert before["chunks"] == 6
    assert before["domain:work"] == 4
    assert before["scope:acme"] == 1
    assert await chunk_store.domains() == ["home", "pets", "travel", "work"]


async def test_a_store_from_before_conversation_titles_gains_them_on_connect(
    servers: EmbeddedServers, pg_schema: str
) -> None:
    store = await PgChunkStore.connect(servers.postgres_dsn, schema=pg_schema)
    await store.upsert(SAMPLE[:2], SAMPLE_VECTORS[:2], SPEC)
    await store.aclose()
    # Back to the schema of a release without titles: no column, no record of the new DDL.
    conn = await asyncpg.connect(servers.postgres_dsn)
    try:
        await conn.execute(f"ALTER TABLE {pg_schema}.chunks DROP COLUMN title")
        await conn.execute(f"DELETE FROM {pg_schema}.scour_migrations")
    finally:
        await conn.close()
    store = await PgChunkStore.connect(servers.postgres_dsn, schema=pg_schema)
    try:
        assert await store.get(["c1", "c2"]) == SAMPLE[:2]  # kept, with no title
        titled = chunk(7, "Lisbon ferry times", title="Planning Lisbon")
        assert await store.upsert([titled], [axis(1)], SPEC) == 1
        assert [c.title for c in await store.get(["c7"])] == ["Planning Lisbon"]
    finally:
        await store.aclose()
        await drop_schema(servers.postgres_dsn, pg_schema)


async def test_search_ranks_by_cosine_similarity(chunk_store: PgChunkStore) -> None:
    await chunk_store.upsert(SAMPLE, SAMPLE_VECTORS, SPEC)
    hits = await chunk_store.search(unit([0.1, 0.0, 1.0, 0.0, 0, 0, 0, 0]), 2, spec=SPEC)
    assert [h.chunk.id for h in hits] == ["c3", "c1"]
    assert hits[0].similarity == pytest.approx(0.995, abs=1e-3)
    assert hits[0].lexical == 0.0
    assert await chunk_store.search(axis(0), 0, spec=SPEC) == []


async def test_domain_and_scope_filter_inside_the_query(chunk_store: PgChunkStore) -> None:
    await chunk_store.upsert(SAMPLE, SAMPLE_VECTORS, SPEC)
    work = await chunk_store.search(axis(0), 10, spec=SPEC, domain="work")
    assert {h.chunk.id for h in work} == {"c2", "c4", "c5", "c6"}
    scoped = await chunk_store.search(axis(0), 10, spec=SPEC, scope="acme")
    assert {h.chunk.id for h in scoped} == {"c1", "c2", "c3", "c4", "c5"}
    deeper = await chunk_store.search(axis(0), 10, spec=SPEC, scope="acme/assistant/")
    assert {h.chunk.id for h in deeper} == {"c1", "c2", "c3", "c4"}
    both = await chunk_store.search(axis(0), 10, spec=SPEC, domain="work", scope="globex")
    assert [h.chunk.id for h in both] == ["c6"]
    assert await chunk_store.search(axis(0), 10, spec=SPEC, scope="acm") == []


async def test_what_a_speaker_said_newest_first_in_their_scope(
    chunk_store: PgChunkStore,
) -> None:
    await chunk_store.upsert(SAMPLE, SAMPLE_VECTORS, SPEC)
    said, total = await chunk_store.said_by("user", 2, scope="acme")
    assert [c.id for c in said] == ["c5", "c4"] and total == 4  # c1, c2, c4, c5
    newest_first = await chunk_store.get(["c4", "c2", "c1"])
    assert await chunk_store.said_by("user", 10, scope="acme/assistant") == (newest_first, 3)
    counted, total = await chunk_store.said_by("user", 0)
    assert counted == [] and total == 5  # every scope, globex's too
    assert await chunk_store.said_by("nobody'; DROP TABLE chunks; --", 5) == ([], 0)
    assert len(await chunk_store.get(["c1"])) == 1


async def test_k_chunks_come_back_from_a_rare_domain_far_from_the_query(
    chunk_store: PgChunkStore,
) -> None:
    rng = np.random.default_rng(7)
    dimension = 64
    spec = EmbeddingSpec("test-model", dimension)
    query = np.zeros(dimension)
    query[0] = 1.0
    chunks, vectors = [], []
    for number in range(3000):
        rare = number % 100 == 0
        vector = rng.normal(size=dimension)
        if not rare:
            vector[0] += 12.0  # the common domain crowds the query's neighbourhood
        vector /= np.linalg.norm(vector)
        chunks.append(chunk(number, f"text {number}", domains=("rare",) if rare else ("common",)))
        vectors.append(vector.tolist())
    await chunk_store.upsert(chunks, vectors, spec)
    hits = await chunk_store.search(query.tolist(), 5, spec=spec, domain="rare")
    assert len(hits) == 5
    assert all(h.chunk.domains == ("rare",) for h in hits)
    rare_ids = [c.id for c in chunks if c.domains == ("rare",)]
    rare_vectors = np.array([vectors[int(i[1:])] for i in rare_ids])
    exact = [rare_ids[i] for i in np.argsort(-(rare_vectors @ query))[:5]]
    assert [h.chunk.id for h in hits] == exact
    overall = await chunk_store.search(query.tolist(), 5, spec=spec)
    assert all(h.chunk.domains == ("common",) for h in overall)


async def test_the_search_breadth_is_the_sessions_and_a_large_k_sets_its_own_for_one_call(
    chunk_store: PgChunkStore,
) -> None:
    """A search of up to 20 runs on the breadth every pooled connection starts with (one
    round trip); a larger k widens it for its own transaction only, and still finds its k."""
    rng = np.random.default_rng(11)
    vectors = [unit(rng.normal(size=8).tolist()) for _ in range(400)]
    chunks = [chunk(number, f"text {number}") for number in range(400)]
    await chunk_store.upsert(chunks, vectors, SPEC)
    query = unit(rng.normal(size=8).tolist())
    wide = await chunk_store.search(query, 300, spec=SPEC, scope="acme")
    narrow = await chunk_store.search(query, 15, spec=SPEC, scope="acme")
    assert len(wide) == 300 and len(narrow) == 15
    exact = np.argsort(-(np.array(vectors) @ np.array(query)))
    assert [h.chunk.id for h in wide] == [f"c{i}" for i in exact[:300]]
    assert [h.chunk.id for h in narrow] == [f"c{i}" for i in exact[:15]]
    async with chunk_store._pool.acquire() as conn:
        assert await conn.fetchval("SHOW hnsw.ef_search") == "40"
        assert await conn.fetchval("SHOW hnsw.iterative_scan") == "strict_order"


async def test_another_model_or_dimension_is_an_embedding_mismatch(
    chunk_store: PgChunkStore,
) -> None:
    await chunk_store.upsert(SAMPLE, SAMPLE_VECTORS, SPEC)
    other_model = EmbeddingSpec("other-model", 8)
    other_dimension = EmbeddingSpec("test-model", 4)
    with pytest.raises(EmbeddingMismatch, match="test-model"):
        await chunk_store.search(axis(0), 3, spec=other_model)
    with pytest.raises(EmbeddingMismatch):
        await chunk_store.search(axis(0, 4), 3, spec=other_dimension)
    with pytest.raises(EmbeddingMismatch):
        await chunk_store.upsert([chunk(50, "x")], [axis(0)], other_model)
    with pytest.raises(EmbeddingMismatch):
        await chunk_store.search(axis(0, 4), 3, spec=SPEC)
    with pytest.raises(EmbeddingMismatch):
        await chunk_store.upsert([chunk(51, "y")], [axis(0, 4)], SPEC)
    assert (await chunk_store.counts())["chunks"] == len(SAMPLE)


async def test_lexical_search_ors_the_terms_and_filters(chunk_store: PgChunkStore) -> None:
    await chunk_store.upsert(SAMPLE, SAMPLE_VECTORS, SPEC)
    question = "What did we decide about our cat Miso and the vacuum, and which cats do we have?"
    hits = await chunk_store.lexical_search(question, 5)
    assert [h.chunk.id for h in hits] == ["c3", "c1"]
    assert 0.0 < hits[1].lexical < hits[0].lexical < 1.0
    assert await chunk_store.lexical_search("zeppelin", 5) == []
    assert await chunk_store.lexical_search("the and of", 5) == []
    assert await chunk_store.lexical_search("   ", 5) == []
    travel = await chunk_store.lexical_search("travel", 5, domain="work", scope="acme")
    assert {h.chunk.id for h in travel} == {"c5"}
    spoken = await chunk_store.lexical_search("assistant vacuum", 5)
    assert spoken[0].chunk.id == "c3"


async def test_pending_marks_and_mark_done(chunk_store: PgChunkStore) -> None:
    await chunk_store.upsert(SAMPLE[:2], SAMPLE_VECTORS[:2], SPEC)
    await chunk_store.upsert(SAMPLE[2:], SAMPLE_VECTORS[2:], SPEC, pending=True)
    assert [c.id for c in await chunk_store.pending()] == ["c3", "c4", "c5", "c6"]
    await chunk_store.mark_done(["c3", "c5", "nope"])
    assert [c.id for c in await chunk_store.pending()] == ["c4", "c6"]
    assert (await chunk_store.counts())["pending"] == 2


async def test_mark_done_clears_more_ids_than_one_statement_takes_in_one_transaction(
    chunk_store: PgChunkStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import explorer.adapters.postgres.chunks as chunks_module

    await chunk_store.upsert(SAMPLE, SAMPLE_VECTORS, SPEC, pending=True)
    monkeypatch.setattr(chunks_module, "MARK_BATCH", 2)  # three statements for these five ids
    await chunk_store.mark_done(["c1", "c2", "c3", "c4", "c5"])
    assert [c.id for c in await chunk_store.pending()] == ["c6"]


async def test_a_bulk_upsert_rebuilds_the_index_and_stays_searchable(
    chunk_store: PgChunkStore, servers: EmbeddedServers, pg_schema: str
) -> None:
    rng = np.random.default_rng(3)
    count = BULK_MIN_ROWS + 10
    vectors = rng.normal(size=(count, 8))
    chunks = [chunk(i, f"bulk {i}") for i in range(count)]
    assert await chunk_store.upsert(chunks, list(vectors), SPEC) == count
    hits = await chunk_store.search(vectors[17].tolist(), 1, spec=SPEC)
    assert hits[0].chunk.id == "c17"
    conn = await asyncpg.connect(servers.postgres_dsn)
    try:
        indexes = await conn.fetch(
            "SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'chunks'",
            pg_schema,
        )
    finally:
        await conn.close()
    assert "chunks_embedding_idx" in {r["indexname"] for r in indexes}


async def test_injection_attempts_leave_the_table_untouched(chunk_store: PgChunkStore) -> None:
    await chunk_store.upsert(SAMPLE, SAMPLE_VECTORS, SPEC)
    payloads = [
        "'; DROP TABLE chunks; --",
        "x') OR 1=1 --",
        'work" OR TRUE --',
        "%' OR scope LIKE '%",
        "!(a|b) & c:* <-> 'x'",
        "\\",
    ]
    for payload in payloads:
        assert await chunk_store.search(axis(0), 5, spec=SPEC, domain=payload) == []
        assert await chunk_store.search(axis(0), 5, spec=SPEC, scope=payload) == []
        assert await chunk_store.lexical_search(payload, 5, scope=payload) == []
        await chunk_store.lexical_search(payload, 5)
        assert await chunk_store.get([payload]) == []
        await chunk_store.mark_done([payload])
    stored = chunk(40, "'; DROP TABLE chunks; --", speaker="x'); --", domains=("'; --",))
    assert await chunk_store.upsert([stored], [axis(1)], SPEC) == 1
    assert (await chunk_store.get(["c40"]))[0] == stored
    for bad in ("a\x00b", "\udcff", "x" * 20_000):
        with pytest.raises(InvalidArgument):
            await chunk_store.lexical_search(bad, 3)
    with pytest.raises(InvalidArgument):
        await chunk_store.search(axis(0), 3, spec=SPEC, domain="a\x00")
    with pytest.raises(InvalidArgument):
        await chunk_store.upsert([chunk(41, "nul \x00 inside")], [axis(0)], SPEC)
    for bad_k in (True, -1, 10**6, 1.5, "5"):
        with pytest.raises(InvalidArgument):
            await chunk_store.search(axis(0), bad_k, spec=SPEC)  # type: ignore[arg-type]
        with pytest.raises(InvalidArgument):
            await chunk_store.lexical_search("cat", bad_k)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        await chunk_store.search([float("inf")] * 8, 3, spec=SPEC)
    with pytest.raises(InvalidArgument):
        await chunk_store.get("c1")
    with pytest.raises(InvalidArgument):
        await chunk_store.upsert(SAMPLE, SAMPLE_VECTORS[:2], SPEC)
    counts = await chunk_store.counts()
    assert counts["chunks"] == len(SAMPLE) + 1
    assert [c.id for c in await chunk_store.get(["c1", "c6"])] == ["c1", "c6"]


async def test_a_closed_store_refuses_calls(chunk_store: PgChunkStore) -> None:
    await chunk_store.aclose()
    with pytest.raises(StoreUnavailable, match="closed"):
        await chunk_store.counts()


async def test_an_unreachable_server_is_unavailable(tmp_path: object) -> None:
    started = time.monotonic()
    with pytest.raises(StoreUnavailable) as caught:
        await PgChunkStore.connect(f"postgresql://postgres@/scour?host={tmp_path}", deadline=3)
    assert not isinstance(caught.value, StoreTimeout)
    assert time.monotonic() - started < 2.0


async def test_a_frozen_server_times_out_within_the_deadline(
    own_servers: EmbeddedServers,
    freeze: Callable[[int | None], AbstractContextManager[None]],
    fresh_name: Callable[[str], str],
) -> None:
    schema = fresh_name("frozen")
    setup = await PgChunkStore.connect(own_servers.postgres_dsn, schema=schema)
    store = await PgChunkStore.connect(
        own_servers.postgres_dsn, schema=schema, deadline=1.5, write_deadline=1.5
    )
    try:
        await setup.upsert(SAMPLE, SAMPLE_VECTORS, SPEC)
        with freeze(own_servers.postgres_pid()):
            started = time.monotonic()
            with pytest.raises(StoreTimeout):
                await store.search(axis(0), 3, spec=SPEC)
            with pytest.raises(StoreTimeout):
                await store.upsert([chunk(60, "late")], [axis(2)], SPEC)
            with pytest.raises(StoreTimeout):
                await PgChunkStore.connect(own_servers.postgres_dsn, schema=schema, deadline=1.5)
            assert time.monotonic() - started < 7.0
        hits = await setup.search(axis(0), 1, spec=SPEC)
        assert hits[0].chunk.id == "c1"
    finally:
        await store.aclose()
        await setup.aclose()


async def test_a_killed_server_is_unavailable_and_a_restart_keeps_the_data(
    own_servers: EmbeddedServers, fresh_name: Callable[[str], str]
) -> None:
    schema = fresh_name("killed")
    store = await PgChunkStore.connect(own_servers.postgres_dsn, schema=schema, deadline=2.0)
    await store.upsert(SAMPLE, SAMPLE_VECTORS, SPEC)
    pid = own_servers.postgres_pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    for _ in range(100):
        if own_servers.postgres_pid() is None:
            break
        await asyncio.sleep(0.05)
    started = time.monotonic()
    with pytest.raises(StoreUnavailable):
        await store.counts()
    assert time.monotonic() - started < 3.0
    await store.aclose()
    await asyncio.to_thread(own_servers.start)
    again = await PgChunkStore.connect(own_servers.postgres_dsn, schema=schema)
    try:
        assert (await again.counts())["chunks"] == len(SAMPLE)
        assert await again.embedding_spec() == SPEC
    finally:
        await again.aclose()
