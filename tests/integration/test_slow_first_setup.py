"""A new store's first set-up is writing, bounded by the write deadline, not the connect one.

On a busy two-core machine creating a fresh graph's indexes once took longer than the 5 s a
connect may take, and an import failed with "did not answer the schema check". Here each write
of the set-up is slowed past the connect deadline on the real servers; the store must still open.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.falkor import FalkorGraphStore
from explorer.adapters.falkor.connection import FalkorConnection
from explorer.adapters.postgres.pool import open_pool
from explorer.core.models import Entity
from tests.stores import drop_schema, unique_name

CONNECT_S = 0.5
SLOW_S = 0.7


async def test_a_new_graph_opens_when_creating_its_indexes_outlasts_the_connect_deadline(
    servers: EmbeddedServers, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = FalkorConnection.write
    slowed: list[str] = []

    async def slow_write(
        self: FalkorConnection, statement: str, params: Mapping[str, object]
    ) -> list[list[Any]]:
        slowed.append(statement)
        await asyncio.sleep(SLOW_S)
        return await real_write(self, statement, params)

    monkeypatch.setattr(FalkorConnection, "write", slow_write)
    store = await FalkorGraphStore.connect(
        socket_path=servers.falkordb_socket,
        graph=unique_name("slow"),
        deadline=5.0,
        connect_deadline=CONNECT_S,
        write_deadline=10.0,
    )
    try:
        assert len(slowed) >= 2  # the set-up really wrote, each write past the connect deadline
        monkeypatch.setattr(FalkorConnection, "write", real_write)
        ada = Entity(id="ada", name="Ada Lovelace", type="person", scope="acme")
        await store.upsert([ada], [])
        hits = await store.search_entities("Lovelace", 5)  # needs the full-text index
        assert [h.entity.id for h in hits] == ["ada"]
    finally:
        await store.delete_graph(recreate_schema=False)
        await store.aclose()


async def test_a_new_schema_opens_when_its_ddl_outlasts_the_connect_deadline(
    servers: EmbeddedServers,
) -> None:
    schema = unique_name("slow")
    setup = f"SELECT pg_sleep({SLOW_S * 2}); CREATE TABLE marker (x int);"
    pool, *_ = await open_pool(
        servers.postgres_dsn,
        schema=schema,
        deadline=5.0,
        write_deadline=10.0,
        min_connections=0,
        max_connections=1,
        setup=setup,
        connect_deadline=CONNECT_S,
    )
    try:
        assert await pool.fetchval(f"SELECT count(*) FROM {schema}.marker") == 0
    finally:
        await pool.close()
        await drop_schema(servers.postgres_dsn, schema)
