"""PgConceptStore on the real embedded PostgreSQL: store order, stamps, raw JSON, tenants."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.postgres.concepts import PgConceptStore
from explorer.core.errors import InvalidArgument, StoreUnavailable
from explorer.core.freshness import query_began

AGENT = "acme/assistant"


async def test_names_keep_store_order_and_read_returns_raw_json(
    concept_store: PgConceptStore,
) -> None:
    records: list[dict[str, object]] = [
        {"name": "zebra", "description": "striped animal", "confidence": 0.5},
        {"name": "apple", "description": "a fruit", "body": "Grows on trees."},
        {"name": "mango", "description": "another fruit"},
    ]
    assert await concept_store.upsert(AGENT, records) == 3
    assert await concept_store.names(AGENT) == ["zebra", "apple", "mango"]
    await concept_store.upsert(AGENT, [{"name": "zebra", "description": "updated"}])
    assert await concept_store.names(AGENT) == ["zebra", "apple", "mango"]
    bodies = await concept_store.read(AGENT, ["apple", "zebra", "missing"])
    assert set(bodies) == {"apple", "zebra"}
    apple = json.loads(bodies["apple"])
    assert apple["body"] == "Grows on trees."
    assert json.loads(bodies["zebra"])["description"] == "updated"
    stamps = await concept_store.updated_at(AGENT, ["apple", "zebra"])
    assert stamps["apple"] == apple["updated_at"]


async def test_every_write_changes_the_stamp(concept_store: PgConceptStore) -> None:
    await concept_store.upsert(AGENT, [{"name": "tea"}])
    first = (await concept_store.updated_at(AGENT, ["tea"]))["tea"]
    await concept_store.upsert(AGENT, [{"name": "tea", "description": "green"}])
    second = (await concept_store.updated_at(AGENT, ["tea"]))["tea"]
    assert second > first


async def test_tenant_defaults_to_the_first_scope_level_and_isolates(
    concept_store: PgConceptStore,
) -> None:
    await concept_store.upsert(AGENT, [{"name": "shared"}])
    assert await concept_store.names(AGENT, tenant="acme") == ["shared"]
    assert await concept_store.names(AGENT, tenant="globex") == []
    assert await concept_store.names("acme/other") == []
    assert await concept_store.names("/acme/assistant/") == ["shared"]


async def test_bad_records_and_injection_attempts(concept_store: PgConceptStore) -> None:
    await concept_store.upsert(AGENT, [{"name": "safe"}])
    payload = "'; DROP TABLE concepts; --"
    assert await concept_store.upsert(payload, [{"name": payload, "text": payload}]) == 1
    assert await concept_store.names(payload) == [payload]
    assert await concept_store.read(AGENT, [payload]) == {}
    for bad in ([{"description": "no name"}], [{"name": ""}], [{"name": "x", "v": object()}]):
        with pytest.raises(InvalidArgument):
            await concept_store.upsert(AGENT, bad)
    with pytest.raises(InvalidArgument):
        await concept_store.upsert(AGENT, [{"name": "n\x00"}])
    with pytest.raises(InvalidArgument):
        await concept_store.upsert(AGENT, [{"name": "nan", "score": float("nan")}])
    with pytest.raises(InvalidArgument):
        await concept_store.names("")
    with pytest.raises(InvalidArgument):
        await concept_store.read(AGENT, "safe")
    assert await concept_store.names(AGENT) == ["safe"]


async def test_a_closed_store_refuses_calls(concept_store: PgConceptStore) -> None:
    await concept_store.aclose()
    with pytest.raises(StoreUnavailable, match="closed"):
        await concept_store.names(AGENT)


async def test_agents_lists_scopes_at_or_below_a_prefix(concept_store: PgConceptStore) -> None:
    await concept_store.upsert("acme/assistant", [{"name": "a"}])
    await concept_store.upsert("acme/assistant/ana", [{"name": "b"}])
    await concept_store.upsert("acme/assistants", [{"name": "c"}])
    await concept_store.upsert("globex/bot", [{"name": "d"}])
    assert await concept_store.agents() == [
        "acme/assistant",
        "acme/assistant/ana",
        "acme/assistants",
        "globex/bot",
    ]
    assert await concept_store.agents("acme/assistant/") == ["acme/assistant", "acme/assistant/ana"]
    assert await concept_store.agents("'; DROP TABLE concepts; --") == []
    with pytest.raises(InvalidArgument):
        await concept_store.agents("a\x00")


async def test_the_agent_listing_follows_writes_from_another_connection(
    concept_store: PgConceptStore, servers: EmbeddedServers, pg_schema: str
) -> None:
    """The listing is kept between calls under the table's stamp, so a write made through
    another pool (another process) must still show in the next call, and a delete too."""
    await concept_store.upsert("acme/assistant", [{"name": "a"}])
    assert await concept_store.agents("acme") == ["acme/assistant"]
    assert await concept_store.agents("acme") == ["acme/assistant"]  # from the kept listing
    other = await PgConceptStore.connect(servers.postgres_dsn, schema=pg_schema)
    try:
        await other.upsert("acme/helper", [{"name": "b"}])
        assert await concept_store.agents("acme") == ["acme/assistant", "acme/helper"]
        async with other._pool.acquire() as conn:
            await conn.execute("DELETE FROM concepts WHERE agent = 'acme/assistant'")
    finally:
        await other.aclose()
    assert await concept_store.agents("acme") == ["acme/helper"]
    assert await concept_store.agents() == ["acme/helper"]


async def test_a_listing_under_an_unchanged_stamp_costs_one_shared_stamp_read(
    concept_store: PgConceptStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    await concept_store.upsert("acme/assistant", [{"name": "a"}])
    assert await concept_store.agents("acme") == ["acme/assistant"]
    statements: list[str] = []
    real = concept_store._run

    async def counted(work: Any, what: str, deadline: float | None = None) -> Any:
        statements.append(what)
        return await real(work, what, deadline)

    monkeypatch.setattr(concept_store, "_run", counted)

    go = asyncio.Event()

    async def query() -> tuple[list[str], str]:
        with query_began():
            await go.wait()  # all four have begun before any reads
            return await concept_store.agents("acme"), await concept_store.version("acme")

    asked = [asyncio.ensure_future(query()) for _ in range(4)]
    await asyncio.sleep(0)
    go.set()
    answers = await asyncio.gather(*asked)
    assert {tuple(agents) for agents, _ in answers} == {("acme/assistant",)}
    assert len({version for _, version in answers}) == 1
    assert statements == ["read"]  # the stamp, once for the four queries; no listing
