"""Concept records in PostgreSQL: ``PgConceptStore`` implements ``core.ports.ConceptStore``.

One row per ``(tenant, agent, name)`` in a ``concepts`` table of the chunk store's database: the
record's raw JSON text in ``body``, its ``updated_at`` stamp in a column of its own (so a reader
checks freshness without fetching or parsing the body), and a ``seq`` that fixes store order at
first insert. The stamp is an ISO 8601 UTC string, written into the body as well, and strictly
increases per process so every write changes it. The tenant defaults to the agent scope's first
level. Pooling, deadlines and error translation are ``adapters.postgres.pool``'s. Imports the
core, ``adapters.sanitize``, ``adapters.postgres``'s ``pool`` and ``schema``, and ``asyncpg``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TypeVar

import asyncpg

from explorer.adapters import sanitize
from explorer.adapters.postgres.pool import (
    Connection,
    close_pool,
    deleting,
    open_pool,
    refresh_statistics,
    run_bounded,
)
from explorer.adapters.postgres.schema import version_counter_sql
from explorer.core.errors import InvalidArgument, StoreUnavailable
from explorer.core.freshness import SharedRead
from explorer.core.models import normalise_scope, scope_parts
from explorer.core.validate import forgettable_scope

T = TypeVar("T")

MAX_NAMES = 100_000
MAX_RECORD_CHARS = 1_000_000

_CREATE_TABLES = """
CREATE TABLE IF NOT EXISTS concepts (
    tenant text NOT NULL,
    agent text NOT NULL,
    name text NOT NULL,
    body text NOT NULL,
    updated_at text NOT NULL,
    seq bigserial NOT NULL,
    PRIMARY KEY (tenant, agent, name)
);
CREATE INDEX IF NOT EXISTS concepts_order_idx ON concepts (tenant, agent, seq);
""" + version_counter_sql("concepts")
# Bumped by statement triggers whenever rows change, so readers can tell in one row lookup whether
# anything changed since they last looked.
_VERSION = "SELECT version, epoch FROM concepts_version"
# The agents are listed only when the table changed since the stamp ($2, $3) the caller holds:
# listing scans every concept (12 ms at 45,000), the stamp is one row. One statement, one
# snapshot, so the stamp returned is the state the list was taken in.
_AGENTS_SINCE = (
    "SELECT version, epoch, CASE WHEN version = $2 AND epoch = $3 THEN NULL ELSE ARRAY("
    "SELECT DISTINCT agent FROM concepts "
    "WHERE $1 = '' OR agent = $1 OR starts_with(agent, $1 || '/') ORDER BY agent) END "
    "FROM (SELECT 1) AS one LEFT JOIN concepts_version ON true"
)
#: Listings of agents kept, by scope prefix.
AGENT_LISTINGS = 32
_NAMES = "SELECT name FROM concepts WHERE tenant = $1 AND agent = $2 ORDER BY seq"
_STAMPS = (
    "SELECT name, updated_at FROM concepts "
    "WHERE tenant = $1 AND agent = $2 AND name = ANY($3::text[])"
)
_BODIES = (
    "SELECT name, body FROM concepts WHERE tenant = $1 AND agent = $2 AND name = ANY($3::text[])"
)
_FORGET = "DELETE FROM concepts WHERE agent = $1::text OR starts_with(agent, $1::text || '/')"
# Serialises the read-merge-write of one agent's concepts across connections and processes.
_LOCK_AGENT = "SELECT pg_advisory_xact_lock(hashtext($1))"
_UPSERT = """
INSERT INTO concepts (tenant, agent, name, body, updated_at)
SELECT $1, $2, r.name, r.body, r.updated_at
FROM unnest($3::text[], $4::text[], $5::text[]) AS r(name, body, updated_at)
ON CONFLICT (tenant, agent, name)
DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at
"""


class _Stamps:
    """Strictly increasing UTC stamps, so two writes never share one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last = datetime.fromtimestamp(0, tz=UTC)

    def next(self) -> str:
        with self._lock:
            now = datetime.now(UTC)
            self._last = max(now, self._last + timedelta(microseconds=1))
            return self._last.isoformat(timespec="microseconds")


_stamps = _Stamps()


