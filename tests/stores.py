"""Fixtures over the real embedded FalkorDB and PostgreSQL servers, for every test package
(loaded as a plugin by ``tests/conftest.py``, so there is one pair of servers per session).

One pair of servers per session in a temporary data dir (``servers``); each test gets stores of
its own, a fresh FalkorDB graph or PostgreSQL schema, dropped afterwards, so tests never see each
other's data. Tests that freeze or kill a server use ``own_servers``, a second pair that nothing
else shares.
"""

from __future__ import annotations

import signal
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path

import asyncpg
import psutil
import pytest

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.falkor import FalkorGraphStore
from explorer.adapters.local_embedder import LocalEmbedder
from explorer.adapters.postgres.chunks import PgChunkStore
from explorer.adapters.postgres.concepts import PgConceptStore


def _started(data_dir: Path) -> Iterator[EmbeddedServers]:
    servers = EmbeddedServers(data_dir)
    servers.start()
    try:
        yield servers
    finally:
        servers.stop()


@pytest.fixture(scope="session")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServers]:
    yield from _started(tmp_path_factory.mktemp("stores"))


@pytest.fixture(scope="module")
def own_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServers]:
    """Servers for tests that freeze or kill them, so the shared pair stays healthy."""
    yield from _started(tmp_path_factory.mktemp("own-stores"))


@contextmanager
def frozen(pid: int | None) -> Iterator[None]:
    """SIGSTOP a server and its child processes (PostgreSQL serves each connection from a child)
    for the block; all are resumed afterwards, even when the block fails."""
    assert pid is not None, "the server is not running"
    server = psutil.Process(pid)
    processes = [server, *server.children(recursive=True)]
    stopped: list[psutil.Process] = []
    try:
        for process in processes:
            with suppress(psutil.NoSuchProcess):
                process.send_signal(signal.SIGSTOP)
                stopped.append(process)
        yield
    finally:
        for process in stopped:
            with suppress(psutil.NoSuchProcess):
                process.send_signal(signal.SIGCONT)


def unique_name(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


@pytest.fixture
def freeze() -> Callable[[int | None], AbstractContextManager[None]]:
    """``with freeze(pid):`` keeps a server stopped for the block."""
    return frozen


@pytest.fixture
def fresh_name() -> Callable[[str], str]:
    """A graph or schema name no other test uses."""
    return unique_name


async def drop_schema(dsn: str, schema: str) -> None:
    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    finally:
        await conn.close()


@pytest.fixture
async def graph_store(servers: EmbeddedServers) -> AsyncIterator[FalkorGraphStore]:
    store = await FalkorGraphStore.connect(
        socket_path=servers.falkordb_socket, graph=unique_name("test")
    )
    try:
        yield store
    finally:
        if not store.closed:
            await store.delete_graph(recreate_schema=False)
            await store.aclose()


@pytest.fixture
def pg_schema(servers: EmbeddedServers) -> str:
    return unique_name("test")


@pytest.fixture
async def chunk_store(servers: EmbeddedServers, pg_schema: str) -> AsyncIterator[PgChunkStore]:
    store = await PgChunkStore.connect(servers.postgres_dsn, schema=pg_schema)
    try:
        yield store
    finally:
        await store.aclose()
        await drop_schema(servers.postgres_dsn, pg_schema)


@pytest.fixture
async def concept_store(servers: EmbeddedServers, pg_schema: str) -> AsyncIterator[PgConceptStore]:
    store = await PgConceptStore.connect(servers.postgres_dsn, schema=pg_schema)
    try:
        yield store
    finally:
        await store.aclose()
        await drop_schema(servers.postgres_dsn, pg_schema)


@pytest.fixture(scope="session")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A data directory holding the demo memory, its embedded servers kept running for the
    session (commands and subprocesses attach to them) and stopped at the end."""
    from explorer.cli import main

    data_dir = tmp_path_factory.mktemp("demo")
    servers = EmbeddedServers(data_dir)
    servers.start()
    try:
        assert main(["--data-dir", str(data_dir), "demo"]) == 0
        yield data_dir
    finally:
        servers.stop()
