"""The window brings its stores back, over real embedded servers it started itself.

As a new user would: the window opens a memory whose servers are not running (so it starts
them), answers a query, then its FalkorDB is killed with SIGKILL; within 10 s the graph light is
green again and the next query answers from the graph, with nothing lost. Stores → Restart the
chunk store stops and starts PostgreSQL (the light goes amber, then green) and the chunks answer
again. Closing the window stops both servers: it was their only user.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil
import pytest

from explorer.adapters.embedded import EmbeddedServers
from explorer.compose import SERVICES, open_memory
from explorer.gui.bridge import CHUNKS, GRAPH, OK, ServiceBridge
from explorer.ingest.pipeline import ingest_turns
from explorer.settings import Settings
from tests.gui.conftest import close_window, make_window, run
from tests.turns import daily_turns

SCOPE = "rec/helper/ines"
TURNS = daily_turns(
    SCOPE,
    "Ines",
    "Ines repaired the cello with Rafael in Porto on day {day}.",
    10,
    datetime(2025, 6, 1, 8, tzinfo=UTC),
)


@pytest.fixture
def recovering_window(
    qloop: asyncio.AbstractEventLoop, qtbot: Any, tmp_path: Path, settings_store: Any
) -> Iterator[Any]:
    settings = Settings(data_dir=tmp_path / "data", load_demo=False, query_timeout=3.0)

    async def fill() -> None:
        async with open_memory(settings) as memory:
            assert (await ingest_turns(memory, TURNS)).ok

    run(qloop, fill())
    servers = EmbeddedServers(settings.data_dir)
    assert servers.dead() == ["falkordb", "postgres"]  # the window will start them itself
    bridge = ServiceBridge(settings, services=SERVICES, poll_interval=0.3)
    window = make_window(bridge, settings_store)
    bridge.open()
    qtbot.waitUntil(lambda: bridge.opened, timeout=60_000)
    try:
        yield window
    finally:
        close_window(qloop, window)
        assert servers.dead() == ["falkordb", "postgres"]  # its only user closed


def _ask(qtbot: Any, window: Any) -> dict[str, Any]:
    token = window.run_query("Who repaired the cello?")
    qtbot.waitUntil(
        lambda: window.outcome is not None and window.outcome.token == token, timeout=60_000
    )
    result: dict[str, Any] = window.outcome.answer.to_json_dict()
    return result


def _watch_health(window: Any, seen: list[dict[str, str]]) -> None:
    window.bridge.health_changed.connect(lambda health: seen.append(dict(health)))


@pytest.mark.timeout(240)
def test_a_killed_falkordb_is_back_within_ten_seconds(qtbot: Any, recovering_window: Any) -> None:
    window = recovering_window
    first = _ask(qtbot, window)
    assert first["kg_entities"] and first["chunks"]
    servers = window.bridge.memory.servers
    pid = servers.falkordb_pid()
    seen: list[dict[str, str]] = []
    _watch_health(window, seen)
    os.kill(pid, signal.SIGKILL)
    killed = time.monotonic()
    qtbot.waitUntil(lambda: any(h.get(GRAPH, OK) != OK for h in seen), timeout=10_000)
    qtbot.waitUntil(lambda: window.bridge.health[GRAPH] == OK, timeout=10_000)
    assert time.monotonic() - killed < 10.0
    assert any(h.get(GRAPH, "").startswith("restarting") for h in seen), seen
    assert servers.falkordb_pid() not in (None, pid)
    assert "graph" in window.graph_status.text()
    answer = _ask(qtbot, window)
    assert not answer.get("kg_error"), answer.get("kg_error")
    assert {e["id"] for e in answer["kg_entities"]} == {e["id"] for e in first["kg_entities"]}

    # Stores → Restart the chunk store: amber while it restarts, then green, chunks answer.
    pg = servers.postgres_pid()
    seen.clear()
    window.store_actions.actions[("restart", CHUNKS)].trigger()
    qtbot.waitUntil(
        lambda: any(h.get(CHUNKS, "").startswith("restarting") for h in seen), timeout=5_000
    )
    qtbot.waitUntil(lambda: window.bridge.health[CHUNKS] == OK and len(seen) > 1, timeout=60_000)
    assert servers.postgres_pid() not in (None, pg) and psutil.pid_exists(servers.postgres_pid())
    again = _ask(qtbot, window)
    assert not again.get("chunks_error") and again["chunks"]
