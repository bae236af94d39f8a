"""Awaiting a store call within a hard deadline, even when its clean-up would block.

``asyncio.wait_for`` cancels a late call and then waits for it to finish, so a driver whose
cancellation path talks to a frozen server (asyncpg resetting a pooled connection, for one) would
keep the caller waiting long past its deadline. ``within`` runs the call as its own task, stops
waiting at the deadline, cancels the task and lets it clean up in the background. Imports only
the standard library.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")

# Tasks abandoned at their deadline, kept referenced until their clean-up ends.
_abandoned: set[asyncio.Future[Any]] = set()


class DeadlineExceeded(Exception):
    """The call did not finish within its deadline; it has been cancelled."""


def _forget(task: asyncio.Future[Any]) -> None:
    _abandoned.discard(task)
    if not task.cancelled():
        # Retrieve the outcome so a late failure is not reported as never retrieved.
        task.exception()


async def within(call: Awaitable[T], seconds: float) -> T:
    """The result of ``call``, or ``DeadlineExceeded`` once ``seconds`` have passed."""
    task: asyncio.Future[T] = asyncio.ensure_future(call)
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
    except asyncio.CancelledError:
        task.cancel()
        _abandoned.add(task)
        task.add_done_callback(_forget)
        raise
    if task in done:
        return task.result()
    task.cancel()
    _abandoned.add(task)
    task.add_done_callback(_forget)
    raise DeadlineExceeded(f"no answer within {seconds:g} s")
