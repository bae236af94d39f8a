"""One graph on one FalkorDB server: the bounded pool and the reads and writes sent to it.

``FalkorConnection.open`` builds a blocking redis connection pool (unix socket or ``redis://``,
``rediss://``, ``unix://`` URL) with socket, connect and pool-wait timeouts, pings it and builds
the FalkorDB client in a worker thread (its constructor runs a blocking probe). Every call after
that is bounded by ``errors.bounded``; reads go out as ``GRAPH.RO_QUERY`` with a compact reply
decoded by ``codec.compact_rows``, writes through the client's ``query``, each with its own
server-side timeout. A closed connection raises ``StoreUnavailable``. Imports the core,
``adapters.sanitize``, ``adapters.falkor.codec``, ``adapters.falkor.errors``, ``falkordb`` and
``redis``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import redis.asyncio as aredis
from falkordb.asyncio import FalkorDB
from falkordb.asyncio.graph import AsyncGraph

from explorer.adapters import sanitize
from explorer.adapters.falkor.codec import compact_rows, module_version, params_header
from explorer.adapters.falkor.errors import bounded
from explorer.core.errors import InvalidArgument, StoreUnavailable

T = TypeVar("T")

WRITE_BATCH = 500
#: Seconds a close waits for calls still under way (their connections closed, they end fast).
CLOSE_WAIT = 2.0


def blocking_pool(
    *, url: str | None, socket_path: str | Path | None, options: Mapping[str, Any]
) -> aredis.BlockingConnectionPool:
    """A pool on ``url`` (``redis://``, ``rediss://``, ``unix://``) or else on ``socket_path``,
    whose callers wait for a free connection instead of failing; ``InvalidArgument`` for a bad
    URL. Opens no connection yet."""
    if url is not None:
        url = sanitize.plain_text(url, "url", max_chars=4_000)
        if not url.startswith(("redis://", "rediss://", "unix://")):
            raise InvalidArgument("FalkorDB url must start with redis://, rediss:// or unix://")
        try:
            return aredis.BlockingConnectionPool.from_url(url, **options)
        except ValueError as error:
            raise InvalidArgument(f"invalid FalkorDB url: {error}") from None
    return aredis.BlockingConnectionPool(
        connection_class=aredis.UnixDomainSocketConnection,
        path=str(socket_path),
        **options,
    )


class FalkorConnection:
    """A pool on one FalkorDB server and the graph the store reads and writes on it."""

    def __init__(
        self,
        db: FalkorDB,
        pool: aredis.ConnectionPool,
        graph_name: str,
        *,
        timeout: float,
        write_timeout: float,
        connect_timeout: float,
    ) -> None:
        self._db = db
        self._pool = pool
        self._graph: AsyncGraph = db.select_graph(graph_name)
        self._graph_name = graph_name
        self._timeout = timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._closed = False
        # The tasks that run calls: one abandoned at its deadline runs on after its caller.
        self._calls: set[asyncio.Task[Any]] = set()

    @classmethod
    async def open(
        cls,
        *,
        socket_path: str | Path | None,
        url: str | None,
        username: str | None,
        password: str | None,
        graph: str,
        deadline: float,
        write_deadline: float,
        max_connections: int,
        connect_deadline: float | None,
    ) -> FalkorConnection:
        """Connect by unix socket or URL (see ``FalkorGraphStore.connect``, which this serves)."""
        if (socket_path is None) == (url is None):
            raise InvalidArgument("give exactly one of socket_path and url")
        graph_name = sanitize.identifier(graph, "graph name")
        timeout = sanitize.plain_float(deadline, "deadline", low=0.05, high=3600.0)
        write_timeout = sanitize.plain_float(
            write_deadline, "write_deadline", low=0.05, high=86400.0
        )
        max_connections = sanitize.plain_int(max_connections, "max_connections", low=1, high=1024)
        connect_timeout = (
            timeout
            if connect_deadline is None
            else sanitize.plain_float(connect_deadline, "connect_deadline", low=0.05, high=3600.0)
        )
        # The socket timeout is only a backstop behind the asyncio deadlines.
        socket_timeout = max(timeout, write_timeout) + 1.0
        options: dict[str, Any] = {
            "socket_timeout": socket_timeout,
            "socket_connect_timeout": connect_timeout,
            "decode_responses": True,
            "max_connections": max_connections,
            # More concurrent queries than connections wait for one (within the deadline)
            # instead of failing with "Too many connections".
            "timeout": timeout,
        }
        if username is not None:
            options["username"] = sanitize.plain_text(username, "username", max_chars=1_000)
        if password is not None:
            options["password"] = sanitize.plain_text(password, "password", max_chars=10_000)
        pool = blocking_pool(url=url, socket_path=socket_path, options=options)
        try:
            await bounded(aredis.Redis(connection_pool=pool).ping(), connect_timeout, "connect")
            # FalkorDB's constructor runs a blocking cluster probe; keep it off the loop.
            db = await bounded(
                asyncio.to_thread(FalkorDB, connection_pool=pool), connect_timeout, "connect"
            )
        except BaseException:
            await pool.aclose()
            raise
        return cls(
            db,
            pool,
            graph_name,
            timeout=timeout,
            write_timeout=write_timeout,
            connect_timeout=connect_timeout,
        )

    async def aclose(self) -> None:
        """Close every connection; later calls raise ``StoreUnavailable``. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        await self._pool.aclose()
        running = {task for task in self._calls if not task.done()}
        if running:
            # A call still connecting when the pool closed hands back an open connection
            # once it ends: close what they leave, so no socket waits for the collector.
            await asyncio.wait(running, timeout=CLOSE_WAIT)
            await self._pool.disconnect()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def graph_name(self) -> str:
        return self._graph_name

    @property
    def timeout(self) -> float:
        """Seconds every read may take."""
        return self._timeout

    @property
    def write_timeout(self) -> float:
        """Seconds every write (one batch) may take."""
        return self._write_timeout

    @property
    def connect_timeout(self) -> float:
        """Seconds connecting and the schema check may take."""
        return self._connect_timeout

    def client(self) -> aredis.Redis:
        """A plain redis client on the same pool, for keys beside the graph."""
        return aredis.Redis(connection_pool=self._pool)

    def check_open(self) -> None:
        if self._closed:
            raise StoreUnavailable("the FalkorDB graph store is closed")

    async def call(self, make: Callable[[], Awaitable[T]], deadline: float, what: str) -> T:
        self.check_open()
        return await bounded(self._tracked(make), deadline, what)

    async def _tracked(self, make: Callable[[], Awaitable[T]]) -> T:
        task = asyncio.current_task()
        if task is None:
            return await make()
        self._calls.add(task)
        try:
            return await make()
        finally:
            self._calls.discard(task)

    async def read(self, statement: str, params: Mapping[str, object]) -> list[list[Any]]:
        return compact_rows(await self.reply(statement, params))

    async def reply(self, statement: str, params: Mapping[str, object]) -> Any:
        # The client decodes replies cell by cell through coroutines, which costs more than the
        # query itself for a neighbourhood; reads send the same command and decode it here.
        command = (
            "GRAPH.RO_QUERY",
            self._graph_name,
            params_header(sanitize.plain_params(params)) + statement,
            "--compact",
            "timeout",
            max(1, int(self._timeout * 1000)),
        )
        return await self.call(lambda: self._graph.execute_command(*command), self._timeout, "read")

    async def write(self, statement: str, params: Mapping[str, object]) -> list[list[Any]]:
        plain = sanitize.plain_params(params)
        millis = max(1, int(self._write_timeout * 1000))
        result = await self.call(
            lambda: self._graph.query(statement, plain, timeout=millis),
            self._write_timeout,
            "write",
        )
        return list(result.result_set)

    async def write_batches(self, statement: str, rows: Sequence[dict[str, object]]) -> None:
        for start in range(0, len(rows), WRITE_BATCH):
            await self.write(statement, {"rows": list(rows[start : start + WRITE_BATCH])})

    async def graph_exists(self) -> bool:
        names = await self.call(lambda: self._db.list_graphs(), self._timeout, "list graphs")
        return self._graph_name in names

    async def delete_graph(self) -> None:
        """Drop the whole graph (its key); the caller checks that it exists."""
        await self.call(lambda: self._graph.delete(), self._write_timeout, "delete")

    async def version(self) -> str:
        """The FalkorDB module's version as the server reports it (``FalkorDB 4.16.1``)."""
        self.check_open()
        modules = await self.call(
            lambda: self.client().execute_command("MODULE", "LIST"),  # type: ignore[no-untyped-call]
            self._timeout,
            "version",
        )
        return module_version(modules)
