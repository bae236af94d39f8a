"""The memory service thread: calls cross loops, cancellation follows, nothing is left behind."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from explorer.gui.service_thread import LoopProxy, MemoryHost
from tests.gui.conftest import run


class Store:
    def __init__(self) -> None:
        self.threads: list[str] = []
        self.cancelled = False
        self.finished = 0

    async def ask(self, value: int) -> int:
        self.threads.append(threading.current_thread().name)
        await asyncio.sleep(0)
        return value * 2

    async def slow(self) -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            self.cancelled = True
            raise

    async def fail(self) -> None:
        raise KeyError("nope")


class ProxyTarget:
    """What the host proxies across loops: coroutine methods, a store, a plain attribute (not a
    memory service: the proxy must carry any object's calls)."""

    def __init__(self) -> None:
        self.graph = Store()
        self.chunks: Store | None = None
        self.policy = "default"
        self.closed = False

    async def scour(self, text: str) -> str:
        return f"answer to {text} on {threading.current_thread().name}"


@asynccontextmanager
async def opener(
    delay: float = 0.0, made: list[ProxyTarget] | None = None
) -> AsyncIterator[ProxyTarget]:
    memory = ProxyTarget()
    if made is not None:
        made.append(memory)
    await asyncio.sleep(delay)
    try:
        yield memory
    finally:
        memory.closed = True


@pytest.fixture
def host(qloop: asyncio.AbstractEventLoop) -> Any:
    host = MemoryHost("svc-test")
    yield host
    run(qloop, host.aclose(), 30)


def test_calls_run_on_the_service_thread(qloop: asyncio.AbstractEventLoop, host: Any) -> None:
    memory = run(qloop, host.open(opener))
    assert isinstance(memory, LoopProxy)
    assert run(qloop, memory.scour("q")) == "answer to q on svc-test"
    assert run(qloop, memory.graph.ask(21)) == 42
    assert host.memory.graph.threads == ["svc-test"]
    assert memory.chunks is None  # plain attributes read straight through
    memory.policy = "strict"
    assert host.memory.policy == "strict"


def test_errors_cross_back_unchanged(qloop: asyncio.AbstractEventLoop, host: Any) -> None:
    memory = run(qloop, host.open(opener))
    with pytest.raises(KeyError):
        run(qloop, memory.graph.fail())


def test_cancelling_the_caller_cancels_the_work(
    qloop: asyncio.AbstractEventLoop, host: Any
) -> None:
    memory = run(qloop, host.open(opener))
    task = qloop.create_task(memory.graph.slow())
    run(qloop, asyncio.sleep(0.1))
    task.cancel()
    run(qloop, asyncio.wait({task}))
    deadline = qloop.time() + 5
    while not host.memory.graph.cancelled and qloop.time() < deadline:
        run(qloop, asyncio.sleep(0.02))
    assert host.memory.graph.cancelled


def test_setting_a_proxy_stores_the_real_object(
    qloop: asyncio.AbstractEventLoop, host: Any
) -> None:
    memory = run(qloop, host.open(opener))
    graph = memory.graph
    memory.graph = graph
    assert isinstance(host.memory.graph, Store)


def test_close_closes_the_memory_and_ends_the_thread(
    qloop: asyncio.AbstractEventLoop, host: Any
) -> None:
    run(qloop, host.open(opener))
    inner = host.memory
    run(qloop, host.aclose())
    assert inner.closed and not host.alive and host.loop.is_closed()


def test_close_while_opening_waits_and_closes(qloop: asyncio.AbstractEventLoop, host: Any) -> None:
    made: list[ProxyTarget] = []
    opening = qloop.create_task(host.open(opener, 0.3, made))
    run(qloop, asyncio.sleep(0.05))
    opening.cancel()
    run(qloop, host.aclose())
    run(qloop, asyncio.wait({opening}))
    assert opening.cancelled()
    assert host.memory is None and not host.alive
    assert len(made) == 1 and made[0].closed  # started, so closed rather than abandoned


def test_a_call_after_the_service_loop_stopped_fails_and_leaves_no_coroutine(
    qloop: asyncio.AbstractEventLoop, host: Any
) -> None:
    import gc
    import warnings

    memory = run(qloop, host.open(opener))
    graph = memory.graph
    host.loop.call_soon_threadsafe(host.loop.stop)
    deadline = qloop.time() + 5
    while host.loop.is_running() and qloop.time() < deadline:
        run(qloop, asyncio.sleep(0.02))
    assert not host.loop.is_running()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an un-awaited coroutine would warn when collected
        with pytest.raises(RuntimeError, match="stopped"):
            run(qloop, graph.ask(1))
        gc.collect()
