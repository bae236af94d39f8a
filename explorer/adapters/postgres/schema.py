"""The PostgreSQL schema: set-up DDL, applied once per digest, and the chunk store's tables.

A store's connect runs its set-up DDL (the chunk store's ``CHUNK_TABLES``, the concept store's
and the journal's own) inside one transaction under an advisory lock, with the ``vector``
extension and the schema created first, and records the DDL's digest in ``scour_migrations``, so
a later connect to a set-up store only reads (no DDL needs write access, a full disk or a
read-only standby never fails a connect). ``version_counter_sql`` gives a table a one-row
version that statement triggers bump on every change. The chunks' HNSW cosine index is built on
``vector`` up to 2000 dimensions and on ``halfvec`` up to 4000. Every formatted part is a
validated integer or identifier, or a table name of this package. Imports only ``asyncpg``.
"""

from __future__ import annotations

import asyncpg

HNSW_VECTOR_LIMIT = 2_000
HNSW_HALFVEC_LIMIT = 4_000
# Serialises schema creation and the first upsert across processes sharing one database.
ADVISORY_KEY = 0x5C0BC4

CREATE_SCHEMA = "CREATE SCHEMA IF NOT EXISTS {schema}"


def version_counter_sql(table: str) -> str:
    """DDL for ``<table>_version``: one row bumped by statement triggers whenever rows change.

    Readers compare it with the value they last saw, so "did anything change?" costs one lookup.
    ``epoch`` is drawn at random whenever the count moves, so a count from another database, from
    this table dropped and made again or from a restored backup never passes for this one's
    state: search indexes saved between runs are keyed by both. ``table`` is one of this
    module's own table names, never user text.
    """
    return f"""
CREATE TABLE IF NOT EXISTS {table}_version (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    version bigint NOT NULL
);
ALTER TABLE {table}_version ADD COLUMN IF NOT EXISTS epoch text NOT NULL
    DEFAULT gen_random_uuid()::text;
INSERT INTO {table}_version (one, version) VALUES (true, 0) ON CONFLICT DO NOTHING;
CREATE OR REPLACE FUNCTION {table}_bump_version() RETURNS trigger
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' OR EXISTS (SELECT 1 FROM changed) THEN
        UPDATE {table}_version SET version = version + 1, epoch = gen_random_uuid()::text;
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


CHUNK_TABLES = """
CREATE TABLE IF NOT EXISTS store_meta (
    key text PRIMARY KEY,
    model text NOT NULL,
    dimension integer NOT NULL CHECK (dimension > 0),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS store_marks (
    name text PRIMARY KEY,
    value text NOT NULL,
    written_at timestamptz NOT NULL DEFAULT now()
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
-- Added after the first release: stores made before it gain the column here (looked up
-- first: ALTER TABLE locks the table even when the column is there).
DO $$ BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'chunks' AND column_name = 'title'
    ) THEN
        ALTER TABLE chunks ADD COLUMN title text NOT NULL DEFAULT '';
    END IF;
END $$;
-- Finds a message by its time, for telling a file imported a second time (scopes_holding).
CREATE INDEX IF NOT EXISTS chunks_ts_idx ON chunks (ts);
CREATE INDEX IF NOT EXISTS chunks_tsv_idx ON chunks USING gin (tsv);
CREATE INDEX IF NOT EXISTS chunks_domains_idx ON chunks USING gin (domains);
CREATE INDEX IF NOT EXISTS chunks_scope_idx ON chunks (scope text_pattern_ops);
CREATE INDEX IF NOT EXISTS chunks_conversation_idx ON chunks (conversation_id, position);
CREATE INDEX IF NOT EXISTS chunks_pending_idx ON chunks (id) WHERE ingest_state = 'pending';
""" + version_counter_sql("chunks")
FIX_DIMENSION = "ALTER TABLE chunks ALTER COLUMN embedding TYPE vector({dimension:d})"
CREATE_HNSW = (
    "CREATE INDEX IF NOT EXISTS chunks_embedding_idx ON chunks "
    "USING hnsw (embedding vector_cosine_ops)"
)
CREATE_HNSW_HALF = (
    "CREATE INDEX IF NOT EXISTS chunks_embedding_idx ON chunks "
    "USING hnsw ((embedding::halfvec({dimension:d})) halfvec_cosine_ops)"
)
DROP_HNSW = "DROP INDEX IF EXISTS chunks_embedding_idx"
BUILD_MEMORY = "SELECT set_config('maintenance_work_mem', '256MB', true)"
VECTOR_SCHEMA = (
    "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
    "WHERE e.extname = 'vector'"
)
LOCK = "SELECT pg_advisory_xact_lock($1)"
# Which set-up DDL (by digest) a schema has had, so a connect to a set-up store only reads.
MIGRATIONS = "scour_migrations"
CREATE_MIGRATIONS = (
    "CREATE TABLE IF NOT EXISTS {table} (digest text PRIMARY KEY, applied_at timestamptz "
    "NOT NULL DEFAULT now())"
)
RECORD_MIGRATION = "INSERT INTO {table} (digest) VALUES ($1) ON CONFLICT DO NOTHING"


async def migrated(conn: asyncpg.Connection, table: str, digest: str) -> bool:
    """Whether ``table`` records the set-up DDL of ``digest`` (False when there is none yet)."""
    if not await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", table):
        return False
    return bool(
        await conn.fetchval(f"SELECT EXISTS (SELECT FROM {table} WHERE digest = $1)", digest)
    )
