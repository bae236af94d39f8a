"""Scours failing together, and the window's health poll, start one restart between them."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from explorer.memory import StoreMemoryService
from explorer.settings import Settings
from explorer.testing import FakeEmbedder


class DeadServers:
    """Embedded servers whose PostgreSQL has died; counts the restarts asked of it."""

    def __init__(self) -> None:
        self.revived = 0
        self.started = False

    def dead(self) -> list[str]:
        time.sleep(0.05)  # a look at the processes takes a moment, in a thread
        return ["postgres"] if not self.revived else []

    def revive(self) -> None:
        self.revived += 1
        time.sleep(0.1)
        self.started = True  # the start is over


def _memory(tmp_path: Any, servers: DeadServers, reconnect_seconds: float) -> StoreMemoryService:
    """A memory over ``servers`` whose reconnect after a restart takes that long."""
    memory = StoreMemoryService(
        settings=Settings(data_dir=tmp_path, load_demo=False, falkordb_url="redis://x:1"),
        embedder=FakeEmbedder(dimension=8),
        connector=None,  # type: ignore[arg-type]  # connect() is replaced: see below
        servers=servers,  # type: ignore[arg-type]
    )

    async def connect() -> None:
        await asyncio.sleep(reconnect_seconds)

    memory.connect = connect  # type: ignore[method-assign]
    return memory


async def test_concurrent_looks_at_a_dead_server_restart_it_once(tmp_path: Any) -> None:
    servers = DeadServers()
    memory = _memory(tmp_path, servers, 0)
    reports = await asyncio.gather(*(memory.supervise() for _ in range(4)))
    assert all(report == {"chunks": "restarting…"} for report in reports)
    await asyncio.sleep(0.5)
    assert servers.revived == 1


async def test_closing_waits_for_a_restart_under_way(tmp_path: Any) -> None:
    servers = DeadServers()
    memory = _memory(tmp_path, servers, 30)  # a reconnect that would take long: not waited for
    assert await memory.supervise() == {"chunks": "restarting…"}
    began = time.monotonic()
    await memory.aclose()
    # The server start had finished before the memory let go of its servers; the reconnect
    # after it was dropped, not waited for.
    assert servers.started and time.monotonic() - began < 5
    assert memory.supervision["task"].cancelled()
