"""Who owns the embedded servers, and how long a frozen store may hold a query, on real servers.

One long-lived memory per module (the window's situation) on servers of its own; other
processes (the CLI) come and go beside it. Every fault asserts its deadline, the other half's
answer, recovery without reopening the memory and that nothing is left running at the end.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil
import pytest

from explorer.adapters.embedded import EmbeddedServers
from explorer.compose import open_memory
from explorer.core.scour import ScourRequest
from explorer.ingest.pipeline import ingest_turns
from explorer.memory import StoreMemoryService
from explorer.settings import load_settings
from tests.reliability.conftest import ROOT, cli_env, run_cli, servers_under, write_settings
from tests.turns import daily_turns

CONNECT_S = 1.0
QUERY_S = 2.0
IDLE_S = 3.0
#: Scheduling slack on a loaded two-core machine, on top of each stated deadline.
SLACK_S = 1.5
SCOPE = "rel/helper/ada"
TURNS = daily_turns(
    SCOPE,
    "Ada",
    "Ada rowed across Lake Bled with Tomas on day {day}.",
    12,
    datetime(2025, 4, 1, 9, tzinfo=UTC),
)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    data = tmp_path_factory.mktemp("owned")
    write_settings(data, connect_timeout=CONNECT_S, query_timeout=QUERY_S, idle_timeout=IDLE_S)
    yield data
    # Whatever a failed test left behind is ended here, and the check below still fails it.
    with suppress(Exception):
        EmbeddedServers(data).stop()


@pytest.fixture(scope="module")
async def memory(data_dir: Path) -> AsyncIterator[StoreMemoryService]:
    settings = load_settings(overrides={"data_dir": data_dir})
    async with open_memory(settings) as opened:
        assert (await ingest_turns(opened, TURNS)).ok
        yield opened
    # The memory was the last user and nothing made them persistent: they are gone.
    assert servers_under(data_dir) == []


@contextmanager
def frozen(pid: int | None) -> Iterator[None]:
    assert pid is not None
    processes = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    for process in processes:
        process.send_signal(signal.SIGSTOP)
    try:
        yield
    finally:
        for process in processes:
            with suppress(psutil.NoSuchProcess):
                process.send_signal(signal.SIGCONT)


async def _timed_scour(memory: StoreMemoryService) -> tuple[float, dict[str, Any]]:
    began = time.monotonic()
    result = await memory.scour(ScourRequest(query="Ada rowed Lake Bled", scope=SCOPE))
    return time.monotonic() - began, result.to_json_dict()


async def test_a_frozen_graph_costs_one_deadline_and_the_chunks_still_answer(
    memory: StoreMemoryService,
) -> None:
    servers = memory.servers
    assert servers is not None
    with frozen(servers.falkordb_pid()):
        took, answer = await _timed_scour(memory)
    # Search, activation and the full-record read share one budget: one deadline, not three.
    assert took < QUERY_S + SLACK_S, took
    assert "within its 2 s deadline" in str(answer["kg_error"]) or "2 s" in str(answer["kg_error"])
    assert answer["success"] is True and answer["chunk_count"] > 0
    # Thawed, the same memory answers from the graph again: no reopen, no restart.
    took, answer = await _timed_scour(memory)
    assert "kg_error" not in answer and answer["kg_count"] > 0


async def test_a_frozen_chunk_store_costs_one_deadline_and_the_graph_still_answers(
    memory: StoreMemoryService,
) -> None:
    servers = memory.servers
    assert servers is not None
    with frozen(servers.postgres_pid()):
        took, answer = await _timed_scour(memory)
    assert took < QUERY_S + SLACK_S, took
    assert answer["chunks_error"] and answer["kg_count"] > 0 and answer["success"] is True
    took, answer = await _timed_scour(memory)
    assert "chunks_error" not in answer and answer["chunk_count"] > 0


async def test_a_command_beside_a_frozen_store_fails_in_time_and_stops_nothing(
    memory: StoreMemoryService, data_dir: Path, tmp_path: Path
) -> None:
    servers = memory.servers
    assert servers is not None
    pids = (servers.falkordb_pid(), servers.postgres_pid())
    with frozen(pids[0]):
        done = await asyncio.to_thread(
            run_cli, ["--data-dir", str(data_dir), "query", "Ada", "--scope", SCOPE], tmp_path
        )
    # Reusing the running server waits connect_timeout, connecting waits it once more; the
    # rest is the interpreter and the embedding model loading.
    assert done.returncode == 0, done.stderr
    assert "FalkorDB did not answer" in done.stdout
    assert done.seconds < 2 * CONNECT_S + 20.0, done.seconds
    # The command did not own the servers: both still run, and the memory still answers.
    assert (servers.falkordb_pid(), servers.postgres_pid()) == pids
    _, answer = await _timed_scour(memory)
    assert "kg_error" not in answer and answer["chunk_count"] > 0


async def test_a_scope_nothing_is_stored_under_or_with_control_characters_fails_the_command(
    memory: StoreMemoryService, data_dir: Path, tmp_path: Path
) -> None:
    def query(scope: str) -> Any:
        args = ["--data-dir", str(data_dir), "query", "Ada", "--scope", scope]
        return run_cli(args, tmp_path)

    typo = await asyncio.to_thread(query, SCOPE + "x")
    assert typo.returncode == 1 and "no memory is stored under scope" in typo.stderr
    assert json.loads(typo.stdout)["success"] is True  # the answer itself is still printed
    odd = await asyncio.to_thread(query, "a\nb")
    assert odd.returncode == 1 and "control characters" in odd.stderr
    known = await asyncio.to_thread(query, SCOPE)
    assert known.returncode == 0, known.stderr


async def test_a_second_process_starting_and_exiting_leaves_the_first_working(
    memory: StoreMemoryService, data_dir: Path, tmp_path: Path
) -> None:
    servers = memory.servers
    assert servers is not None
    pids = (servers.falkordb_pid(), servers.postgres_pid())
    done = await asyncio.to_thread(run_cli, ["--data-dir", str(data_dir), "stats"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert (servers.falkordb_pid(), servers.postgres_pid()) == pids
    assert len(servers.holders()) == 1  # the memory's own lease; the command's is gone
    _, answer = await _timed_scour(memory)
    assert answer["kg_count"] > 0 and answer["chunk_count"] > 0


def _holders(data_dir: Path) -> int:
    return len(EmbeddedServers(data_dir).holders())


def _mcp_holding_servers(data: Path, home: Path, *, stderr: int) -> subprocess.Popen[bytes]:
    """``mcp`` holds the memory open until its input ends: a long-lived command, returned once
    both servers run and it holds their lease."""
    process = subprocess.Popen(
        [sys.executable, "-m", "explorer", "--data-dir", str(data), "mcp"],
        cwd=ROOT,
        env=cli_env(home),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )
    deadline = time.monotonic() + 60
    while len(servers_under(data)) < 2 or _holders(data) == 0:
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("the servers never started")
        time.sleep(0.2)
    return process


@pytest.mark.timeout(120)
def test_a_killed_command_leaves_no_server_after_the_idle_timeout(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_settings(data, idle_timeout=IDLE_S)
    process = _mcp_holding_servers(data, tmp_path, stderr=subprocess.DEVNULL)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    assert process.stdin is not None
    process.stdin.close()
    killed = time.monotonic()
    while servers_under(data):
        assert time.monotonic() - killed < IDLE_S + 20.0, "servers outlived the idle timeout"
        time.sleep(0.2)
    assert _holders(data) == 0


def test_servers_start_keeps_them_until_servers_stop(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_settings(data, idle_timeout=IDLE_S)
    args = ["--data-dir", str(data)]
    try:
        assert run_cli([*args, "servers", "start"], tmp_path).returncode == 0
        assert run_cli([*args, "stats"], tmp_path).returncode == 0
        time.sleep(IDLE_S + 1.5)
        assert len(servers_under(data)) >= 2  # a command used them and left: still running
        status = run_cli([*args, "servers", "status"], tmp_path)
        assert "kept running until servers stop" in status.stdout
    finally:
        assert run_cli([*args, "servers", "stop"], tmp_path).returncode == 0
    assert servers_under(data) == []


async def _until_healthy(
    memory: StoreMemoryService, half: str, within: float
) -> tuple[float, list[str]]:
    """Poll ``health`` as the window does until ``half`` is ok; the seconds and what it said."""
    began = time.monotonic()
    seen: list[str] = []
    while True:
        report = await memory.health()
        seen.append(report[half])
        if report[half] == "ok":
            return time.monotonic() - began, seen
        assert time.monotonic() - began < within, seen[-3:]
        await asyncio.sleep(0.3)


@pytest.mark.parametrize(
    ("half", "pid_of"), [("graph", "falkordb_pid"), ("chunks", "postgres_pid")]
)
async def test_a_killed_server_is_restarted_with_its_data(
    memory: StoreMemoryService, half: str, pid_of: str
) -> None:
    servers = memory.servers
    assert servers is not None
    store = memory.graph if half == "graph" else memory.chunks
    assert store is not None
    before = await store.counts()
    pid = getattr(servers, pid_of)()
    os.kill(pid, signal.SIGKILL)
    with suppress(psutil.NoSuchProcess):
        psutil.Process(pid).wait(timeout=10)
    took, seen = await _until_healthy(memory, half, within=20.0)
    assert took < 10.0, took
    assert any(status.startswith("restarting") for status in seen) or took < 1.0
    assert getattr(servers, pid_of)() not in (None, pid)
    store = memory.graph if half == "graph" else memory.chunks
    assert store is not None and await store.counts() == before  # AOF / WAL: nothing lost
    _, answer = await _timed_scour(memory)
    assert answer["kg_count"] > 0 and answer["chunk_count"] > 0


async def test_a_killed_server_comes_back_through_scour_alone(memory: StoreMemoryService) -> None:
    """No health poll here, as under an agent's MCP server: the failing calls restart it."""
    servers = memory.servers
    assert servers is not None
    pid = servers.falkordb_pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    with suppress(psutil.NoSuchProcess):
        psutil.Process(pid).wait(timeout=10)
    began = time.monotonic()
    while True:
        _, answer = await _timed_scour(memory)
        if answer.get("kg_error") is None and answer["kg_count"] > 0:
            break
        assert time.monotonic() - began < 20.0, answer.get("kg_error")
        await asyncio.sleep(0.3)
    assert time.monotonic() - began < 10.0
    assert servers.falkordb_pid() not in (None, pid)


