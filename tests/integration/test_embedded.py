"""Integration tests for the embedded FalkorDB and PostgreSQL servers, against the real binaries.

Each test gets its own data directory under pytest's tmp_path, and a finalizer that stops the
servers and then kills anything still running from that directory, so a failing test cannot leave
a daemon behind for the next one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import pwd
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import psutil
import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from explorer.adapters.embedded import EmbeddedServers, ServerStatus
from explorer.core.errors import StoreUnavailable

START_TIMEOUT = 30.0


def _processes_under(data_dir: Path) -> list[psutil.Process]:
    """Every redis-server/postgres process whose working directory lies in ``data_dir``."""
    root = os.path.realpath(data_dir)
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.name() not in ("redis-server", "postgres"):
                continue
            if proc.status() == psutil.STATUS_ZOMBIE:
                continue
            cwd = os.path.realpath(proc.cwd())
        except psutil.Error:
            continue
        if cwd == root or cwd.startswith(root + os.sep):
            found.append(proc)
    return found


def _make(data_dir: Path, request: pytest.FixtureRequest, **kwargs: Any) -> EmbeddedServers:
    servers = EmbeddedServers(data_dir, **kwargs)

    def finalize() -> None:
        for proc in _processes_under(data_dir):
            # A test may leave a server SIGSTOPped; let it run so it can shut down.
            proc.send_signal(signal.SIGCONT)
        try:
            servers.stop()
        finally:
            leftovers = _processes_under(data_dir)
            for proc in leftovers:
                proc.kill()
            psutil.wait_procs(leftovers, timeout=10)
        assert not leftovers, f"stop() left processes behind: {leftovers}"

    request.addfinalizer(finalize)
    return servers


@pytest.fixture
def servers(tmp_path: Path, request: pytest.FixtureRequest) -> EmbeddedServers:
    return _make(tmp_path / "data", request, start_timeout=START_TIMEOUT)


def _redis(servers: EmbeddedServers) -> redis.Redis:
    return redis.Redis(
        unix_socket_path=str(servers.falkordb_socket),
        socket_timeout=5,
        retry=Retry(NoBackoff(), 0),
    )


def _command(client: redis.Redis, *args: str) -> Any:
    untyped: Any = client.execute_command  # redis-py leaves it unannotated
    return untyped(*args)


def _graph_values(client: redis.Redis, graph: str = "g") -> list[int]:
    reply = _command(client, "GRAPH.RO_QUERY", graph, "MATCH (n:N) RETURN n.v ORDER BY n.v")
    return [row[0] for row in reply[1]]


def _pg(dsn: str, sql: str, *args: Any) -> Any:
    """Run one statement in a private event loop, away from pytest-asyncio's session loop."""

    async def go() -> Any:
        conn = await asyncpg.connect(dsn, timeout=10)
        try:
            return await conn.fetch(sql, *args)
        finally:
            await conn.close()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, go()).result(timeout=30)


def _assert_running(status: ServerStatus, name: str) -> None:
    assert status.name == name
    assert status.running, status
    assert status.pid is not None and psutil.pid_exists(status.pid)
    assert status.version


def _gone(proc: psutil.Process) -> bool:
    # Daemons are reparented to PID 1, which may reap them a moment later: a zombie is dead.
    try:
        return not proc.is_running() or proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _kill9(pid: int | None) -> None:
    assert pid is not None
    proc = psutil.Process(pid)
    proc.kill()
    deadline = time.monotonic() + 10
    while not _gone(proc) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _gone(proc)


def test_start_brings_up_both_servers_private_and_answering(servers: EmbeddedServers) -> None:
    falkordb, postgres = servers.start()

    _assert_running(falkordb, "falkordb")
    _assert_running(postgres, "postgres")
    assert falkordb.address == f"unix://{servers.falkordb_socket}"
    assert postgres.address == servers.postgres_dsn
    assert servers.postgres_dsn.startswith("postgresql://scour@/scour?host=")
    assert falkordb.pid == servers.falkordb_pid()
    assert postgres.pid == servers.postgres_pid()

    assert _redis(servers).ping() is True
    rows = _pg(servers.postgres_dsn, "SELECT extversion FROM pg_extension WHERE extname = 'vector'")
    assert len(rows) == 1 and rows[0]["extversion"]
    assert postgres.version is not None and postgres.version.startswith("18.")

    # Loopback-free and private: no TCP socket at all, unix sockets only for their owner.
    for pid in (falkordb.pid, postgres.pid):
        assert pid is not None
        assert psutil.Process(pid).net_connections(kind="inet") == []
    assert stat.S_IMODE(servers.falkordb_socket.stat().st_mode) == 0o700
    assert stat.S_IMODE((servers.data_dir / "falkordb").stat().st_mode) == 0o700
    assert stat.S_IMODE((servers.data_dir / "postgres").stat().st_mode) == 0o700


