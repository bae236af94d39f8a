"""Admission of concurrent calls: a few at a time, first come first served.

Scour's work is mostly CPU on one event loop, so many calls running at once only interleave:
each then finishes near the end of them all, and the slowest wait longest. Admitting a few at a
time answers the first comers first at the same throughput. A call that holds its turn longer
than ``hold`` seconds (wall time) is taken to be waiting on a slow or frozen store rather than
using the CPU, so it gives its turn up and runs on: a store in trouble must not queue every later
call behind its deadline (it admits ``slots / hold`` calls a second then, and how many run at
once is no longer capped). Waiting for a turn is not counted against a call's store deadlines.
Imports only the standard library.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class Admission:
    """At most ``slots`` calls at once (each for at most ``hold`` seconds), in arrival order."""

    def __init__(self, slots: int, hold: float) -> None:
        if slots < 1 or not hold > 0:
            raise ValueError("admission needs at least one slot and a positive hold")
        self.slots = slots
        self.hold = hold
        self._gate: tuple[asyncio.AbstractEventLoop, asyncio.BoundedSemaphore] | None = None

    def _semaphore(self) -> asyncio.BoundedSemaphore:
        loop = asyncio.get_running_loop()
        if self._gate is None or self._gate[0] is not loop:
            self._gate = (loop, asyncio.BoundedSemaphore(self.slots))  # one per event loop
        return self._gate[1]

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Wait for a turn, then hold it while the block runs (or until ``hold`` passes)."""
        semaphore = self._semaphore()
        await semaphore.acquire()
        held = True

        def give_up() -> None:
            nonlocal held
            if held:
                held = False
                semaphore.release()

        timer = asyncio.get_running_loop().call_later(self.hold, give_up)
        try:
            yield
        finally:
            timer.cancel()
            give_up()
