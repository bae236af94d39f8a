"""The floor under scour: the stores' own round trips for a query, with nothing of ours around them.

For one query: the text embedded by the same embedder, then, side by side as scour runs its two
halves, the FalkorDB entity query (the graph adapter's own vector-candidates Cypher, sent with
the driver's ``ro_query``) and the pgvector KNN (the chunk adapter's own KNN SQL on a pooled
connection, one round trip). The statements are the adapters' constants, so the floor always
measures the same query the adapter sends; what it leaves out is everything scour adds: full
text routes, candidate scoring and fetches, the term scan, neighbourhoods, the coordinator and
JSON. Reaches into the adapters' driver handles on purpose: this is a measuring instrument, not
a caller. Imports the standard library, numpy and the two store adapters.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.adapters.falkor import codec as falkor_codec
from explorer.adapters.falkor import cypher
from explorer.adapters.falkor import store as falkor
from explorer.adapters.postgres import chunks as pg_chunks
from explorer.core.ports import Embedder


@dataclass(frozen=True, slots=True)
class FloorSample:
    """Milliseconds of one floor measurement; ``total`` is embed plus both stores side by side."""

    embed: float
    graph: float
    vector: float
    stores: float

    @property
    def total(self) -> float:
        return self.embed + self.stores


class Floor:
    """Issues the raw round trips for queries against open adapters."""

    def __init__(
        self,
        graph: falkor.FalkorGraphStore,
        chunks: pg_chunks.PgChunkStore,
        embedder: Embedder,
        *,
        scope: str,
        graph_k: int,
        chunk_k: int,
        dimension: int,
    ) -> None:
        self._driver: Any = graph._conn._graph  # the falkordb AsyncGraph the adapter reads through
        self._pool: Any = chunks._pool
        self._embedder = embedder
        self._cypher = cypher.VECTOR_CANDIDATES.format(period="")
        self._fetch = min(
            max(graph_k * falkor.KNN_OVERFETCH, falkor.MIN_CANDIDATES),
            falkor.MAX_K * falkor.KNN_OVERFETCH,
        )
        self._graph_params: dict[str, object] = {
            "fetch": self._fetch,
            "start": None,
            "end": None,
            **falkor_codec.scope_params(scope or None),
        }
        distance, self._cast = pg_chunks._distance(dimension)
        filters, self._sql_params = pg_chunks._filters(None, scope or None)
        where = " AND ".join(["embedding IS NOT NULL", *filters])
        self._sql = pg_chunks._KNN.format(
            columns=pg_chunks._CHUNK_COLUMNS, distance=distance, where=where, order=distance
        )
        self._chunk_k = chunk_k

    async def _graph_query(self, vector: list[float]) -> float:
        started = time.perf_counter()
        await self._driver.ro_query(self._cypher, {**self._graph_params, "vector": vector})
        return (time.perf_counter() - started) * 1000.0

    async def _vector_query(self, vector: list[float]) -> float:
        value = self._cast(np.asarray(vector, dtype=np.float32))
        started = time.perf_counter()
        async with self._pool.acquire() as conn:
            await conn.fetch(self._sql, value, self._chunk_k, *self._sql_params)
        return (time.perf_counter() - started) * 1000.0

    async def measure(self, text: str) -> FloorSample:
        started = time.perf_counter()
        vector = (await self._embedder.embed([text]))[0]
        embedded = time.perf_counter()
        graph_ms, vector_ms = await asyncio.gather(
            self._graph_query(vector), self._vector_query(vector)
        )
        done = time.perf_counter()
        return FloorSample(
            embed=(embedded - started) * 1000.0,
            graph=graph_ms,
            vector=vector_ms,
            stores=(done - embedded) * 1000.0,
        )
