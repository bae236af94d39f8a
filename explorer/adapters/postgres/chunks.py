"""Verbatim chunks in PostgreSQL + pgvector: ``PgChunkStore`` implements ``core.ports.ChunkStore``.

Schema (in the schema given to ``connect``, default ``public``): ``chunks`` holds one row per chunk
with its ``embedding``, an ``ingest_state`` (``pending`` until the graph half of an ingest is
acknowledged) and a generated English ``tsv`` for full text, behind GIN indexes on ``tsv`` and
``domains``; ``store_meta`` records the embedding model and dimension once. The ``embedding``
column starts untyped and is fixed to ``vector(dimension)`` by the first upsert, in the same
transaction that records the spec and builds the HNSW cosine index, so the store never needs to
know its model before it sees one; every later upsert or search with another spec raises
``EmbeddingMismatch``. ``reembed`` switches the store to another model: it stages the new
vectors in a ``chunk_reembed`` table and swaps column, spec and index in one transaction.
Dimensions above pgvector's 2000-dimension HNSW limit are indexed as ``halfvec``. Filtered
vector searches use pgvector's iterative index scans and fall back to an
exact scan when those come back short, so ``k`` matches come back whenever ``k`` exist. Lexical
search ORs the query's English lexemes (built on the server from the parameter) and ranks with
``ts_rank_cd``. All SQL is constant text with numbered parameters; the only formatted parts are
validated integers and the validated schema identifier. Pooling, deadlines and error mapping
are ``pool``'s, the DDL ``schema``'s, the row and vector checks ``codec``'s. Imports the core,
``adapters.sanitize``, those modules of ``adapters.postgres``, ``asyncpg``, ``pgvector`` and
``numpy``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeAlias, TypeVar

import asyncpg
import numpy as np
from pgvector import HalfVector

from explorer.adapters import sanitize
from explorer.adapters.postgres import codec
from explorer.adapters.postgres import schema as ddl
from explorer.adapters.postgres.pool import (
    VERSIONS,
    Connection,
    bounded,
    close_pool,
    deleting,
    describe_versions,
    open_pool,
    refresh_statistics,
    run_bounded,
)
from explorer.core.errors import InvalidArgument, StoreUnavailable, WriteFailed
from explorer.core.freshness import SharedRead
from explorer.core.models import (
    Chunk,
    ChunkHit,
    EmbeddingSpec,
    chunk_embedding_text,
    normalise_scope,
)
from explorer.core.ports import Vector
from explorer.core.validate import forgettable_scope

T = TypeVar("T")
EmbedTexts: TypeAlias = Callable[[Sequence[str]], Awaitable[Sequence[Vector]]]
ReembedProgress: TypeAlias = Callable[[int, int], None]

MAX_K = 1_000
# Every pooled connection starts with the HNSW search breadth most searches want (any k up to
# 20) and with iterative scans in strict order, so a filtered search still finds k rows in
# distance order; a larger k sets its own breadth for one transaction. Without a filter the
# first ef_search candidates hold the k asked for, so the iterative scan never runs.
SESSION_EF_SEARCH = 40
_KNN_SESSION = {"hnsw.ef_search": str(SESSION_EF_SEARCH), "hnsw.iterative_scan": "strict_order"}
MAX_IDS = 100_000
MAX_MARKED = 10_000_000  # chunk ids one mark_done may clear,
MARK_BATCH = MAX_IDS  # in statements of this many
MAX_QUERY_CHARS = 10_000
MAX_LEXEMES = 64
BULK_MIN_ROWS = 2_000
EMBEDDING_KEY = "embedding"

_CHUNK_COLUMNS = (
    "id, text, conversation_id, position, speaker, ts, domains, scope, layer, content_hash, "
    "turn_id, turn_offset, title"
)
_COPY_COLUMNS = (
    "id",
    "text",
    "conversation_id",
    "position",
    "speaker",
    "ts",
    "domains",
    "scope",
    "layer",
    "content_hash",
    "turn_id",
    "turn_offset",
    "title",
    "embedding",
    "ingest_state",
)
_READ_SPEC = "SELECT model, dimension FROM store_meta WHERE key = $1"
_WRITE_SPEC = "INSERT INTO store_meta (key, model, dimension) VALUES ($1, $2, $3)"

_CREATE_STAGING = """
CREATE TEMP TABLE chunk_staging (
    id text, text text, conversation_id text, position integer, speaker text, ts timestamptz,
    domains text[], scope text, layer text, content_hash text, turn_id text, turn_offset integer,
    title text, embedding vector({dimension:d}), ingest_state text
) ON COMMIT DROP
"""
_INSERT_STAGED = f"""
INSERT INTO chunks ({", ".join(_COPY_COLUMNS)})
SELECT {", ".join(_COPY_COLUMNS)} FROM chunk_staging
ON CONFLICT DO NOTHING
"""

_COUNT_FRESH = """
SELECT count(*) FROM chunk_staging s
WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = s.id)
  AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.content_hash = s.content_hash)
