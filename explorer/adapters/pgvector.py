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
validated integers and the validated schema identifier. Every call runs under
``core.deadline.within`` with asyncpg's own connect, command and pool-acquire timeouts behind
it. Imports the core, ``adapters.sanitize``, ``core.deadline``, ``asyncpg``, ``pgvector`` and
``numpy``.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeAlias, TypeVar

import asyncpg
import numpy as np
from pgvector import HalfVector
from pgvector.asyncpg import register_vector

from explorer.adapters import sanitize
from explorer.core.deadline import DeadlineExceeded, within
from explorer.core.errors import (
    EmbeddingMismatch,
    InvalidArgument,
    StoreTimeout,
    StoreUnavailable,
    WriteFailed,
)
from explorer.core.models import (
    DEFAULT_SCOPE,
    Chunk,
    ChunkHit,
    EmbeddingSpec,
    MemoryLayer,
    chunk_embedding_text,
    scope_parts,
)
from explorer.core.ports import Vector

T = TypeVar("T")
Connection: TypeAlias = "asyncpg.pool.PoolConnectionProxy[asyncpg.Record]"
EmbedTexts: TypeAlias = Callable[[Sequence[str]], Awaitable[Sequence[Vector]]]
ReembedProgress: TypeAlias = Callable[[int, int], None]

MAX_K = 1_000
MAX_IDS = 100_000
MAX_QUERY_CHARS = 10_000
MAX_CHUNK_CHARS = 1_000_000
MAX_DIMENSION = 16_000
HNSW_VECTOR_LIMIT = 2_000
HNSW_HALFVEC_LIMIT = 4_000
MAX_LEXEMES = 64
BULK_MIN_ROWS = 2_000
EMBEDDING_KEY = "embedding"
# Serialises schema creation and the first upsert across processes sharing one database.
_ADVISORY_KEY = 0x5C0BC4

_CHUNK_COLUMNS = (
    "id, text, conversation_id, position, speaker, ts, domains, scope, layer, content_hash, "
    "turn_id, turn_offset"
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
    "embedding",
    "ingest_state",
)

_CREATE_SCHEMA = "CREATE SCHEMA IF NOT EXISTS {schema}"


def version_counter_sql(table: str) -> str:
    """DDL for ``<table>_version``: one row bumped by statement triggers whenever rows change.

    Readers compare it with the value they last saw, so "did anything change?" costs one lookup.
    ``table`` is one of this module's own table names, never user text.
    """
    return f"""
CREATE TABLE IF NOT EXISTS {table}_version (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    version bigint NOT NULL
);
INSERT INTO {table}_version (one, version) VALUES (true, 0) ON CONFLICT DO NOTHING;
CREATE OR REPLACE FUNCTION {table}_bump_version() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        UPDATE {table}_version SET version = version + 1;
    ELSIF EXISTS (SELECT 1 FROM changed) THEN
        UPDATE {table}_version SET version = version + 1;
    END IF;
    RETURN NULL;
END
$$;
CREATE OR REPLACE TRIGGER {table}_version_insert AFTER INSERT ON {table}
REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION {table}_bump_version();
CREATE OR REPLACE TRIGGER {table}_version_update AFTER UPDATE ON {table}
REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION {table}_bump_version();
CREATE OR REPLACE TRIGGER {table}_version_delete AFTER DELETE ON {table}
REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION {table}_bump_version();
CREATE OR REPLACE TRIGGER {table}_version_truncate AFTER TRUNCATE ON {table}
FOR EACH STATEMENT EXECUTE FUNCTION {table}_bump_version();
"""


