"""The recall journal in PostgreSQL: ``PgRecallJournal`` implements ``core.ports.RecallJournal``.

One row per scour call made through the tool contract, in a ``recall_journal`` table of the
chunk store's database: the summary a feed lists in columns of its own (time, caller, query,
counts, errors), the arguments and the compact answer as JSON text, and the recall case as
zlib-compressed JSON (a case is a few hundred KB of JSON, about 90 KB compressed on the demo).
Every write also removes what is past the bounds: rows older than ``keep_days`` and all but the
newest ``keep_calls``. JSON is written ASCII-escaped, so whatever text a caller sent (a NUL, a
lone surrogate) is stored as it was escaped, never refused. Pooling, deadlines and error
translation are ``adapters.postgres.pool``'s. Imports the core, ``adapters.sanitize``,
``adapters.postgres.pool`` and ``asyncpg``.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Awaitable, Callable
from datetime import UTC
from typing import Any, TypeVar

import asyncpg

from explorer.adapters import sanitize
from explorer.adapters.postgres.pool import Connection, close_pool, open_pool, run_bounded
from explorer.core.errors import InvalidArgument, StoreUnavailable
from explorer.core.journal import RecallCall, RecallSummary

T = TypeVar("T")

#: The largest recall case kept with a call; a larger one is left out (the call stays listed).
MAX_CASE_CHARS = 20_000_000
MAX_RECENT = 1_000
#: Fast compression: level 1 packs a demo case in 2.7 ms to 90 KB, level 6 in 9 ms to 75 KB.
ZLIB_LEVEL = 1

_CREATE_TABLES = """
CREATE TABLE IF NOT EXISTS recall_journal (
    id bigserial PRIMARY KEY,
    at timestamptz NOT NULL,
    caller text NOT NULL,
    query text NOT NULL,
    success boolean NOT NULL,
    error text,
    kg_count integer NOT NULL,
    chunk_count integer NOT NULL,
    kg_error text,
    chunks_error text,
    arguments text NOT NULL,
    answer text NOT NULL,
    case_zlib bytea
);
ALTER TABLE recall_journal ADD COLUMN IF NOT EXISTS case_zlib bytea;
CREATE INDEX IF NOT EXISTS recall_journal_at_idx ON recall_journal (at);
"""
_SUMMARY = "id, at, caller, query, success, error, kg_count, chunk_count, kg_error, chunks_error"
_INSERT = """
INSERT INTO recall_journal (at, caller, query, success, error, kg_count, chunk_count, kg_error,
                            chunks_error, arguments, answer, case_zlib)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
