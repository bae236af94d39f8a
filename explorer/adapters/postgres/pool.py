"""PostgreSQL pools shared by the chunk, concept and journal stores: opening, bounded calls, errors.

``open_pool`` applies a store's set-up DDL once (``schema``), then opens an asyncpg pool whose
connections use the store's schema and have pgvector's codecs registered. Every call runs under
``core.deadline.within`` with asyncpg's own connect, command and pool-acquire timeouts behind it,
and ``bounded`` translates what asyncpg raises into ``StoreTimeout``, ``StoreUnavailable`` or
``InvalidArgument``, so no driver exception leaves the adapter; ``refresh_statistics`` analyses
a table a bulk write left without statistics. ``server_version`` is the
Connect dialog's "Test connection": one connection, nothing written. Imports the core,
``adapters.sanitize``, ``adapters.postgres.schema``, ``asyncpg`` and ``pgvector``.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias, TypeVar

import asyncpg
from pgvector.asyncpg import register_vector

from explorer.adapters import sanitize
from explorer.adapters.postgres import schema as ddl
from explorer.core.deadline import DeadlineExceeded, within
from explorer.core.errors import InvalidArgument, StoreTimeout, StoreUnavailable

log = logging.getLogger(__name__)

T = TypeVar("T")
Connection: TypeAlias = "asyncpg.pool.PoolConnectionProxy[asyncpg.Record]"

VERSIONS = (
    "SELECT current_setting('server_version'), "
    "(SELECT extversion FROM pg_extension WHERE extname = 'vector')"
)


def describe_versions(row: Any) -> str:
    server, vector = (row[0], row[1]) if row is not None else ("unknown", None)
    return f"PostgreSQL {server}, " + (f"pgvector {vector}" if vector else "no pgvector")


async def server_version(dsn: str, deadline: float) -> str:
    """Connect once to ``dsn``, read the server's and pgvector's versions, and disconnect; writes
    nothing (the Connect dialog's "Test connection"). Raises ``StoreUnavailable``/``StoreTimeout``.
    """
    dsn = sanitize.dsn(dsn)
    seconds = sanitize.plain_float(deadline, "deadline", low=0.05, high=3600.0)

    async def probe() -> str:
        conn = await asyncpg.connect(dsn, timeout=seconds, command_timeout=seconds)
        try:
            return describe_versions(await conn.fetchrow(VERSIONS))
        finally:
            await conn.close(timeout=seconds)

    return await bounded(probe(), seconds, "connection test")


async def open_pool(
    dsn: str,
    *,
    schema: str,
    deadline: float,
    write_deadline: float,
    min_connections: int,
    max_connections: int,
    setup: str,
    connect_deadline: float | None = None,
    session: Mapping[str, str] | None = None,
) -> tuple[asyncpg.Pool, str, float, float]:
    """A pool whose connections use ``schema`` (created with ``setup`` DDL if missing) and
    start with the ``session`` settings (a connection handed back to the pool returns to
    them); ``connect_deadline`` (default: ``deadline``) bounds connecting and the check that
    the store is set up, ``write_deadline`` the set-up itself (a new store's DDL outlasts a
    connect deadline on a busy machine)."""
    dsn = sanitize.dsn(dsn)
    plain_schema = sanitize.identifier(schema, "schema").lower()
    read_s = sanitize.plain_float(deadline, "deadline", low=0.05, high=3600.0)
    write_s = sanitize.plain_float(write_deadline, "write_deadline", low=0.05, high=86400.0)
    low = sanitize.plain_int(min_connections, "min_connections", low=0, high=100)
    high = sanitize.plain_int(max_connections, "max_connections", low=max(1, low), high=100)
    connect_s = (
        read_s
        if connect_deadline is None
        else sanitize.plain_float(connect_deadline, "connect_deadline", low=0.05, high=3600.0)
    )

    digest = hashlib.sha256(setup.encode()).hexdigest()[:32]
    table = f"{plain_schema}.{ddl.MIGRATIONS}"

    async def prepare() -> str:
        conn = await asyncpg.connect(dsn, timeout=connect_s, command_timeout=write_s)
        try:
            # A store already set up with this very DDL is only read: no DDL on every connect
            # (it needs write access, and fails on a full disk or a read-only standby).
            if await bounded(ddl.migrated(conn, table, digest), connect_s, "connect"):
                return str(await conn.fetchval(ddl.VECTOR_SCHEMA))
            async with conn.transaction():
                await conn.execute(ddl.LOCK, ddl.ADVISORY_KEY)
                await conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                await conn.execute(ddl.CREATE_SCHEMA.format(schema=plain_schema))
                vector_schema = str(await conn.fetchval(ddl.VECTOR_SCHEMA))
                await conn.execute(f"SET LOCAL search_path TO {plain_schema}, {vector_schema}")
                await conn.execute(setup)
                await conn.execute(ddl.CREATE_MIGRATIONS.format(table=table))
                await conn.execute(ddl.RECORD_MIGRATION.format(table=table), digest)
            return vector_schema
        finally:
            await conn.close(timeout=connect_s)

    vector_schema = await bounded(prepare(), connect_s + write_s, "connect")

    async def init(conn: asyncpg.Connection) -> None:
        await register_vector(conn, schema=vector_schema)

    pool_or_none = await bounded(
        asyncpg.create_pool(
            dsn,
            min_size=low,
            max_size=high,
            timeout=connect_s,
            command_timeout=read_s,
            init=init,
            reset=_leave_session,
            server_settings={
                **(session or {}),
                "search_path": f"{plain_schema}, {vector_schema}",
            },
        ),
        connect_s + 1.0,
        "connect",
    )
    if pool_or_none is None:
        raise StoreUnavailable("PostgreSQL pool could not be created")
    return pool_or_none, plain_schema, read_s, write_s


async def _leave_session(conn: asyncpg.Connection) -> None:
    """A connection handed back to the pool is not reset with a round trip of its own.

    The pool still rolls back a transaction left open; beyond that the stores leave nothing in
    a session to undo: settings come from the start-up packet or ``SET LOCAL``, nothing listens
    or keeps a cursor, and the one session lock (a re-embed) is released by its holder, which
    closes the connection when it cannot. asyncpg's default reset (``RESET ALL``, ``UNLISTEN``,
    ``CLOSE ALL``, advisory unlock) cost every read a second round trip.
    """


_STALE = (
    "SELECT n_mod_since_analyze > $2 + n_live_tup / 10 FROM pg_stat_user_tables "
    "WHERE relid = to_regclass($1)"
)


async def refresh_statistics(pool: asyncpg.Pool, table: str, deadline: float) -> None:
    """``ANALYZE table`` when a tenth of it changed since its statistics were taken.

    An embedded server seldom lives the minute its autovacuum waits before analysing, so after
    a bulk import the planner would still think the table nearly empty and pick a scan of a
    whole agent over a key lookup (10 ms against 0.1 ms at seed scale). Best effort: a
    read-only standby, or a server that refuses, keeps the statistics it has. ``table`` is one
    of the stores' own table names, never user text.
    """
    try:
        async with pool.acquire(timeout=deadline) as conn:
            if await conn.fetchval(_STALE, table, 1_000, timeout=deadline):
                await conn.execute(f"ANALYZE {table}", timeout=deadline)
    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError) as error:
        log.info("statistics of %s not refreshed: %s", table, error)


async def close_pool(pool: asyncpg.Pool, deadline: float) -> None:
    """Close gracefully within ``deadline``, else terminate every connection."""
    try:
        await within(pool.close(), deadline)
    except DeadlineExceeded:
        pool.terminate()


def deleting(
    statement: str, *args: object, seconds: float
) -> Callable[[Connection], Awaitable[int]]:
    """Work for ``run_bounded`` that runs one DELETE and answers how many rows it removed."""

    async def work(conn: Connection) -> int:
        status: str = await conn.execute(statement, *args, timeout=seconds)
        return int(status.split()[-1])

    return work


async def run_bounded(
    pool: asyncpg.Pool,
    work: Callable[[Connection], Awaitable[T]],
    what: str,
    deadline: float,
) -> T:
    """Run ``work`` on a pooled connection, all of it (acquiring included) within ``deadline``."""

    async def job() -> T:
        async with pool.acquire(timeout=deadline) as conn:
            return await work(conn)

    return await bounded(job(), deadline, what)


async def bounded(awaitable: Awaitable[T], deadline: float, what: str) -> T:
    """Await within ``deadline`` seconds, translating driver errors into the project's own."""
    try:
        return await within(awaitable, deadline)
    except DeadlineExceeded:
        raise StoreTimeout(f"PostgreSQL did not answer the {what} within {deadline:g} s") from None
    except (TimeoutError, asyncpg.QueryCanceledError) as error:
        raise StoreTimeout(f"PostgreSQL {what} timed out: {error}") from None
    except (
        asyncpg.CharacterNotInRepertoireError,
        asyncpg.UntranslatableCharacterError,
        asyncpg.InvalidTextRepresentationError,
        asyncpg.NumericValueOutOfRangeError,
    ) as error:
        raise InvalidArgument(f"PostgreSQL refused a value in the {what}: {error}") from None
    except (asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.InternalClientError) as error:
        raise StoreUnavailable(f"PostgreSQL {what} failed: {error}") from None
    except OSError as error:
        raise StoreUnavailable(f"PostgreSQL is unreachable ({what}): {error}") from None