async def test_a_restart_reports_restarting_until_it_is_done_and_the_watchdog_keeps_out(
    memory: StoreMemoryService,
) -> None:
    """While Restart stops and starts PostgreSQL, health never calls the chunk half healthy
    (the window would send the next query into the gap) and the watchdog does not start a
    second server beside it."""
    servers = memory.servers
    assert servers is not None
    before = servers.postgres_pid()
    restart = asyncio.ensure_future(memory.restart_half("chunks"))
    seen: list[str] = []
    while not restart.done():
        status = (await memory.health()).chunks
        # A health read the restart finished during may rightly say "ok" (it read the halves
        # after the restart let go): only reads over before it finished must say "restarting".
        if not restart.done():
            seen.append(status)
        await asyncio.sleep(0.05)
    await restart
    odd = [(at, status) for at, status in enumerate(seen) if not status.startswith("restarting")]
    assert seen and not odd, (len(seen), odd)
    assert memory.supervision.get("task") is None  # the watchdog never took it on
    assert servers.postgres_pid() not in (None, before)
    assert (await memory.health()).chunks == "ok"
    _, answer = await _timed_scour(memory)
    assert "chunks_error" not in answer and answer["chunk_count"] > 0


def _backends(postmaster: int) -> list[psutil.Process]:
    """The postmaster's children serving a client connection (``postgres: scour scour …``)."""
    found = []
    for child in psutil.Process(postmaster).children():
        with suppress(psutil.Error):
            if " scour " in " ".join(child.cmdline()) + " ":
                found.append(child)
    return found