def test_start_twice_reuses_the_running_servers(servers: EmbeddedServers) -> None:
    first = servers.start()
    again = servers.start()
    assert [s.pid for s in again] == [s.pid for s in first]
    assert all("reused" in s.detail for s in again)

    # A second manager on the same directory (another process of the app) finds them too.
    other = EmbeddedServers(servers.data_dir, start_timeout=START_TIMEOUT)
    assert [s.pid for s in other.start()] == [s.pid for s in first]


def test_concurrent_starts_share_one_instance(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    data_dir = tmp_path / "data"
    a = _make(data_dir, request, start_timeout=START_TIMEOUT)
    b = _make(data_dir, request, start_timeout=START_TIMEOUT)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda s: s.start(), [a, b]))
    assert [s.pid for s in results[0]] == [s.pid for s in results[1]]
    assert len(_processes_under(data_dir)) >= 2


def test_data_survives_stop_and_start(servers: EmbeddedServers) -> None:
    servers.start()
    client = _redis(servers)
    _command(client, "GRAPH.QUERY", "g", "CREATE (:N {v:1})")
    client.set("k", "v")
    dsn = servers.postgres_dsn
    _pg(dsn, "CREATE TABLE t (id int PRIMARY KEY, e vector(3))")
    _pg(dsn, "INSERT INTO t VALUES (1, '[1,2,3]')")

    servers.stop()
    assert servers.falkordb_pid() is None and servers.postgres_pid() is None
    falkordb, postgres = servers.start()
    assert "reused" not in falkordb.detail and "reused" not in postgres.detail

    client = _redis(servers)
    assert _graph_values(client) == [1]
    assert client.get("k") == b"v"
    rows = _pg(servers.postgres_dsn, "SELECT e::text AS e FROM t WHERE id = 1")
    assert rows[0]["e"] == "[1,2,3]"


def test_acknowledged_graph_write_survives_kill9(servers: EmbeddedServers) -> None:
    servers.start()
    client = _redis(servers)
    _command(client, "GRAPH.QUERY", "g", "CREATE (:N {v:7})")
    _kill9(servers.falkordb_pid())  # no time for the once-a-second fsync to matter

    falkordb, _ = servers.start()
    assert "stale pid file removed" in falkordb.detail
    assert _graph_values(_redis(servers)) == [7]


def test_start_recovers_after_both_servers_are_killed(servers: EmbeddedServers) -> None:
    first = servers.start()
    _command(_redis(servers), "GRAPH.QUERY", "g", "CREATE (:N {v:3})")
    _pg(servers.postgres_dsn, "CREATE TABLE t (x int)")
    _pg(servers.postgres_dsn, "INSERT INTO t VALUES (42)")

    pg_children = psutil.Process(first[1].pid).children()
    _kill9(servers.falkordb_pid())
    _kill9(servers.postgres_pid())
    assert (servers.data_dir / "falkordb" / "falkordb.pid").exists()
    assert (servers.data_dir / "postgres" / "postmaster.pid").exists()
    assert servers.falkordb_pid() is None and servers.postgres_pid() is None
    assert not any(s.running for s in servers.status())

    falkordb, postgres = servers.start()
    _assert_running(falkordb, "falkordb")
    _assert_running(postgres, "postgres")
    assert "stale pid file removed" in falkordb.detail
    assert "stale pid file removed" in postgres.detail
    assert falkordb.pid != first[0].pid and postgres.pid != first[1].pid
    assert all(_gone(c) for c in pg_children)
    assert _graph_values(_redis(servers)) == [3]
    assert _pg(servers.postgres_dsn, "SELECT x FROM t")[0]["x"] == 42


def test_stop_leaves_no_server_process(servers: EmbeddedServers) -> None:
    falkordb, postgres = servers.start()
    assert postgres.pid is not None
    procs = [psutil.Process(falkordb.pid), psutil.Process(postgres.pid)]
    procs += procs[1].children(recursive=True)
    assert len(procs) > 2  # postgres runs its background workers

    servers.stop()
    assert [p for p in procs if not _gone(p)] == []
    assert _processes_under(servers.data_dir) == []
    assert not servers.falkordb_socket.exists()
    servers.stop()  # idempotent