"""
_GET = f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE id = ANY($1::text[])"
_PENDING = (
    f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE ingest_state = 'pending' "
    "ORDER BY conversation_id, position, id LIMIT $1"
)
_MARK_DONE = """
UPDATE chunks SET ingest_state = 'done' WHERE id = ANY($1::text[]) AND ingest_state = 'pending'
"""
_DOMAINS = "SELECT DISTINCT unnest(domains) AS domain FROM chunks ORDER BY domain"
_COUNT = "SELECT count(*) FROM chunks"
_COUNT_PENDING = "SELECT count(*) FROM chunks WHERE ingest_state = 'pending'"
_COUNT_DOMAINS = (
    "SELECT domain, count(*) FROM chunks, unnest(domains) AS domain GROUP BY domain ORDER BY domain"
)
_COUNT_SCOPES = "SELECT scope, count(*) FROM chunks GROUP BY scope ORDER BY scope"
_TIME_SPAN = "SELECT min(ts), max(ts) FROM chunks"
# The stamp for index caches: a version statement triggers bump whenever rows of chunks change, so
# any added, changed or removed chunk changes it and reading it is one row lookup (a count or
# hash over the scope's rows costs a scan of them on every query).
_VERSION = "SELECT version, epoch FROM chunks_version"
# Parameter 1 is the scope (or NULL).
_SCOPE_WHERE = "($1::text IS NULL OR scope = $1::text OR starts_with(scope, $1::text || '/'))"
_SCOPES_HOLDING = """
SELECT c.scope, count(DISTINCT s.n)
FROM unnest($1::text[], $2::timestamptz[], $3::text[]) WITH ORDINALITY AS s(speaker, ts, text, n)
JOIN chunks c ON c.ts = s.ts AND c.speaker = s.speaker AND c.text = s.text
GROUP BY c.scope
"""
_READ_MARK = "SELECT value FROM store_marks WHERE name = $1"
_WRITE_MARK = (
    "INSERT INTO store_marks (name, value) VALUES ($1, $2) "
    "ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, written_at = now()"
)
_FORGET = "DELETE FROM chunks WHERE scope = $1::text OR starts_with(scope, $1::text || '/')"
# Newest first; the window count is taken before the limit: how many the speaker said in all.
_SAID_BY = (
    f"SELECT {_CHUNK_COLUMNS}, count(*) OVER () AS said FROM chunks WHERE speaker = $1 "
    "AND ($2::text IS NULL OR scope = $2::text OR starts_with(scope, $2::text || '/')) "
    "ORDER BY ts DESC, id LIMIT $3"
)
_SCOPE_CHUNKS = (
    f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE {_SCOPE_WHERE} "
    "ORDER BY conversation_id, position, id"
)

# Filters are chosen from these constants; parameter 1 is always the query, 2 the limit.
_DOMAIN_FILTER = "domains @> ARRAY[${n}::text]"
_SCOPE_FILTER = "(scope = ${n}::text OR starts_with(scope, ${n}::text || '/'))"

_KNN = """
SELECT {columns}, 1 - ({distance}) AS similarity
FROM chunks
WHERE {where}
ORDER BY {order}
LIMIT $2
"""
_LEXICAL = """
WITH query AS (
    SELECT string_agg('(' || part::text || ')', ' | ')::tsquery AS q
    FROM (
        SELECT plainto_tsquery('simple', lexeme) AS part
        FROM unnest(tsvector_to_array(to_tsvector('english'::regconfig, $1::text))) AS lexeme
        LIMIT {max_lexemes:d}
    ) AS parts
    WHERE numnode(part) > 0
)
SELECT {columns}, ts_rank_cd(tsv, query.q, 32) AS rank
FROM chunks, query
WHERE query.q IS NOT NULL AND tsv @@ query.q{filters}
ORDER BY rank DESC, id
LIMIT $2
"""

# Re-embedding stages the new vectors in a table of their own, so the live column, its index and
# the recorded spec stay untouched (and searchable) until one transaction swaps them in.
_REEMBED_KEY = 0x5C0BC5  # held for a whole re-embed so two never stage into one table
_REEMBED_BATCH_MAX = 10_000
_TRY_SESSION_LOCK = "SELECT pg_try_advisory_lock($1)"
_SESSION_UNLOCK = "SELECT pg_advisory_unlock($1)"
_STAGE_DROP = "DROP TABLE IF EXISTS chunk_reembed"
_STAGE_CREATE = (
    "CREATE UNLOGGED TABLE chunk_reembed "
    "(id text PRIMARY KEY, embedding vector({dimension:d}) NOT NULL)"
)
_STAGE_PAGE = "SELECT id, speaker, text FROM chunks WHERE id > $1 ORDER BY id LIMIT $2"
_STAGE_MISSING = """
SELECT c.id, c.speaker, c.text FROM chunks c
WHERE NOT EXISTS (SELECT 1 FROM chunk_reembed r WHERE r.id = c.id)
ORDER BY c.id
"""
_LOCK_CHUNKS = "LOCK TABLE chunks IN ACCESS EXCLUSIVE MODE"
# Dropping the column drops its index with it; the new column is typed from the start.
_SWAP_DROP_COLUMN = "ALTER TABLE chunks DROP COLUMN embedding"
_SWAP_ADD_COLUMN = "ALTER TABLE chunks ADD COLUMN embedding vector({dimension:d})"
_SWAP_FILL = "UPDATE chunks c SET embedding = r.embedding FROM chunk_reembed r WHERE r.id = c.id"
_REPLACE_SPEC = """
INSERT INTO store_meta (key, model, dimension) VALUES ($1, $2, $3)
ON CONFLICT (key) DO UPDATE
SET model = EXCLUDED.model, dimension = EXCLUDED.dimension, created_at = now()
"""


class PgChunkStore:
    """``ChunkStore`` over PostgreSQL + pgvector; build it with ``PgChunkStore.connect``."""

    def __init__(
        self, pool: asyncpg.Pool, *, schema: str, deadline: float, write_deadline: float
    ) -> None:
        self._pool = pool
        self._schema = schema
        self._deadline = deadline
        self._write_deadline = write_deadline
        self._spec: EmbeddingSpec | None = None
        self._closed = False
        self._stamp: SharedRead[asyncpg.Record | None] = SharedRead()

    # -- life cycle -------------------------------------------------------------------------

    @classmethod
    async def connect(
        cls,
        dsn: str,
        *,
        schema: str = "public",
        deadline: float = 5.0,
        write_deadline: float = 120.0,
        min_connections: int = 1,
        max_connections: int = 8,
        connect_deadline: float | None = None,
    ) -> PgChunkStore:
        """Open a pool on ``dsn`` and create the schema's tables and indexes if missing.

        ``deadline`` (seconds) bounds acquiring a connection and every read, ``write_deadline``
        every upsert, ``connect_deadline`` (default: ``deadline``) connecting. Raises
        ``StoreUnavailable``/``StoreTimeout``.
        """
        pool, plain_schema, read_s, write_s = await open_pool(
            dsn,
            schema=schema,
            deadline=deadline,
            write_deadline=write_deadline,
            min_connections=min_connections,
            max_connections=max_connections,
            setup=ddl.CHUNK_TABLES,
            connect_deadline=connect_deadline,
            session=_KNN_SESSION,
        )
        await refresh_statistics(pool, "chunks", write_s)
        return cls(pool, schema=plain_schema, deadline=read_s, write_deadline=write_s)

    async def aclose(self) -> None:
        """Close the pool; later calls raise ``StoreUnavailable``. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        await close_pool(self._pool, self._deadline)

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def schema(self) -> str:
        return self._schema

    # -- the port ---------------------------------------------------------------------------

    async def embedding_spec(self) -> EmbeddingSpec | None:
        self._check_open()
        if self._spec is None:
            row = await self._run(lambda c: c.fetchrow(_READ_SPEC, EMBEDDING_KEY), "read")
            if row is not None:
                self._spec = EmbeddingSpec(str(row["model"]), int(row["dimension"]))
        return self._spec

    async def search(
        self,
        vector: Vector,
        k: int,
        *,
        spec: EmbeddingSpec,
        domain: str | None = None,
        scope: str | None = None,
    ) -> list[ChunkHit]:
        self._check_open()
        spec = codec.plain_spec(spec)
        k = sanitize.plain_int(k, "k", low=0, high=MAX_K)
        query = codec.vector_matrix([vector], 1, spec.dimension)[0]
        filters, params = _filters(domain, scope)
        stored = await self.embedding_spec()
        if stored is None:
            return []
        codec.check_spec(stored, spec)
        if k == 0:
            return []
        distance, cast = _distance(stored.dimension)
        where = " AND ".join(["embedding IS NOT NULL", *filters])
        indexed = _KNN.format(
            columns=_CHUNK_COLUMNS, distance=distance, where=where, order=distance
        )
        exact = _KNN.format(
            columns=_CHUNK_COLUMNS, distance=distance, where=where, order=f"({distance}) + 0"
        )
        value = cast(query)
        ef_search = min(max(SESSION_EF_SEARCH, 2 * k), 1000)

        async def search(conn: Connection) -> list[asyncpg.Record]:
            rows: list[asyncpg.Record] = await conn.fetch(indexed, value, k, *params)
            if filters and len(rows) < k:
                # The iterative scan gives up after hnsw.max_scan_tuples; an exact scan
                # over the filtered rows is the only way to be sure none are missed.
                rows = await conn.fetch(exact, value, k, *params)
            return rows

        async def knn(conn: Connection) -> list[asyncpg.Record]:
            if ef_search == SESSION_EF_SEARCH:
                return await search(conn)  # the session's own setting: one round trip
            async with conn.transaction(readonly=True):
                await conn.execute("SELECT set_config('hnsw.ef_search', $1, true)", str(ef_search))
                return await search(conn)

        rows = await self._run(knn, "vector search")
        return [
            ChunkHit(chunk=codec.decode_chunk(row), similarity=float(row["similarity"]))
            for row in rows
        ]

    async def lexical_search(
        self, text: str, k: int, *, domain: str | None = None, scope: str | None = None
    ) -> list[ChunkHit]:
        self._check_open()
        text = sanitize.plain_text(text, "text", max_chars=MAX_QUERY_CHARS)
        k = sanitize.plain_int(k, "k", low=0, high=MAX_K)
        filters, params = _filters(domain, scope)
        if k == 0 or not text.strip():
            return []
        statement = _LEXICAL.format(
            max_lexemes=MAX_LEXEMES,
            columns=_CHUNK_COLUMNS,
            filters="".join(f" AND {f}" for f in filters),
        )
        rows = await self._run(lambda c: c.fetch(statement, text, k, *params), "full-text search")
        return [ChunkHit(chunk=codec.decode_chunk(row), lexical=float(row["rank"])) for row in rows]

    async def scope_stamp(self, scope: str | None) -> str:
        """Changes whenever a chunk is written, so whenever one in ``scope`` is (``None``: all)."""
        self._plain_scope(scope)
        row = await self._stamp(lambda: self._run(lambda c: c.fetchrow(_VERSION), "read"))
        return f"{row[1]}:v{int(row[0])}" if row is not None else "v0"

    async def scope_chunks(self, scope: str | None) -> list[Chunk]:
        """Every chunk in ``scope`` and below it, in conversation order (``None``: all)."""
        plain = self._plain_scope(scope)
        rows = await self._run(lambda c: c.fetch(_SCOPE_CHUNKS, plain), "read")
        return [codec.decode_chunk(row) for row in rows]

    async def said_by(
        self, speaker: str, limit: int, *, scope: str | None = None
    ) -> tuple[list[Chunk], int]:
        plain = self._plain_scope(scope)
        who = sanitize.plain_text(speaker, "speaker", max_chars=1_000)
        limit = sanitize.plain_int(limit, "limit", low=0, high=MAX_IDS)
        rows = await self._run(lambda c: c.fetch(_SAID_BY, who, plain, max(limit, 1)), "read")
        total = int(rows[0]["said"]) if rows else 0
        return [codec.decode_chunk(row) for row in rows[:limit]], total

    def _plain_scope(self, scope: str | None) -> str | None:
        self._check_open()
        plain = sanitize.optional_text(scope, "scope", max_chars=1_000)
        return normalise_scope(plain) if plain is not None else None

    async def get(self, ids: Sequence[str]) -> list[Chunk]:
        self._check_open()
        asked = sanitize.plain_strings(ids, "ids", max_items=MAX_IDS, max_chars=1_000)
        if not asked:
            return []
        rows = await self._run(lambda c: c.fetch(_GET, asked), "read")
        found = {str(row["id"]): codec.decode_chunk(row) for row in rows}
        return [found[i] for i in asked if i in found]

    async def upsert(
        self,
        chunks: Sequence[Chunk],
        vectors: Sequence[Vector],
        spec: EmbeddingSpec,
        *,
        pending: bool = False,
    ) -> int:
        self._check_open()
        spec = codec.plain_spec(spec)
        if not isinstance(pending, bool):
            raise InvalidArgument("pending must be a bool")
        if isinstance(chunks, str | bytes) or not isinstance(chunks, Sequence):
            raise InvalidArgument("chunks must be a sequence of Chunk")
        matrix = codec.vector_matrix(vectors, len(chunks), spec.dimension)
        state = "pending" if pending else "done"
        records = [
            (*codec.chunk_values(chunk, index), matrix[index], state)
            for index, chunk in enumerate(chunks)
        ]
        if not records:
            return 0
        stored = await self.embedding_spec()
        if stored is not None:
            codec.check_spec(stored, spec)

        seconds = self._write_deadline

        async def write(conn: Connection) -> int:
            async with conn.transaction():
                await self._fix_spec(conn, spec, seconds)
                await conn.execute(_CREATE_STAGING.format(dimension=spec.dimension))
                await conn.copy_records_to_table(
                    "chunk_staging", records=records, columns=_COPY_COLUMNS, timeout=seconds
                )
                # Inserting into HNSW costs about a millisecond a row, building it anew a fifth
                # of that; when most rows will be new, a rebuild is the cheaper way.
                fresh = int(await conn.fetchval(_COUNT_FRESH, timeout=seconds))
                rebuild = fresh >= BULK_MIN_ROWS and fresh >= int(
                    await conn.fetchval(_COUNT, timeout=seconds)
                )
                if rebuild:
                    await conn.execute(ddl.DROP_HNSW, timeout=seconds)
                status: str = await conn.execute(_INSERT_STAGED, timeout=seconds)
                if rebuild:
                    await conn.execute(ddl.BUILD_MEMORY)
                    await _create_vector_index(conn, spec.dimension, seconds)
            return int(status.split()[-1])

        return await self._run(write, "upsert", self._write_deadline)

    async def pending(self, limit: int = MAX_IDS) -> list[Chunk]:
        """Chunks still marked pending, in conversation order (at most ``limit``)."""
        self._check_open()
        limit = sanitize.plain_int(limit, "limit", low=0, high=MAX_IDS)
        rows = await self._run(lambda c: c.fetch(_PENDING, limit), "read")
        return [codec.decode_chunk(row) for row in rows]

    async def mark_done(self, ids: Sequence[str]) -> None:
        """Clear the pending mark of all of these in one transaction, however many: an import
        marks all of its chunks at once, so a crash leaves all of them pending or none."""
        self._check_open()
        asked = sanitize.plain_strings(ids, "ids", max_items=MAX_MARKED, max_chars=1_000)
        if not asked:
            return
        seconds = self._write_deadline

        async def mark(conn: Connection) -> None:
            async with conn.transaction():
                for start in range(0, len(asked), MARK_BATCH):
                    part = asked[start : start + MARK_BATCH]
                    await conn.execute(_MARK_DONE, part, timeout=seconds)

        await self._run(mark, "write", seconds)

    async def scopes_holding(self, said: Sequence[tuple[str, datetime, str]]) -> dict[str, int]:
        self._check_open()
        if not said:
            return {}
        if len(said) > MAX_IDS:
            raise InvalidArgument(f"at most {MAX_IDS} messages are looked up at once")
        speakers = sanitize.plain_strings([s for s, _, _ in said], "speakers", max_items=MAX_IDS)
        texts = [sanitize.plain_text(t, "text", max_chars=codec.MAX_CHUNK_CHARS) for *_, t in said]
        times = [codec.plain_moment(moment, "time") for _, moment, _ in said]
        rows = await self._run(lambda c: c.fetch(_SCOPES_HOLDING, speakers, times, texts), "read")
        return {str(row[0]): int(row[1]) for row in rows}

    async def read_mark(self, name: str) -> str | None:
        self._check_open()
        key = sanitize.plain_text(name, "name", max_chars=200, allow_empty=False)
        value = await self._run(lambda c: c.fetchval(_READ_MARK, key), "read")
        return None if value is None else str(value)

    async def write_mark(self, name: str, value: str) -> None:
        self._check_open()
        key = sanitize.plain_text(name, "name", max_chars=200, allow_empty=False)
        text = sanitize.plain_text(value, "value", max_chars=1_000)
        seconds = self._write_deadline
        await self._run(lambda c: c.execute(_WRITE_MARK, key, text, timeout=seconds), "write")

    async def forget_scope(self, scope: str) -> int:
        plain = forgettable_scope(scope)
        seconds = self._write_deadline
        return await self._run(deleting(_FORGET, plain, seconds=seconds), "delete", seconds)

    async def domains(self) -> list[str]:
        self._check_open()
        rows = await self._run(lambda c: c.fetch(_DOMAINS), "read")
        return [str(row["domain"]) for row in rows]

    async def time_span(self) -> tuple[datetime, datetime] | None:
        """The earliest and latest chunk timestamps (UTC), or ``None`` for an empty store."""
        self._check_open()
        row = await self._run(lambda c: c.fetchrow(_TIME_SPAN), "read")
        if row is None or row[0] is None:
            return None
        return row[0].astimezone(UTC), row[1].astimezone(UTC)

    async def version(self) -> str:
        """``PostgreSQL 18.1, pgvector 0.8.1`` (pgvector's part says when it is missing)."""
        self._check_open()
        return describe_versions(await self._run(lambda c: c.fetchrow(VERSIONS), "read"))

    async def counts(self) -> Mapping[str, int]:
        """``chunks``, ``pending``, ``domain:<d>`` per domain tag and ``scope:<s>`` per scope."""
        self._check_open()

        async def count(conn: Connection) -> dict[str, int]:
            result = {
                "chunks": int(await conn.fetchval(_COUNT)),
                "pending": int(await conn.fetchval(_COUNT_PENDING)),
            }
            for domain, number in await conn.fetch(_COUNT_DOMAINS):
                result[f"domain:{domain}"] = int(number)
            for scope, number in await conn.fetch(_COUNT_SCOPES):
                result[f"scope:{scope}"] = int(number)
            return result

        return await self._run(count, "count")

    # -- re-embedding -----------------------------------------------------------------------

    async def reembed(
        self,
        embed: EmbedTexts,
        spec: EmbeddingSpec,
        *,
        batch: int = 512,
        progress: ReembedProgress | None = None,
        swap_deadline: float | None = None,
    ) -> int:
        """Replace every chunk's vector with ``embed(texts)`` of model ``spec``; returns the count.

        The new vectors go to a staging table ``batch`` chunks at a time (``progress(done,
        total)`` after each); then one transaction drops the old column and its index, adds the
        column typed to ``spec.dimension``, fills it, records ``spec`` and rebuilds the index.
        Until that commits the old vectors, index and spec serve searches unchanged, so a crash
        or an exception from ``embed`` leaves a store that works with the old model, and running
        this again starts over. The same spec as the stored one is allowed (a model upgraded
        under its old name). The swap locks the table, so searches wait for it, within
        ``swap_deadline`` seconds (default: the write deadline, at least ten minutes). A store
        that never saw a vector has nothing to replace and returns 0 untouched. Raises
        ``WriteFailed`` while another re-embed of this store runs.
        """
        self._check_open()
        spec = codec.plain_spec(spec)
        batch = sanitize.plain_int(batch, "batch", low=1, high=_REEMBED_BATCH_MAX)
        seconds = self._write_deadline
        swap_seconds = (
            max(seconds, 600.0)
            if swap_deadline is None
            else sanitize.plain_float(swap_deadline, "swap_deadline", low=0.05, high=86400.0)
        )
        self._spec = None  # another process may have swapped the spec meanwhile
        if await self.embedding_spec() is None:
            return 0
        conn: Connection = await bounded(
            self._pool.acquire(timeout=self._deadline), self._deadline, "connect"
        )
        try:
            if not await bounded(conn.fetchval(_TRY_SESSION_LOCK, _REEMBED_KEY), seconds, "lock"):
                raise WriteFailed("another re-embed of this chunk store is running")
            try:
                return await self._reembed_locked(
                    conn, embed, spec, batch, progress, seconds, swap_seconds
                )
            finally:
                try:
                    await bounded(conn.fetchval(_SESSION_UNLOCK, _REEMBED_KEY), seconds, "unlock")
                except StoreUnavailable:
                    conn.terminate()  # the server drops a closed session's locks
        finally:
            await self._pool.release(conn)

    async def _reembed_locked(
        self,
        conn: Connection,
        embed: EmbedTexts,
        spec: EmbeddingSpec,
        batch: int,
        progress: ReembedProgress | None,
        seconds: float,
        swap_seconds: float,
    ) -> int:
        async def run(statement: str, *args: object) -> None:
            await bounded(conn.execute(statement, *args, timeout=seconds), seconds, "re-embed")

        async def stage(rows: Sequence[asyncpg.Record]) -> None:
            texts = [chunk_embedding_text(str(row["speaker"]), str(row["text"])) for row in rows]
            matrix = codec.vector_matrix(await embed(texts), len(texts), spec.dimension)
            records = [(str(row["id"]), matrix[i]) for i, row in enumerate(rows)]
            await bounded(
                conn.copy_records_to_table(
                    "chunk_reembed",
                    records=records,
                    columns=("id", "embedding"),
                    schema_name=self._schema,
                    timeout=seconds,
                ),
                seconds,
                "re-embed",
            )

        total = int(await bounded(conn.fetchval(_COUNT, timeout=seconds), seconds, "count"))
        done = 0
        if progress is not None:
            progress(done, total)

        async def stage_all() -> None:
            nonlocal done
            await run(_STAGE_DROP)
            await run(_STAGE_CREATE.format(dimension=spec.dimension))
            after = ""
            while True:
                rows = await bounded(
                    conn.fetch(_STAGE_PAGE, after, batch, timeout=seconds), seconds, "re-embed"
                )
                if not rows:
                    return
                await stage(rows)
                after = str(rows[-1]["id"])
                done += len(rows)
                if progress is not None:
                    progress(min(done, total), max(total, done))

        async def swap() -> int:
            async with conn.transaction():
                await conn.execute(ddl.LOCK, ddl.ADVISORY_KEY, timeout=swap_seconds)
                await conn.execute(_LOCK_CHUNKS, timeout=swap_seconds)
                # Chunks an ingest added while the others were staged.
                late = await conn.fetch(_STAGE_MISSING, timeout=swap_seconds)
                for start in range(0, len(late), batch):
                    await stage(late[start : start + batch])
                await conn.execute(ddl.DROP_HNSW, timeout=swap_seconds)
                await conn.execute(_SWAP_DROP_COLUMN, timeout=swap_seconds)
                await conn.execute(
                    _SWAP_ADD_COLUMN.format(dimension=spec.dimension), timeout=swap_seconds
                )
                status: str = await conn.execute(_SWAP_FILL, timeout=swap_seconds)
                await conn.execute(
                    _REPLACE_SPEC, EMBEDDING_KEY, spec.model, spec.dimension, timeout=swap_seconds
                )
                await conn.execute(ddl.BUILD_MEMORY)
                await _create_vector_index(conn, spec.dimension, swap_seconds)
                await conn.execute(_STAGE_DROP, timeout=swap_seconds)
            return int(status.split()[-1])

        try:
            await stage_all()
            self._spec = None
            replaced = await bounded(swap(), swap_seconds, "re-embed swap")
        except BaseException:
            # Only the staged vectors are lost; the live ones were never touched.
            with contextlib.suppress(StoreUnavailable):
                await run(_STAGE_DROP)
            raise
        self._spec = spec
        if progress is not None:
            progress(replaced, replaced)
        return replaced

    # -- internals --------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise StoreUnavailable("the PostgreSQL chunk store is closed")

    async def _run(
        self,
        work: Callable[[Connection], Awaitable[T]],
        what: str,
        deadline: float | None = None,
    ) -> T:
        self._check_open()
        return await run_bounded(self._pool, work, what, deadline or self._deadline)

    async def _fix_spec(self, conn: Connection, spec: EmbeddingSpec, seconds: float) -> None:
        """Record the spec and type the vector column on the very first upsert (under a lock)."""
        if self._spec is not None:
            return
        await conn.execute(ddl.LOCK, ddl.ADVISORY_KEY, timeout=seconds)
        row = await conn.fetchrow(_READ_SPEC, EMBEDDING_KEY)
        if row is not None:
            stored = EmbeddingSpec(str(row["model"]), int(row["dimension"]))
            codec.check_spec(stored, spec)
        else:
            await conn.execute(_WRITE_SPEC, EMBEDDING_KEY, spec.model, spec.dimension)
            await conn.execute(ddl.FIX_DIMENSION.format(dimension=spec.dimension), timeout=seconds)
            await _create_vector_index(conn, spec.dimension, seconds)
        self._spec = spec