async def test_a_killed_backend_costs_at_most_one_answer_and_the_pool_heals(
    memory: StoreMemoryService,
) -> None:
    servers = memory.servers
    assert servers is not None
    postmaster = servers.postgres_pid()
    assert postmaster is not None
    victims = _backends(postmaster)
    assert victims
    os.kill(victims[0].pid, signal.SIGKILL)  # the postmaster resets every backend
    answers = []
    for _ in range(6):
        took, answer = await _timed_scour(memory)
        assert took < QUERY_S + SLACK_S, took
        assert answer["kg_count"] > 0  # the graph half never notices
        answers.append(answer)
        if answer["chunk_count"] > 0 and "chunks_error" not in answer:
            break
        await asyncio.sleep(0.5)
    assert "chunks_error" not in answers[-1] and answers[-1]["chunk_count"] > 0, answers[-1]
    assert servers.postgres_pid() == postmaster  # the same server, no restart needed


async def test_a_client_killed_while_it_uses_the_servers_takes_nothing_with_it(
    memory: StoreMemoryService, data_dir: Path, tmp_path: Path
) -> None:
    servers = memory.servers
    assert servers is not None
    pids = (servers.falkordb_pid(), servers.postgres_pid())
    process = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", "explorer", "--data-dir", str(data_dir), "query", "Ada rowed"],
        cwd=ROOT,
        env=cli_env(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while len(servers.holders()) < 2:
            assert process.returncode is None, "the command ended before it was killed"
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
    finally:
        process.kill()
        await asyncio.wait_for(process.wait(), 10)
    assert len(servers.holders()) == 1  # its lease went with it
    await asyncio.sleep(IDLE_S + 1.0)  # the watcher does not stop what the memory still uses
    assert (servers.falkordb_pid(), servers.postgres_pid()) == pids
    _, answer = await _timed_scour(memory)
    assert answer["kg_count"] > 0 and answer["chunk_count"] > 0


@pytest.mark.timeout(120)
def test_a_terminated_command_stops_the_servers_it_was_the_last_to_use(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_settings(data, idle_timeout=60.0)  # so only the command itself can be what stops them
    process = _mcp_holding_servers(data, tmp_path, stderr=subprocess.PIPE)
    try:
        process.send_signal(signal.SIGTERM)
        terminated = time.monotonic()
        while servers_under(data):
            assert time.monotonic() - terminated < 15.0, "SIGTERM left the servers running"
            time.sleep(0.2)
    finally:
        # The MCP SDK's stdin reader ends with its input, which communicate closes.
        _, err = process.communicate(timeout=30)
    assert process.returncode == 143 and b"Traceback" not in err, err[-2000:]