_CREATE_TABLES = """
CREATE TABLE IF NOT EXISTS store_meta (
    key text PRIMARY KEY,
    model text NOT NULL,
    dimension integer NOT NULL CHECK (dimension > 0),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS chunks (
    id text PRIMARY KEY,
    text text NOT NULL,
    conversation_id text NOT NULL,
    position integer NOT NULL,
    speaker text NOT NULL,
    ts timestamptz NOT NULL,
    domains text[] NOT NULL DEFAULT '{}',
    scope text NOT NULL,
    layer text NOT NULL,
    content_hash text UNIQUE,
    turn_id text NOT NULL DEFAULT '',
    turn_offset integer NOT NULL DEFAULT 0,
    embedding vector,
    ingest_state text NOT NULL DEFAULT 'done' CHECK (ingest_state IN ('pending', 'done')),
    tsv tsvector GENERATED ALWAYS AS (
        to_tsvector('english'::regconfig, speaker || ' ' || text)
    ) STORED
);
CREATE INDEX IF NOT EXISTS chunks_tsv_idx ON chunks USING gin (tsv);
CREATE INDEX IF NOT EXISTS chunks_domains_idx ON chunks USING gin (domains);
CREATE INDEX IF NOT EXISTS chunks_scope_idx ON chunks (scope text_pattern_ops);
CREATE INDEX IF NOT EXISTS chunks_conversation_idx ON chunks (conversation_id, position);
CREATE INDEX IF NOT EXISTS chunks_pending_idx ON chunks (id) WHERE ingest_state = 'pending';
""" + version_counter_sql("chunks")
_FIX_DIMENSION = "ALTER TABLE chunks ALTER COLUMN embedding TYPE vector({dimension:d})"
_CREATE_HNSW = (
    "CREATE INDEX IF NOT EXISTS chunks_embedding_idx ON chunks "
    "USING hnsw (embedding vector_cosine_ops)"
)
_CREATE_HNSW_HALF = (
    "CREATE INDEX IF NOT EXISTS chunks_embedding_idx ON chunks "
    "USING hnsw ((embedding::halfvec({dimension:d})) halfvec_cosine_ops)"
)
_DROP_HNSW = "DROP INDEX IF EXISTS chunks_embedding_idx"
_BUILD_MEMORY = "SELECT set_config('maintenance_work_mem', '256MB', true)"
_READ_SPEC = "SELECT model, dimension FROM store_meta WHERE key = $1"
_WRITE_SPEC = "INSERT INTO store_meta (key, model, dimension) VALUES ($1, $2, $3)"
_VECTOR_SCHEMA = (
    "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
    "WHERE e.extname = 'vector'"
)
_LOCK = "SELECT pg_advisory_xact_lock($1)"
# Which set-up DDL (by digest) a schema has had, so a connect to a set-up store only reads.
_MIGRATIONS = "scour_migrations"
_CREATE_MIGRATIONS = (
    "CREATE TABLE IF NOT EXISTS {table} (digest text PRIMARY KEY, applied_at timestamptz "
    "NOT NULL DEFAULT now())"
)
_RECORD_MIGRATION = "INSERT INTO {table} (digest) VALUES ($1) ON CONFLICT DO NOTHING"