RETURNING id
"""
_PRUNE_OLD = "DELETE FROM recall_journal WHERE at < now() - make_interval(days => $1)"
_PRUNE_MANY = """
DELETE FROM recall_journal
WHERE id <= (SELECT id FROM recall_journal ORDER BY id DESC OFFSET $1 LIMIT 1)
"""
_RECENT = f"""
SELECT * FROM (
    SELECT {_SUMMARY} FROM recall_journal WHERE id > $1 ORDER BY id DESC LIMIT $2
) AS newest ORDER BY id
"""
_GET = f"SELECT {_SUMMARY}, arguments, answer, case_zlib FROM recall_journal WHERE id = $1"


def _column(value: object, limit: int = 10_000) -> str:
    """Text for a plain column: what PostgreSQL text can hold (no NUL, valid UTF-8)."""
    text = str(value)[:limit].replace("\x00", "\\x00")
    return text.encode("utf-8", "replace").decode("utf-8")


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=True, allow_nan=False, default=str)


def _summary(row: asyncpg.Record) -> RecallSummary:
    return RecallSummary(
        id=int(row["id"]),
        at=row["at"].astimezone(UTC),
        caller=str(row["caller"]),
        query=str(row["query"]),
        success=bool(row["success"]),
        error=row["error"],
        kg_count=int(row["kg_count"]),
        chunk_count=int(row["chunk_count"]),
        kg_error=row["kg_error"],
        chunks_error=row["chunks_error"],
    )


class PgRecallJournal:
    """``RecallJournal`` over a PostgreSQL table; build it with ``PgRecallJournal.connect``."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        deadline: float,
        write_deadline: float,
        keep_days: int,
        keep_calls: int,
    ) -> None:
        self._pool = pool
        self._deadline = deadline
        self._write_deadline = write_deadline
        self.keep_days = keep_days
        self.keep_calls = keep_calls
        self._closed = False

    @classmethod
    async def connect(
        cls,
        dsn: str,
        *,
        schema: str = "public",
        deadline: float = 5.0,
        write_deadline: float = 30.0,
        keep_days: int = 30,
        keep_calls: int = 1000,
    ) -> PgRecallJournal:
        """Open a small pool on ``dsn`` and create the journal table if missing."""
        days = sanitize.plain_int(keep_days, "keep_days", low=1, high=3650)
        calls = sanitize.plain_int(keep_calls, "keep_calls", low=1, high=1_000_000)
        pool, _, read_s, write_s = await open_pool(
            dsn,
            schema=schema,
            deadline=deadline,
            write_deadline=write_deadline,
            min_connections=1,
            max_connections=2,
            setup=_CREATE_TABLES,
        )
        return cls(pool, deadline=read_s, write_deadline=write_s, keep_days=days, keep_calls=calls)

    async def aclose(self) -> None:
        """Close the pool; later calls raise ``StoreUnavailable``. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        await close_pool(self._pool, self._deadline)

    @property
    def closed(self) -> bool:
        return self._closed

    async def record(self, call: RecallCall) -> int:
        if not isinstance(call, RecallCall):
            raise InvalidArgument(f"record takes a RecallCall, not {type(call).__name__}")
        if call.at.tzinfo is None:
            raise InvalidArgument("a journaled call's time must carry its time zone")
        summary = call.summary()
        case = _json(call.case) if call.case is not None else None
        fits = case is not None and len(case) <= MAX_CASE_CHARS
        packed = zlib.compress(case.encode("ascii"), ZLIB_LEVEL) if case and fits else None
        values: tuple[Any, ...] = (
            call.at,
            _column(summary.caller, 200),
            _column(summary.query),
            summary.success,
            None if summary.error is None else _column(summary.error),
            summary.kg_count,
            summary.chunk_count,
            None if summary.kg_error is None else _column(summary.kg_error),
            None if summary.chunks_error is None else _column(summary.chunks_error),
            _json(call.arguments),
            _json(call.answer),
            packed,
        )

        async def write(conn: Connection) -> int:
            async with conn.transaction():
                new_id = await conn.fetchval(_INSERT, *values)
                await conn.execute(_PRUNE_OLD, self.keep_days)
                await conn.execute(_PRUNE_MANY, self.keep_calls)
            return int(new_id)

        return await self._run(write, "write", self._write_deadline)

    async def recent(self, after: int = 0, limit: int = 100) -> list[RecallSummary]:
        since = sanitize.plain_int(after, "after", low=0, high=2**62)
        count = sanitize.plain_int(limit, "limit", low=1, high=MAX_RECENT)
        rows = await self._run(lambda c: c.fetch(_RECENT, since, count), "read")
        return [_summary(row) for row in rows]

    async def get(self, call_id: int) -> RecallCall | None:
        wanted = sanitize.plain_int(call_id, "call_id", low=1, high=2**62)
        row = await self._run(lambda c: c.fetchrow(_GET, wanted), "read")
        if row is None:
            return None
        packed = row["case_zlib"]
        return RecallCall(
            id=int(row["id"]),
            at=row["at"].astimezone(UTC),
            caller=str(row["caller"]),
            arguments=json.loads(row["arguments"]),
            answer=json.loads(row["answer"]),
            case=json.loads(zlib.decompress(packed)) if packed is not None else None,
        )

    async def _run(
        self, work: Callable[[Connection], Awaitable[T]], what: str, deadline: float | None = None
    ) -> T:
        if self._closed:
            raise StoreUnavailable("the PostgreSQL recall journal is closed")
        return await run_bounded(self._pool, work, what, deadline or self._deadline)
