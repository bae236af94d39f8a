"""The memory service on its own thread and event loop, reached from the GUI through a proxy.

Why a second loop: the store drivers do real CPU work inside their coroutines (FalkorDB's async
client parses every reply in Python, hundreds of milliseconds for a large neighbourhood), and on
the GUI's qasync loop that work freezes the window. ``MemoryHost`` opens the memory on a private
asyncio loop in a daemon thread; ``LoopProxy`` wraps the memory so that awaiting any of its
coroutine methods (or those of its stores) from the GUI loop runs the coroutine on the service
loop and awaits the result. Cancelling the awaiting task cancels the work on the service loop.
Plain attributes (settings, policy, errors) read and write straight through. Imports only the
standard library (no Qt), so it is testable on its own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import inspect
import logging
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

_log = logging.getLogger(__name__)

T = TypeVar("T")
_COROUTINE_TYPES: dict[type, bool] = {}


def _has_coroutine_methods(value: Any) -> bool:
    """True for objects worth proxying: ones whose class defines coroutine methods."""
    if value is None or isinstance(value, str | bytes | int | float | bool | tuple | list | dict):
        return False
    kind = type(value)
    known = _COROUTINE_TYPES.get(kind)
    if known is None:
        known = any(
            inspect.iscoroutinefunction(getattr(kind, name, None))
            for name in dir(kind)
            if not name.startswith("__")
        )
        _COROUTINE_TYPES[kind] = known
    return known


async def run_on(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` on ``loop`` from whichever loop is running now."""
    try:
        current = asyncio.get_running_loop()
    except RuntimeError:
        current = None
    if current is loop:
        return await coro
    if not loop.is_running():
        # Stopped on its way to closing: nothing would ever run the coroutine.
        coro.close()
        raise RuntimeError("the memory's event loop has stopped")
    try:
        future = asyncio.run_coroutine_threadsafe(coro, loop)
    except RuntimeError:
        coro.close()  # the service loop is gone; never leave a coroutine un-awaited
        raise
    return await asyncio.wrap_future(future)


class LoopProxy:
    """Stands in for an object that lives on another event loop (see the module docstring)."""

    __slots__ = ("_proxy_loop", "_proxy_target")

    def __init__(self, target: Any, loop: asyncio.AbstractEventLoop) -> None:
        object.__setattr__(self, "_proxy_target", target)
        object.__setattr__(self, "_proxy_loop", loop)

    @property
    def proxied(self) -> Any:
        """The object behind the proxy (use only on its own loop)."""
        return self._proxy_target

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._proxy_target, name)
        loop = self._proxy_loop
        if inspect.iscoroutinefunction(value):

            @functools.wraps(value)
            async def call(*args: Any, **kwargs: Any) -> Any:
                return await run_on(loop, value(*args, **kwargs))

            return call
        if _has_coroutine_methods(value):
            return LoopProxy(value, loop)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, LoopProxy):
            value = value.proxied
        setattr(self._proxy_target, name, value)

    def __repr__(self) -> str:
        return f"LoopProxy({self._proxy_target!r})"


class MemoryHost:
    """A daemon thread running an asyncio loop that owns an opened memory."""

    def __init__(self, name: str = "memory-service") -> None:
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._stack: contextlib.AsyncExitStack | None = None
        self._entering: asyncio.Task[Any] | None = None
        self.memory: Any = None
        self._thread.start()
        self._ready.wait()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(self._ready.set)
        self.loop.run_forever()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self.loop.is_closed()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run a coroutine on the service loop; the returned future is thread-safe."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    async def open(self, opener: Callable[..., Any], *args: Any, **kwargs: Any) -> LoopProxy:
        """Enter ``opener(*args, **kwargs)`` (an async context manager) on the service loop.

        Shielded from cancellation: a store half started must be either kept (and closed by
        ``aclose``) or closed here, never abandoned.
        """

        async def enter() -> Any:
            self._entering = asyncio.current_task()
            stack = contextlib.AsyncExitStack()
            try:
                memory = await stack.enter_async_context(opener(*args, **kwargs))
            except BaseException:
                await stack.aclose()
                raise
            self._stack = stack
            self.memory = memory
            return memory

        future = self.submit(enter())
        await asyncio.shield(asyncio.wrap_future(future))
        return LoopProxy(self.memory, self.loop)

    def proxy(self, memory: Any = None) -> LoopProxy:
        return LoopProxy(memory if memory is not None else self.memory, self.loop)

    async def aclose(self) -> None:
        """Close the memory (stopping servers it started) and end the thread."""
        if self.loop.is_closed():
            return
        if self._thread.is_alive():
            await asyncio.wrap_future(self.submit(self._shutdown()))
            self.loop.call_soon_threadsafe(self.loop.stop)
            await asyncio.get_running_loop().run_in_executor(None, self._thread.join, 30)
        if not self._thread.is_alive():
            self.loop.close()

    def close(self) -> None:
        """``aclose`` for callers without a running loop (fixtures, atexit)."""
        if self.loop.is_closed():
            return
        if self._thread.is_alive():
            self.submit(self._shutdown()).result(120)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(30)
        if not self._thread.is_alive():
            self.loop.close()

    async def _shutdown(self) -> None:
        entering = self._entering
        if entering is not None and not entering.done():
            await asyncio.wait({entering})  # a store half started is closed, not abandoned
        stack, self._stack = self._stack, None
        try:
            if stack is not None:
                await stack.aclose()
        finally:
            self.memory = None
            current = asyncio.current_task()
            leftovers = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
            for task in leftovers:
                task.cancel()
            if leftovers:
                await asyncio.gather(*leftovers, return_exceptions=True)
            await self.loop.shutdown_asyncgens()
            await self.loop.shutdown_default_executor()
