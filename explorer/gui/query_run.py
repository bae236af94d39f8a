"""Running one query of the window against the memory service: the request, the answer, links.

Plain asyncio over ``core.ports.MemoryService`` (no Qt), used by the bridge: ``build_request``
turns the query bar's values into a ``ScourRequest``; ``scour_with_preview`` awaits the whole
answer, and when it is slow (a frozen graph half) asks for the chunks alone as well and hands
them to ``on_preview`` as soon as they arrive; ``links_for`` reads which entities each returned
chunk mentions and each entity's degree, for hover linking and "+N more". Imports asyncio, the
standard library, core and the GUI's request values.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable

from explorer.core.errors import ExplorerError
from explorer.core.models import DEFAULT_SCOPE
from explorer.core.ports import MemoryService
from explorer.core.scour import ScourRequest, ScourResult
from explorer.gui.requests import QueryParams

#: How long a query may take before its chunks are asked for (and shown) on their own.
PREVIEW_AFTER = 0.3


def build_request(memory: MemoryService, params: QueryParams) -> ScourRequest:
    """The scour request of the query bar's values (the memory's default scope if none)."""
    scope = params.scope or memory.settings.default_scope or DEFAULT_SCOPE
    return ScourRequest(
        query=params.query,
        n_chunks=params.n_chunks,
        kg_top_k=params.kg_top_k,
        domain=params.domain,
        temporal=params.temporal,
        scope=scope,
    )


async def scour_with_preview(
    memory: MemoryService,
    request: ScourRequest,
    on_preview: Callable[[ScourResult], None],
    *,
    after: float = PREVIEW_AFTER,
) -> ScourResult:
    """The whole answer; if it is not there within ``after`` seconds, the chunks alone are
    asked for as well and handed to ``on_preview`` (when they found something) as soon as they
    arrive, while the whole answer is still awaited."""
    full = asyncio.ensure_future(memory.scour(request))
    preview: asyncio.Future[ScourResult] | None = None
    try:
        if request.kg_top_k and request.n_chunks:
            done, _ = await asyncio.wait({full}, timeout=after)
            if not done:
                chunks_only = dataclasses.replace(request, kg_top_k=0)
                preview = asyncio.ensure_future(memory.scour(chunks_only))
                await asyncio.wait({full, preview}, return_when=asyncio.FIRST_COMPLETED)
                if preview.done() and not full.done():
                    _hand_over(preview, on_preview)
        return await full
    finally:
        for future in (full, preview):
            if future is not None and not future.done():
                future.cancel()


def _hand_over(
    preview: asyncio.Future[ScourResult], on_preview: Callable[[ScourResult], None]
) -> None:
    if preview.cancelled() or preview.exception() is not None:
        return
    answer = preview.result()
    if answer.failure is None and answer.chunks:
        on_preview(answer)


async def links_for(
    memory: MemoryService, answer: ScourResult, on_graph_error: Callable[[str], None]
) -> tuple[dict[str, list[str]], dict[str, int]]:
    """Which entities each returned chunk mentions, and the degree of each entity; a graph
    that fails here is reported to ``on_graph_error`` and leaves what was read so far."""
    links: dict[str, list[str]] = {}
    degrees: dict[str, int] = {}
    if answer.kg_error:
        return links, degrees
    chunk_ids = [m.id for m in answer.chunks]
    entity_ids = [m.id for m in answer.entities]
    try:
        if chunk_ids:
            links = await memory.entities_in_chunks(chunk_ids)
        if entity_ids:
            degrees = await memory.degree(entity_ids)
    except ExplorerError as exc:
        on_graph_error(str(exc))
    return links, degrees
