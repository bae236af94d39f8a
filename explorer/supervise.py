"""Keeping an open memory's embedded servers alive: restart the dead, reconnect their stores.

``supervise(memory)`` is cheap enough to call every few seconds: it only looks at the server
processes. A server that died is started again (its append-only file or write-ahead log brings
the data back), with a backoff between failed attempts (0.5 s, doubling, at most 30 s), and the
stores on it are reconnected, since their pooled connections died with it. Meanwhile its half
reports ``restarting…``. ``reconnect_half`` and ``restart_half`` are the window's Reconnect and
Restart of one store. External stores are never touched: they are someone else's to run.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from explorer.core.errors import ExplorerError, StoreUnavailable

log = logging.getLogger(__name__)

SERVER_OF = {"graph": "falkordb", "chunks": "postgres"}
HALF_OF = {server: half for half, server in SERVER_OF.items()}
RESTARTING = "restarting…"
FIRST_DELAY = 0.5
MAX_DELAY = 30.0


def embedded_halves(memory: Any) -> list[str]:
    """The halves whose store is an embedded server of this memory."""
    settings = memory.settings
    if memory.servers is None:
        return []
    halves = []
    if settings.falkordb_url is None:
        halves.append("graph")
    if settings.postgres_dsn is None:
        halves.append("chunks")
    return halves


async def supervise(memory: Any) -> dict[str, str]:
    """Restart the embedded servers of ``memory`` that died; the halves being restarted, with
    what is happening (empty when every server runs). The restart runs in the background, so
    a caller learns at once that it is under way."""
    ours = [half for half in embedded_halves(memory) if half not in memory.acting]
    if not ours:
        return {}
    state: dict[str, Any] = memory.supervision
    running: asyncio.Task[dict[str, str]] | None = state.get("task")
    if running is not None:
        if not running.done():
            return {half: RESTARTING for half in state.get("halves", ())}
        del state["task"]
        failed = running.result()
        if failed:
            return failed
    dead = [HALF_OF[name] for name in await asyncio.to_thread(memory.servers.dead)]
    halves = [half for half in dead if half in ours]
    if not halves:
        state.clear()
        return {}
    if time.monotonic() < state.get("next_try", 0.0):
        return {half: f"{RESTARTING} {state.get('why', '')}".strip() for half in halves}
    state["halves"] = halves
    # The start runs in a thread nothing can stop: it is kept, so closing the memory waits
    # for it (and only for it), and shielded, so cancelling the restart leaves it whole.
    starting = state["starting"] = asyncio.ensure_future(asyncio.to_thread(memory.servers.revive))
    state["task"] = asyncio.ensure_future(_revive(memory, halves, starting))
    return {half: RESTARTING for half in halves}


async def _revive(memory: Any, halves: list[str], starting: asyncio.Future[Any]) -> dict[str, str]:
    """Start the dead servers and reconnect their stores; what failed, by half."""
    state: dict[str, Any] = memory.supervision
    attempt = int(state.get("attempts", 0)) + 1
    names = ", ".join(SERVER_OF[half] for half in halves)
    log.warning("embedded %s stopped; restarting (attempt %d)", names, attempt)
    try:
        await asyncio.shield(starting)
    except StoreUnavailable as error:
        failures = getattr(error, "failures", None) or {SERVER_OF[h]: str(error) for h in halves}
        failed = [half for half in halves if SERVER_OF[half] in failures]
        if failed:
            delay = min(MAX_DELAY, FIRST_DELAY * 2 ** (attempt - 1))
            reason = "; ".join(failures[SERVER_OF[half]] for half in failed)
            state.update(attempts=attempt, next_try=time.monotonic() + delay)
            state["why"] = f"(attempt {attempt} failed: {reason}; next in {delay:g} s)"
            log.warning("restarting %s failed: %s; next attempt in %g s", names, reason, delay)
            return {half: f"{RESTARTING} {state['why']}" for half in failed}
    for key in ("attempts", "next_try", "why"):
        state.pop(key, None)
    log.warning("embedded %s restarted", names)
    await reconnect_half(memory, *halves)
    return {}


async def reconnect_half(memory: Any, *halves: str) -> None:
    """Drop the stores of ``halves`` and connect them again (a pool whose server restarted
    holds only dead connections)."""
    closing: list[Any] = []
    if "graph" in halves:
        closing.append(memory.graph)
        memory.graph = None
        memory.errors["graph"] = "reconnecting"
    if "chunks" in halves:
        closing += [memory.chunks, memory.concepts, memory.journal]
        memory.chunks = memory.concepts = memory.journal = None
        memory.errors["chunks"] = "reconnecting"
    for store in closing:
        if store is not None:
            try:
                await store.aclose()
            except ExplorerError as error:
                log.info("closing a store of a restarted server: %s", error)
    await memory.connect()


async def restart_half(memory: Any, half: str) -> None:
    """Stop and start the embedded server of ``half``, then reconnect its stores; an external
    store is only reconnected."""
    if half in embedded_halves(memory):
        await asyncio.to_thread(memory.servers.restart, SERVER_OF[half])
    await reconnect_half(memory, half)
