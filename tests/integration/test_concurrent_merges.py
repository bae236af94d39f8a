"""Two writers MERGE-ing the same records at once into a new graph create each record once.

FalkorDB serialises the writes to one graph, but on a graph that has not yet seen a relationship
type or label, two concurrent MERGEs of one relationship both create it: two imports at once
into a fresh memory doubled mention edges that way. The schema creates every type a MERGE
writes before any data.
"""

from __future__ import annotations

import asyncio

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.falkor import cypher
from explorer.adapters.falkor.store import FalkorGraphStore
from tests.stores import unique_name

ROUNDS = 5
SOURCES = 200


async def test_concurrent_merges_into_a_new_graph_create_each_record_once(
    servers: EmbeddedServers,
) -> None:
    rows = [
        {"entity": entity, "chunk": f"s{k}", "ts": 1000.0 + k, "start": 13, "end": 19}
        for k in range(SOURCES)
        for entity in ("a", "b")
    ]
    for _ in range(ROUNDS):
        name = unique_name("merges")
        first, second = [
            await FalkorGraphStore.connect(socket_path=servers.falkordb_socket, graph=name)
            for _ in range(2)
        ]
        try:
            await first._conn.write("UNWIND ['a', 'b'] AS id CREATE (:Entity {id: id})", {})
            writers = (first._conn, second._conn)
            await asyncio.gather(
                *(w.write(cypher.UPSERT_MENTIONS, {"rows": rows}) for w in writers)
            )
            await asyncio.gather(*(w.write(cypher.BUMP_SHAPE, {"token": "t"}) for w in writers))
            read = first._conn.read
            assert await read("MATCH ()-[m:MENTIONED_IN]->() RETURN count(m)", {}) == [
                [2 * SOURCES]
            ]
            assert await read("MATCH (s:Source) RETURN count(s)", {}) == [[SOURCES]]
            assert await read("MATCH (v:Shape) RETURN count(v)", {}) == [[1]]
        finally:
            await first.delete_graph(recreate_schema=False)
            await first.aclose()
            await second.aclose()
