"""Writes to one graph take turns across connections, so concurrent MERGEs never duplicate.

FalkorDB runs write queries side by side: two connections MERGE-ing the same relationships at
once could both create them (two overlapping imports duplicated mention edges that way).
"""

from __future__ import annotations

import asyncio
import time

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.falkor import cypher
from explorer.adapters.falkor.connection import WRITER_KEY, WRITER_TTL
from explorer.adapters.falkor.store import FalkorGraphStore
from tests.stores import unique_name

SOURCES = 200


async def _two_stores(servers: EmbeddedServers, name: str) -> tuple[FalkorGraphStore, ...]:
    return tuple(
        [
            await FalkorGraphStore.connect(socket_path=servers.falkordb_socket, graph=name)
            for _ in range(2)
        ]
    )


async def test_the_same_mentions_merged_at_once_from_two_connections_stay_single(
    servers: EmbeddedServers,
) -> None:
    first, second = await _two_stores(servers, unique_name("turns"))
    try:
        conn = first._conn
        rows = [
            {"entity": entity, "chunk": f"s{k}", "ts": 1000.0 + k, "start": 13, "end": 19}
            for k in range(SOURCES)
            for entity in ("a", "b")
        ]
        for _ in range(10):
            await conn.write("MATCH (n) DETACH DELETE n", {})
            await conn.write("UNWIND ['a', 'b'] AS id CREATE (:Entity {id: id})", {})
            await asyncio.gather(
                first._conn.write(cypher.UPSERT_MENTIONS, {"rows": rows}),
                second._conn.write(cypher.UPSERT_MENTIONS, {"rows": rows}),
            )
            edges = await conn.read("MATCH ()-[m:MENTIONED_IN]->() RETURN count(m)", {})
            assert edges == [[2 * SOURCES]]
    finally:
        await first.aclose()
        await second.aclose()


async def test_a_write_waits_for_the_holders_turn_and_a_dead_holders_lock_expires(
    servers: EmbeddedServers,
) -> None:
    first, second = await _two_stores(servers, unique_name("turns"))
    try:
        async with first._conn.writer_turn():
            waiting = asyncio.ensure_future(second._conn.write("CREATE (:Probe)", {}))
            await asyncio.sleep(0.3)
            assert not waiting.done()  # held across connections, not only in one
        await asyncio.wait_for(waiting, 5)
        # A holder killed mid-write never frees the lock: it expires on its own.
        key = WRITER_KEY + second._conn.graph_name
        await second._conn.client().set(key, "killed", px=int(WRITER_TTL * 1000))
        started = time.monotonic()
        await second._conn.write("CREATE (:Probe)", {})
        assert time.monotonic() - started < WRITER_TTL + 2.0
        assert await first._conn.read("MATCH (p:Probe) RETURN count(p)", {}) == [[2]]
    finally:
        await first.aclose()
        await second.aclose()
