"""One read-only connection to a FalkorDB server holding graphiti graphs.

``GraphitiConnection`` opens a bounded redis connection pool (unix socket or ``redis://``,
``rediss://``, ``unix://`` URL), sends every statement as ``GRAPH.RO_QUERY`` with the compact
reply decoded by ``adapters.falkor.codec.compact_rows``, bounds every await with the same
deadline and error mapping as the project's own graph store, and passes parameters through
``adapters.sanitize``. It also lists the server's graphs and tells whether one looks like
graphiti's (``Episodic`` nodes or ``RELATES_TO`` edges, none of the explorer's own ``Source`` /
``REL``). There is no write method at all: nothing here can change a graph. Imports the core,
``adapters.sanitize``, ``adapters.falkor`` (its pool, reply codec and error mapping) and ``redis``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from pathlib import Path
from typing import Any

import redis.asyncio as aredis

from explorer.adapters import sanitize
from explorer.adapters.falkor.codec import compact_rows, module_version, params_header
from explorer.adapters.falkor.connection import blocking_pool
from explorer.adapters.falkor.errors import bounded
from explorer.core.errors import InvalidArgument, StoreUnavailable

#: What graphiti-core writes and the explorer's own schema never does, and the reverse.
GRAPHITI_LABELS = frozenset({"Episodic"})
GRAPHITI_TYPES = frozenset({"RELATES_TO", "MENTIONS"})
OWN_LABELS = frozenset({"Source"})
OWN_TYPES = frozenset({"REL", "MENTIONED_IN"})


class NotGraphiti(InvalidArgument):
    """The named graph is missing, or is not one that graphiti-core wrote."""


def plain_graph_name(name: object) -> str:
    """A graph name as FalkorDB takes it: plain text, sent as its own argument (never Cypher)."""
    text = sanitize.plain_text(name, "graphiti graph", max_chars=500, allow_empty=False)
    if any(ord(char) < 32 for char in text):
        raise InvalidArgument("graphiti graph name must not contain control characters")
    return text


class GraphitiConnection:
    """Read-only statements against one graphiti graph; build it with ``connect``."""

    def __init__(self, pool: aredis.ConnectionPool, graph: str, timeout: float) -> None:
        self._pool = pool
        self._client = aredis.Redis(connection_pool=pool)
        self.graph = graph
        self.timeout = timeout
        self._closed = False
        self._users = 0

    @classmethod
    async def connect(
        cls,
        graph: str,
        *,
        url: str | None = None,
        socket_path: str | Path | None = None,
        deadline: float = 10.0,
        max_connections: int = 8,
    ) -> GraphitiConnection:
        """Connect and check that ``graph`` exists and looks like graphiti's (``NotGraphiti``
        otherwise); ``StoreUnavailable``/``StoreTimeout`` when the server cannot be reached."""
        connection = await cls.open(
            url=url, socket_path=socket_path, deadline=deadline, max_connections=max_connections
        )
        connection.graph = plain_graph_name(graph)
        try:
            await connection.check_graphiti()
        except BaseException:
            await connection.aclose()
            raise
        return connection

    @classmethod
    async def open(
        cls,
        *,
        url: str | None = None,
        socket_path: str | Path | None = None,
        deadline: float = 10.0,
        max_connections: int = 8,
    ) -> GraphitiConnection:
        """A connection to the server alone (no graph chosen yet), e.g. to list its graphs."""
        if (socket_path is None) == (url is None):
            raise InvalidArgument("give exactly one of socket_path and url")
        timeout = sanitize.plain_float(deadline, "deadline", low=0.05, high=3600.0)
        options: dict[str, Any] = {
            "socket_timeout": timeout + 1.0,
            "socket_connect_timeout": timeout,
            "max_connections": max_connections,
            "timeout": timeout,
            "decode_responses": True,
        }
        pool = blocking_pool(url=url, socket_path=socket_path, options=options)
        connection = cls(pool, "", timeout)
        try:
            await bounded(connection._client.ping(), timeout, "connect")
        except BaseException:
            await pool.aclose()
            raise
        return connection

    def share(self) -> GraphitiConnection:
        """Count one more store on this connection; each store's ``aclose`` releases one."""
        self._users += 1
        return self

    async def release(self) -> None:
        self._users -= 1
        if self._users <= 0:
            await self.aclose()

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            await self._pool.aclose()

    def _command(self, *args: object) -> Awaitable[Any]:
        return self._client.execute_command(*args)  # type: ignore[no-untyped-call]

    @property
    def closed(self) -> bool:
        return self._closed

    async def read(self, statement: str, params: Mapping[str, object]) -> list[list[Any]]:
        """The rows of a read-only statement on this connection's graph."""
        return await self.read_graph(self.graph, statement, params)

    async def read_graph(
        self, graph: str, statement: str, params: Mapping[str, object]
    ) -> list[list[Any]]:
        if self._closed:
            raise StoreUnavailable("the graphiti memory is closed")
        command = (
            "GRAPH.RO_QUERY",
            graph,
            params_header(sanitize.plain_params(params)) + statement,
            "--compact",
            "timeout",
            max(1, int(self.timeout * 1000)),
        )
        reply = await bounded(self._command(*command), self.timeout, "read")
        return compact_rows(reply)

    async def graphs(self) -> list[str]:
        """Every graph on the server, sorted."""
        names = await bounded(self._command("GRAPH.LIST"), self.timeout, "list")
        return sorted(_text(name) for name in names or ())

    async def schema(self, graph: str) -> tuple[set[str], set[str]]:
        """The node labels and relationship types a graph has."""
        labels = await self.read_graph(graph, "CALL db.labels()", {})
        types = await self.read_graph(graph, "CALL db.relationshipTypes()", {})
        return {str(row[0]) for row in labels}, {str(row[0]) for row in types}

    async def looks_like_graphiti(self, graph: str) -> bool:
        labels, types = await self.schema(graph)
        ours = bool(labels & OWN_LABELS or types & OWN_TYPES)
        return not ours and bool(labels & GRAPHITI_LABELS or types & GRAPHITI_TYPES)

    async def graphiti_graphs(self) -> list[str]:
        """The server's graphs that look like graphiti's."""
        found = []
        for name in await self.graphs():
            try:
                if await self.looks_like_graphiti(name):
                    found.append(name)
            except StoreUnavailable:
                continue  # a graph of another module or one being deleted: not a candidate
        return found

    async def check_graphiti(self) -> None:
        names = await self.graphs()
        if self.graph not in names:
            others = ", ".join(repr(n) for n in await self.graphiti_graphs()) or "none"
            raise NotGraphiti(
                f"there is no graph {self.graph!r} on this FalkorDB (graphiti graphs there: "
                f"{others})"
            )
        if not await self.looks_like_graphiti(self.graph):
            labels, types = await self.schema(self.graph)
            shown = ", ".join(sorted(labels | types)) or "nothing"
            raise NotGraphiti(
                f"graph {self.graph!r} is not a graphiti graph: it has no Episodic nodes or "
                f"RELATES_TO edges (it holds {shown})"
            )

    async def version(self) -> str:
        modules = await bounded(self._command("MODULE", "LIST"), self.timeout, "version")
        return module_version(modules)


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
