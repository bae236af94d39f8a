"""Per-half health of the open memory as the bridge keeps it: set, polled back, supervised.

``StoreHealth`` belongs to one ``ServiceBridge``: it holds ``"ok"`` or the problem for each half
(from the service's own ``Health`` report, from each answer's half errors, from a failed read),
says so on the bridge's ``health_changed``, polls a half that went down until it answers again
(then has the bridge run the last query again), has the service restart embedded servers that
died, and runs the window's Reconnect and Restart of one store. All of it runs as the bridge's
tasks, so shutdown cancels it with the rest. Imports asyncio, the standard library and core.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from explorer.core.errors import ExplorerError
from explorer.core.ports import CHUNKS, GRAPH, HALVES, OK, MemoryService
from explorer.core.scour import ScourResult

if TYPE_CHECKING:
    from explorer.gui.bridge import ServiceBridge

_log = logging.getLogger(__name__)


class StoreHealth:
    """See the module docstring."""

    def __init__(self, bridge: ServiceBridge, poll_interval: float) -> None:
        self._bridge = bridge
        self.poll_interval = poll_interval
        self.halves: dict[str, str] = {half: OK for half in HALVES}
        self._poller: asyncio.Task[None] | None = None

    def set(self, changes: Mapping[str, str]) -> None:
        """Record what changed and say so; a half that is down is polled until it answers."""
        updated = dict(self.halves)
        updated.update(changes)
        if updated != self.halves:
            self.halves = updated
            self._bridge.health_changed.emit(dict(updated))
        if any(status != OK for status in self.halves.values()):
            self._start_polling()

    def reset(self, status: str = OK) -> None:
        """Every half at ``status`` (a memory about to open, or one that could not)."""
        self.halves = {half: status for half in HALVES}
        self._bridge.health_changed.emit(dict(self.halves))

    def from_answer(self, answer: ScourResult) -> None:
        """Each half's state as a scour answer says it."""
        self.set({GRAPH: answer.kg_error or OK, CHUNKS: answer.chunks_error or OK})

    async def refresh(self, memory: MemoryService) -> dict[str, str]:
        """Ask the service for its health report and take it."""
        halves = (await memory.health()).as_dict()
        self.set(halves)
        return halves

    def _start_polling(self) -> None:
        bridge = self._bridge
        if bridge.closing or bridge.memory is None:
            return
        if self._poller is None or self._poller.done():
            self._poller = bridge.spawn(self._poll_until_healthy())

    async def _poll_until_healthy(self) -> None:
        bridge = self._bridge
        while not bridge.closing:
            await asyncio.sleep(self.poll_interval)
            memory = bridge.memory
            if memory is None:
                return
            was_down = {half for half, status in self.halves.items() if status != OK}
            try:
                halves = await self.refresh(memory)
            except ExplorerError as exc:
                _log.info("health check failed: %s", exc)
                continue
            recovered = {half for half in was_down if halves.get(half) == OK}
            if recovered:
                bridge.rerun_after_recovery(sorted(recovered))
            if all(status == OK for status in halves.values()):
                return

    async def watch_servers(self, memory: MemoryService) -> None:
        """Every few seconds, have the memory restart an embedded server that died; its half
        shows ``restarting…`` and the health poll turns it green once it answers."""
        bridge = self._bridge
        while not bridge.closing and memory is bridge.memory:
            await asyncio.sleep(self.poll_interval * 1.5)
            try:
                changes = await memory.supervise()
            except ExplorerError as exc:
                _log.info("server watch failed: %s", exc)
                continue
            if changes:
                self.set(changes)

    async def act_on_store(self, memory: MemoryService, half: str, *, restart: bool) -> None:
        """Restart (or reconnect) one half's store; health follows."""
        bridge = self._bridge
        verb = "Restarting" if restart else "Reconnecting"
        self.set({half: f"{verb.lower()}…"})
        bridge.opening_progress.emit(f"{verb} the {'graph' if half == GRAPH else 'chunk'} store…")
        try:
            if restart:
                await memory.restart_half(half)
            else:
                await memory.reconnect_half(half)
        except ExplorerError as exc:
            self.set({half: str(exc)})
            bridge.error_occurred.emit(f"{verb} failed", str(exc))
            return
        await self.refresh(memory)
