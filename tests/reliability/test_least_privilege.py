"""Schema set-up once per store version: a connect to a store already set up only reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.falkor import FalkorGraphStore
from explorer.adapters.postgres.chunks import PgChunkStore
from explorer.adapters.postgres.concepts import PgConceptStore


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServers]:
    servers = EmbeddedServers(tmp_path_factory.mktemp("privilege"))
    servers.start()
    try:
        yield servers
    finally:
        servers.stop()


async def test_postgres_stores_connect_read_only_once_set_up(servers: EmbeddedServers) -> None:
    dsn = servers.postgres_dsn
    first = await PgChunkStore.connect(dsn, schema="once")
    concepts = await PgConceptStore.connect(dsn, schema="once")
    await first.aclose()
    await concepts.aclose()
    # Every transaction read-only: any DDL on connect would fail here.
    read_only = f"{dsn}&default_transaction_read_only=on"
    again = await PgChunkStore.connect(read_only, schema="once")
    try:
        assert (await again.counts())["chunks"] == 0
    finally:
        await again.aclose()
    concepts = await PgConceptStore.connect(read_only, schema="once")
    await concepts.aclose()


def _graph_writes(socket: Path) -> int:
    client = redis.Redis(unix_socket_path=str(socket))
    try:
        stats = client.info("commandstats")
    finally:
        client.close()
    return int(stats.get("cmdstat_graph.QUERY", {}).get("calls", 0))


async def test_a_graph_set_up_is_only_read_on_connect(servers: EmbeddedServers) -> None:
    socket = servers.falkordb_socket
    store = await FalkorGraphStore.connect(socket_path=socket, graph="once")
    await store.aclose()
    writes = _graph_writes(socket)
    again = await FalkorGraphStore.connect(socket_path=socket, graph="once")
    try:
        assert _graph_writes(socket) == writes
        assert (await again.counts())["entities"] == 0
        # A graph deleted under its marker is set up again.
        await again.delete_graph(recreate_schema=False)
    finally:
        await again.aclose()
    fresh = await FalkorGraphStore.connect(socket_path=socket, graph="once")
    try:
        assert _graph_writes(socket) > writes
        assert (await fresh.counts())["entities"] == 0
    finally:
        await fresh.aclose()


async def test_the_app_role_is_no_superuser_and_each_data_dir_has_its_own_password(
    servers: EmbeddedServers, tmp_path: Path
) -> None:
    import asyncpg

    conn = await asyncpg.connect(servers.postgres_dsn)
    try:
        row = await conn.fetchrow(
            "SELECT current_user AS who, rolsuper, rolcreaterole, rolcreatedb FROM pg_roles "
            "WHERE rolname = current_user"
        )
    finally:
        await conn.close()
    assert row is not None and dict(row) == {
        "who": "scour",
        "rolsuper": False,
        "rolcreaterole": False,
        "rolcreatedb": False,
    }
    without = servers.postgres_dsn.split("&passfile=")[0]
    for user in ("scour", "postgres"):
        with pytest.raises(asyncpg.InvalidPasswordError):
            await asyncpg.connect(without.replace("scour@", f"{user}@", 1), timeout=5)
    passfile = servers.data_dir / "postgres.pgpass"
    assert passfile.stat().st_mode & 0o077 == 0
    other = EmbeddedServers(tmp_path / "other")
    other.start()
    try:
        mine = passfile.read_text()
        theirs = (tmp_path / "other" / "postgres.pgpass").read_text()
        assert mine.splitlines()[1].split(":")[4] != theirs.splitlines()[1].split(":")[4]
    finally:
        other.stop()
