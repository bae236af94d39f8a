"""Closing the graph store while reads are under way leaves no FalkorDB connection open.

A read that was still connecting when the pool closed (the window closing mid-query, the call
abandoned at its deadline) finishes after the close and hands its connection back to the
closed pool; that socket stayed open until garbage collection found it, and warned of it inside
whatever test ran then.
"""

from __future__ import annotations

import asyncio

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.falkor.store import FalkorGraphStore
from explorer.core.errors import StoreUnavailable
from tests.stores import unique_name

READS = 6


def _open_connections(store: FalkorGraphStore) -> int:
    pool = store._conn._pool
    held = [*pool._available_connections, *pool._in_use_connections]
    return sum(1 for connection in held if connection.is_connected)


async def test_closing_mid_read_leaves_no_connection_open(servers: EmbeddedServers) -> None:
    store = await FalkorGraphStore.connect(
        socket_path=servers.falkordb_socket, graph=unique_name("close")
    )
    conn = store._conn
    # More reads than idle connections: some are connecting when the close comes.
    reads = [asyncio.ensure_future(conn.reply("RETURN 1", {})) for _ in range(READS)]
    await asyncio.sleep(0)
    await store.aclose()
    outcomes = await asyncio.gather(*reads, return_exceptions=True)
    assert all(isinstance(o, (list, StoreUnavailable)) for o in outcomes), outcomes
    await asyncio.sleep(0.05)
    assert _open_connections(store) == 0