def _distance(dimension: int) -> tuple[str, Callable[[np.ndarray[Any, Any]], object]]:
    """The cosine-distance expression the HNSW index serves, and how to pass the query vector."""
    if ddl.HNSW_VECTOR_LIMIT < dimension <= ddl.HNSW_HALFVEC_LIMIT:
        return (
            f"embedding::halfvec({dimension:d}) <=> $1::halfvec({dimension:d})",
            lambda v: HalfVector(v),
        )
    return "embedding <=> $1::vector", lambda v: v


def _filters(domain: object, scope: object) -> tuple[list[str], list[str]]:
    filters: list[str] = []
    params: list[str] = []
    plain_domain = sanitize.optional_text(domain, "domain", max_chars=1_000)
    if plain_domain is not None:
        params.append(plain_domain)
        filters.append(_DOMAIN_FILTER.format(n=len(params) + 2))
    plain_scope = sanitize.optional_text(scope, "scope", max_chars=1_000)
    if plain_scope is not None:
        params.append(normalise_scope(plain_scope))
        filters.append(_SCOPE_FILTER.format(n=len(params) + 2))
    return filters, params


async def _create_vector_index(conn: Connection, dimension: int, seconds: float) -> None:
    if dimension <= ddl.HNSW_VECTOR_LIMIT:
        await conn.execute(ddl.CREATE_HNSW, timeout=seconds)
    elif dimension <= ddl.HNSW_HALFVEC_LIMIT:
        await conn.execute(ddl.CREATE_HNSW_HALF.format(dimension=dimension), timeout=seconds)
