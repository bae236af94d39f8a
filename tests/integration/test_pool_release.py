"""A pooled PostgreSQL connection goes back to the pool without a reset round trip, and clean.

asyncpg's default reset sends ``RESET ALL; UNLISTEN *; CLOSE ALL; advisory unlock`` on every
release, a second round trip for every read. The stores' pools skip it (``pool._leave_session``);
what must still hold is what the reset was for: a transaction left open is rolled back, and a
connection starts from the session settings it was opened with.
"""

from __future__ import annotations

import asyncio

import asyncpg

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.postgres.chunks import PgChunkStore

LAST_QUERY = "SELECT query FROM pg_stat_activity WHERE pid = $1"


async def test_a_release_sends_nothing_and_an_open_transaction_is_rolled_back(
    servers: EmbeddedServers, pg_schema: str
) -> None:
    store = await PgChunkStore.connect(
        servers.postgres_dsn, schema=pg_schema, min_connections=1, max_connections=1
    )
    try:
        pool = store._pool
        async with pool.acquire() as conn:
            pid = conn.get_server_pid()
            await conn.fetchval("SELECT 41 + 1")
        last = await asyncio.wait_for(_last_query(servers, pid), 10)
        assert last == "SELECT 41 + 1", last  # no reset statement followed it

        async with pool.acquire() as conn:
            transaction = conn.transaction()
            await transaction.start()
            await conn.execute("CREATE TEMP TABLE left_open (n int)")
        async with pool.acquire() as conn:
            assert not conn.is_in_transaction()
            assert await conn.fetchval("SELECT to_regclass('pg_temp.left_open')") is None
            assert await conn.fetchval("SHOW hnsw.ef_search") == "40"
    finally:
        await store.aclose()


async def _last_query(servers: EmbeddedServers, pid: int) -> str:
    conn = await asyncpg.connect(servers.postgres_dsn)
    try:
        return str(await conn.fetchval(LAST_QUERY, pid))
    finally:
        await conn.close()
