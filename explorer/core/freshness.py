"""Sharing a store's stamp reads among the queries that may use them.

A query must see every write that finished before it began. A stamp (version) read issued after
the query began does, whoever issued it, so concurrent queries can share one read instead of each
making a round trip of its own. ``query_began`` marks when the current query began (a context
variable, so each task keeps its own mark); a ``SharedRead`` gives a caller the latest read
issued at or after that mark, still under way or done, or else issues a fresh one. Without a mark
every call reads afresh, and a read that failed is never shared. Imports only the standard
library.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Generic, TypeVar

T = TypeVar("T")

_began: ContextVar[float | None] = ContextVar("query_began", default=None)


@contextmanager
def query_began() -> Iterator[None]:
    """Mark, for the code run inside, the moment the current query began."""
    token = _began.set(time.monotonic())
    try:
        yield
    finally:
        _began.reset(token)


def _retrieve(done: asyncio.Future[Any]) -> None:
    # A failure nobody else awaits is still retrieved, so it is not reported as lost.
    if not done.cancelled():
        done.exception()


class SharedRead(Generic[T]):
    """The latest read of one stamp, shared with every query that began before it was issued."""

    __slots__ = ("_issued", "_loop", "_pending")

    def __init__(self) -> None:
        self._issued = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: asyncio.Future[T] | None = None

    async def __call__(self, read: Callable[[], Awaitable[T]]) -> T:
        began = _began.get()
        loop = asyncio.get_running_loop()
        pending = self._pending
        if (
            began is None
            or pending is None
            or self._loop is not loop
            or self._issued < began
            or (pending.done() and (pending.cancelled() or pending.exception() is not None))
        ):
            self._issued = time.monotonic()
            self._loop = loop
            pending = self._pending = asyncio.ensure_future(read())
            pending.add_done_callback(_retrieve)
        # A caller that gives up (its deadline) leaves the read to the others sharing it.
        return await asyncio.shield(pending)