def _key(agent: object, tenant: object) -> tuple[str, str]:
    plain_agent = normalise_scope(
        sanitize.plain_text(agent, "agent", max_chars=1_000, allow_empty=False)
    )
    if not plain_agent:
        raise InvalidArgument("agent must name a scope")
    if tenant is None:
        return scope_parts(plain_agent)[0], plain_agent
    return sanitize.plain_text(tenant, "tenant", max_chars=1_000, allow_empty=False), plain_agent


def _names(names: object) -> list[str]:
    return sanitize.plain_strings(names, "names", max_items=MAX_NAMES, max_chars=1_000)


class PgConceptStore:
    """``ConceptStore`` over a PostgreSQL table; build it with ``PgConceptStore.connect``."""

    def __init__(self, pool: asyncpg.Pool, *, deadline: float, write_deadline: float) -> None:
        self._pool = pool
        self._deadline = deadline
        self._write_deadline = write_deadline
        self._closed = False
        # Scope prefix -> (version, epoch, agents) as last listed.
        self._agents: dict[str, tuple[int, str, list[str]]] = {}
        self._version: SharedRead[asyncpg.Record | None] = SharedRead()

    @classmethod
    async def connect(
        cls,
        dsn: str,
        *,
        schema: str = "public",
        deadline: float = 5.0,
        write_deadline: float = 60.0,
        max_connections: int = 4,
        connect_deadline: float | None = None,
    ) -> PgConceptStore:
        """Open a small pool on ``dsn`` and create the ``concepts`` table if missing."""
        pool, _, read_s, write_s = await open_pool(
            dsn,
            schema=schema,
            deadline=deadline,
            write_deadline=write_deadline,
            min_connections=1,
            max_connections=max_connections,
            setup=_CREATE_TABLES,
            connect_deadline=connect_deadline,
        )
        await refresh_statistics(pool, "concepts", write_s)
        return cls(pool, deadline=read_s, write_deadline=write_s)

    async def aclose(self) -> None:
        """Close the pool; later calls raise ``StoreUnavailable``. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        await close_pool(self._pool, self._deadline)

    @property
    def closed(self) -> bool:
        return self._closed

    async def agents(self, within: str = "") -> list[str]:
        """Every agent scope equal to or below ``within`` that holds concepts, sorted."""
        prefix = normalise_scope(
            sanitize.plain_text(within, "within", max_chars=1_000, allow_empty=True)
        )
        held = self._agents.get(prefix)
        if held is not None:
            # The table's stamp alone says whether the listing still stands; concurrent queries
            # share that read, and the concept scan's version check takes it too.
            stamp = await self._stamp()
            if stamp is not None and (int(stamp[0]), str(stamp[1])) == held[:2]:
                return list(held[2])
        version, epoch, known = held if held is not None else (-1, "", [])
        row = await self._run(lambda c: c.fetchrow(_AGENTS_SINCE, prefix, version, epoch), "read")
        if row is not None and row[2] is not None:
            known = [str(agent) for agent in row[2]]
            self._agents.pop(prefix, None)
            while len(self._agents) >= AGENT_LISTINGS:
                self._agents.pop(next(iter(self._agents)))
            if row[0] is not None:  # without a stamp row a listing is never reused
                self._agents[prefix] = (int(row[0]), str(row[1]), known)
        return list(known)

    async def version(self, agent: str, tenant: str | None = None) -> str:
        """A stamp of the whole concept table: it changes whenever any record is written."""
        _key(agent, tenant)
        row = await self._stamp()
        return f"{row[1]}:v{int(row[0])}" if row is not None else "v0"

    async def _stamp(self) -> asyncpg.Record | None:
        """The table's (version, epoch), shared with the queries that began before it was read
        (``core.freshness``); ``None`` before anything was written."""
        return await self._version(lambda: self._run(lambda c: c.fetchrow(_VERSION), "read"))

    async def names(self, agent: str, tenant: str | None = None) -> list[str]:
        tenant_key, agent_key = _key(agent, tenant)
        rows = await self._run(lambda c: c.fetch(_NAMES, tenant_key, agent_key), "read")
        return [str(row["name"]) for row in rows]

    async def updated_at(
        self, agent: str, names: Sequence[str], tenant: str | None = None
    ) -> dict[str, str]:
        tenant_key, agent_key = _key(agent, tenant)
        asked = _names(names)
        rows = await self._run(lambda c: c.fetch(_STAMPS, tenant_key, agent_key, asked), "read")
        return {str(row["name"]): str(row["updated_at"]) for row in rows}

    async def read(
        self, agent: str, names: Sequence[str], tenant: str | None = None
    ) -> dict[str, str]:
        tenant_key, agent_key = _key(agent, tenant)
        asked = _names(names)
        rows = await self._run(lambda c: c.fetch(_BODIES, tenant_key, agent_key, asked), "read")
        return {str(row["name"]): str(row["body"]) for row in rows}

    async def upsert(
        self, agent: str, records: Sequence[Mapping[str, object]], tenant: str | None = None
    ) -> int:
        """Write each record under its ``name``; a later record with the same name wins."""
        tenant_key, agent_key = _key(agent, tenant)
        bodies = _bodies(records)
        if not bodies:
            return 0
        seconds = self._write_deadline
        await self._run(
            lambda c: _write(c, tenant_key, agent_key, bodies, seconds), "write", seconds
        )
        return len(bodies)

    async def merge_upsert(
        self,
        agent: str,
        records: Sequence[Mapping[str, object]],
        merge: Callable[[dict[str, object], str | None], dict[str, object]],
        tenant: str | None = None,
    ) -> int:
        """Like ``upsert``, each record first merged with the stored one (``merge(record,
        stored JSON or None)``), all in one transaction that holds the agent's lock: two
        imports writing the same concepts at once both keep what they add."""
        tenant_key, agent_key = _key(agent, tenant)
        _bodies(records)  # refuse bad records before taking any lock
        seconds = self._write_deadline

        async def work(conn: Connection) -> int:
            async with conn.transaction():
                await conn.execute(_LOCK_AGENT, f"{tenant_key}/{agent_key}", timeout=seconds)
                names = [str(record["name"]) for record in records]
                rows = await conn.fetch(_BODIES, tenant_key, agent_key, _names(names))
                stored = {str(row["name"]): str(row["body"]) for row in rows}
                merged = [merge(dict(r), stored.get(str(r["name"]))) for r in records]
                bodies = _bodies(merged)
                await _write(conn, tenant_key, agent_key, bodies, seconds)
                return len(bodies)

        return await self._run(work, "write", seconds)

    async def forget_scope(self, scope: str) -> int:
        plain = forgettable_scope(scope)
        seconds = self._write_deadline
        return await self._run(deleting(_FORGET, plain, seconds=seconds), "delete", seconds)

    async def _run(
        self, work: Callable[[Connection], Awaitable[T]], what: str, deadline: float | None = None
    ) -> T:
        if self._closed:
            raise StoreUnavailable("the PostgreSQL concept store is closed")
        return await run_bounded(self._pool, work, what, deadline or self._deadline)


async def _write(
    conn: Connection,
    tenant_key: str,
    agent_key: str,
    bodies: Mapping[str, tuple[str, str]],
    seconds: float,
) -> None:
    names = list(bodies)
    texts = [bodies[n][0] for n in names]
    stamps = [bodies[n][1] for n in names]
    await conn.execute(_UPSERT, tenant_key, agent_key, names, texts, stamps, timeout=seconds)


def _bodies(records: Sequence[Mapping[str, object]]) -> dict[str, tuple[str, str]]:
    """Each record's JSON text and stamp by name, checked; a later record of a name wins."""
    if isinstance(records, str | bytes) or not isinstance(records, Sequence):
        raise InvalidArgument("records must be a sequence of mappings")
    bodies: dict[str, tuple[str, str]] = {}
    for index, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise InvalidArgument(f"records[{index}] is not a mapping")
        name = sanitize.plain_text(
            record.get("name"), f"records[{index}].name", max_chars=1_000, allow_empty=False
        )
        stamp = _stamps.next()
        try:
            body = json.dumps(
                {**record, "name": name, "updated_at": stamp},
                ensure_ascii=False,
                allow_nan=False,
            )
        except (TypeError, ValueError) as error:
            raise InvalidArgument(f"records[{index}] is not JSON: {error}") from None
        bodies[name] = (sanitize.plain_text(body, "record", max_chars=MAX_RECORD_CHARS), stamp)
    return bodies
