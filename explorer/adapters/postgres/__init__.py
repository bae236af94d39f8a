"""PostgreSQL + pgvector, by job: ``chunks`` (``PgChunkStore``, the ``ChunkStore``), ``concepts``
(``PgConceptStore``), ``journal`` (``PgRecallJournal``), ``pool`` (pools, bounded calls, driver
errors mapped, the connection test), ``schema`` (set-up DDL and migrations) and ``codec``
(chunks and vectors to rows and back). Imports only its own modules.
"""

from explorer.adapters.postgres.chunks import PgChunkStore
from explorer.adapters.postgres.concepts import PgConceptStore
from explorer.adapters.postgres.journal import PgRecallJournal
from explorer.adapters.postgres.pool import server_version

__all__ = ["PgChunkStore", "PgConceptStore", "PgRecallJournal", "server_version"]
