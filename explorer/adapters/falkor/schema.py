"""The FalkorDB graph's indexes: range, full-text and vector, created once and checked.

``GraphSchema.ensure`` creates the range and full-text indexes a graph needs unless the marker
key beside the graph already holds this schema's digest, so connecting to a set-up store only
reads. The vector index waits for the first vectors, which fix its dimension; a query vector or
an upsert of another dimension raises ``EmbeddingMismatch``. Re-embedding drops it and creates it
again with the new dimension. An index another client created meanwhile is not an error.
Imports the core errors and ``adapters.falkor``'s ``connection`` and ``cypher``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from explorer.adapters.falkor import cypher
from explorer.adapters.falkor.connection import FalkorConnection
from explorer.core.errors import EmbeddingMismatch, StoreTimeout, StoreUnavailable


class GraphSchema:
    """The indexes of one graph and the vector dimension they were found or made with."""

    def __init__(self, connection: FalkorConnection) -> None:
        self._conn = connection
        self._dimension: int | None = None

    async def ensure(self) -> None:
        """Create the range, full-text and (once a dimension is known) vector indexes if missing.

        Once per schema version: a graph whose marker key holds this schema's digest is only
        read, so a connect never writes to a store that is already set up.
        """
        client = self._conn.client()
        marker = f"{cypher.SCHEMA_MARKER}{self._conn.graph_name}"
        stored = await self._conn.call(
            lambda: client.get(marker), self._conn.connect_timeout, "schema check"
        )
        if stored != cypher.SCHEMA_DIGEST or not await self._conn.graph_exists():
            # A read on a graph that was never written fails, so make sure the key exists first.
            await self._conn.write("RETURN 1", {})
            for entity_type, label, prop, kind, statement in cypher.SCHEMA:
                await self._create_index(statement, [(entity_type, label, prop, kind)])
            await self._create_index(
                cypher.CREATE_FULLTEXT,
                [("NODE", "Entity", f, "FULLTEXT") for f in cypher.FULLTEXT_FIELDS],
            )
            await self._conn.call(
                lambda: client.set(marker, cypher.SCHEMA_DIGEST),
                self._conn.write_timeout,
                "schema mark",
            )
        self._dimension = await self._stored_vector_dimension()

    async def vector_index_built(self) -> None:
        """Wait (within the write deadline) until the vector index has indexed every node."""
        give_up = time.monotonic() + self._conn.write_timeout
        while True:
            rows = await self._conn.read(cypher.VECTOR_STATUS, {})
            building = any(
                label == "Entity"
                and "VECTOR" in dict(types).get("embedding", [])
                and "OPERATIONAL" not in str(status)
                for label, types, status in rows
            )
            if not building:
                return
            if time.monotonic() > give_up:
                name = self._conn.graph_name
                raise StoreTimeout(
                    f"the entity vector index of graph {name!r} is still being built"
                )
            await asyncio.sleep(0.05)

    async def _index_types(self) -> dict[tuple[str, str, str], set[str]]:
        rows = await self._conn.read(cypher.INDEXES + " RETURN label, types, entitytype", {})
        found: dict[tuple[str, str, str], set[str]] = {}
        for label, types, entity_type in rows:
            for prop, kinds in dict(types).items():
                found.setdefault((str(entity_type), str(label), str(prop)), set()).update(kinds)
        return found

    async def _create_index(
        self, statement: str, needed: Sequence[tuple[str, str, str, str]]
    ) -> None:
        def missing(existing: dict[tuple[str, str, str], set[str]]) -> bool:
            return any(
                kind not in existing.get((e, label, p), set()) for e, label, p, kind in needed
            )

        if not missing(await self._index_types()):
            return
        try:
            await self._conn.write(statement, {})
        except StoreUnavailable:
            # Another client may have created it meanwhile; only a still-missing index is an error.
            if missing(await self._index_types()):
                raise

    async def _stored_vector_dimension(self) -> int | None:
        rows = await self._conn.read(cypher.INDEXES + " RETURN label, types, options", {})
        for label, types, options in rows:
            if label == "Entity" and "VECTOR" in dict(types).get("embedding", []):
                dimension = dict(dict(options).get("embedding", {})).get("dimension")
                return int(dimension) if dimension is not None else None
        return None

    async def ensure_vector_index(self, dimension: int) -> None:
        if self._dimension is None:
            self._dimension = await self._stored_vector_dimension()
        if self._dimension is None:
            await self._create_index(
                cypher.CREATE_VECTOR.format(dimension=dimension),
                [("NODE", "Entity", "embedding", "VECTOR")],
            )
            self._dimension = await self._stored_vector_dimension()
        if self._dimension != dimension:
            raise EmbeddingMismatch(
                f"entity vectors in graph {self._conn.graph_name!r} have dimension "
                f"{self._dimension}, got {dimension}"
            )

    async def vector_search_possible(self, vector: list[float]) -> bool:
        if self._dimension is None:
            self._dimension = await self._stored_vector_dimension()
        if self._dimension is None:
            return False
        if self._dimension != len(vector):
            raise EmbeddingMismatch(
                f"entity vectors in graph {self._conn.graph_name!r} have dimension "
                f"{self._dimension}, the query vector has {len(vector)}"
            )
        return True

    async def forget(self) -> None:
        """After the graph was dropped: its marker too, so the next ``ensure`` sets it up."""
        client = self._conn.client()
        marker = f"{cypher.SCHEMA_MARKER}{self._conn.graph_name}"
        await self._conn.call(lambda: client.delete(marker), self._conn.write_timeout, "delete")
        self._dimension = None

    async def drop_vector_index(self) -> None:
        """Drop the vector index if there is one (re-embedding replaces it)."""
        self._dimension = None
        if await self._stored_vector_dimension() is not None:
            await self._conn.write(cypher.DROP_VECTOR, {})
