"""A store that connects after a bulk write analyses the table the write left without statistics,
so the planner reads an agent's concepts by key instead of scanning all of them."""

from __future__ import annotations

import asyncio

import asyncpg

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.postgres import PgConceptStore

AGENT = "acme/bot"


async def _plan_and_analysed(dsn: str, schema: str, names: list[str]) -> tuple[str, bool]:
    conn = await asyncpg.connect(dsn, server_settings={"search_path": schema})
    try:
        rows = await conn.fetch(
            "EXPLAIN SELECT name, body FROM concepts "
            "WHERE tenant = $1 AND agent = $2 AND name = ANY($3::text[])",
            "acme",
            AGENT,
            names,
        )
        analysed = await conn.fetchval(
            "SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables "
            "WHERE relid = to_regclass('concepts')"
        )
        return "\n".join(str(row[0]) for row in rows), bool(analysed)
    finally:
        await conn.close()


async def _counted(dsn: str, schema: str, changes: int) -> None:
    """Wait for the writes to reach the statistics views (backends report them within a second
    or so), as they have by the time a later start connects."""
    conn = await asyncpg.connect(dsn, server_settings={"search_path": schema})
    try:
        for _ in range(100):
            seen = await conn.fetchval(
                "SELECT n_mod_since_analyze FROM pg_stat_user_tables "
                "WHERE relid = to_regclass('concepts')"
            )
            if seen is not None and seen >= changes:
                return
            await asyncio.sleep(0.1)
        raise AssertionError(f"the writes never reached the statistics views ({seen})")
    finally:
        await conn.close()


async def test_a_bulk_written_table_is_analysed_at_the_next_connect(
    concept_store: PgConceptStore, servers: EmbeddedServers, pg_schema: str
) -> None:
    records = [{"name": f"concept {n:05d}", "description": "x" * 40} for n in range(3_000)]
    await concept_store.upsert(AGENT, records)
    await concept_store.aclose()  # its backends report what they wrote as they end
    names = [f"concept {n:05d}" for n in range(0, 3_000, 200)]
    _, analysed = await _plan_and_analysed(servers.postgres_dsn, pg_schema, names)
    assert not analysed  # nothing has analysed it yet (the embedded autovacuum waits a minute)
    await _counted(servers.postgres_dsn, pg_schema, 3_000)
    later = await PgConceptStore.connect(servers.postgres_dsn, schema=pg_schema)
    try:
        plan, analysed = await _plan_and_analysed(servers.postgres_dsn, pg_schema, names)
        assert analysed and "concepts_pkey" in plan, plan
        assert await later.read(AGENT, names) and len(await later.read(AGENT, names)) == 15
    finally:
        await later.aclose()