_CREATE_STAGING = """
CREATE TEMP TABLE chunk_staging (
    id text, text text, conversation_id text, position integer, speaker text, ts timestamptz,
    domains text[], scope text, layer text, content_hash text, turn_id text, turn_offset integer,
    embedding vector({dimension:d}), ingest_state text
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
_VERSIONS = (
    "SELECT current_setting('server_version'), "
    "(SELECT extversion FROM pg_extension WHERE extname = 'vector')"
)
# The stamp for index caches: a version statement triggers bump whenever rows of chunks change, so
# any added, changed or removed chunk changes it and reading it is one row lookup (a count or
# hash over the scope's rows costs a scan of them on every query).
_VERSION = "SELECT version FROM chunks_version"
# Parameter 1 is the scope (or NULL).
_SCOPE_WHERE = "($1::text IS NULL OR scope = $1::text OR starts_with(scope, $1::text || '/'))"
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


def _timestamp(value: object, name: str) -> datetime:
    if not isinstance(value, datetime):
        raise InvalidArgument(f"{name} must be a datetime")
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def normalise_scope(scope: str) -> str:
    """A scope path without empty levels or stray separators."""
    return "/".join(scope_parts(scope))


def _plain_spec(spec: object) -> EmbeddingSpec:
    if not isinstance(spec, EmbeddingSpec):
        raise InvalidArgument("spec must be an EmbeddingSpec")
    return EmbeddingSpec(
        sanitize.plain_text(spec.model, "spec.model", max_chars=200, allow_empty=False),
        sanitize.plain_int(spec.dimension, "spec.dimension", low=1, high=MAX_DIMENSION),
    )


def _matrix(vectors: object, rows: int, dimension: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    if isinstance(vectors, str | bytes) or not isinstance(vectors, Sequence | np.ndarray):
        raise InvalidArgument("vectors must be a sequence of vectors")
    if len(vectors) != rows:
        raise InvalidArgument(f"got {rows} chunks but {len(vectors)} vectors")
    if rows == 0:
        return np.zeros((0, dimension), dtype=np.float32)
    try:
        matrix = np.asarray(vectors, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidArgument("vectors must be equal-length sequences of numbers") from None
    if matrix.ndim != 2:
        raise InvalidArgument("vectors must be equal-length sequences of numbers")
    if matrix.shape[1] != dimension:
        raise EmbeddingMismatch(
            f"vectors have dimension {matrix.shape[1]} but the spec says {dimension}"
        )
    if not np.isfinite(matrix).all():
        raise InvalidArgument("vectors must contain only finite numbers")
    return matrix.astype(np.float32)


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
            setup=_CREATE_TABLES,
            connect_deadline=connect_deadline,
        )
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
        spec = _plain_spec(spec)
        k = sanitize.plain_int(k, "k", low=0, high=MAX_K)
        query = _matrix([vector], 1, spec.dimension)[0]
        filters, params = _filters(domain, scope)
        stored = await self.embedding_spec()
        if stored is None:
            return []
        _check_spec(stored, spec)
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
        ef_search = str(min(max(40, 2 * k), 1000))

        async def knn(conn: Connection) -> list[asyncpg.Record]:
            async with conn.transaction(readonly=True):
                await conn.execute("SELECT set_config('hnsw.ef_search', $1, true)", ef_search)
                if filters:
                    await conn.execute(
                        "SELECT set_config('hnsw.iterative_scan', 'strict_order', true)"
                    )
                rows: list[asyncpg.Record] = await conn.fetch(indexed, value, k, *params)
                if filters and len(rows) < k:
                    # The iterative scan gives up after hnsw.max_scan_tuples; an exact scan
                    # over the filtered rows is the only way to be sure none are missed.
                    rows = await conn.fetch(exact, value, k, *params)
                return rows

        rows = await self._run(knn, "vector search")
        return [ChunkHit(chunk=_chunk(row), similarity=float(row["similarity"])) for row in rows]

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
        return [ChunkHit(chunk=_chunk(row), lexical=float(row["rank"])) for row in rows]

    async def scope_stamp(self, scope: str | None) -> str:
        """Changes whenever a chunk is written, so whenever one in ``scope`` is (``None``: all)."""
        self._plain_scope(scope)
        row = await self._run(lambda c: c.fetchrow(_VERSION), "read")
        return f"v{int(row[0]) if row is not None else 0}"

    async def scope_chunks(self, scope: str | None) -> list[Chunk]:
        """Every chunk in ``scope`` and below it, in conversation order (``None``: all)."""
        plain = self._plain_scope(scope)
        rows = await self._run(lambda c: c.fetch(_SCOPE_CHUNKS, plain), "read")
        return [_chunk(row) for row in rows]

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
        found = {str(row["id"]): _chunk(row) for row in rows}
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
        spec = _plain_spec(spec)
        if not isinstance(pending, bool):
            raise InvalidArgument("pending must be a bool")
        if isinstance(chunks, str | bytes) or not isinstance(chunks, Sequence):
            raise InvalidArgument("chunks must be a sequence of Chunk")
        matrix = _matrix(vectors, len(chunks), spec.dimension)
        state = "pending" if pending else "done"
        records = [
            (*_chunk_values(chunk, index), matrix[index], state)
            for index, chunk in enumerate(chunks)
        ]
        if not records:
            return 0
        stored = await self.embedding_spec()
        if stored is not None:
            _check_spec(stored, spec)

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
                    await conn.execute(_DROP_HNSW, timeout=seconds)
                status: str = await conn.execute(_INSERT_STAGED, timeout=seconds)
                if rebuild:
                    await conn.execute(_BUILD_MEMORY)
                    await _create_vector_index(conn, spec.dimension, seconds)
            return int(status.split()[-1])

        return await self._run(write, "upsert", self._write_deadline)

    async def pending(self, limit: int = MAX_IDS) -> list[Chunk]:
        """Chunks still marked pending, in conversation order (at most ``limit``)."""
        self._check_open()
        limit = sanitize.plain_int(limit, "limit", low=0, high=MAX_IDS)
        rows = await self._run(lambda c: c.fetch(_PENDING, limit), "read")
        return [_chunk(row) for row in rows]

    async def mark_done(self, ids: Sequence[str]) -> None:
        self._check_open()
        asked = sanitize.plain_strings(ids, "ids", max_items=MAX_IDS, max_chars=1_000)
        if asked:
            seconds = self._write_deadline
            await self._run(
                lambda c: c.execute(_MARK_DONE, asked, timeout=seconds), "write", seconds
            )

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
        return _describe_versions(await self._run(lambda c: c.fetchrow(_VERSIONS), "read"))

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
        spec = _plain_spec(spec)
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
                with contextlib.suppress(StoreUnavailable):
                    await bounded(conn.fetchval(_SESSION_UNLOCK, _REEMBED_KEY), seconds, "unlock")
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
            matrix = _matrix(await embed(texts), len(texts), spec.dimension)
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
                await conn.execute(_LOCK, _ADVISORY_KEY, timeout=swap_seconds)
                await conn.execute(_LOCK_CHUNKS, timeout=swap_seconds)
                # Chunks an ingest added while the others were staged.
                late = await conn.fetch(_STAGE_MISSING, timeout=swap_seconds)
                for start in range(0, len(late), batch):
                    await stage(late[start : start + batch])
                await conn.execute(_DROP_HNSW, timeout=swap_seconds)
                await conn.execute(_SWAP_DROP_COLUMN, timeout=swap_seconds)
                await conn.execute(
                    _SWAP_ADD_COLUMN.format(dimension=spec.dimension), timeout=swap_seconds
                )
                status: str = await conn.execute(_SWAP_FILL, timeout=swap_seconds)
                await conn.execute(
                    _REPLACE_SPEC, EMBEDDING_KEY, spec.model, spec.dimension, timeout=swap_seconds
                )
                await conn.execute(_BUILD_MEMORY)
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
        await conn.execute(_LOCK, _ADVISORY_KEY, timeout=seconds)
        row = await conn.fetchrow(_READ_SPEC, EMBEDDING_KEY)
        if row is not None:
            stored = EmbeddingSpec(str(row["model"]), int(row["dimension"]))
            _check_spec(stored, spec)
        else:
            await conn.execute(_WRITE_SPEC, EMBEDDING_KEY, spec.model, spec.dimension)
            await conn.execute(_FIX_DIMENSION.format(dimension=spec.dimension), timeout=seconds)
            await _create_vector_index(conn, spec.dimension, seconds)
        self._spec = spec


# -- shared with the concept store ------------------------------------------------------------


def _describe_versions(row: Any) -> str:
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
            return _describe_versions(await conn.fetchrow(_VERSIONS))
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
) -> tuple[asyncpg.Pool, str, float, float]:
    """A pool whose connections use ``schema`` (created with ``setup`` DDL if missing);
    ``connect_deadline`` (default: ``deadline``) bounds connecting and the set-up."""
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
    table = f"{plain_schema}.{_MIGRATIONS}"

    async def prepare() -> str:
        conn = await asyncpg.connect(dsn, timeout=connect_s, command_timeout=write_s)
        try:
            # A store already set up with this very DDL is only read: no DDL on every connect
            # (it needs write access, and fails on a full disk or a read-only standby).
            if await _migrated(conn, table, digest):
                return str(await conn.fetchval(_VECTOR_SCHEMA))
            async with conn.transaction():
                await conn.execute(_LOCK, _ADVISORY_KEY)
                await conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                await conn.execute(_CREATE_SCHEMA.format(schema=plain_schema))
                vector_schema = str(await conn.fetchval(_VECTOR_SCHEMA))
                await conn.execute(f"SET LOCAL search_path TO {plain_schema}, {vector_schema}")
                await conn.execute(setup)
                await conn.execute(_CREATE_MIGRATIONS.format(table=table))
                await conn.execute(_RECORD_MIGRATION.format(table=table), digest)
            return vector_schema
        finally:
            await conn.close(timeout=connect_s)

    vector_schema = await bounded(prepare(), connect_s, "connect")

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
            server_settings={"search_path": f"{plain_schema}, {vector_schema}"},
        ),
        connect_s + 1.0,
        "connect",
    )
    if pool_or_none is None:
        raise StoreUnavailable("PostgreSQL pool could not be created")
    return pool_or_none, plain_schema, read_s, write_s


async def _migrated(conn: asyncpg.Connection, table: str, digest: str) -> bool:
    """Whether ``table`` records the set-up DDL of ``digest`` (False when there is none yet)."""
    if not await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", table):
        return False
    return bool(
        await conn.fetchval(f"SELECT EXISTS (SELECT FROM {table} WHERE digest = $1)", digest)
    )


async def close_pool(pool: asyncpg.Pool, deadline: float) -> None:
    """Close gracefully within ``deadline``, else terminate every connection."""
    try:
        await within(pool.close(), deadline)
    except DeadlineExceeded:
        pool.terminate()


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


async def _create_vector_index(conn: Connection, dimension: int, seconds: float) -> None:
    if dimension <= HNSW_VECTOR_LIMIT:
        await conn.execute(_CREATE_HNSW, timeout=seconds)
    elif dimension <= HNSW_HALFVEC_LIMIT:
        await conn.execute(_CREATE_HNSW_HALF.format(dimension=dimension), timeout=seconds)


def _check_spec(stored: EmbeddingSpec, given: EmbeddingSpec) -> None:
    if stored != given:
        raise EmbeddingMismatch(
            f"the chunk store holds {stored.model!r} vectors of dimension {stored.dimension}; "
            f"got {given.model!r} of dimension {given.dimension}. Re-embed the store or query "
            f"it with the model it was built with."
        )


def _distance(dimension: int) -> tuple[str, Callable[[np.ndarray[Any, Any]], object]]:
    """The cosine-distance expression the HNSW index serves, and how to pass the query vector."""
    if HNSW_VECTOR_LIMIT < dimension <= HNSW_HALFVEC_LIMIT:
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


def _chunk_values(chunk: object, index: int) -> tuple[object, ...]:
    name = f"chunks[{index}]"
    if not isinstance(chunk, Chunk):
        raise InvalidArgument(f"{name} is not a Chunk")
    layer = sanitize.plain_text(chunk.layer, f"{name}.layer", max_chars=100)
    try:
        layer = str.__str__(MemoryLayer(layer).value)
    except ValueError:
        raise InvalidArgument(f"{name}.layer is not a memory layer") from None
    content_hash = sanitize.plain_text(chunk.content_hash, f"{name}.content_hash", max_chars=200)
    return (
        sanitize.plain_text(chunk.id, f"{name}.id", max_chars=1_000, allow_empty=False),
        sanitize.plain_text(chunk.text, f"{name}.text", max_chars=MAX_CHUNK_CHARS),
        sanitize.plain_text(chunk.conversation_id, f"{name}.conversation_id", max_chars=1_000),
        sanitize.plain_int(chunk.position, f"{name}.position", low=0, high=2**31 - 1),
        sanitize.plain_text(chunk.speaker, f"{name}.speaker", max_chars=1_000),
        _timestamp(chunk.timestamp, f"{name}.timestamp"),
        list(
            dict.fromkeys(sanitize.plain_strings(chunk.domains, f"{name}.domains", max_items=1_000))
        ),
        normalise_scope(sanitize.plain_text(chunk.scope, f"{name}.scope", max_chars=1_000))
        or DEFAULT_SCOPE,
        layer,
        content_hash or None,
        sanitize.plain_text(chunk.turn_id, f"{name}.turn_id", max_chars=1_000),
        sanitize.plain_int(chunk.turn_offset, f"{name}.turn_offset", low=0, high=2**31 - 1),
    )


def _chunk(row: asyncpg.Record) -> Chunk:
    layer = str(row["layer"])
    with contextlib.suppress(ValueError):
        return _build_chunk(row, MemoryLayer(layer))
    return _build_chunk(row, MemoryLayer.EPISODIC)


def _build_chunk(row: asyncpg.Record, layer: MemoryLayer) -> Chunk:
    return Chunk(
        id=str(row["id"]),
        text=str(row["text"]),
        conversation_id=str(row["conversation_id"]),
        position=int(row["position"]),
        speaker=str(row["speaker"]),
        timestamp=row["ts"],
        domains=tuple(str(d) for d in row["domains"] or ()),
        scope=str(row["scope"]),
        layer=layer,
        content_hash=str(row["content_hash"] or ""),
        turn_id=str(row["turn_id"] or ""),
        turn_offset=int(row["turn_offset"] or 0),
    )