def test_stop_ends_a_frozen_server(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    servers = _make(tmp_path / "data", request, start_timeout=3.0)
    servers.start()
    pid = servers.falkordb_pid()
    assert pid is not None
    frozen = psutil.Process(pid)
    os.kill(pid, signal.SIGSTOP)

    falkordb, postgres = servers.status()
    assert not falkordb.running and falkordb.pid == pid
    assert "not answering" in falkordb.detail
    assert postgres.running

    with pytest.raises(StoreUnavailable, match="did not answer"):
        servers.start()  # alive but frozen: refuse to start a second one beside it
    servers.stop()
    assert _gone(frozen)


def test_status_reports_each_state(servers: EmbeddedServers) -> None:
    before = servers.status()
    assert [s.name for s in before] == ["falkordb", "postgres"]
    assert not any(s.running for s in before)
    assert all(s.pid is None and s.version is None for s in before)
    assert before[1].address == servers.postgres_dsn

    started = servers.start()
    now = servers.status()
    assert all(s.running for s in now)
    assert [s.pid for s in now] == [s.pid for s in started]
    assert now[0].version is not None and "redis" in now[0].version
    assert now[1].version is not None and "pgvector" in now[1].version

    _kill9(servers.falkordb_pid())
    falkordb, postgres = servers.status()
    assert not falkordb.running and falkordb.pid is None
    assert falkordb.detail == "stale pid file"
    assert postgres.running

    servers.stop()
    assert not any(s.running for s in servers.status())


def test_long_data_dir_puts_sockets_in_a_private_runtime_dir(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    data_dir = tmp_path / ("d" * 60) / ("e" * 60)
    servers = _make(data_dir, request, start_timeout=START_TIMEOUT)
    servers.start()

    sock = servers.falkordb_socket
    assert data_dir not in sock.parents
    assert len(os.fsencode(sock)) <= 103
    assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700
    assert (data_dir / "falkordb" / "socket-path").read_text().strip() == str(sock)
    assert str(data_dir) not in servers.postgres_dsn.split("&passfile=")[0]  # the socket
    assert _redis(servers).ping() is True
    assert _pg(servers.postgres_dsn, "SELECT 1 AS one")[0]["one"] == 1

    servers.stop()
    assert not sock.parent.exists()


def test_awkward_characters_in_the_data_dir(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    data_dir = tmp_path / "it's a \\ dir" / "data"
    servers = _make(data_dir, request, start_timeout=START_TIMEOUT)
    falkordb, postgres = servers.start()
    assert falkordb.running and postgres.running
    assert data_dir in servers.falkordb_socket.parents
    assert _redis(servers).ping() is True
    assert _pg(servers.postgres_dsn, "SELECT 1 AS one")[0]["one"] == 1
    assert [s.pid for s in servers.start()] == [falkordb.pid, postgres.pid]


@pytest.fixture
def private_parent() -> Iterator[Path]:
    """A 0700 root-owned directory outside pytest's base temp dir.

    pytest chmods its base dir back to 0700 at every session start, which cancels ACL grants;
    with other pytest sessions on the machine that would race the access checks below.
    """
    parent = Path(tempfile.mkdtemp(prefix="scour-embedded-test-"))
    yield parent
    shutil.rmtree(parent, ignore_errors=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="the pgserver account exists only in root mode")
def test_root_mode_grants_the_postgres_account_search_only(
    private_parent: Path, request: pytest.FixtureRequest
) -> None:
    assert stat.S_IMODE(private_parent.stat().st_mode) == 0o700
    servers = _make(private_parent / "data", request, start_timeout=START_TIMEOUT)
    servers.start()
    account = pwd.getpwnam("pgserver")
    pgdata = servers.data_dir / "postgres"
    assert pgdata.stat().st_uid == account.pw_uid
    postmaster = psutil.Process(servers.postgres_pid())
    assert postmaster.uids().real == account.pw_uid
    assert postmaster.gids().real == account.pw_gid  # not root's group

    def as_account(*argv: str) -> int:
        return subprocess.run(
            argv, user=account.pw_uid, group=account.pw_gid, extra_groups=[], check=False,
            capture_output=True,
        ).returncode  # fmt: skip

    assert as_account("test", "-r", str(pgdata / "PG_VERSION")) == 0
    # Search, not read: the account still cannot list what lies beside PGDATA.
    assert as_account("ls", str(servers.data_dir)) != 0
    assert as_account("ls", str(servers.data_dir.parent)) != 0
    assert not servers.data_dir.stat().st_mode & stat.S_IROTH


def test_failed_start_reports_the_server_log(servers: EmbeddedServers) -> None:
    servers.start()
    servers.stop()
    manifest = servers.data_dir / "falkordb" / "appendonlydir" / "appendonly.aof.manifest"
    manifest.write_text("this is not a manifest\n")

    with pytest.raises(StoreUnavailable) as info:
        servers.start()
    message = str(info.value)
    assert "FalkorDB" in message
    assert "last lines of" in message and "falkordb.log" in message
    assert "manifest" in message.lower()


def test_unrecognised_pgdata_is_left_alone(servers: EmbeddedServers) -> None:
    stray = servers.data_dir / "postgres" / "notes.txt"
    stray.parent.mkdir(parents=True)
    stray.write_text("mine")
    with pytest.raises(StoreUnavailable, match="no PostgreSQL cluster"):
        servers.start()
    assert stray.read_text() == "mine"


def test_timings_are_reasonable(servers: EmbeddedServers) -> None:
    began = time.monotonic()
    servers.start()
    first = time.monotonic() - began
    servers.stop()
    began = time.monotonic()
    servers.start()
    restart = time.monotonic() - began
    began = time.monotonic()
    servers.start()
    reuse = time.monotonic() - began
    print(f"first start {first:.2f} s, restart {restart:.2f} s, reuse {reuse:.3f} s")
    assert restart < 5.0
    assert reuse < 2.0


@pytest.fixture(autouse=True)
def _no_leak_between_tests(tmp_path: Path) -> Iterator[None]:
    yield
    assert _processes_under(tmp_path) == []
